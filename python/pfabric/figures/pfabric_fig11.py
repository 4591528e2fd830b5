"""pFabric Figure 11: average normalized FCT of the flows without deadlines, at 60% load.

The 60%-load runs of Figure 10 (shared through the store), looking at the flows above 200 KB, which carry no
deadline. Paper: pFabric has the lowest average FCT for them; pFabric-EDF is slightly worse, since it gives
deadline traffic strict priority. PDQ is included when the core has it.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from ..plots import _pyplot
from ..presets import Check
from . import _deadlines as d
from .common import NFCT, Done, flows_stat, save_figure, select
from .figure import Figure


def no_deadline_mean(result) -> float:
    return flows_stat(result, lambda f: f.column("deadline_ps").to_numpy() == 0)


def points(quick: bool):
    return d.points(quick, loads=(d.FIG11_LOAD,))


def plot(done: Done, out_dir: Path) -> list[Path]:
    plt = _pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    settings = list(d.DEADLINE_MEANS_S)
    schemes = [s for s in d.DEADLINE_SCHEMES if select(done, scheme=s)]
    width = 0.8 / max(1, len(schemes))
    for ax, letter, workload in zip(axes, "ab", ("web search", "data mining"), strict=True):
        for i, scheme in enumerate(schemes):
            ys = []
            for setting in settings:
                runs = select(done, workload=workload, deadline=setting, scheme=scheme)
                ys.append(no_deadline_mean(runs[0][1]) if runs else np.nan)
            ax.bar(np.arange(len(settings)) + i * width, ys, width, label=scheme)
        ax.set_xticks(np.arange(len(settings)) + width * (len(schemes) - 1) / 2, settings)
        ax.set_xlabel("mean deadline of the deadline flows")
        ax.set_ylabel(f"mean {NFCT}")
        ax.set_title(
            f"({letter}) {workload}, flows without deadlines, load {d.FIG11_LOAD}", fontsize="medium"
        )
        ax.legend(fontsize="x-small")
    return save_figure(fig, out_dir, "non_deadline_fct")


def checks(done: Done) -> list[Check]:
    lowest, edf_worse, cases = 0, 0, 0
    for workload in ("web search", "data mining"):
        for setting in d.DEADLINE_MEANS_S:
            means = {
                s: no_deadline_mean(r)
                for l, r in select(done, workload=workload, deadline=setting)
                for s in [l["scheme"]]
            }
            if "pFabric" not in means:
                continue
            cases += 1
            lowest += all(means["pFabric"] <= v for v in means.values() if not math.isnan(v))
            edf_worse += means.get("pFabric-EDF", np.inf) >= means["pFabric"]
    return [
        Check(
            "pFabric has the lowest mean FCT for flows without deadlines",
            f"in {lowest} of {cases} cases",
            "lowest",
            cases > 0 and lowest == cases,
        ),
        Check(
            "pFabric-EDF is worse than pFabric for flows without deadlines",
            f"in {edf_worse} of {cases} cases",
            "slightly worse",
            cases > 0 and edf_worse == cases,
        ),
    ]


def table(done: Done) -> list[dict]:
    return [
        {**labels, "no_deadline_mean_normalized_fct": round(no_deadline_mean(result), 4)}
        for labels, result in done
    ]


FIGURE = Figure(
    name="pfabric-fig11",
    paper="pFabric",
    title="Figure 11: average FCT of non-deadline traffic at 60% load",
    shows="mean normalized FCT of flows without deadlines at load 0.6, per deadline setting, both workloads",
    schemes=("tcp", "dctcp", "pfabric", "pdq"),
    points=points,
    plot=plot,
    checks=checks,
    table=table,
    notes=("Shares Figure 10's 60%-load runs through the store.",),
)
