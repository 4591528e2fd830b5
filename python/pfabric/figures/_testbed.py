"""AIFO Figures 15 and 16 (the Tofino testbed, section 5.2), as simulations scaled down in time.

The testbed: four senders and one receiver on one switch, 40 Gbps links; four flows start one after
another, each tagged by hand with a fixed rank, a later flow with a lower (better) rank; per-flow throughput
over time under FIFO, SP-PIFO (8 queues) and AIFO. The paper starts a flow every 5 s; here every 5 ms (the
queues settle within microseconds at 40 Gbps, so the shape is the same and a run costs seconds, not hours),
and the run stops at 20 ms. Figure 15's senders are constant-rate (UDP-like, `host = "constant-rate"`,
aifo_fig15.HOSTS); Figure 16's are TCP, NewReno here where the testbed ran Cubic.

The schedulers, from the authors' testbed code (netx-repo/AIFO @333c214, aifo_testbed/):
* FIFO: the testbed's FIFO is aifo_testbed/simple_switch, a plain router that configures no queue in the
  traffic manager (controller_init/test.py sets only IPv4 routes), i.e. the Tofino's default deep
  shared-buffer queue. Here a FIFO of `FIFO_PKTS` = 1000 packets (1.5 MB, 300 us at 40 Gbps): deeper than the
  four TCP flows' windows together (4 x 44 packets), so it never binds for them, as the Tofino's does not.
* AIFO: every arrival sampled (`SAMPLE_COUNT 1` in aifo_switch/p4src/includes/aifo_defines.p4), a window of
  20 ranks (BLACKBOX_CHECK_WINDOW(i, j), 5 x 4 registers); queue and headroom as the simulations' (20 packets,
  k = 0.1), where the testbed's queue is 25,000 80-byte cells, 2 MB (aifo.p4): Figure 16 runs that too.
* SP-PIFO: 8 strict-priority queues (the paper: "we enable 8 queues").

`figure` makes either figure from its hosts, its wording, its checks and any extra runs (`experiments`) the
checks read.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from ..presets import Check
from ..scenario import Scenario
from .common import Done, available, run_panels, select
from .figure import Figure

LINK_GBPS = 40.0
START_EVERY_S = 0.005
END_S = 0.020
RANKS = (4000, 3000, 2000, 1000)  # flow 1 .. flow 4: a later flow has a lower (better) rank
SAMPLE_S = 0.00025
FIFO_PKTS = 1000
VARIANTS = {
    "FIFO": {"name": "pifo", "rank": "fifo", "capacity_pkts": FIFO_PKTS},
    "SP-PIFO": {"name": "sp-pifo"},
    "AIFO": {"name": "aifo", "sample_every": 1},
}


def points(
    hosts: dict[str, Any], experiments: dict[str, dict[str, Any]], quick: bool
) -> list[tuple[dict[str, Any], Scenario]]:
    """One run per scheduler (`VARIANTS`), then one per extra run the checks read (`experiments`: label ->
    scheme), every scheme with the host settings `hosts` (an experiment's own settings win); quick and
    paper scale are the same (each run takes a second or less)."""
    starts = [i * START_EVERY_S for i in range(len(RANKS))]
    # Constant-rate flows long enough to send until the end; TCP flows that cannot finish before it.
    sizes = [int(LINK_GBPS * 1e9 / 8 * (END_S - s)) + 1_000_000 for s in starts]
    out = []
    for label, scheme in {**VARIANTS, **experiments}.items():
        scheme = {**hosts, **scheme}
        if not available(scheme):
            continue
        data = {
            "topology": {"kind": "star", "hosts": len(RANKS) + 1, "host_rate_gbps": LINK_GBPS},
            "workload": {
                "kind": "fan-in",
                "receiver": 0,
                "sizes_bytes": sizes,
                "starts_s": starts,
                "ranks": list(RANKS),
            },
            "scheme": scheme,
            "output": {"sample_interval_s": SAMPLE_S, "track_flows": len(RANKS)},
            "run": {"max_sim_time_s": END_S},
        }
        out.append(({"scheme": label}, Scenario.from_dict(data)))
    return out


def rates(result) -> tuple[np.ndarray, dict[int, np.ndarray]]:
    """(sample times in s, {flow index 0..3: Gbps per sample})."""
    tp = result.throughput
    times = np.round(tp.column("time_s").to_numpy(), 9)
    flows = tp.column("flow_id").to_numpy()
    gbps = tp.column("throughput_gbps").to_numpy()
    grid = np.unique(times)
    series = {}
    for flow in range(len(RANKS)):
        by_time = dict(zip(times[flows == flow], gbps[flows == flow], strict=True))
        series[flow] = np.array([by_time.get(t, 0.0) for t in grid])
    return grid, series


def share_of_newest(result) -> list[float]:
    """In each period (after flow k starts, before k+1 does), flow k's share of the delivered throughput,
    leaving out the first millisecond of the period (the switch-over)."""
    grid, series = rates(result)
    total = sum(series.values())
    shares = []
    for k in range(len(RANKS)):
        lo, hi = k * START_EVERY_S + 0.001, (k + 1) * START_EVERY_S
        window = (grid > lo) & (grid <= hi)
        shares.append(float(series[k][window].sum() / max(total[window].sum(), 1e-12)))
    return shares


def period_gbps(result, k: int) -> list[float]:
    """Each flow's mean throughput in period `k` (0-based: after flow k + 1 starts, before the next does),
    leaving out the period's first millisecond (the switch-over)."""
    grid, series = rates(result)
    lo, hi = k * START_EVERY_S + 0.001, min((k + 1) * START_EVERY_S, END_S)
    window = (grid > lo) & (grid <= hi)
    return [float(series[f][window].mean()) if window.any() else float("nan") for f in range(len(RANKS))]


def last_period_gbps(result) -> list[float]:
    """Each flow's mean throughput in the last period, when all four are active."""
    return period_gbps(result, len(RANKS) - 1)


def jain(values: list[float]) -> float:
    x = np.asarray(values, dtype=float)
    return float(x.sum() ** 2 / (len(x) * (x**2).sum())) if (x**2).sum() > 0 else float("nan")


def plot(done: Done, out_dir: Path, title: str) -> list[Path]:
    """One panel per scheduler of `VARIANTS` (the extra runs are the checks' evidence, in the table)."""
    done = [(labels, result) for labels, result in done if labels["scheme"] in VARIANTS]

    def draw(ax, result) -> None:
        grid, series = rates(result)
        for k, values in series.items():
            ax.plot(grid * 1e3, values, label=f"flow {k + 1} (rank {RANKS[k]})")
        ax.set_xlabel("time (ms; the testbed's seconds scaled to ms)")
        ax.set_ylim(0, LINK_GBPS * 1.05)
        ax.legend(fontsize="x-small")

    return run_panels(done, out_dir, "throughput", title, "throughput (Gbps)", draw, width=4.2)


def rows(done: Done) -> list[dict]:
    out = []
    for labels, result in done:
        shares, last = share_of_newest(result), last_period_gbps(result)
        for k in range(len(RANKS)):
            out.append(
                {
                    **labels,
                    "flow": k + 1,
                    "rank": RANKS[k],
                    "share_while_newest": round(shares[k], 4),
                    "gbps_when_all_active": round(last[k], 3),
                }
            )
    return out


def newest_takes_the_link(done: Done, scheme: str, at_least: float) -> Check | None:
    runs = select(done, scheme=scheme)
    if not runs:
        return None
    shares = share_of_newest(runs[0][1])
    return Check(
        f"{scheme}: each new, better-ranked flow takes the link (share >= {at_least:.0%})",
        ", ".join(f"flow {k + 1}: {s:.0%}" for k, s in enumerate(shares)),
        "the newest flow takes the bandwidth",
        min(shares) >= at_least,
    )


def fifo_shares(done: Done, claim: str, expected: str, at_least: float) -> Check | None:
    """Check: under FIFO the flows share the link once all are active (Jain index >= `at_least`)."""
    fifo = select(done, scheme="FIFO")
    if not fifo:
        return None
    last = last_period_gbps(fifo[0][1])
    index = jain(last)
    return Check(
        claim,
        f"Jain {index:.2f}; " + ", ".join(f"{g:.1f}" for g in last) + " Gbps",
        expected,
        index >= at_least,
    )


def figure(
    number: int,
    hosts: dict[str, Any],
    senders: str,
    plot_title: str,
    checks: Callable,
    experiments: dict[str, dict[str, Any]] | None = None,
    **fields: Any,
) -> Figure:
    """AIFO Figure `number`: the testbed run with the host settings `hosts` (`senders` in the title: "UDP",
    "TCP"), plus the extra runs `experiments` (label -> scheme) its checks read; `fields` are the rest of the
    `Figure` (shows, published, notes)."""
    return Figure(
        name=f"aifo-fig{number}",
        paper="AIFO",
        title=f"AIFO Figure {number}: testbed, {senders}",
        schemes=("pifo", "sp-pifo", "aifo"),
        points=partial(points, hosts, experiments or {}),
        plot=partial(plot, title=plot_title),
        checks=checks,
        table=rows,
        **fields,
    )
