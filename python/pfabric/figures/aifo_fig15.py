"""AIFO Figure 15: testbed, UDP. Four constant-rate flows start one after another, a later flow with a
lower (better) rank; throughput per flow over time under FIFO, SP-PIFO and AIFO.

Paper: with FIFO the four flows converge to the same rate; with AIFO (as with SP-PIFO) each new flow takes
nearly all the bandwidth and the older flows drop to almost zero. Simulated scaled down in time
(`_testbed.py`). Checked: under AIFO and SP-PIFO the newest flow gets at least 80% of the delivered
throughput in its period; under FIFO the four flows share fairly once all are active (Jain index >= 0.9).
The thresholds are ours: the paper shows the curves only. Seen here: identical, perfectly regular
constant-rate senders phase-lock at a tail-drop FIFO (whichever flow's packets arrive just after each
departure keep the queue), so the FIFO check fails where the testbed's jitter lets the flows share.
"""

from __future__ import annotations

from ..presets import Check
from . import _testbed
from .common import Done


def checks(done: Done) -> list[Check]:
    found = [_testbed.newest_takes_the_link(done, s, 0.8) for s in ("AIFO", "SP-PIFO")]
    found.append(
        _testbed.fifo_shares(
            done, "FIFO: the four flows converge to the same rate (Jain index >= 0.9)", "same rate", 0.9
        )
    )
    return [c for c in found if c]


FIGURE = _testbed.figure(
    15,
    host="constant-rate",
    senders="UDP",
    plot_title="AIFO Figure 15: constant-rate (UDP-like) flows, fixed ranks",
    checks=checks,
    shows="throughput of four constant-rate flows starting one after another with fixed ranks: FIFO, SP-PIFO, AIFO",
    notes=(
        (
            "A hardware testbed experiment in the paper, simulated here with flows 5 ms apart instead of 5 s; "
            "quick and paper scale are the same."
        ),
    ),
)
