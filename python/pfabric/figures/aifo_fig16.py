"""AIFO Figure 16: testbed, TCP. As Figure 15 with TCP senders: a later flow has a lower (better) rank.

Paper (section 5.2, "TCP", TCP Cubic): "In the beginning, Flow 1 reaches around 34Gbps as it occupies the
entire link"; with FIFO "the four flows converge to a similar rate"; with AIFO "lower-rank flows get higher
throughput: Flow 4 gets the highest throughput at about 30Gbps, while Flow 1 gets the lowest throughput at
200Mbps-1Gbps. SP-PIFO also delivers a similar result", and "the high-rank TCP flows can still get about
3Gbps-5Gbps throughput" where the UDP ones get close to 0. Simulated with TCP NewReno (the core has no Cubic;
the AIFO authors' simulation hosts: a window capped at 44 packets, no RTO floor) and scaled down in time
(`_testbed.py`); FIFO is the testbed's deep queue (`_testbed.FIFO_PKTS`), AIFO samples every arrival.

Checked: flow 1 alone takes the link (at least the testbed's 34 Gbps); under AIFO and SP-PIFO flow 4 gets
the most once all are active, over half the link; under AIFO flow 1 gets 0.2-1 Gbps and flows 2 and 3 get
3-5 Gbps (the text's ranges, widened by 10% for its "about"); under FIFO the four flows' Jain index is at
least 0.9 ("a similar rate"; the text gives no number and the figure's curves are not in our seed text).

How much a high-rank TCP flow keeps under AIFO depends on how full the queue is against its capacity C (AIFO
admits a rank below the window's (1/(1-k)) x (C - queue)/C quantile): `QUEUE_RUNS` repeat AIFO with queues of
100 packets and of the testbed's 2 MB (25,000 80-byte cells, aifo_switch/p4src/aifo.p4
`subtract(meta.queue_length, 25000, ...)`, 1333 packets), and the two range checks state what each gives.
"""

from __future__ import annotations

from ..presets import Check
from . import _testbed
from .common import Done, select

PUBLISHED = {
    "flow1_alone_gbps": 34.0,
    "aifo_flow4_gbps": 30.0,
    "aifo_flow1_gbps": (0.2, 1.0),
    "aifo_high_rank_gbps": (3.0, 5.0),
}
HOSTS = {"host": "tcp"}
AIFO = _testbed.VARIANTS["AIFO"]
QUEUE_RUNS = {
    "AIFO, queue 100": {**AIFO, "capacity_pkts": 100},
    "AIFO, queue 1333 (the testbed's 2 MB)": {**AIFO, "capacity_pkts": 1333},
}
ABOUT = 0.10  # the text's "about" and "around": its ranges widened by 10% either way
SIMILAR_RATE = 0.9


def alone(done: Done) -> Check | None:
    """Flow 1, alone in the first period, under every scheduler."""
    got = {
        label: _testbed.period_gbps(runs[0][1], 0)[0]
        for label in _testbed.VARIANTS
        if (runs := select(done, scheme=label))
    }
    if not got:
        return None
    least = PUBLISHED["flow1_alone_gbps"]
    return Check(
        f"flow 1 alone occupies the link (at least the testbed's {least:g} Gbps of {_testbed.LINK_GBPS:g})",
        ", ".join(f"{k} {v:.1f}" for k, v in got.items()) + " Gbps",
        f"around {least:g} Gbps, the entire link",
        min(got.values()) >= least,
    )


def best_gets_most(done: Done, scheme: str) -> Check | None:
    runs = select(done, scheme=scheme)
    if not runs:
        return None
    g = _testbed.last_period_gbps(runs[0][1])
    return Check(
        f"{scheme}: the best-ranked flow gets the most, over half the link, once all are active",
        f"flow 4 {g[3]:.1f} Gbps, flows 1-3 " + ", ".join(f"{x:.1f}" for x in g[:3]),
        "flow 4 the highest, about 30 Gbps",
        g[3] == max(g) and g[3] > 0.5 * _testbed.LINK_GBPS,
    )


def in_range(done: Done, flows: tuple[int, ...], key: str, what: str) -> Check | None:
    """Check: under AIFO, once all are active, each of `flows` (0-based) gets the published range `key`
    (widened by `ABOUT`); explained by `QUEUE_RUNS` when AIFO's queue length brackets the range."""
    runs = select(done, scheme="AIFO")
    if not runs:
        return None
    lo, hi = PUBLISHED[key]
    lo, hi = lo * (1 - ABOUT), hi * (1 + ABOUT)
    got = [_testbed.last_period_gbps(runs[0][1])[f] for f in flows]
    names = ", ".join(f"flow {f + 1}" for f in flows)
    check = Check(
        f"AIFO: {what} once all are active ({lo:.2g}-{hi:.2g} Gbps)",
        f"{names}: " + ", ".join(f"{g:.2f}" for g in got) + " Gbps",
        f"{PUBLISHED[key][0]:g}-{PUBLISHED[key][1]:g} Gbps",
        all(lo <= g <= hi for g in got),
    )
    if check.passed:
        return check
    swept = {"queue 20": got}
    for label in QUEUE_RUNS:
        if other := select(done, scheme=label):
            swept[label.removeprefix("AIFO, ")] = [_testbed.last_period_gbps(other[0][1])[f] for f in flows]
    lows = [min(v) for v in swept.values()]
    highs = [max(v) for v in swept.values()]
    if len(swept) < 2 or not (min(lows) <= lo and max(highs) >= hi):
        return check
    shown = "; ".join(f"{k}: " + ", ".join(f"{g:.2f}" for g in v) for k, v in swept.items())
    return Check(
        check.name,
        check.ours,
        check.paper,
        False,
        explained=f"AIFO's queue length decides it ({names}, Gbps) - {shown}. AIFO's admission bound grows "
        "with (C - queue) / C, and four TCP windows of at most 44 packets fill a longer queue less; "
        f"the paper's {PUBLISHED[key][0]:g}-{PUBLISHED[key][1]:g} Gbps lie between these runs.",
    )


def checks(done: Done) -> list[Check]:
    out = [alone(done)]
    out += [best_gets_most(done, scheme) for scheme in ("AIFO", "SP-PIFO")]
    out.append(in_range(done, (0,), "aifo_flow1_gbps", "flow 1 gets the least, 0.2-1 Gbps"))
    out.append(in_range(done, (1, 2), "aifo_high_rank_gbps", "the high-rank flows 2 and 3 keep 3-5 Gbps"))
    out.append(
        _testbed.fifo_shares(
            done,
            f"FIFO: the four TCP flows converge to a similar rate (Jain index >= {SIMILAR_RATE})",
            "similar rates",
            SIMILAR_RATE,
        )
    )
    return [c for c in out if c]


FIGURE = _testbed.figure(
    16,
    hosts=HOSTS,
    senders="TCP",
    plot_title="AIFO Figure 16: TCP flows, fixed ranks",
    checks=checks,
    experiments=QUEUE_RUNS,
    shows="throughput of four TCP flows starting one after another with fixed ranks: FIFO, SP-PIFO, AIFO",
    published=PUBLISHED,
    notes=(
        (
            "A hardware testbed experiment in the paper (TCP Cubic), simulated here with TCP NewReno and flows "
            "5 ms apart instead of 5 s; quick and paper scale are the same."
        ),
        "The AIFO runs with queues of 100 and 1333 packets are the queue-length evidence, in the table.",
    ),
)
