"""The deadline sweep behind pFabric Figures 10 and 11 (section 5.4.2).

Flows up to 200 KB get a deadline: their start plus an exponential time of mean 100 us, 500 us or 1 ms,
never less than 1.25 x their ideal FCT. Application throughput is the fraction of those flows that finish by
their deadline (`summary["deadlines"]["met_fraction"]`). Figure 11 is the 60%-load slice of the same runs
(shared through the store), looking at the flows without deadlines.
"""

from __future__ import annotations

from typing import Any

from .common import SCHEMES, WORKLOADS, available, poisson

DEADLINE_MEANS_S = {"100us": 100e-6, "500us": 500e-6, "1ms": 1e-3}
MAX_DEADLINE_SIZE_BYTES = 200_000
LOADS = (0.2, 0.4, 0.6, 0.8)
LOADS_QUICK = (0.2, 0.6, 0.8)
FIG11_LOAD = 0.6
FLOWS = {"websearch": 10_000, "datamining": 10_000}
FLOWS_QUICK = {"websearch": 1_000, "datamining": 600}
DEADLINE_SCHEMES = ("TCP", "DCTCP", "pFabric", "pFabric-EDF", "PDQ")


def points(quick: bool, loads=None) -> list[tuple[dict[str, Any], Any]]:
    loads = loads or (LOADS_QUICK if quick else LOADS)
    flows = FLOWS_QUICK if quick else FLOWS
    out = []
    for name, cdf in WORKLOADS.items():
        for setting, mean_s in DEADLINE_MEANS_S.items():
            for load in loads:
                for scheme in DEADLINE_SCHEMES:
                    if not available(SCHEMES[scheme]):
                        continue
                    deadlines = {"mean_s": mean_s, "max_size_bytes": MAX_DEADLINE_SIZE_BYTES}
                    labels = {"workload": name, "deadline": setting, "load": load, "scheme": scheme}
                    out.append((labels, poisson(cdf, load, flows[cdf], SCHEMES[scheme], deadlines=deadlines)))
    return out


def met_fraction(result) -> float:
    deadlines = result.summary.get("deadlines") or {}
    value = deadlines.get("met_fraction")
    return float("nan") if value is None else float(value)
