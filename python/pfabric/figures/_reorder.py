"""The runs behind AIFO Figures 12 and 13: three flows of 100, 50 and 10 MB into one receiver at once.

Four hosts on one switch with 1 Gbps links (the paper's set-up), ranks = remaining flow size (SRPT), the
receiver logging every data packet of the three flows (`output.log_arrivals`: time, flow, index, rank).
Schedulers: FIFO (20 packets in arrival order, no admission control), PIFO, SP-PIFO, AIFO. Quick divides
the sizes by 10. Like the `aifo-reordering` preset, with the paper's 1 Gbps links and FIFO added.
"""

from __future__ import annotations

from typing import Any

from ..scenario import Scenario
from . import _aifo
from .common import available

SIZES_BYTES = (100_000_000, 50_000_000, 10_000_000)
NAMES = {100_000_000: "large", 50_000_000: "medium", 10_000_000: "small"}
VARIANTS = {label: _aifo.SCHEMES[label] for label in ("FIFO", "PIFO", "SP-PIFO", "AIFO")}


def points(quick: bool) -> list[tuple[dict[str, Any], Scenario]]:
    sizes = [s // 10 for s in SIZES_BYTES] if quick else list(SIZES_BYTES)
    out = []
    for label, scheme in VARIANTS.items():
        if not available(scheme):
            continue
        data = {
            "topology": {"kind": "star", "hosts": 4, "host_rate_gbps": 1},
            "workload": {"kind": "fan-in", "receiver": 0, "sizes_bytes": sizes},
            "scheme": scheme,
            "output": {"track_flows": len(sizes), "log_arrivals": True},
        }
        out.append(({"scheme": label}, Scenario.from_dict(data)))
    return out


def flow_names(result) -> dict[int, str]:
    """flow id -> small / medium / large (by size rank, so quick's smaller sizes name the same way)."""
    ids = result.flows.column("flow_id").to_pylist()
    sizes = result.flows.column("size_bytes").to_pylist()
    order = sorted(range(len(ids)), key=lambda i: sizes[i])
    return {ids[i]: name for i, name in zip(order, ("small", "medium", "large"), strict=False)}


def small_flow_fct_s(result) -> float:
    sizes = result.flows.column("size_bytes").to_pylist()
    fct = result.flows.column("fct_s").to_pylist()
    return float(fct[sizes.index(min(sizes))])
