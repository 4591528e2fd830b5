"""AIFO Figure 7: FCT vs load, web search: TCP, DCTCP, PIFO, SP-PIFO and AIFO (SRPT ranks).

Paper: AIFO comes close to PIFO and SP-PIFO with a single FIFO queue; as the load grows its FCT does not go
up as TCP's or DCTCP's do, and the gap between AIFO and PIFO/SP-PIFO narrows. Checked here: AIFO's
small-flow mean below TCP's and DCTCP's at every load, its growth from the lowest to the highest load
smaller than theirs, and its ratio to PIFO smaller at the highest load than at the lowest.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from ..presets import Check
from . import _aifo
from .common import Done
from .figure import Figure

VARIANTS = {
    label: _aifo.SCHEMES[label] for label in ("TCP", "DCTCP", "PIFO", "SP-PIFO", "AIFO", "DCTCP (IW 30)")
}


def checks(done: Done) -> list[Check]:
    out = _aifo.lower_than_each(done, "AIFO", ("TCP", "DCTCP"))
    growth = {}
    for label in ("AIFO", "TCP", "DCTCP"):
        xs, ys = _aifo.values(done, label, _aifo.small_mean_ms)
        if len(xs) >= 2:
            growth[label] = ys[-1] / ys[0]
    if len(growth) == 3:
        out.append(
            Check(
                "AIFO's small-flow FCT grows less with the load than TCP's and DCTCP's",
                ", ".join(f"{k} x{v:.2f}" for k, v in growth.items()) + " (lowest to highest load)",
                "does not go up as TCP or DCTCP does",
                growth["AIFO"] < min(growth["TCP"], growth["DCTCP"]),
            )
        )
    xs, aifo = _aifo.values(done, "AIFO", _aifo.small_mean_ms)
    _, pifo = _aifo.values(done, "PIFO", _aifo.small_mean_ms)
    if len(xs) >= 2 and len(pifo) == len(xs):
        low, high = aifo[0] / pifo[0], aifo[-1] / pifo[-1]
        out.append(
            Check(
                "the gap between AIFO and PIFO narrows as the load grows",
                f"AIFO / PIFO small-flow mean: {low:.2f} at load {xs[0]}, {high:.2f} at {xs[-1]}",
                "gap gets smaller",
                high < low,
            )
        )
    return out


def fct_vs_load_figure(
    name: str,
    setting: str,
    workload: tuple[str, str] = (_aifo.WORKLOAD, _aifo.CDF),
    topology: dict | None = None,
) -> Figure:
    """Figure 7's sweep and checks on a `workload` (label, packaged CDF) and leaf-spine `topology` (None: the
    10/40 Gbps fabric), described as `setting` ("web search")."""
    title = f"AIFO Figure 7: FCT vs load, {setting}"

    def plot(done: Done, out_dir: Path) -> list[Path]:
        return _aifo.plot_fct(done, out_dir, "fct_vs_load", f"{title}, SRPT ranks", list(VARIANTS))

    return Figure(
        name=name,
        paper="AIFO",
        title=title,
        shows=f"{setting}: small-flow mean and p99 FCT and large-flow mean FCT vs load: TCP, DCTCP, PIFO, "
        "SP-PIFO, AIFO",
        schemes=("tcp", "dctcp", "pifo", "sp-pifo", "aifo"),
        points=partial(_aifo.points, variants=VARIANTS, topology=topology, workload=workload),
        plot=plot,
        checks=checks,
        table=_aifo.rows,
        notes=(
            (
                "Loads 0.2-0.8 and 20,000 flows per run (quick: 0.3/0.5/0.7, 2,000 flows) are our choice; the "
                "paper's exact loads and run lengths are not in the seed text."
            ),
            (
                "DCTCP (IW 30) is not in the paper: DCTCP with the schedulers' 30-segment initial window, which "
                "shows how much of the gap to DCTCP comes from the hosts rather than the scheduler."
            ),
        ),
    )


FIGURE = fct_vs_load_figure("aifo-fig7", "web search")
