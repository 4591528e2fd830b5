"""pFabric Figure 13: packet loss rate vs priority number at the first hop (source NIC) and the last hop
(destination access link), web search at 80% load.

Paper: almost all losses are of packets of flows with more than 3000 packets left, and the fabric core's
loss is negligible. The run is Figure 7's pFabric web-search run at load 0.8 (shared through the store).
"almost all" is read as at least 80% of the dropped packets, "negligible" as under a tenth of the last hop's
rate: our reading, stated in the checks.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..plots import _pyplot
from ..presets import Check
from .common import Done, fct_points, save_figure
from .figure import Figure

MSS = 1460
TIERS = {"host-nic": "first hop (source NIC)", "to-host": "last hop (to the destination)"}
BIG_PKTS = 3000
LOAD = 0.8


def points(quick: bool):
    return fct_points(quick, ["pFabric"], workloads=["web search"], loads=[LOAD])


def _rows(result) -> list[dict]:
    table = result.priority_loss.to_pylist()
    for row in table:
        lo, hi = row["priority_lo_bytes"] / MSS, row["priority_hi_bytes"]
        row["bin"] = f"({lo:,.0f}, {hi / MSS:,.0f}]" if hi is not None else f"({lo:,.0f}, inf)"
        row["lo_pkts"] = lo
    return table


def plot(done: Done, out_dir: Path) -> list[Path]:
    ((_, result),) = done
    rows = _rows(result)
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 3.6))
    bins = list(dict.fromkeys(r["bin"] for r in rows if r["offered_packets"]))
    for i, (tier, label) in enumerate(TIERS.items()):
        rate = {r["bin"]: r["loss_rate"] for r in rows if r["tier"] == tier}
        ax.bar(np.arange(len(bins)) + i * 0.4, [(rate.get(b) or 0) * 100 for b in bins], 0.4, label=label)
    ax.set_xticks(np.arange(len(bins)) + 0.2, bins, rotation=30, fontsize="small")
    ax.set_xlabel("priority number (remaining flow size, packets of 1460 bytes)")
    ax.set_ylabel("loss rate (% of data packets)")
    ax.set_title("pFabric, web search at load 0.8: loss by priority (Figure 13)", fontsize="medium")
    ax.legend(fontsize="small")
    return save_figure(fig, out_dir, "loss_by_priority")


def checks(done: Done) -> list[Check]:
    ((_, result),) = done
    rows = _rows(result)
    edge = [r for r in rows if r["tier"] in TIERS]
    dropped = sum(r["dropped_packets"] for r in edge)
    big = sum(r["dropped_packets"] for r in edge if r["lo_pkts"] >= BIG_PKTS)
    share = big / dropped if dropped else float("nan")

    def rate(tier: str) -> float:
        offered = sum(r["offered_packets"] for r in rows if r["tier"] == tier)
        return sum(r["dropped_packets"] for r in rows if r["tier"] == tier) / max(1, offered)

    core, last = rate("fabric"), rate("to-host")
    return [
        Check(
            f"almost all first/last-hop drops (>= 80%) hit priorities above {BIG_PKTS} packets",
            f"{share * 100:.1f}% of {dropped} drops",
            "almost all losses above 3000 packets",
            dropped > 0 and share >= 0.8,
        ),
        Check(
            "the fabric core's loss rate is negligible (< 1/10 of the last hop's)",
            f"core {core * 100:.3f}%, last hop {last * 100:.3f}%",
            "negligible",
            core < 0.1 * last,
        ),
    ]


def table(done: Done) -> list[dict]:
    ((_, result),) = done
    keep = ("tier", "bin", "offered_packets", "dropped_packets", "loss_rate")
    return [{k: r[k] for k in keep} for r in _rows(result)]


FIGURE = Figure(
    name="pfabric-fig13",
    paper="pFabric",
    title="Figure 13: loss rate vs priority number",
    shows="pFabric at web search load 0.8: loss rate per priority-number bin at the first and the last hop",
    schemes=("pfabric",),
    points=points,
    plot=plot,
    checks=checks,
    table=table,
    notes=("The run is Figure 7's pFabric web-search run at load 0.8, shared through the store.",),
)
