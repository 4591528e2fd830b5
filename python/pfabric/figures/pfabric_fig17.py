"""pFabric Figure 17: a few strict-priority queues (2, 4, 8) against pFabric, web search.

Each port has N queues sharing a 225 KB buffer with 15 KB reserved per queue, flows split by size at the
section 6.1 model's optimal thresholds (chosen for each load automatically); (c) compares 4 queues with
optimal thresholds against the equal split of flows. Paper: the mean improves with more queues and nears
pFabric's with 8 but falls short; with 8 queues the small-flow p99 rises at high load (only 70 of 150
packets are shared); at 80% load the optimal thresholds cut the 4-queue mean by more than 30%.
The pFabric runs are Figure 7's (shared through the store).
"""

from __future__ import annotations

from pathlib import Path

from ..presets import Check
from .common import (
    LOAD,
    LOADS,
    LOADS_QUICK,
    NFCT,
    SCHEMES,
    SMALL,
    Done,
    bin_stat,
    fct_table,
    flows_for,
    line_panels,
    mean_nfct,
    poisson,
    scheme_lines,
    series,
)
from .figure import Figure

QUEUE_SCHEMES = {
    "2 queues": {"name": "prio-queues", "queues": 2},
    "4 queues": {"name": "prio-queues", "queues": 4},
    "8 queues": {"name": "prio-queues", "queues": 8},
    "4 queues, equal split": {"name": "prio-queues", "queues": 4, "thresholds_bytes": "equal-split"},
    "pFabric": SCHEMES["pFabric"],
}
PUBLISHED = {"optimal_over_equal_split_reduction_at_0.8": 0.30}


def points(quick: bool):
    loads = LOADS_QUICK if quick else LOADS
    flows = flows_for("websearch", quick)
    return [
        ({"workload": "web search", "load": load, "scheme": label}, poisson("websearch", load, flows, scheme))
        for load in loads
        for label, scheme in QUEUE_SCHEMES.items()
    ]


def small_p99(result) -> float:
    return bin_stat(result, SMALL, "p99_normalized_fct")


def plot(done: Done, out_dir: Path) -> list[Path]:
    main = ("2 queues", "4 queues", "8 queues", "pFabric")
    panels = [
        {
            "title": "(a) overall: average",
            "xlabel": LOAD,
            "ylabel": f"mean {NFCT}",
            "lines": scheme_lines(done, mean_nfct, main),
        },
        {
            "title": "(b) (0, 100KB]: 99th percentile",
            "xlabel": LOAD,
            "ylabel": NFCT,
            "lines": scheme_lines(done, small_p99, main),
        },
        {
            "title": "(c) 4 queues: optimal vs equal-split thresholds",
            "xlabel": LOAD,
            "ylabel": f"mean {NFCT}",
            "lines": scheme_lines(done, mean_nfct, ("4 queues", "4 queues, equal split")),
        },
    ]
    return line_panels(
        out_dir, "priority_queues", panels, "A few priority queues vs pFabric, web search (Figure 17)"
    )


def checks(done: Done) -> list[Check]:
    xs, _ = series(done, "load", mean_nfct, scheme="2 queues")
    if not xs:
        return []
    top = xs[-1]
    at = {label: series(done, "load", mean_nfct, scheme=label)[1][-1] for label in QUEUE_SCHEMES}
    p99 = {label: series(done, "load", small_p99, scheme=label)[1][-1] for label in ("4 queues", "8 queues")}
    _, eight = series(done, "load", mean_nfct, scheme="8 queues")
    _, pf = series(done, "load", mean_nfct, scheme="pFabric")
    reduction = 1 - at["4 queues"] / at["4 queues, equal split"]
    return [
        Check(
            f"the mean improves with more queues (load {top})",
            f"2: {at['2 queues']:.2f}, 4: {at['4 queues']:.2f}, 8: {at['8 queues']:.2f}",
            "2 > 4 > 8",
            at["2 queues"] >= at["4 queues"] >= at["8 queues"],
        ),
        Check(
            "8 queues near pFabric but short of it (at every load)",
            f"8 queues / pFabric from {min(e / p for e, p in zip(eight, pf, strict=True)):.2f} "
            f"to {max(e / p for e, p in zip(eight, pf, strict=True)):.2f}",
            "approaches, falls short",
            all(e >= p for e, p in zip(eight, pf, strict=True)),
        ),
        Check(
            f"with 8 queues the small-flow p99 rises above 4 queues' at load {top}",
            f"8: {p99['8 queues']:.2f}, 4: {p99['4 queues']:.2f}",
            "significant increase with 8 queues",
            p99["8 queues"] > p99["4 queues"],
        ),
        Check(
            f"optimal thresholds cut the 4-queue mean by more than 30% vs equal split (load {top})",
            f"{reduction * 100:.1f}%",
            "more than 30% at 80% load",
            reduction > PUBLISHED["optimal_over_equal_split_reduction_at_0.8"],
        ),
    ]


FIGURE = Figure(
    name="pfabric-fig17",
    paper="pFabric",
    title="Figure 17: a few priority queues vs pFabric",
    shows="web search: mean and small-flow p99 normalized FCT vs load for 2/4/8 strict-priority queues "
    "(model-optimal thresholds) and pFabric; 4 queues optimal vs equal-split thresholds",
    schemes=("prio-queues", "pfabric"),
    points=points,
    plot=plot,
    checks=checks,
    table=fct_table,
    published=PUBLISHED,
    notes=(
        "Thresholds are the section 6.1 model's optimum for each load (scheme.thresholds_bytes = optimal).",
        "The pFabric runs are Figure 7's, shared through the store.",
    ),
)
