"""pFabric Figure 12: sensitivity to the switch buffer (qSize) and the retransmission timeout (RTO).

Web search at 80% load, pFabric, qSize from 0.5 to 5 x BDP (BDP = 18 KB) and RTO from 2 to 20 x RTT
(RTT = 14.6 us); the overall mean and the (0,100KB] 99th percentile. Paper: buffers under one BDP lose
performance, beyond 2 x BDP gain little, and RTO = 20 x RTT does nearly as well as 3 x RTT at 2 x BDP.
The paper gives these as words, not numbers: the tolerances below ("little" = under 10%, "nearly the same" =
within 10%) are ours, stated in each check. Each statement is checked on both panels, (a) and (b).
"""

from __future__ import annotations

from pathlib import Path

from ..presets import Check
from .common import (
    BDP_BYTES,
    NFCT,
    RTT_US,
    SMALL,
    Done,
    bin_stat,
    fct_table,
    flows_for,
    line_panels,
    mean_nfct,
    poisson,
    select,
    series,
)
from .figure import Figure

QUEUE_BDP = (0.5, 1, 1.5, 2, 3, 4, 5)
RTO_RTT = (2, 3, 6, 10, 20)
QUEUE_BDP_QUICK = (0.5, 2, 5)
RTO_RTT_QUICK = (3, 20)
LOAD = 0.8


def points(quick: bool):
    queues, rtos = (QUEUE_BDP_QUICK, RTO_RTT_QUICK) if quick else (QUEUE_BDP, RTO_RTT)
    out = []
    for rto in rtos:
        for q in queues:
            scheme = {
                "name": "pfabric",
                "queue_bytes": round(q * BDP_BYTES),
                "rto_us": round(rto * RTT_US, 6),
            }
            out.append(
                (
                    {"queue_bdp": q, "rto_rtt": rto},
                    poisson("websearch", LOAD, flows_for("websearch", quick), scheme),
                )
            )
    return out


def _value(done: Done, q: float, rto: int, metric=mean_nfct) -> float:
    runs = select(done, queue_bdp=q, rto_rtt=rto)
    return metric(runs[0][1]) if runs else float("nan")


def small_p99(result) -> float:
    return bin_stat(result, SMALL, "p99_normalized_fct")


PANELS = (("(a) overall mean", mean_nfct), ("(b) (0,100KB] p99", small_p99))


def checks(done: Done) -> list[Check]:
    """Each of the paper's three statements, on each panel: (a) the overall mean, (b) the small-flow p99."""
    queues = sorted({l["queue_bdp"] for l, _ in done})
    rtos = sorted({l["rto_rtt"] for l, _ in done})
    small_q, big_q = queues[0], queues[-1]
    base_rto = 3 if 3 in rtos else rtos[0]
    out = []
    for panel, metric in PANELS:
        worse = [(r, _value(done, small_q, r, metric), _value(done, 2, r, metric)) for r in rtos]
        out.append(
            Check(
                f"{panel}: a buffer of {small_q} x BDP is worse than 2 x BDP (every RTO)",
                ", ".join(f"RTO {r}xRTT: {a:.2f} vs {b:.2f}" for r, a, b in worse),
                "loss in performance below one BDP (Fig. 12, section 5.4.3)",
                all(a > b for _, a, b in worse),
            )
        )
        two, big = _value(done, 2, base_rto, metric), _value(done, big_q, base_rto, metric)
        out.append(
            Check(
                f"{panel}: beyond 2 x BDP little gain (under 10%) at RTO {base_rto} x RTT",
                f"{big_q} x BDP: {big:.2f} vs 2 x BDP: {two:.2f} ({(1 - big / two) * 100:+.1f}% gain)",
                "very little gain beyond 2 x BDP (Fig. 12)",
                big >= 0.9 * two,
            )
        )
        if 20 in rtos and 3 in rtos:
            r3, r20 = _value(done, 2, 3, metric), _value(done, 2, 20, metric)
            out.append(
                Check(
                    f"{panel}: RTO 20 x RTT nearly as good as 3 x RTT at 2 x BDP (within 10%)",
                    f"{r20:.2f} vs {r3:.2f} ({(r20 / r3 - 1) * 100:+.1f}%)",
                    "nearly the same (Fig. 12)",
                    abs(r20 / r3 - 1) <= 0.10,
                )
            )
    return out


def plot(done: Done, out_dir: Path) -> list[Path]:
    rtos = sorted({l["rto_rtt"] for l, _ in done})
    panels = []
    for title, metric in (
        ("(a) overall: average", mean_nfct),
        ("(b) (0, 100KB]: 99th percentile", small_p99),
    ):
        lines = [(f"RTO = {rto} RTT", *series(done, "queue_bdp", metric, rto_rtt=rto)) for rto in rtos]
        panels.append(
            {
                "title": title,
                "xlabel": f"qSize (BDP = {BDP_BYTES // 1000} KB)",
                "ylabel": NFCT,
                "lines": lines,
            }
        )
    return line_panels(
        out_dir, "queue_rto", panels, f"pFabric, web search at load {LOAD}: qSize and RTO (Figure 12)"
    )


FIGURE = Figure(
    name="pfabric-fig12",
    paper="pFabric",
    title="Figure 12: queue size and RTO sensitivity",
    shows="pFabric at web search load 0.8: overall mean and small-flow p99 normalized FCT vs qSize, one line per RTO",
    schemes=("pfabric",),
    points=points,
    plot=plot,
    checks=checks,
    table=fct_table,
    notes=(
        (
            "Paper scale: qSize 0.5/1/1.5/2/3/4/5 x 18 KB, RTO 2/3/6/10/20 x 14.6 us, 20,000 flows per run; "
            "quick: qSize 0.5/2/5 x RTO 3/20 with 2,000 flows."
        ),
        "RTO 3 x RTT is 43.8 us here, the paper's default run uses 45 us.",
    ),
)
