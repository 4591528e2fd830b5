"""pFabric Figure 13: packet loss rate vs priority number at the first hop (source NIC) and the last hop
(destination access link), web search at 80% load.

Paper (section 5.4.3): almost all losses are of packets of flows with more than 3000 packets left, and the
fabric core's loss is negligible. First hop = our `host-nic` tier (a host's NIC queue), last hop = `to-host`
(the edge switch's port down to the destination host), core = `fabric` (every switch-to-switch port). The
priority number is the packet's remaining flow size, binned as the paper's figure: [0,10), [10,100),
[100,1K), [1K,3K), [3K,6K), [6K,10K), [10K,20K) packets of 1460 bytes. "Almost all" is read as at least 80% of
the dropped packets, "negligible" as under a tenth of the last hop's rate: our reading, stated in the checks.

The experiment: the run length. At 80% load the backlog of large flows builds for a long time (the Ideal
scheduler's mean normalized FCT too grows from 1.22 at 2,000 flows to 1.51 at 100,000), so the more flows a
run has, the more large flows are starved at once and the larger the share of drops that hits them. Besides
Figure 7's run (shared through the store) the figure runs the same scenario with more flows (quick: 5,000 and
20,000; paper scale: 40,000 and 100,000: `common.RUN_LENGTHS`); the checks read the longest run and the sweep
says how the share moves with the length.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np

from ..plots import _pyplot
from ..presets import Check
from .common import (
    RUN_LENGTH_LOAD,
    RUN_LENGTHS,
    Done,
    fct_points,
    flows_for,
    mean_nfct,
    run_length_points,
    save_figure,
)
from .figure import Figure

MSS = 1460
TIERS = {"host-nic": "first hop (source NIC)", "to-host": "last hop (to the destination)"}
BIG_PKTS = 3000
LOAD = RUN_LENGTH_LOAD
ALMOST_ALL = 0.8


def points(quick: bool):
    base = [
        ({**labels, "flows": flows_for("websearch", quick)}, scenario)
        for labels, scenario in fct_points(quick, ["pFabric"], workloads=["web search"], loads=[LOAD])
    ]
    return base + run_length_points(quick, ["pFabric"])


def _rows(result) -> list[dict]:
    table = result.priority_loss.to_pylist()
    for row in table:
        lo, hi = row["priority_lo_bytes"] / MSS, row["priority_hi_bytes"]
        row["bin"] = f"({lo:,.0f}, {hi / MSS:,.0f}]" if hi is not None else f"({lo:,.0f}, inf)"
        row["lo_pkts"] = lo
    return table


def _longest(done: Done):
    return max(done, key=lambda d: d[0]["flows"])


def big_share(result) -> tuple[float, int]:
    """The share of first- and last-hop drops at priorities of 3000 packets and more, and the drop count."""
    edge = [r for r in _rows(result) if r["tier"] in TIERS]
    dropped = sum(r["dropped_packets"] for r in edge)
    big = sum(r["dropped_packets"] for r in edge if r["lo_pkts"] >= BIG_PKTS)
    return (big / dropped if dropped else float("nan")), dropped


def plot(done: Done, out_dir: Path) -> list[Path]:
    labels, result = _longest(done)
    rows = _rows(result)
    plt = _pyplot()
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 3.8), gridspec_kw={"width_ratios": (2, 1)})
    bins = list(dict.fromkeys(r["bin"] for r in rows if r["offered_packets"]))
    for i, (tier, label) in enumerate(TIERS.items()):
        rate = {r["bin"]: r["loss_rate"] for r in rows if r["tier"] == tier}
        ax.bar(np.arange(len(bins)) + i * 0.4, [(rate.get(b) or 0) * 100 for b in bins], 0.4, label=label)
    ax.set_xticks(np.arange(len(bins)) + 0.2, bins, rotation=30, fontsize="small")
    ax.set_xlabel("priority number (remaining flow size, packets of 1460 bytes)")
    ax.set_ylabel("loss rate (% of data packets)")
    ax.set_title(
        f"pFabric, web search at load 0.8, {labels['flows']:,} flows: loss by priority (Figure 13)",
        fontsize="medium",
    )
    ax.legend(fontsize="small")
    runs = sorted(done, key=lambda d: d[0]["flows"])
    xs = [l["flows"] for l, _ in runs]
    bx.plot(xs, [big_share(r)[0] * 100 for _, r in runs], "o-", color="tab:red", label="ours")
    bx.axhline(ALMOST_ALL * 100, color="gray", ls=":", lw=0.8, label="'almost all' (our reading: 80%)")
    bx.set_xscale("log")
    bx.set_xticks(xs, [f"{x:,}" for x in xs], fontsize="small")
    bx.minorticks_off()
    bx.set_xlabel("flows in the run")
    bx.set_ylabel(f"% of edge drops above {BIG_PKTS} packets")
    bx.set_title("Experiment: the share vs run length", fontsize="medium")
    bx.grid(True, alpha=0.3)
    bx.legend(fontsize="x-small")
    return save_figure(fig, out_dir, "loss_by_priority")


def _trend(runs: list[tuple[int, float]]) -> tuple[float, float]:
    """Least-squares share = a + b log10(flows): (b, flows at which it reaches 80%; nan if it does not rise)."""
    x = np.log10([n for n, _ in runs])
    y = np.array([s for _, s in runs])
    b, a = np.polyfit(x, y, 1)
    return float(b), (float(10 ** ((ALMOST_ALL - a) / b)) if b > 0 else math.nan)


def checks(done: Done) -> list[Check]:
    labels, result = _longest(done)
    share, dropped = big_share(result)
    runs = sorted((l["flows"], big_share(r)[0], mean_nfct(r)) for l, r in done)
    explained = None
    if share < ALMOST_ALL and len(runs) >= 2:
        slope, reach = _trend([(n, s) for n, s, _ in runs])
        if slope > 0 and all(b[1] > a[1] for a, b in itertools.pairwise(runs)):
            explained = (
                "run-length sweep at load 0.8: the share grows with the flows per run, "
                + ", ".join(f"{s * 100:.1f}% at {n:,}" for n, s, _ in runs)
                + f" (+{slope * 100:.1f} points per tenfold; 80% at about {round(reach, -3):,.0f} flows by that trend), "
                "as the large-flow backlog builds (mean normalized FCT "
                + " -> ".join(f"{m:.2f}" for _, _, m in runs)
                + f"); the longest paper-scale run has {RUN_LENGTHS[False][-1]:,} flows"
            )

    def rate(tier: str) -> float:
        rows = _rows(result)
        offered = sum(r["offered_packets"] for r in rows if r["tier"] == tier)
        return sum(r["dropped_packets"] for r in rows if r["tier"] == tier) / max(1, offered)

    core, last = rate("fabric"), rate("to-host")
    return [
        Check(
            f"almost all first/last-hop drops (>= 80%) hit priorities above {BIG_PKTS} packets "
            f"(longest run, {labels['flows']:,} flows)",
            f"{share * 100:.1f}% of {dropped} drops",
            "almost all losses above 3000 packets (Fig. 13, section 5.4.3)",
            dropped > 0 and share >= ALMOST_ALL,
            explained,
        ),
        Check(
            "the fabric core's loss rate is negligible (< 1/10 of the last hop's)",
            f"core {core * 100:.3f}%, last hop {last * 100:.3f}%",
            "negligible (Fig. 13)",
            core < 0.1 * last,
        ),
    ]


def table(done: Done) -> list[dict]:
    keep = ("tier", "bin", "offered_packets", "dropped_packets", "loss_rate")
    rows = []
    for labels, result in sorted(done, key=lambda d: d[0]["flows"]):
        rows += [{"flows": labels["flows"], **{k: r[k] for k in keep}} for r in _rows(result)]
    return rows


FIGURE = Figure(
    name="pfabric-fig13",
    paper="pFabric",
    title="Figure 13: loss rate vs priority number",
    shows="pFabric at web search load 0.8: loss rate per priority-number bin at the first and the last hop; "
    "the share of drops above 3000 packets vs the run's length",
    schemes=("pfabric",),
    points=points,
    plot=plot,
    checks=checks,
    table=table,
    notes=(
        "The shortest run is Figure 7's pFabric web-search run at load 0.8, shared through the store.",
        "Quick: 2,000, 5,000 and 20,000 flows; paper scale: 20,000, 40,000 and 100,000 flows.",
    ),
)
