"""The runs behind AIFO Figures 12 and 13: three flows of 100, 50 and 10 MB into one receiver at once.

Four hosts on one switch with 1 Gbps links (the paper's set-up), ranks = remaining flow size (SRPT), the
receiver logging every data packet of the three flows (`output.log_arrivals`: time, flow, index, rank).
Schedulers: FIFO (20 packets in arrival order, no admission control), PIFO, SP-PIFO, AIFO. Quick runs the
paper's sizes too: the 29 runs take seconds, and a tenth of the sizes shortens the flows but not AIFO's
start-up, which then dominates the overlaps that Figure 12 checks.

The hosts and queues are the authors' for these figures (netx-repo/AIFO @333c214, aifo_simulation/java-code,
core/run/MainFigure12_16.java): their `pfabric` socket, netbench's NewReno (`recovery = "newreno"`: the window
ends at the first unacknowledged packet plus cwnd, only the third duplicate ACK and partial ACKs resend,
opened by a handshake), and AIFO with a queue of 100 packets. The recovery decides the figure: under PIFO a
flow's own packets overtake each other (newer ones carry smaller ranks), and RFC 6675's SACK recovery reads
that reordering as loss, halves the medium flow's window again and again and lets the large flow through
(832 of its packets while the medium flow arrives, paper scale) where the authors' log shows none (ours with
their recovery: none).

Phases: which flow's packets slip into another's is chaotic in the exact start times (with the authors'
set-up, SP-PIFO's medium/large overlap is 11 with the three flows starting together and 299-563 in most other
phases), so the admitted-set check of Figure 12 runs `PHASES` start phases: phase 0 starts the three flows
together (the paper's run, the one plotted), phases 1.. start the medium and large flows up to
`PHASE_SPREAD_S` later, drawn from a fixed seed. FIFO runs phase 0 only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..scenario import Scenario
from . import _aifo
from .common import available

SIZES_BYTES = (100_000_000, 50_000_000, 10_000_000)
NAMES = {100_000_000: "large", 50_000_000: "medium", 10_000_000: "small"}
VARIANTS = {label: _aifo.SCHEMES[label] for label in ("FIFO", "PIFO", "SP-PIFO", "AIFO")}


# The authors' hosts for these figures (module docstring); AIFO's queue of 100 packets is theirs too.
AUTHORS_HOSTS, PACKET = _aifo.AUTHORS_HOSTS, _aifo.PACKET
VARIANTS["AIFO"] = {**VARIANTS["AIFO"], "capacity_pkts": 100}
PHASES = 8
PHASE_SPREAD_S = 50e-6  # about four packet times at 1 Gbps


def phase_starts(phase: int) -> list[float]:
    """Start times (s) of the large, medium and small flows in start phase `phase` (0: together)."""
    if phase == 0:
        return [0.0, 0.0, 0.0]
    draws = np.random.default_rng(phase).uniform(0, PHASE_SPREAD_S, 2)
    return [float(draws[0]), float(draws[1]), 0.0]


def points(quick: bool) -> list[tuple[dict[str, Any], Scenario]]:
    del quick  # the same runs at both scales (module docstring)
    sizes = list(SIZES_BYTES)
    out = []
    for label, scheme in VARIANTS.items():
        if not available(scheme):
            continue
        for phase in range(1 if label == "FIFO" else PHASES):
            data = {
                "topology": {"kind": "star", "hosts": 4, "host_rate_gbps": 1},
                "packet": PACKET,
                "workload": {
                    "kind": "fan-in",
                    "receiver": 0,
                    "sizes_bytes": sizes,
                    "starts_s": phase_starts(phase),
                },
                "scheme": {**scheme, **AUTHORS_HOSTS},
                "output": {"track_flows": len(sizes), "log_arrivals": True},
            }
            out.append(({"scheme": label, "phase": phase}, Scenario.from_dict(data)))
    return out


def first_phase(done):
    """The runs of phase 0 (the three flows starting together: the paper's run), one per scheme."""
    return [(labels, result) for labels, result in done if labels.get("phase", 0) == 0]


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
