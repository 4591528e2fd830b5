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

from functools import partial
from pathlib import Path

from ..presets import Check
from . import _testbed
from .common import Done, select
from .figure import Figure


def plot(done: Done, out_dir: Path) -> list[Path]:
    return _testbed.plot(done, out_dir, "AIFO Figure 15: constant-rate (UDP-like) flows, fixed ranks")


def checks(done: Done) -> list[Check]:
    out = [c for c in (_testbed.newest_takes_the_link(done, s, 0.8) for s in ("AIFO", "SP-PIFO")) if c]
    fifo = select(done, scheme="FIFO")
    if fifo:
        last = _testbed.last_period_gbps(fifo[0][1])
        index = _testbed.jain(last)
        out.append(
            Check(
                "FIFO: the four flows converge to the same rate (Jain index >= 0.9)",
                f"Jain {index:.2f}; " + ", ".join(f"{g:.1f}" for g in last) + " Gbps",
                "same rate",
                index >= 0.9,
            )
        )
    return out


FIGURE = Figure(
    name="aifo-fig15",
    paper="AIFO",
    title="AIFO Figure 15: testbed, UDP",
    shows="throughput of four constant-rate flows starting one after another with fixed ranks: FIFO, SP-PIFO, AIFO",
    schemes=("pifo", "sp-pifo", "aifo"),
    points=partial(_testbed.points, "constant-rate"),
    plot=plot,
    checks=checks,
    table=_testbed.rows,
    notes=(
        (
            "A hardware testbed experiment in the paper, simulated here with flows 5 ms apart instead of 5 s; "
            "quick and paper scale are the same."
        ),
    ),
)
