"""AIFO Figure 11: AIFO's queue length on a 10G/40G network (access 10 Gbps, leaf-spine 40 Gbps).

Paper: on 10G/40G, q_len = 20 is close to q_len = 100. Checked: small-flow means within 25% at every load (our tolerance for "close").
Queue lengths 20, 50 and 100 packets (the paper's values beyond 20 and 100 are not in the seed text).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from ..presets import Check
from . import _aifo
from .common import Done
from .figure import Figure

QUEUE_PKTS = (20, 50, 100)
VARIANTS = {f"AIFO q_len={q}": {"name": "aifo", "capacity_pkts": q} for q in QUEUE_PKTS}
# On slow links a long queue costs queueing delay; on fast ones it barely matters.
SLOW_LINKS = False
TOPOLOGY = {"host_rate_gbps": 10, "core_rate_gbps": 40}


def plot(done: Done, out_dir: Path) -> list[Path]:
    return _aifo.plot_fct(
        done, out_dir, "queue_length", "AIFO Figure 11: queue length, 10G/40G", list(VARIANTS)
    )


def checks(done: Done) -> list[Check]:
    xs, short = _aifo.values(done, "AIFO q_len=20", _aifo.small_mean_ms)
    _, long = _aifo.values(done, "AIFO q_len=100", _aifo.small_mean_ms)
    if not xs or len(long) != len(xs):
        return []
    ratios = [s / l for s, l in zip(short, long, strict=True)]
    shown = f"q_len 20 / q_len 100 small-flow mean from {min(ratios):.2f} to {max(ratios):.2f}"
    if SLOW_LINKS:
        return [
            Check(
                "on 1G/4G a queue of 20 beats a queue of 100 for small flows at every load",
                shown,
                "much smaller with q_len = 20",
                all(r < 1 for r in ratios),
            )
        ]
    return [
        Check(
            "on 10G/40G a queue of 20 is close to a queue of 100 (within 25%) at every load",
            shown,
            "close",
            all(abs(r - 1) <= 0.25 for r in ratios),
        )
    ]


FIGURE = Figure(
    name="aifo-fig11",
    paper="AIFO",
    title="AIFO Figure 11: queue length, 10G/40G",
    shows="FCT vs load for AIFO with queues of 20, 50 and 100 packets on a 10G/40G leaf-spine",
    schemes=("aifo",),
    points=partial(_aifo.points, variants=VARIANTS, topology=TOPOLOGY),
    plot=plot,
    checks=checks,
    table=_aifo.rows,
    notes=("Queue lengths 20/50/100 packets; the paper's full set is not in the seed text.",),
)
