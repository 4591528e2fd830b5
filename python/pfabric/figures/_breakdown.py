"""Figures 8 and 9 are Figure 7's runs broken down by flow size, one workload each.

Why shared: the two figures differ only in the workload, and both reuse Figure 7's runs through the store
(no new simulation when Figure 7 ran first). Panels as in the paper: (0,100KB] average and 99th percentile,
(100KB,10MB] average, (10MB,inf) average. The paper's claim checked: pFabric gives small flows the lowest
average and tail FCT at every load (PDQ too, when the core has it). `figure(number, workload)` makes either.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from ..presets import Check
from .common import (
    LARGE,
    LOAD,
    MEDIUM,
    NFCT,
    SMALL,
    Done,
    always_below,
    bin_stat,
    fct_points,
    fct_table,
    line_panels,
    scheme_lines,
    select,
)
from .figure import Figure
from .pfabric_fig7 import SCHEMES

PANELS = (
    ("(a) (0, 100KB]: average", SMALL, "mean_normalized_fct"),
    ("(b) (0, 100KB]: 99th percentile", SMALL, "p99_normalized_fct"),
    ("(c) (100KB, 10MB]: average", MEDIUM, "mean_normalized_fct"),
    ("(d) (10MB, inf): average", LARGE, "mean_normalized_fct"),
)


def points(workload: str, quick: bool):
    return fct_points(quick, SCHEMES, workloads=[workload])


def plot(workload: str, number: int, done: Done, out_dir: Path) -> list[Path]:
    panels = []
    for title, label, stat in PANELS:
        metric = partial(bin_stat, label=label, stat=stat)
        panels.append(
            {
                "title": title,
                "xlabel": LOAD,
                "ylabel": NFCT,
                "lines": scheme_lines(done, lambda r, m=metric: m(r), SCHEMES, workload=workload),
                "logy": stat.startswith("p99"),
            }
        )
    return line_panels(
        out_dir, "fct_by_size", panels, f"{workload}: normalized FCT by flow size (Figure {number})", ncols=4
    )


def checks(workload: str, done: Done) -> list[Check]:
    out = []
    others = [s for s in ("TCP", "DCTCP", "PDQ") if select(done, workload=workload, scheme=s)]
    for what, stat in (("small-flow mean", "mean_normalized_fct"), ("small-flow p99", "p99_normalized_fct")):
        out.append(
            always_below(
                done,
                lambda r, s=stat: bin_stat(r, SMALL, s),
                "pFabric",
                others,
                f"{what} normalized FCT",
                workload=workload,
            )
        )
    return out


def figure(number: int, workload: str) -> Figure:
    """pFabric Figure `number`: Figure 7's runs of `workload` broken down by flow size."""
    return Figure(
        name=f"pfabric-fig{number}",
        paper="pFabric",
        title=f"Figure {number}: {workload}, normalized FCT by flow size",
        shows=f"{workload}: (0,100KB] mean and p99, (100KB,10MB] mean, (10MB,inf) mean vs load; "
        "TCP, DCTCP, pFabric, PDQ, Ideal",
        schemes=("tcp", "dctcp", "pfabric", "pdq", "ideal"),
        points=partial(points, workload),
        plot=partial(plot, workload, number),
        checks=partial(checks, workload),
        table=fct_table,
        notes=("Shares Figure 7's runs through the store; PDQ runs when the core has it.",),
    )
