"""Homa (Montazeri et al., SIGCOMM 2018), its simulations: the 99th-percentile slowdown by message size on the
pFabric paper's fabric at 80% load, over the Homa paper's five workloads W1-W5 (their size distributions from
the authors' simulator, packaged with provenance in data/workloads/SOURCES.md), Homa beside pFabric, pHost,
PIAS and NDP.

Checked against the abstract: "In simulations, Homa's latency is roughly equal to pFabric and significantly
better than pHost, PIAS, and NDP for almost all message sizes and workloads." Its metric is the 99th
percentile of slowdown (a message's time over its time alone in the fabric), by message size, the sizes cut
into ten groups of equally many messages (the paper's x axis: each tick a tenth of the messages). How we read
the words, our bounds (the abstract gives no number):

* "roughly equal to pFabric": Homa's 99th percentile over all messages of each workload within
  `ROUGHLY_EQUAL` (10%) of pFabric's;
* "significantly better than pHost, PIAS, and NDP for almost all message sizes and workloads": Homa's 99th
  percentile below the other's in at least `ALMOST_ALL` (90%) of the (workload, size group) cells where the
  two differ by more than `TIE` (1%). Where they do not, neither is better: such groups hold the smallest
  messages of W4, which every scheme sends at its top priority, so that their tail is the fabric's own
  latency (Homa, pFabric and PIAS within 0.6% of each other there); they are counted and shown, not scored.

And on the pFabric paper's incast (its Figure 6: a 100 MB request striped over 5, 20 and 50 senders to one
host), Homa's request completes within `INCAST_WITHIN` (1%) of the best possible (our bound: a receiver that
grants several senders at once keeps its link busy; the paper gives no number for this set-up), and no packet
is dropped. It found a bug: a copy of a packet already held restarted the silence before a RESEND, so the
RESENDs for granted messages starved behind higher levels never backed off (1,332 copies, 293 drops and +2.3%
at 20 senders); with that fixed and RESENDs after 1 ms of silence (the authors' Linux module waits
milliseconds; their simulator has no RESEND), +0.34%.

Homa's third claim: it "can also sustain higher network loads than pFabric, pHost, or PIAS" (abstract; the paper
gives the loads per protocol and workload in a figure whose numbers we could not obtain, so the check is the
ordering alone). A scheme sustains a load when the fabric delivers what is offered: each scheme runs W2 at each
of `SUSTAIN_LOADS` twice, stopped at two horizons (`HORIZONS_S`, same arrivals), and of the bytes offered between
the two horizons the share not delivered meanwhile (`deficit`: offered minus `data_bytes_received`, the payload
receivers took new) is near 0 for a scheme that keeps up and near 1 - capacity / load for one that cannot. Ours:
it keeps up when at most `KEEPS_UP` (2%) is missing; its sustainable load is the highest of the grid up to which
it keeps up at every load. W2 (Google search RPCs, mean 441 bytes) is the workload whose backlog settles within
a run of milliseconds: with W3-W5's megabyte messages every scheme's deficit still falls over 40 ms (W3: Homa
6.3% then 4.5% at load 0.7), which hides a protocol's own limit.

PIAS is the Homa paper's PIAS: the Homa authors ran the PIAS authors' ns-2 code with their own settings for each
workload (`HOMA_AUTHORS_PIAS`), and so does this figure, in every panel. Against the PIAS bundle as it stands (the
PIAS authors' web-search settings) the ordering does not hold: that PIAS keeps up at 0.95 on W2 as Homa does
(paper scale, deficit 1.5% against Homa's 1.7%). What separates them is the Homa authors' 200 us minimum timeout:
at 0.95 the queues hold packets longer than that, spurious timeouts send copies that overflow the ports, and
their drops bring more timeouts (14.8% undelivered, 629,467 packets dropped by 20 ms); the same settings with the
PIAS authors' 2 ms timeout keep up (1.3%, none dropped). The experiment runs both other PIAS lines beside the
check (`PIAS_BESIDE`), not scored. Our PIAS opens each message afresh, its first timeout the 200 us floor; the
Homa authors' ten persistent connections per host pair (not modelled) carry an RTT estimate from message to
message, whose timeout may sit above that floor at high load.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..presets import Check, best_fan_in_finish_s, request_completion_s
from .common import (
    PFABRIC_INCAST_BYTES,
    PFABRIC_INCAST_SENDERS,
    Done,
    line_panels,
    over_best,
    pfabric_incast_scenario,
    poisson,
    select,
)
from .figure import Figure

WORKLOADS = {
    "W1": "homa_w1_facebook_keyvalue_discrete",
    "W2": "homa_w2_google_search_rpc_discrete",
    "W3": "homa_w3_google_all_rpc_discrete",
    "W4": "homa_w4_facebook_hadoop_discrete",
    "W5": "homa_w5_websearch_discrete",
}
# The paper's load for its headline comparison (section 5.2).
LOAD = 0.8
SCHEMES = {"Homa": "homa", "pFabric": "pfabric", "pHost": "phost", "PIAS": "pias", "NDP": "ndp"}
# PIAS as the Homa authors ran it for their paper, from their ns-2 parameter files (PlatformLab/HomaSimulation
# @20a0bbd9, RpcTransportDesign/ns2_Simulations/scripts/pias{KeyValue,SearchRpc,AllRpc,Hadoop,Search}Params.py,
# run by search_pias.tcl): DCTCP hosts opening at 7 packets with a 200 us minimum (and first) timeout; ports of 250
# packets that mark ECN at 15 (ns-2 counts both in 1,500-byte packets); and the thresholds between the 8 queues
# that the authors chose for each workload at load 0.8. Not carried over: their ten persistent connections per
# host pair (ours opens each message afresh) and their sub-packet messages (ours are whole packets).
HOMA_AUTHORS_PIAS = {
    "init_cwnd_pkts": 7,
    "min_rto_us": 200.0,
    "init_rto_us": 200.0,
    "queue_bytes": 250 * 1500,
    "ecn_threshold_bytes": 15 * 1500,
}
HOMA_AUTHORS_PIAS_THRESHOLDS_BYTES = {
    "W1": [183, 259, 287, 314, 332, 352, 367],
    "W2": [368, 410, 422, 435, 442, 451, 457],
    "W3": [436, 554, 633, 720, 784, 865, 939],
    "W4": [38210, 48958, 50905, 68384, 73799, 76588, 78129],
    "W5": [p * 1460 for p in (909, 1329, 1648, 1960, 2143, 2337, 2484)],
}
# Two more PIAS lines of the sustainable-load experiment, shown beside its PIAS check and not scored: what the
# ordering owes to PIAS's settings. The PIAS authors' own (web-search) settings, the `pias` bundle as it stands;
# and the Homa authors' settings but for the 2 ms timeout of the PIAS authors'.
PIAS_OWN_SETTINGS = "PIAS, its authors' settings"
PIAS_SLOW_TIMEOUT = "PIAS as the Homa authors ran it, 2 ms timeout"
PIAS_BESIDE = (PIAS_OWN_SETTINGS, PIAS_SLOW_TIMEOUT)
# Messages per run: 20,000 (2,000 per size group) wherever that is cheap, at quick scale too; W5 (web search,
# the largest messages) runs 4,000 at quick scale. Fewer read low tails: W4 with 4,000 messages put Homa's 99th
# percentile at 0.89 of pFabric's, 0.93 with 20,000.
MESSAGES = {"W1": 20_000, "W2": 20_000, "W3": 20_000, "W4": 20_000, "W5": 20_000}
MESSAGES_QUICK = {"W1": 20_000, "W2": 20_000, "W3": 20_000, "W4": 20_000, "W5": 4_000}
GROUPS = 10
ROUGHLY_EQUAL = 0.10
ALMOST_ALL = 0.90
TIE = 0.01
INCAST_WITHIN = 0.01

# The sustainable-load experiment (module docstring).
SUSTAIN_WORKLOAD = "W2"
SUSTAIN_SCHEMES = ("Homa", "pFabric", "pHost", "PIAS", *PIAS_BESIDE)
SUSTAIN_CHECKED = ("pFabric", "pHost", "PIAS")
SUSTAIN_LOADS = (0.7, 0.8, 0.85, 0.9, 0.95)
# Quick scale runs fewer schemes and loads, never shorter horizons (at 5 and 10 ms the backlog still building at
# 0.95 reads as a deficit: Homa 2.2%, against 1.7% at 10 and 20 ms): Homa and PIAS at the load that tells them
# apart, pHost at one it fails. pFabric (its collapse at 0.9 costs 90 s of CPU: 229,818 flows active at the peak, each
# timing out every 45 us) and the two PIAS lines not scored run at paper scale only. A scheme that keeps up at every
# load it ran reads "at least" its highest and never lets the check pass (`sustains_more`).
SUSTAIN_LOADS_QUICK = {"Homa": (0.95,), "PIAS": (0.95,), "pHost": (0.9,)}
HORIZONS_S = (0.01, 0.02)
KEEPS_UP = 0.02
# Arrivals go on past the longer horizon, so that no run drains before it stops.
ARRIVALS_PAST_HORIZON = 1.2


def scheme_for(label: str, workload: str) -> dict:
    """The scheme `label` names on `workload`: its bundle's defaults, but for PIAS as the Homa authors ran it."""
    if label == PIAS_OWN_SETTINGS:
        return {"name": "pias"}
    if label in ("PIAS", PIAS_SLOW_TIMEOUT):
        scheme = {
            "name": "pias",
            **HOMA_AUTHORS_PIAS,
            "thresholds_bytes": HOMA_AUTHORS_PIAS_THRESHOLDS_BYTES[workload],
        }
        if label == PIAS_SLOW_TIMEOUT:
            scheme.update(min_rto_us=2000.0, init_rto_us=2000.0)
        return scheme
    return {"name": SCHEMES[label]}


def points(quick: bool) -> list:
    counts = MESSAGES_QUICK if quick else MESSAGES
    loaded = [
        ({"workload": w, "scheme": label}, poisson(cdf, LOAD, counts[w], scheme_for(label, w)))
        for w, cdf in WORKLOADS.items()
        for label in SCHEMES
    ]
    incast = [
        ({"incast": True, "senders": n, "scheme": "Homa"}, pfabric_incast_scenario("homa", n))
        for n in PFABRIC_INCAST_SENDERS
    ]
    return loaded + incast + sustain_points(quick)


def sustain_points(quick: bool) -> list:
    """Each scheme of `SUSTAIN_SCHEMES` at each load on `SUSTAIN_WORKLOAD`, stopped at each horizon."""
    cdf = WORKLOADS[SUSTAIN_WORKLOAD]
    return [
        (
            {"sustain": True, "workload": SUSTAIN_WORKLOAD, "load": load, "scheme": label, "horizon_s": h},
            poisson(
                cdf,
                load,
                None,
                scheme_for(label, SUSTAIN_WORKLOAD),
                duration_s=ARRIVALS_PAST_HORIZON * max(HORIZONS_S),
            ).with_values({"run.max_sim_time_s": h}),
        )
        for label in SUSTAIN_SCHEMES
        for load in (SUSTAIN_LOADS_QUICK.get(label, ()) if quick else SUSTAIN_LOADS)
        for h in HORIZONS_S
    ]


def loaded_runs(done: Done) -> Done:
    return [(labels, result) for labels, result in done if "incast" not in labels and "sustain" not in labels]


def offered_and_undelivered(result) -> tuple[float, float]:
    """Payload bytes of the messages that arrived by the end of the run, and the part of them not delivered."""
    end_s = result.stats["sim_time_ps"] * 1e-12
    flows = result.flows
    size = flows.column("size_bytes").to_numpy().astype(float)
    offered = float(size[flows.column("start_s").to_numpy() <= end_s].sum())
    return offered, offered - float(result.stats["data_bytes_received"])


def deficits(done: Done) -> dict[str, dict[float, float]]:
    """Per scheme and load: the share of the bytes offered between the two horizons not delivered meanwhile."""
    horizons: dict[str, dict[float, list]] = {}
    for labels, r in select(done, sustain=True):
        by_load = horizons.setdefault(labels["scheme"], {})
        by_load.setdefault(labels["load"], []).append((labels["horizon_s"], offered_and_undelivered(r)))

    def deficit(runs: list) -> float:
        if len(runs) < 2:
            return float("nan")
        (_, (o1, u1)), *_, (_, (o2, u2)) = sorted(runs)
        # Nothing offered between the horizons (a run cut short at the same moment): nothing to tell.
        return (u2 - u1) / (o2 - o1) if o2 > o1 else float("nan")

    return {
        scheme: {load: deficit(runs) for load, runs in sorted(by_load.items())}
        for scheme, by_load in horizons.items()
    }


def sustained_load(by_load: dict[float, float]) -> float:
    """The highest load up to which the scheme keeps up at every load run (0 when it fails the lowest)."""
    best = 0.0
    for load, deficit in by_load.items():
        if not deficit <= KEEPS_UP:
            break
        best = load
    return best


def fails_by(by_load: dict[float, float], load: float) -> bool:
    """Whether the scheme failed to keep up at some load run up to `load`: evidence that it sustains less."""
    return any(not deficit <= KEEPS_UP for at, deficit in by_load.items() if at <= load)


def sustains_more(done: Done) -> list[Check]:
    by_scheme = deficits(done)
    if "Homa" not in by_scheme:
        return []
    homa = sustained_load(by_scheme["Homa"])

    def shown(scheme: str) -> str:
        d = by_scheme[scheme]
        top = sustained_load(d)
        if not top:
            top_shown = f"below {min(d):g}"
        else:
            top_shown = f"{top:g}" if fails_by(d, max(d)) else f"at least {top:g}"
        return f"{scheme} {top_shown} (" + ", ".join(f"{load:g}: {v:.1%}" for load, v in d.items()) + ")"

    def beside(other: str) -> str:
        # The other PIAS lines (`PIAS_BESIDE`), shown beside the check against the Homa authors' PIAS.
        shown_beside = [shown(label) for label in PIAS_BESIDE if label in by_scheme]
        return f"; not scored: {'; '.join(shown_beside)}" if other == "PIAS" and shown_beside else ""

    return [
        Check(
            f"Homa sustains a higher load than {other} on {SUSTAIN_WORKLOAD}: the highest load up to which at most "
            f"{KEEPS_UP:.0%} of the bytes offered between two horizons goes undelivered"
            + (" (PIAS as the Homa authors ran it)" if other == "PIAS" else ""),
            f"sustainable load (deficit by load): {shown('Homa')}; {shown(other)}{beside(other)}",
            f"higher than {other} (Homa abstract)",
            homa > sustained_load(by_scheme[other]) and fails_by(by_scheme[other], homa),
        )
        for other in SUSTAIN_CHECKED
        if other in by_scheme
    ]


def p99(result) -> float:
    """The 99th percentile of slowdown over every message of a run."""
    return float(np.nanpercentile(result.flows.column("slowdown").to_numpy(), 99))


def p99_by_size(result) -> list[float]:
    """The 99th percentile of slowdown in each of `GROUPS` groups of messages by size, smallest first (equally
    many messages each; equal sizes in flow order, the same in every scheme's run of a workload)."""
    flows = result.flows
    size = flows.column("size_bytes").to_numpy()
    slowdown = flows.column("slowdown").to_numpy()
    order = np.argsort(size, kind="stable")
    return [float(np.nanpercentile(slowdown[g], 99)) for g in np.array_split(order, GROUPS)]


def _runs(done: Done, workload: str) -> dict:
    return {labels["scheme"]: result for labels, result in select(loaded_runs(done), workload=workload)}


def roughly_pfabric(done: Done) -> Check | None:
    ratios = {}
    for w in WORKLOADS:
        runs = _runs(done, w)
        if "Homa" in runs and "pFabric" in runs:
            ratios[w] = p99(runs["Homa"]) / p99(runs["pFabric"])
    if not ratios:
        return None
    holds = all(abs(r - 1) <= ROUGHLY_EQUAL for r in ratios.values())
    return Check(
        f"Homa's 99th-percentile slowdown roughly equal to pFabric's at load {LOAD}, each workload (within "
        f"{ROUGHLY_EQUAL:.0%})",
        "Homa / pFabric: " + ", ".join(f"{w} {r:.2f}" for w, r in ratios.items()),
        "roughly equal (Homa abstract; Fig. 12 of the SIGCOMM version)",
        holds,
    )


def better_than(done: Done, other: str) -> Check | None:
    cells, ties, below, worst = 0, 0, 0, []
    for w in WORKLOADS:
        runs = _runs(done, w)
        if "Homa" not in runs or other not in runs:
            continue
        for g, (h, o) in enumerate(zip(p99_by_size(runs["Homa"]), p99_by_size(runs[other]), strict=True)):
            if abs(h / o - 1) <= TIE:
                ties += 1
                continue
            cells += 1
            below += h < o
            worst.append((h / o, w, g))
    if not cells:
        return None
    share = below / cells
    worst.sort(reverse=True)
    shown = ", ".join(f"{w} group {g + 1} {r:.2f}" for r, w, g in worst[:3])
    return Check(
        f"Homa's 99th-percentile slowdown below {other}'s for almost all message sizes and workloads (at least "
        f"{ALMOST_ALL:.0%} of the {GROUPS} size groups x workloads where they differ by more than {TIE:.0%})",
        f"below in {below} of {cells} ({share:.0%}; {ties} groups within {TIE:.0%}, not scored); highest "
        f"Homa / {other}: {shown}",
        f"significantly better than {other} (Homa abstract)",
        share >= ALMOST_ALL,
    )


def incast_near_best(done: Done) -> Check | None:
    runs = {labels["senders"]: r for labels, r in select(done, incast=True)}
    if not runs:
        return None
    over = {n: over_best(r) for n, r in sorted(runs.items())}
    dropped = sum(r.stats["data_packets_dropped"] for r in runs.values())
    return Check(
        f"the pFabric paper's incast ({PFABRIC_INCAST_BYTES // 10**6} MB striped over N senders): Homa's request "
        f"completes within {INCAST_WITHIN:.0%} of the best possible, no packet dropped",
        ", ".join(f"{n} senders {v:+.2%}" for n, v in over.items()) + f"; {dropped} dropped",
        f"within {INCAST_WITHIN:.0%} (ours: the claim has no number for this set-up); pFabric Fig. 6 set-up",
        all(-1e-9 <= v <= INCAST_WITHIN for v in over.values()) and dropped == 0,
    )


def checks(done: Done) -> list[Check]:
    found = (
        roughly_pfabric(done),
        *(better_than(done, other) for other in ("pHost", "PIAS", "NDP")),
        incast_near_best(done),
        *sustains_more(done),
    )
    return [c for c in found if c]


def plot(done: Done, out_dir: Path) -> list[Path]:
    panels = []
    for w in WORKLOADS:
        runs = _runs(done, w)
        xs = [(g + 1) * 100 // GROUPS for g in range(GROUPS)]
        lines = [(label, xs, p99_by_size(runs[label])) for label in SCHEMES if label in runs]
        panels.append(
            {
                "title": f"{w}, load {LOAD}",
                "xlabel": "message size (percent of messages, smallest first)",
                "ylabel": "99th-percentile slowdown",
                "lines": lines,
                "logy": True,
            }
        )
    paths = line_panels(out_dir, "homa", panels, "Homa beside pFabric, pHost, PIAS and NDP", ncols=3)
    by_scheme = deficits(done)
    if by_scheme:
        loads = sorted({load for d in by_scheme.values() for load in d})
        paths += line_panels(
            out_dir,
            "sustain",
            [
                {
                    "title": f"{SUSTAIN_WORKLOAD}: bytes offered between the horizons not delivered",
                    "xlabel": "load (fraction of host link capacity)",
                    "ylabel": "deficit (%)",
                    "lines": [(s, list(d), [100 * v for v in d.values()]) for s, d in by_scheme.items()],
                    "marks": [(f"keeps up: at most {KEEPS_UP:.0%}", loads, [100 * KEEPS_UP] * len(loads))],
                }
            ],
            "Homa's sustainable load beside pFabric's, pHost's and PIAS's",
        )
    return paths


def table(done: Done) -> list[dict]:
    rows = []
    for labels, result in loaded_runs(done):
        row = {**labels, "p99_slowdown": round(p99(result), 4)}
        for g, value in enumerate(p99_by_size(result)):
            row[f"p99_group_{g + 1}"] = round(value, 4)
        rows.append(row)
    for labels, result in select(done, sustain=True):
        offered, undelivered = offered_and_undelivered(result)
        rows.append({**labels, "offered_bytes": offered, "undelivered_bytes": undelivered})
    for labels, result in select(done, incast=True):
        rows.append(
            {
                **labels,
                "request_completion_ms": round(request_completion_s(result) * 1e3, 4),
                "best_ms": round(best_fan_in_finish_s(result) * 1e3, 4),
                "data_packets_dropped": result.stats["data_packets_dropped"],
            }
        )
    return rows


FIGURE = Figure(
    name="homa",
    paper="Homa",
    title="Homa: 99th-percentile slowdown by message size, W1-W5 at 80% load",
    shows="99th-percentile slowdown in ten message-size groups, W1-W5 at load 0.8 on the pFabric paper's fabric: "
    "Homa, pFabric, pHost, PIAS, NDP; Homa in the pFabric paper's incast; the load each of Homa, pFabric, pHost "
    "and PIAS sustains on W2",
    schemes=("homa", "pfabric", "phost", "pias", "ndp"),
    points=points,
    plot=plot,
    checks=checks,
    table=table,
    notes=(
        (
            "The fabric is the pFabric paper's (144 hosts, 10/40 Gbps); the Homa paper's is the same shape (9 "
            "racks of 16 hosts, 10 Gbps hosts, 40 Gbps core) with its own switch delays."
        ),
        (
            "Each scheme runs with its own defaults (`pfabric schemes`) but PIAS, which runs as the Homa authors ran it "
            "(their ns-2 parameter files: initial window 7, 200 us timeout, ECN at 15 packets, 250-packet ports, "
            "thresholds per workload); at paper scale the sustainable-load panel adds PIAS with its own authors' "
            "settings and with the Homa authors' but a 2 ms timeout."
        ),
    ),
)
