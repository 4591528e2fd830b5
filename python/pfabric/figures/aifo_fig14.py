"""AIFO Figure 14: fair queueing, Start-Time Fair Queueing (STFQ) ranks, web search.

AIFO, PIFO, SP-PIFO and PIEO with STFQ ranks, AFQ, TCP and DCTCP: small-flow mean and p99 FCT vs load, and
the FCT breakdown by size at 70% load. Paper (section 5.1, "Fair queueing with AIFO"): AIFO "achieves a
similar performance compared to ... AFQ, SP-PIFO, PIFO and PIEO for both average FCT and tail FCT, and is
significantly better than TCP and DCTCP. The FCT of AIFO for small flows is only 9.7% higher than AFQ and
3.6% higher than SP-PIFO".

The set-up is the authors' (netx-repo/AIFO @333c214, aifo_simulation/java-code: MainFigure13.java, which is
the paper's Figure 14, and projects/aifo/runs/aifo_evaluation/fairness/web_search_workload/<lambda>/):
* 1 Gbps host links and 4 Gbps leaf-spine links (`link_bandwidth_bit_per_ns=1`, `split_bw`), not Figure 7's
  10/40 Gbps; 20 ns links (`link_delay_ns=20`), no host stack delay (netbench has none) and one path per flow
  (`network_device_routing=ecmp`): `TOPOLOGY`.
* Every scheduler over DCTCP hosts (`transport_layer=dctcp`: NewRenoDctcpSocket, which is their NewReno,
  handshake and recovery included (`_aifo.AUTHORS_HOSTS`), with a window of 3 segments at the start, capped at
  64 KB, a timeout of SRTT + 4 RTTVAR with no floor and 300 us before the first sample, alpha starting at 0,
  g = 1/16), and every scheduler port marks Congestion
  Experienced on an arrival that finds at least 48,000 bytes queued (WFQAIFOOutputPort, WFQPIFOOutputPort,
  WFQSPPIFOOutputPort, AFQOutputPort: `getBufferOccupiedBits() >= 8L*48000`).
* AIFO (wfqaifo) 100 packets, window 20, every arrival sampled (sample_count 1), k = 0.1; PIFO (wfqpifo) 320
  packets; SP-PIFO (wfqsppifo) 32 queues of 10; AFQ 32 queues of 320 packets (AFQQueue.java's constructor
  sets perQueueCapacity = 320), 80 bytes per round. PIEO is not in the authors' code: it runs here as PIFO
  does (320 packets, same hosts and marking) with the core's STFQ/PIEO program.
* TCP over 146,000-byte tail-drop queues; DCTCP over 120,000-byte queues marking at K = 48,000 bytes.

Checked: AIFO's small-flow mean below TCP's and DCTCP's at every load; AIFO's small-flow mean over AFQ's
and over SP-PIFO's at 70% load against the text's +9.7% and +3.6% (`TOLERANCE`, below); AIFO similar to PIFO
and PIEO (`SIMILAR`, below) in small-flow mean and p99 at every load.

The run length. The authors' runs last one second of arrivals (`run_time_s=1` in every run file): 12,760 flows
at load 0.7. AIFO's gap to AFQ and to SP-PIFO grows with the run (load 0.7, seed 1: over AFQ -1.4% at 2,000
flows, +0.0% at 5,000, +4.8% at one second, +7.9% at 20,000; over SP-PIFO +3.9%, +6.8%, +10.2%, +13.6%), so
the two gaps are checked on runs of the authors' length (`AUTHORS_RUN`: AIFO, AFQ and SP-PIFO at load 0.7 for
one second, at quick and at paper scale alike), the figure's own length shown beside them. At paper scale each
gap check also shows ours beside the authors' plotted data at each of their seven arrival rates
(`AUTHORS_RATES`, one second each): the text's +3.6% over SP-PIFO is their top rate (+3.7%, 1.04 of the host
links), where their SP-PIFO catches up with AIFO; at their 70% point their own gap is +10.7%.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..plots import _pyplot
from ..presets import Check
from ..scenario import Scenario
from . import _aifo
from .common import Done, available, save_figure, select
from .figure import Figure

# The authors' DCTCP hosts (NewRenoDctcpSocket over NewRenoTcpSocket: IW 3 MSS, RTO 300 us before a sample,
# rto_min 0, 64 KB window) and their scheduler ports' marking at 48,000 bytes, for every ranked scheme.
DCTCP_HOSTS = {"host": "dctcp", **_aifo.NEWRENO, "ecn_threshold_bytes": 48_000}
VARIANTS = {
    "TCP": _aifo.SCHEMES["TCP"],
    "DCTCP": {"name": "dctcp", "queue_bytes": 120_000, "ecn_threshold_bytes": 48_000, **_aifo.NEWRENO},
    "AFQ": {"name": "afq", "queues": 32, "queue_pkts": 320, "bytes_per_round": 80, **DCTCP_HOSTS},
    "PIFO": {"name": "pifo", "rank": "stfq", "capacity_pkts": 320, **DCTCP_HOSTS},
    "SP-PIFO": {"name": "sp-pifo", "rank": "stfq", "queues": 32, "queue_pkts": 10, **DCTCP_HOSTS},
    "PIEO": {"name": "pieo", "rank": "stfq", "capacity_pkts": 320, **DCTCP_HOSTS},
    "AIFO": {
        "name": "aifo",
        "rank": "stfq",
        "capacity_pkts": 100,
        "window": 20,
        "sample_every": 1,
        "headroom_k": 0.1,
        **DCTCP_HOSTS,
    },
}
TOPOLOGY = {**_aifo.SLOW_LINKS, **_aifo.FABRIC}
PUBLISHED = {"aifo_small_fct_over_afq": 0.097, "aifo_small_fct_over_sp_pifo": 0.036}
BREAKDOWN_LOAD = 0.7
# The authors' run length (`run_time_s=1`): one second of arrivals, for the runs the gap checks read.
AUTHORS_RUN_S = 1.0
AUTHORS_RUN = ("AIFO", "AFQ", "SP-PIFO")
# The text gives +9.7% and +3.6% without a load. The authors' own plotted data
# (projects/aifo/plots/aifo_evaluation/fairness/web_search_workload/fairness_less_100KB_mean_fct_ms_32.dat)
# put AIFO at +11.7% over AFQ and +10.7% over SP-PIFO at 70% load (their +3.7% over SP-PIFO is at 80%): their
# own simulator lands 2.0 and 7.1 points from the text's numbers at the load the breakdown shows. We allow 8
# points: the larger of those, plus one point for reading the numbers off the text's rounding and the plot.
TOLERANCE = 0.08
# The authors' arrival rates for this figure (their run folders
# projects/aifo/runs/aifo_evaluation/fairness/web_search_workload/<rate>/, 1 Gbps hosts: 0.20 to 1.04 of the host
# links), and the small-flow means they plotted at each (fairness_less_100KB_mean_fct_ms_32.dat, its seven rows
# in the same order), as AIFO over SP-PIFO and over AFQ. Paper scale runs AIFO, AFQ and SP-PIFO at each rate for
# one second, so that each gap check shows ours beside theirs, rate by rate: where the two simulators agree and
# where the text's number sits.
AUTHORS_RATES = (3600, 5200, 7000, 8900, 11100, 14150, 19000)
_THEIR_MEANS_MS = {
    "AFQ": (0.557223, 0.724449, 0.897105, 1.146468, 1.518251, 2.149394, 3.408883),
    "SP-PIFO": (0.502462, 0.651588, 0.822883, 1.052794, 1.440997, 2.168048, 3.659868),
    "AIFO": (0.623913, 0.815837, 1.023589, 1.292524, 1.679746, 2.400733, 3.796918),
}
AUTHORS_GAPS = {
    other: tuple(a / b - 1 for a, b in zip(_THEIR_MEANS_MS["AIFO"], _THEIR_MEANS_MS[other], strict=True))
    for other in ("AFQ", "SP-PIFO")
}
# "Similar" as the paper's Figure 14(a)/(b) shows it: in the authors' plotted data AIFO's small-flow mean is
# 1.26x-1.52x PIFO's and its p99 1.12x-1.53x (loads 0.2-0.8; fairness_less_100KB_{mean,99th}_fct_ms_32.dat),
# while TCP's mean is 2.4x-2.8x AIFO's. Checked: the ratio either way at most 1.6 (their 1.53 plus 5% for
# reading the plot).
SIMILAR = 1.6


def figure_runs(done: Done) -> Done:
    """The sweep over loads, without the runs of the authors' length."""
    return [(labels, result) for labels, result in done if "run" not in labels]


def plot(done: Done, out_dir: Path) -> list[Path]:
    done = figure_runs(done)
    paths = _aifo.plot_fct(
        done,
        out_dir,
        "small_flows",
        "AIFO Figure 14: fair queueing (STFQ ranks), 1G/4G, DCTCP hosts",
        list(VARIANTS),
        panels=_aifo.PANELS[:2],
    )
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 3.6))
    bins = (
        ("< 100 KB", _aifo.small_mean_ms),
        ("100 KB - 1 MB", _aifo.medium_mean_ms),
        (">= 1 MB", _aifo.large_mean_ms),
    )
    labels = [label for label in VARIANTS if select(done, load=BREAKDOWN_LOAD, scheme=label)]
    width = 0.8 / max(1, len(labels))
    for i, label in enumerate(labels):
        result = select(done, load=BREAKDOWN_LOAD, scheme=label)[0][1]
        ax.bar(np.arange(len(bins)) + i * width, [metric(result) for _, metric in bins], width, label=label)
    ax.set_xticks(np.arange(len(bins)) + width * (len(labels) - 1) / 2, [b for b, _ in bins])
    ax.set_yscale("log")
    ax.set_xlabel("flow size")
    ax.set_ylabel("mean FCT (ms)")
    ax.set_title(f"(c) FCT breakdown at load {BREAKDOWN_LOAD}", fontsize="medium")
    ax.legend(fontsize="x-small")
    return paths + save_figure(fig, out_dir, "breakdown")


def similar(done: Done, other: str) -> Check | None:
    """Check: AIFO's small-flow mean and p99 within `SIMILAR`x of `other`'s (either way) at every load."""
    ratios = []
    for metric in (_aifo.small_mean_ms, _aifo.small_p99_ms):
        xs, aifo = _aifo.values(done, "AIFO", metric)
        _, theirs = _aifo.values(done, other, metric)
        if not xs or len(theirs) != len(xs):
            return None
        ratios.append([a / b for a, b in zip(aifo, theirs, strict=True)])
    mean, p99 = ratios
    worst = max(max(r, 1 / r) for r in mean + p99)
    return Check(
        f"AIFO similar to {other}: small-flow mean and p99 within {SIMILAR}x at every load",
        f"AIFO / {other}: mean {min(mean):.2f}-{max(mean):.2f}, p99 {min(p99):.2f}-{max(p99):.2f}",
        "similar (authors' data AIFO / PIFO: mean 1.26-1.52, p99 1.12-1.53"
        + ("; they ran no PIEO)" if other == "PIEO" else ")"),
        worst <= SIMILAR,
    )


def one_second(label: str, **arrivals: float) -> Scenario:
    """`label`'s scheme on the figure's fabric for one second of arrivals (`load=` or `arrival_rate_per_s=`)."""
    workload = {"kind": "poisson", "cdf": _aifo.CDF, "duration_s": AUTHORS_RUN_S, **arrivals}
    return Scenario.from_dict(
        {
            "seed": 1,
            "topology": TOPOLOGY,
            "packet": _aifo.PACKET,
            "workload": workload,
            "scheme": dict(VARIANTS[label]),
        }
    )


def points(quick: bool) -> list:
    """The sweep over loads, then `AUTHORS_RUN` at load 0.7 for the authors' one second of arrivals, and at paper
    scale the same at each of `AUTHORS_RATES`."""
    sweep = _aifo.points(quick, VARIANTS, topology=TOPOLOGY)
    runs = [label for label in AUTHORS_RUN if available(VARIANTS[label])]
    authors = [
        (
            {"run": "authors' length", "load": BREAKDOWN_LOAD, "scheme": label},
            one_second(label, load=BREAKDOWN_LOAD),
        )
        for label in runs
    ]
    rates = [
        ({"run": "authors' rate", "rate": rate, "scheme": label}, one_second(label, arrival_rate_per_s=rate))
        for rate in ([] if quick else AUTHORS_RATES)
        for label in runs
    ]
    return sweep + authors + rates


def by_rate(done: Done, other: str) -> str:
    """AIFO over `other`, ours beside the authors', at each of their rates that ran (empty if none did)."""
    means = {(l["rate"], l["scheme"]): _aifo.small_mean_ms(r) for l, r in select(done, run="authors' rate")}
    shown = [
        f"{rate:,}/s {(means[rate, 'AIFO'] / means[rate, other] - 1) * 100:+.1f} vs {theirs * 100:+.1f}"
        for rate, theirs in zip(AUTHORS_RATES, AUTHORS_GAPS[other], strict=True)
        if (rate, "AIFO") in means and (rate, other) in means
    ]
    return (
        "; by the authors' arrival rates, ours vs their plotted data (%): " + ", ".join(shown)
        if shown
        else ""
    )


def checks(done: Done) -> list[Check]:
    sweep = figure_runs(done)
    out = _aifo.lower_than_each(sweep, "AIFO", ("TCP", "DCTCP"))
    at = {l["scheme"]: _aifo.small_mean_ms(r) for l, r in select(sweep, load=BREAKDOWN_LOAD)}
    authors = {l["scheme"]: _aifo.small_mean_ms(r) for l, r in select(done, run="authors' length")}
    for other, key in (("AFQ", "aifo_small_fct_over_afq"), ("SP-PIFO", "aifo_small_fct_over_sp_pifo")):
        if "AIFO" in authors and other in authors:
            gap, paper = authors["AIFO"] / authors[other] - 1, PUBLISHED[key]
            shown = f"{gap * 100:+.1f}%"
            if "AIFO" in at and other in at:
                shown += f" (the figure's own runs: {(at['AIFO'] / at[other] - 1) * 100:+.1f}%)"
            shown += by_rate(done, other)
            out.append(
                Check(
                    f"AIFO's small-flow mean FCT over {other}'s at load {BREAKDOWN_LOAD}, one second of arrivals "
                    f"as the authors' runs (within {TOLERANCE * 100:.0f} points)",
                    shown,
                    f"+{paper * 100:.1f}%",
                    abs(gap - paper) <= TOLERANCE,
                )
            )
    out += [c for c in (similar(sweep, other) for other in ("PIFO", "PIEO")) if c]
    return out


FIGURE = Figure(
    name="aifo-fig14",
    paper="AIFO",
    title="AIFO Figure 14: fair queueing, web search",
    shows="small-flow mean and p99 FCT vs load and the FCT breakdown at 70% load with STFQ ranks on the "
    "1G/4G leaf-spine, every scheduler over DCTCP hosts: TCP, DCTCP, AIFO, PIFO, SP-PIFO, PIEO, AFQ",
    schemes=("tcp", "dctcp", "aifo", "pifo", "sp-pifo", "pieo", "afq"),
    points=points,
    plot=plot,
    checks=checks,
    table=_aifo.rows,
    published=PUBLISHED,
    notes=(
        (
            "The authors' set-up (netx-repo/AIFO MainFigure13.java): 1/4 Gbps links of 20 ns, ECMP, DCTCP "
            "hosts and ECN "
            "marking at 48 KB at every scheduler port, AIFO 100 packets sampling every arrival, PIFO 320, "
            "SP-PIFO 32 x 10, AFQ 32 x 320 at 80 bytes per round, DCTCP 120 KB with K = 48 KB."
        ),
        "PIEO is not in the authors' code; it runs with PIFO's size, hosts and marking.",
    ),
)
