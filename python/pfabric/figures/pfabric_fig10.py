"""pFabric Figure 10: application throughput (fraction of deadline flows that meet their deadline) vs load.

Flows up to 200 KB carry deadlines of mean 100 us, 500 us or 1 ms (exponential, at least 1.25 x the ideal
FCT); web search and data mining; TCP, DCTCP, pFabric (remaining size) and pFabric-EDF (earliest deadline
first), and PDQ (Early Start, Early Termination) when the core has it. The paper publishes no single numbers for this figure; the check is its
claim that pFabric-EDF meets more deadlines than TCP and DCTCP.
"""

from __future__ import annotations

from pathlib import Path

from ..presets import Check
from . import _deadlines as d
from .common import LOAD, Done, line_panels, scheme_lines, series
from .figure import Figure


def plot(done: Done, out_dir: Path) -> list[Path]:
    panels = []
    for workload in ("web search", "data mining"):
        for setting in d.DEADLINE_MEANS_S:
            lines = scheme_lines(
                done, d.met_fraction, d.DEADLINE_SCHEMES, workload=workload, deadline=setting
            )
            panels.append(
                {
                    "title": f"{workload}, mean deadline {setting}",
                    "xlabel": LOAD,
                    "ylabel": "application throughput (fraction met)",
                    "lines": lines,
                    "ylim": (0, 1.02),
                }
            )
    return line_panels(
        out_dir, "application_throughput", panels, "Deadline-constrained traffic (Figure 10)", ncols=3
    )


def checks(done: Done) -> list[Check]:
    worst, where, count = 1.0, "", 0
    for workload in ("web search", "data mining"):
        for setting in d.DEADLINE_MEANS_S:
            xs, edf = series(
                done, "load", d.met_fraction, workload=workload, deadline=setting, scheme="pFabric-EDF"
            )
            for other in ("TCP", "DCTCP"):
                _, theirs = series(
                    done, "load", d.met_fraction, workload=workload, deadline=setting, scheme=other
                )
                for x, e, t in zip(xs, edf, theirs, strict=True):
                    count += 1
                    if e - t < worst:
                        worst, where = e - t, f"{workload}, {setting}, load {x}, vs {other}"
    return [
        Check(
            "pFabric-EDF meets at least as many deadlines as TCP and DCTCP everywhere",
            f"smallest margin {worst * 100:+.1f} points ({where}) over {count} comparisons",
            "pFabric-EDF above TCP and DCTCP",
            count > 0 and worst >= 0,
        )
    ]


def table(done: Done) -> list[dict]:
    rows = []
    for labels, result in done:
        deadlines = result.summary.get("deadlines") or {}
        rows.append(
            {
                **labels,
                "deadline_flows": deadlines.get("flows"),
                "met": deadlines.get("met"),
                "met_fraction": deadlines.get("met_fraction"),
                "unfinished": result.summary.get("flows_unfinished"),
            }
        )
    return rows


FIGURE = Figure(
    name="pfabric-fig10",
    paper="pFabric",
    title="Figure 10: application throughput for deadline-constrained traffic",
    shows="fraction of deadline flows meeting their deadline vs load, 3 deadline settings, both workloads: "
    "TCP, DCTCP, pFabric, pFabric-EDF, PDQ",
    schemes=("tcp", "dctcp", "pfabric", "pdq"),
    points=d.points,
    plot=plot,
    checks=checks,
    table=table,
    notes=(
        "PDQ runs when the core has it; `pfabric reproduce --list` names any scheme missing.",
        (
            "Loads 0.2/0.4/0.6/0.8 at 10,000 flows per run (quick: 0.2/0.6/0.8, 1,000 web search and 600 "
            "data mining flows); flows up to 200 KB have deadlines."
        ),
    ),
)
