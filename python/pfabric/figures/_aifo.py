"""The AIFO paper's simulation set-up (SIGCOMM 2021, section 5.1) and what its FCT figures share.

Leaf-spine of 144 hosts at 10/40 Gbps (the pFabric fabric; Figure 10 uses 1/4 Gbps), web search flow sizes
as the AIFO and SP-PIFO code samples them (netbench's pFabric web search "lower bound", a step CDF), Poisson
arrivals. TCP and DCTCP use 146 KB buffers and DCTCP marks at 14.6 KB; PIFO (80 packets), SP-PIFO (8 x 10
packets), AIFO (20 packets, window 20, one sample per 15 arrivals, k = 0.1), PIEO and AFQ keep the core's
paper defaults (DESIGN section 4) over TCP NewReno hosts; ranks are SRPT (remaining unsent bytes) unless a
figure says STFQ. Results in the AIFO paper's bins, flows under 100 KB and of 1 MB or more, FCT in ms.

A variant runs only if the core has its scheme and accepts its parameters (`common.available`): a figure never
runs a stand-in for a scheme the core lacks, and it says which are missing.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from ..presets import Check
from .common import Done, available, flows_stat, line_panels, poisson, series, sizes

CDF = "websearch_netbench_lowerbound_discrete"
LOADS = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
LOADS_QUICK = (0.3, 0.5, 0.7)
FLOWS, FLOWS_QUICK = 20_000, 2_000
WORKLOAD = "web search (netbench lower bound)"
SCHEMES: dict[str, dict[str, Any]] = {
    "TCP": {"name": "tcp", "queue_bytes": 146_000},
    "DCTCP": {"name": "dctcp", "queue_bytes": 146_000, "ecn_threshold_bytes": 14_600},
    "PIFO": {"name": "pifo"},
    "SP-PIFO": {"name": "sp-pifo"},
    "AIFO": {"name": "aifo"},
    # A FIFO of AIFO's size without admission control: a PIFO whose rank is the arrival order.
    "FIFO": {"name": "pifo", "rank": "fifo", "capacity_pkts": 20},
}
SMALL_BYTES, LARGE_BYTES = 100_000, 1_000_000
LOAD_LABEL = "load (fraction of host link capacity)"


def points(
    quick: bool,
    variants: dict[str, dict[str, Any]],
    topology: dict | None = None,
    loads: Sequence[float] = (),
) -> list[tuple[dict[str, Any], Any]]:
    """Every (load, variant) the core can run, on the AIFO set-up (optionally another topology)."""
    loads = loads or (LOADS_QUICK if quick else LOADS)
    flows = FLOWS_QUICK if quick else FLOWS
    out = []
    for load in loads:
        for label, scheme in variants.items():
            if not available(scheme):
                continue
            scenario = poisson(CDF, load, flows, scheme)
            if topology:
                scenario = scenario.with_values({f"topology.{k}": v for k, v in topology.items()})
            out.append(({"workload": WORKLOAD, "load": load, "scheme": label}, scenario))
    return out


def small_mean_ms(result) -> float:
    return flows_stat(result, lambda f: sizes(f) < SMALL_BYTES, "mean", "fct_s") * 1e3


def small_p99_ms(result) -> float:
    return flows_stat(result, lambda f: sizes(f) < SMALL_BYTES, "p99", "fct_s") * 1e3


def large_mean_ms(result) -> float:
    return flows_stat(result, lambda f: sizes(f) >= LARGE_BYTES, "mean", "fct_s") * 1e3


def medium_mean_ms(result) -> float:
    return (
        flows_stat(result, lambda f: (sizes(f) >= SMALL_BYTES) & (sizes(f) < LARGE_BYTES), "mean", "fct_s")
        * 1e3
    )


PANELS: tuple[tuple[str, Callable], ...] = (
    ("(a) < 100 KB: average", small_mean_ms),
    ("(b) < 100 KB: 99th percentile", small_p99_ms),
    ("(c) >= 1 MB: average", large_mean_ms),
)


def plot_fct(done: Done, out_dir, stem: str, title: str, labels: Sequence[str], panels=PANELS) -> list:
    """The AIFO paper's FCT panels vs load, one line per variant that ran."""
    drawn = []
    for panel_title, metric in panels:
        lines = []
        for label in labels:
            xs, ys = series(done, "load", metric, scheme=label)
            if xs:
                lines.append((label, xs, ys))
        drawn.append({"title": panel_title, "xlabel": LOAD_LABEL, "ylabel": "FCT (ms)", "lines": lines})
    return line_panels(out_dir, stem, drawn, title)


def rows(done: Done) -> list[dict]:
    return [
        {
            **labels,
            "small_mean_fct_ms": _r(small_mean_ms(r)),
            "small_p99_fct_ms": _r(small_p99_ms(r)),
            "medium_mean_fct_ms": _r(medium_mean_ms(r)),
            "large_mean_fct_ms": _r(large_mean_ms(r)),
            "unfinished": r.summary.get("flows_unfinished"),
        }
        for labels, r in done
    ]


def _r(value: float) -> float | None:
    return None if math.isnan(value) else round(value, 5)


def values(done: Done, label: str, metric: Callable) -> tuple[list, list]:
    return series(done, "load", metric, scheme=label)


def lower_everywhere(done: Done, better: str, worse: str, metric: Callable, what: str) -> Check | None:
    """Check: `better` has a lower `metric` than `worse` at every load (None if either did not run)."""
    xs, a = values(done, better, metric)
    _, b = values(done, worse, metric)
    if not xs or len(a) != len(b):
        return None
    ratios = [y / x for x, y in zip(a, b, strict=True)]
    return Check(
        f"{better} has a lower {what} than {worse} at every load",
        f"{worse} / {better} from {min(ratios):.2f} to {max(ratios):.2f}",
        f"{better} lower",
        all(r > 1 for r in ratios),
    )
