"""AIFO Figure 16: testbed, TCP. As Figure 15 with TCP senders: a later flow has a lower (better) rank.

Paper (TCP Cubic): with FIFO the four flows converge to similar rates; with AIFO, and SP-PIFO, lower-rank
flows get more: flow 4 about 30 Gbps, flow 1 0.2-1 Gbps; AIFO is less aggressive than with UDP, since TCP's
rates move and the admission threshold moves with them. Simulated with TCP NewReno (the core has no Cubic)
and scaled down in time (`_testbed.py`). Checked, once all four flows are active: under AIFO and SP-PIFO
flow 4 gets more than flow 1, and more than half the link; under FIFO the flows share (Jain index >= 0.8).
Thresholds are ours.
"""

from __future__ import annotations

from ..presets import Check
from . import _testbed
from .common import Done, select

PUBLISHED = {"aifo_flow4_gbps": 30.0, "aifo_flow1_gbps": (0.2, 1.0)}


def checks(done: Done) -> list[Check]:
    out = []
    for scheme in ("AIFO", "SP-PIFO"):
        runs = select(done, scheme=scheme)
        if runs:
            g = _testbed.last_period_gbps(runs[0][1])
            out.append(
                Check(
                    f"{scheme}: the best-ranked flow gets the most, over half the link, once all are active",
                    f"flow 4 {g[3]:.1f} Gbps, flow 1 {g[0]:.1f} Gbps",
                    "flow 4 ~30 Gbps, flow 1 0.2-1 Gbps",
                    g[3] > g[0] and g[3] > 0.5 * _testbed.LINK_GBPS,
                )
            )
    out.append(
        _testbed.fifo_shares(done, "FIFO: the four TCP flows share (Jain index >= 0.8)", "similar rates", 0.8)
    )
    return [c for c in out if c]


FIGURE = _testbed.figure(
    16,
    host="tcp",
    senders="TCP",
    plot_title="AIFO Figure 16: TCP flows, fixed ranks",
    checks=checks,
    shows="throughput of four TCP flows starting one after another with fixed ranks: FIFO, SP-PIFO, AIFO",
    published=PUBLISHED,
    notes=(
        (
            "A hardware testbed experiment in the paper (TCP Cubic), simulated here with TCP NewReno and flows "
            "5 ms apart instead of 5 s; quick and paper scale are the same."
        ),
    ),
)
