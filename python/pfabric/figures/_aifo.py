"""The AIFO paper's simulation set-up (SIGCOMM 2021, section 5.1) and what its FCT figures share.

Leaf-spine of 144 hosts at 10/40 Gbps (the pFabric paper's 9 racks of 16 under 4 spines, with the authors' 20 ns
links, no host delay and one ECMP path per flow: `FABRIC`; Figure 10 uses 1/4 Gbps), the authors' packets
(1380 payload bytes and 120 of headers: `PACKET`), web search flow sizes
as the AIFO and SP-PIFO code samples them (netbench's pFabric web search "lower bound", a step CDF), Poisson
arrivals. TCP and DCTCP use 146 KB buffers and DCTCP marks at 14.6 KB, over the authors' NewReno (`NEWRENO`:
its handshake and recovery, `AUTHORS_HOSTS`, on every host);
PIFO (80 packets), SP-PIFO (8 x 10 packets), AIFO (20 packets, window 20, one sample per 15 arrivals,
k = 0.1), PIEO and AFQ keep the core's paper defaults (DESIGN section 4), hosts included; ranks are SRPT
(remaining unsent bytes) unless a figure says STFQ. Results in the AIFO paper's bins, flows under 100 KB and of 1 MB or more, FCT in ms.
Figures 10 and 11 differ only in the links' rates: `queue_length_figure` makes either.

A variant runs only if the core has its scheme and accepts its parameters (`common.available`): a figure never
runs a stand-in for a scheme the core lacks, and it says which are missing.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from ..presets import Check
from ..scenario import Scenario
from .common import Done, available, flows_stat, line_panels, poisson, scheme_lines, series, sizes
from .figure import Figure

CDF = "websearch_netbench_lowerbound_discrete"
DATAMINING_CDF = "datamining_netbench_lowerbound_discrete"
LOADS = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
LOADS_QUICK = (0.3, 0.5, 0.7)
FLOWS, FLOWS_QUICK = 20_000, 2_000
WORKLOAD = "web search (netbench lower bound)"
DATAMINING = "data mining (netbench lower bound)"
SLOW_LINKS = {"host_rate_gbps": 1, "core_rate_gbps": 4}
HOSTS = 144  # the leaf-spine's: 9 racks of 16  # the 1G/4G leaf-spine (Figure 10, SP-PIFO)
# The authors' TCP and DCTCP hosts (netbench's NewReno): a window of 3 segments at the start, capped at 64 KB
# (47 of their packets), a timeout of SRTT + 4 RTTVAR with no floor, 300 us before the first sample. Their SRPT
# hosts (the schedulers' `tcp` host, the core's default for them) open at 30 segments instead: much of the
# paper's small-flow gap between the schedulers and TCP/DCTCP comes from that difference (README).
# Every one of their sockets, TCP, DCTCP and the schedulers' SRPT socket alike, is netbench's NewRenoTcpSocket
# (xpt/newreno/newrenotcp): a three-way handshake before the first data packet, and NewReno's recovery, where only
# the third duplicate ACK and partial ACKs resend (`recovery = "newreno"`; RFC 6675's SACK recovery would read a
# PIFO's reordering of a flow's own packets as loss).
# Every one of their sockets also starts slow start's threshold at 30 segments (TCP_INITIAL_SLOW_START_THRESHOLD),
# so the schedulers' window, opened at 30, grows by one segment a round trip from the start, and caps the window at
# 65,535 bytes (TCP_MAX_WINDOW_SIZE): 47 of their 1,380-byte segments (`PACKET`).
AUTHORS_HOSTS = {"recovery": "newreno", "handshake": True, "init_ssthresh_pkts": 30, "max_cwnd_pkts": 47}
NEWRENO = {"init_cwnd_pkts": 3, "min_rto_us": 0, "init_rto_us": 300, **AUTHORS_HOSTS}
# The authors' fabric (their .properties files: `link_delay_ns=20`, `network_device_routing=ecmp`): links of 20 ns,
# no host stack delay (netbench has none), one ECMP path per flow. The pFabric paper's fabric has 0.2 us links,
# 2.5 us host delays and per-packet spraying: a base round trip of about 12 us against the authors' few hundred ns
# plus transmission, which decides how their no-floor timeouts and their schedulers' queues behave.
FABRIC = {"routing": "ecmp", "link_delay_us": 0.02, "host_delay_us": 0.0}
# The authors' packets (netbench ext/basic: TcpPacket counts a TCP header of 60 bytes, "assume maximum", and
# IpPacket an IP header of 60; their sockets' segments carry 1380 bytes): 1,500 bytes on the wire for 1,380 of
# payload, and ACKs, SYNs and the handshake's final ACK of 120 bytes. Against the default 1460 + 40, a flow
# needs about 6% more packets and its control packets take three times as long on every link.
PACKET = {"mss_bytes": 1380, "header_bytes": 120}


def aifo(**params: Any) -> dict[str, Any]:
    """AIFO over the authors' hosts (`AUTHORS_HOSTS`), `params` over the core's paper defaults: every AIFO variant
    of every figure, so that none runs over other hosts than the authors' AIFO."""
    return {"name": "aifo", **AUTHORS_HOSTS, **params}


DCTCP = {"name": "dctcp", "queue_bytes": 146_000, "ecn_threshold_bytes": 14_600, **NEWRENO}
SCHEMES: dict[str, dict[str, Any]] = {
    "TCP": {"name": "tcp", "queue_bytes": 146_000, **NEWRENO},
    "DCTCP": DCTCP,
    # Not in the paper: DCTCP whose window opens at 30 segments like the schedulers' hosts, to tell the
    # scheduler's share of the gap from the host's.
    "DCTCP (IW 30)": {**DCTCP, "init_cwnd_pkts": 30},
    "PIFO": {"name": "pifo", **AUTHORS_HOSTS},
    "SP-PIFO": {"name": "sp-pifo", **AUTHORS_HOSTS},
    "AIFO": aifo(),
    # A FIFO of AIFO's size without admission control: a PIFO whose rank is the arrival order.
    "FIFO": {"name": "pifo", "rank": "fifo", "capacity_pkts": 20, **AUTHORS_HOSTS},
}
SMALL_BYTES, LARGE_BYTES = 100_000, 1_000_000
LOAD_LABEL = "load (fraction of host link capacity)"


def points(
    quick: bool,
    variants: dict[str, dict[str, Any]],
    topology: dict | None = None,
    loads: Sequence[float] = (),
    workload: tuple[str, str] = (WORKLOAD, CDF),
) -> list[tuple[dict[str, Any], Any]]:
    """Every (load, variant) the core can run, on the AIFO set-up (optionally another topology, or another
    `workload`: its label and packaged CDF)."""
    loads = loads or (LOADS_QUICK if quick else LOADS)
    flows = FLOWS_QUICK if quick else FLOWS
    out = []
    for load in loads:
        for label, scheme in variants.items():
            if not available(scheme):
                continue
            scenario = poisson(workload[1], load, flows, scheme)
            fabric = {**FABRIC, **(topology or {})}
            scenario = scenario.with_values(
                {
                    **{f"topology.{k}": v for k, v in fabric.items()},
                    **{f"packet.{k}": v for k, v in PACKET.items()},
                }
            )
            out.append(({"workload": workload[0], "load": load, "scheme": label}, scenario))
    return out


# The authors' highest arrival rate (MainFigure7.java: `traffic_lambda_flow_starts_per_s=190000` on the 10/40
# Gbps fabric, 19,000 on 1/4 Gbps), plotted as load 0.8: with the web search lower bound's mean of 987,600 bytes
# it offers 1.04 of the host links (1.07 in wire bytes, as `load` counts here), i.e. the fabric is overloaded.
# Their 0.7 (141,500) offers 0.78 (0.80 in wire bytes), the lower points about their labels. Their runs last
# 1 s (`run_time_s=1`): 190,000 flows.
AUTHORS_TOP_RATE_PER_S = 190_000


def rate_points(
    quick: bool,
    variants: dict[str, dict[str, Any]],
    rate_per_s: float,
    lengths: Sequence[int] = (1, 3),
    topology: dict | None = None,
    at_least_s: float = 0.0,
) -> list[tuple[dict[str, Any], Any]]:
    """Extra runs at a fixed arrival rate (`rate_per_s` flows per second over the fabric, e.g. the authors'
    overloaded top point) with the figure's flow count times each of `lengths`: how a result moves with the
    time the fabric spends at that rate. The base flow count is raised to `at_least_s` seconds of arrivals
    (the authors' run length, where a figure compares against their means and that length is affordable).
    Labelled with the variant, the rate and the flow count (no load)."""
    flows = max(FLOWS_QUICK if quick else FLOWS, math.ceil(rate_per_s * at_least_s))
    out = []
    for factor in lengths:
        for label, scheme in variants.items():
            if not available(scheme):
                continue
            scenario = at_rate(scheme, rate_per_s, topology, flows=flows * factor)
            labels = {"workload": WORKLOAD, "scheme": label, "arrival_rate_per_s": rate_per_s}
            out.append(({**labels, "flows": flows * factor}, scenario))
    return out


def at_rate(
    scheme: dict[str, Any], rate_per_s: float, topology: dict | None, run: dict | None = None, **length: float
) -> Scenario:
    """`scheme` on the AIFO set-up (optionally another `topology`) at `rate_per_s` flows per second, for `length`
    (`flows=` or `duration_s=`), with the `run` section given."""
    workload = {"kind": "poisson", "cdf": CDF, "arrival_rate_per_s": rate_per_s, **length}
    data = {
        "seed": 1,
        "workload": workload,
        "scheme": dict(scheme),
        "topology": {**FABRIC, **(topology or {})},
        "packet": PACKET,
        **({"run": run} if run else {}),
    }
    return Scenario.from_dict(data)


# How the authors measure (every one of their .properties: `run_time_s=1`; their analysis/analyze.py averages
# the durations of completed flows only): one second of arrivals, the simulation stopped at one second, and flows
# unfinished then left out of every mean. Our figures run a flow count to completion instead, which counts every
# flow; where the fabric is overloaded the two disagree, because the flows a scheduler starves are the ones the
# authors' means leave out. Quick runs measure a 50 ms window.
AUTHORS_WINDOW_S, AUTHORS_WINDOW_S_QUICK = 1.0, 0.05


def window_points(
    quick: bool,
    variants: dict[str, dict[str, Any]],
    rate_per_s: float,
    topology: dict | None = None,
) -> list[tuple[dict[str, Any], Any]]:
    """Runs measured as the authors measure (`AUTHORS_WINDOW_S`): each of `variants` at `rate_per_s` flows per
    second for the window's arrivals, stopped at its end, so that flows unfinished then are left out of every
    mean. Labelled with the variant, the rate and the window (no load)."""
    seconds = AUTHORS_WINDOW_S_QUICK if quick else AUTHORS_WINDOW_S
    out = []
    for label, scheme in variants.items():
        if not available(scheme):
            continue
        scenario = at_rate(scheme, rate_per_s, topology, run={"max_sim_time_s": seconds}, duration_s=seconds)
        labels = {
            "workload": WORKLOAD,
            "scheme": label,
            "arrival_rate_per_s": rate_per_s,
            "window_s": seconds,
        }
        out.append((labels, scenario))
    return out


def unfinished_share(result, select: Callable[[Any], Any]) -> float:
    """The share of the flows `select(flows)` keeps that had not finished when the run stopped."""
    flows = result.flows
    chosen = select(flows)
    finished = flows.column("finished").to_numpy(zero_copy_only=False)
    total = int(chosen.sum())
    return float((chosen & ~finished).sum()) / total if total else float("nan")


def large_unfinished(result) -> float:
    return unfinished_share(result, lambda f: sizes(f) >= LARGE_BYTES)


def large_unfinished_mean_mb(result) -> float:
    """The mean size of the large flows (>= 1 MB) unfinished when the run stopped, MB (NaN if none)."""
    flows = result.flows
    size = sizes(flows)
    left = (size >= LARGE_BYTES) & ~flows.column("finished").to_numpy(zero_copy_only=False)
    return float(size[left].mean()) / 1e6 if left.any() else float("nan")


def small_mean_ms(result) -> float:
    return flows_stat(result, lambda f: sizes(f) < SMALL_BYTES, "mean", "fct_s") * 1e3


def small_p99_ms(result) -> float:
    return flows_stat(result, lambda f: sizes(f) < SMALL_BYTES, "p99", "fct_s") * 1e3


def large_mean_ms(result) -> float:
    return flows_stat(result, lambda f: sizes(f) >= LARGE_BYTES, "mean", "fct_s") * 1e3


def medium_mean_ms(result) -> float:
    return (
        flows_stat(result, lambda f: (sizes(f) >= SMALL_BYTES) & (sizes(f) < LARGE_BYTES), "mean", "fct_s")
        * 1e3
    )


PANELS: tuple[tuple[str, Callable], ...] = (
    ("(a) < 100 KB: average", small_mean_ms),
    ("(b) < 100 KB: 99th percentile", small_p99_ms),
    ("(c) >= 1 MB: average", large_mean_ms),
)


def plot_fct(done: Done, out_dir, stem: str, title: str, labels: Sequence[str], panels=PANELS) -> list:
    """The AIFO paper's FCT panels vs load, one line per variant that ran."""
    drawn = [
        {
            "title": name,
            "xlabel": LOAD_LABEL,
            "ylabel": "FCT (ms)",
            "lines": scheme_lines(done, metric, labels),
        }
        for name, metric in panels
    ]
    return line_panels(out_dir, stem, drawn, title)


def rows(done: Done) -> list[dict]:
    return [
        {
            **labels,
            "small_mean_fct_ms": _r(small_mean_ms(r)),
            "small_p99_fct_ms": _r(small_p99_ms(r)),
            "medium_mean_fct_ms": _r(medium_mean_ms(r)),
            "large_mean_fct_ms": _r(large_mean_ms(r)),
            "unfinished": r.summary.get("flows_unfinished"),
        }
        for labels, r in done
    ]


def _r(value: float) -> float | None:
    return None if math.isnan(value) else round(value, 5)


def values(done: Done, label: str, metric: Callable) -> tuple[list, list]:
    return series(done, "load", metric, scheme=label)


def lower_everywhere(done: Done, better: str, worse: str, metric: Callable, what: str) -> Check | None:
    """Check: `better` has a lower `metric` than `worse` at every load (None if either did not run)."""
    xs, a = values(done, better, metric)
    _, b = values(done, worse, metric)
    if not xs or len(a) != len(b):
        return None
    ratios = [y / x for x, y in zip(a, b, strict=True)]
    return Check(
        f"{better} has a lower {what} than {worse} at every load",
        f"{worse} / {better} from {min(ratios):.2f} to {max(ratios):.2f}",
        f"{better} lower",
        all(r > 1 for r in ratios),
    )


def lower_than_each(
    done: Done,
    better: str,
    others: Sequence[str],
    metric: Callable = small_mean_ms,
    what: str = "small-flow mean FCT",
) -> list[Check]:
    """`lower_everywhere` of `better` against each of `others`, for those that ran (default: small-flow mean)."""
    return [c for c in (lower_everywhere(done, better, other, metric, what) for other in others) if c]


# --- Figures 10 and 11: AIFO's queue length on slow and on fast links ---------------------------------------

QUEUE_PKTS = (20, 50, 100)
QUEUE_VARIANTS = {f"AIFO q_len={q}": aifo(capacity_pkts=q) for q in QUEUE_PKTS}
# The experiment behind Figures 10 and 11: q_len 20 and 100 again over hosts whose first window fits the 20-packet
# queue (`FIRST_WINDOWS`: half of it, and all of it), where the authors' SRPT sender opens at 30 segments
# (PfabricSocket sets cwnd = ssthresh, NewRenoTcpSocket's 30 x MSS) and so overflows a 20-packet queue with its
# first window.
FIRST_WINDOWS = (10, 20)
WINDOW_RUNS = {
    f"AIFO q_len={q}, IW {w}": {
        **QUEUE_VARIANTS[f"AIFO q_len={q}"],
        "init_cwnd_pkts": w,
    }
    for w in FIRST_WINDOWS
    for q in (20, 100)
}


def queue_ratios(done: Done, short: str = "AIFO q_len=20", long: str = "AIFO q_len=100") -> tuple[list, list]:
    """(loads, small-flow mean of `short` over that of `long` at each)."""
    xs, a = values(done, short, small_mean_ms)
    _, b = values(done, long, small_mean_ms)
    if not xs or len(b) != len(xs):
        return [], []
    return xs, [x / y for x, y in zip(a, b, strict=True)]


def window_ratios(done: Done, window: int) -> tuple[list, list]:
    """`queue_ratios` over the `WINDOW_RUNS` hosts opening at `window` packets."""
    return queue_ratios(done, f"AIFO q_len=20, IW {window}", f"AIFO q_len=100, IW {window}")


def more_sensitive_at_high_load(ratios: Sequence[float]) -> bool:
    """q_len 20 / q_len 100 further from 1 (in either direction) at the highest load than at the lowest."""
    return abs(math.log(ratios[-1])) > abs(math.log(ratios[0]))


def _first_window_evidence(
    done: Done, holds: Callable[[list], bool], shown: Callable[[list, list], str]
) -> str | None:
    """The explanation of a queue-length check that fails over the authors' hosts and holds over hosts whose first
    window fits the 20-packet queue (None unless it holds at one of `FIRST_WINDOWS`, so the verdict stays
    "failed"). Every window's ratios are shown, those where it fails too."""
    xs, base = queue_ratios(done)
    swept = {w: window_ratios(done, w) for w in FIRST_WINDOWS}
    if not xs or any(wxs != xs for wxs, _ in swept.values()):
        return None
    fits = [w for w, (_, ratios) in swept.items() if holds(ratios)]
    if not fits:
        return None
    return (
        "first-window sweep: "
        + "; ".join(
            f"over hosts opening at {w} packets the claim {'holds' if w in fits else 'fails'} ({shown(xs, r)})"
            for w, (_, r) in swept.items()
        )
        + f"; over the authors' SRPT sender, which opens at 30 and overflows a 20-packet queue with its first "
        f"window, {shown(xs, base)}"
    )


def queue_length_figure(
    number: int,
    links: str,
    topology: dict,
    claim: str,
    expected: str,
    holds: Callable[[float], bool],
    sensitivity: str,
) -> Figure:
    """AIFO Figure 10 or 11: AIFO with queues of 20, 50 and 100 packets on a leaf-spine of `links` ("1G/4G":
    the rates in `topology`). Checked: `holds(r)` at every load, r the small-flow mean with a queue of 20 over
    that with a queue of 100, worded as `claim`, the paper's finding as `expected`; and the paper's "more
    sensitive to the change of queue length ... when the traffic load is high": r further from 1 at the
    highest load than at the lowest (`sensitivity`: the authors' values). Either, failing, is explained by the
    `WINDOW_RUNS` experiment where it holds there."""
    title = f"AIFO Figure {number}: queue length, {links}"
    variants = {**QUEUE_VARIANTS, **WINDOW_RUNS}

    def plot(done: Done, out_dir: Path) -> list[Path]:
        return plot_fct(done, out_dir, "queue_length", title, list(QUEUE_VARIANTS))

    def span(xs: list, ratios: list) -> str:
        return f"q_len 20 / q_len 100 small-flow mean from {min(ratios):.2f} to {max(ratios):.2f}"

    def ends(xs: list, ratios: list) -> str:
        return f"{ratios[0]:.2f} at load {xs[0]}, {ratios[-1]:.2f} at {xs[-1]}"

    def checked(name: str, shown, paper: str, rule: Callable[[list], bool], done: Done) -> Check:
        xs, ratios = queue_ratios(done)
        ok = rule(ratios)
        why = None if ok else _first_window_evidence(done, rule, shown)
        return Check(name, shown(xs, ratios), paper, ok, explained=why)

    def checks(done: Done) -> list[Check]:
        xs, _ = queue_ratios(done)
        if not xs:
            return []
        out = [checked(claim, span, expected, lambda rs: all(holds(r) for r in rs), done)]
        if len(xs) >= 2:
            out.append(
                checked(
                    "AIFO is more sensitive to the queue length at high load (q_len 20 / q_len 100 further "
                    "from 1 at the highest load than at the lowest)",
                    ends,
                    f"more sensitive when the load is high ({sensitivity})",
                    more_sensitive_at_high_load,
                    done,
                )
            )
        return out

    return Figure(
        name=f"aifo-fig{number}",
        paper="AIFO",
        title=title,
        shows=f"FCT vs load for AIFO with queues of 20, 50 and 100 packets on a {links} leaf-spine",
        schemes=("aifo",),
        points=partial(points, variants=variants, topology=topology),
        plot=plot,
        checks=checks,
        table=rows,
        notes=(
            "Queue lengths 20, 50 and 100 packets, of the authors' 10, 20, 50, 100 and 500 (their q_len data).",
            (
                "The IW rows are the experiment: q_len 20 and 100 over hosts whose first window is "
                + " or ".join(str(w) for w in FIRST_WINDOWS)
                + " packets instead of the authors' 30."
            ),
        ),
    )
