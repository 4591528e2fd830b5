"""The CS244 case (seed `002_…`): a 2017 student reproduction of pFabric on Mininet, beside the correct set-up.

Their set-up: a 28-host star at 100 Mbps with 6 us links; pFabric approximated by Linux PRIO with 16 strict
priority bands (flow sizes binned linearly, or logarithmically), each band a FIFO with its own packet limit and
no way to drop the lowest-priority packet; "MinTCP" (TCP Reno without fast retransmit: here TCP with a
duplicate-ACK threshold it never reaches); and a per-sender arrival rate used as the total rate (lambda not
divided by the number of hosts), which offers N = 28 times the intended load. They ran each load for 240 s.

The figure runs, on the same star and flows: TCP-DropTail and pFabric (the paper's design) at the intended
load, and the students' PRIO approximation with linear and logarithmic bins, at the intended load and at their
28x arrival rate. Reading it: which of their four divergences (erratic p99, TCP better at low load, no rise
with load in data mining, averages far above best-case) come from PRIO's binning and drop policy and which
from the overload, whose unfinished flows a finished-only average hides.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..presets import Check
from ..result import RunResult
from ..scenario import Scenario
from ..workloads import load_cdf
from .common import LOAD, NFCT, Done, fct_table, line_panels, mean_nfct, series, unfinished
from .figure import Figure

HOSTS, RATE_GBPS, LINK_US = 28, 0.1, 6.0
BANDS, BAND_PKTS = 16, 1000  # Linux PRIO: 16 bands, each a pfifo of txqueuelen = 1000 packets
LOADS, LOADS_QUICK = (0.1, 0.2, 0.4, 0.6, 0.8), (0.2, 0.5, 0.8)
DURATION_S, DURATION_QUICK_S = 240.0, 4.0
TOPOLOGY = {
    "kind": "star",
    "hosts": HOSTS,
    "host_rate_gbps": RATE_GBPS,
    "link_delay_us": LINK_US,
    "host_delay_us": 0,
}
MIN_TCP = {"name": "prio-queues", "dupack_threshold": 1000, "init_cwnd_pkts": 12}


def band_thresholds(binning: str) -> list[int]:
    """15 thresholds splitting web search's flow sizes into 16 bands, equal-width or log-spaced."""
    cdf = load_cdf("websearch")
    lo, hi = max(1460.0, float(cdf.size_bytes.min())), float(cdf.size_bytes.max())
    if binning == "linear":
        edges = np.linspace(lo, hi, BANDS + 1)[1:-1]
    else:
        edges = np.geomspace(lo, hi, BANDS + 1)[1:-1]
    return sorted({int(e) for e in edges})


# pFabric's rules of thumb scaled to their fabric: RTT about 270 us (4 x 6 us links, a 1500-byte packet is
# 120 us at 100 Mbps), BDP about 3.4 KB; queue 2 x BDP (6 packets), RTO 3 x RTT, initial window one BDP.
PFABRIC_SCALED = {
    "name": "pfabric",
    "queue_bytes": 9_000,
    "rto_us": 800,
    "init_cwnd_pkts": 3,
    "max_cwnd_pkts": 6,
}

VARIANTS = {
    "TCP-DropTail": {"name": "tcp"},
    "pFabric": PFABRIC_SCALED,
    # The paper's 10 Gbps constants kept at 100 Mbps: a 45 us RTO is shorter than one packet's transmission.
    "pFabric-10G-constants": {"name": "pfabric"},
    "PRIO-linear": {
        **MIN_TCP,
        "thresholds_bytes": band_thresholds("linear"),
        "queue_bytes": BANDS * BAND_PKTS * 1500,
        "reserved_bytes": BAND_PKTS * 1500,
    },
    "PRIO-log": {
        **MIN_TCP,
        "thresholds_bytes": band_thresholds("log"),
        "queue_bytes": BANDS * BAND_PKTS * 1500,
        "reserved_bytes": BAND_PKTS * 1500,
    },
}


def scenario(variant: str, load: float, their_rate: bool, quick: bool) -> Scenario:
    """A run on their star; `their_rate` uses the per-sender rate as the total (N x the intended load)."""
    workload: dict = {
        "kind": "poisson",
        "cdf": "websearch",
        "duration_s": DURATION_QUICK_S if quick else DURATION_S,
    }
    if their_rate:
        # lambda = load x B / E[size] per sender, used as the total: N times the rate the load asks for.
        intended = Scenario.from_dict({"topology": TOPOLOGY, "workload": {**workload, "load": load}})
        workload["arrival_rate_per_s"] = HOSTS * _rate_for(intended)
    else:
        workload["load"] = load
    return Scenario.from_dict(
        {
            "topology": TOPOLOGY,
            "workload": workload,
            "scheme": VARIANTS[variant],
            # Overloaded runs never drain: stop a while after the arrivals and count what is unfinished.
            "run": {"max_sim_time_s": 2 * workload["duration_s"]},
        }
    )


def _rate_for(s: Scenario) -> float:
    """Total flow arrival rate (per second) that the scenario's load asks for, as the core defines it:
    load x hosts x rate / (8 x mean wire bytes per flow), sizes in whole 1460-byte packets of 1500 wire bytes."""
    from ..analysis.thresholds import SizeDistribution

    mean_bytes = SizeDistribution.from_cdf(s.workload.cdf_data).moments[0]
    return s.workload.load * HOSTS * RATE_GBPS * 1e9 / (8 * mean_bytes * 1500 / 1460)


def points(quick: bool):
    loads = LOADS_QUICK if quick else LOADS
    out = []
    for load in loads:
        for variant in VARIANTS:
            out.append(
                (
                    {"variant": variant, "rate": "intended", "load": load},
                    scenario(variant, load, False, quick),
                )
            )
        for variant in ("PRIO-linear", "PRIO-log", "TCP-DropTail"):
            out.append(
                (
                    {"variant": variant, "rate": "theirs (28x)", "load": load},
                    scenario(variant, load, True, quick),
                )
            )
    return out


def _small_p99(result: RunResult) -> float:
    value = result.summary["bins"]["(0,100KB]"]["p99_normalized_fct"]
    return float("nan") if value is None else float(value)


def plot(done: Done, out_dir: Path) -> list[Path]:
    panels = []
    for rate in ("intended", "theirs (28x)"):
        for metric, name in ((mean_nfct, "mean"), (_small_p99, "p99 (0,100KB]")):
            lines = []
            for variant in VARIANTS:
                xs, ys = series(done, "load", metric, variant=variant, rate=rate)
                if xs:
                    lines.append((variant, xs, ys))
            panels.append(
                {
                    "title": f"{rate} arrival rate: {name}",
                    "xlabel": LOAD,
                    "ylabel": f"{name} {NFCT}",
                    "lines": lines,
                    "logy": True,
                }
            )
    return line_panels(
        out_dir, "cs244", panels, "The CS244 set-up (28-host star, 100 Mbps) beside the correct one", ncols=2
    )


def checks(done: Done) -> list[Check]:
    out = []
    pf = dict(zip(*series(done, "load", mean_nfct, variant="pFabric", rate="intended"), strict=True))
    tcp = dict(zip(*series(done, "load", mean_nfct, variant="TCP-DropTail", rate="intended"), strict=True))
    if pf and tcp:
        low = min(pf)
        out.append(
            Check(
                "with the intended load and pFabric scaled to the fabric, pFabric beats TCP at every load "
                "(their divergence 2 is not pFabric's)",
                ", ".join(f"{x}: {pf[x]:.2f} vs {tcp[x]:.2f}" for x in sorted(pf)),
                "pFabric below TCP (paper); CS244: TCP better at the lowest loads",
                all(pf[x] < tcp[x] for x in pf) and low in tcp,
            )
        )
    theirs = [(labels, r) for labels, r in done if labels["rate"] != "intended"]
    if theirs:
        lost = sum(unfinished(r) for _, r in theirs)
        total = sum(r.summary["flows_total"] for _, r in theirs)
        loads = sorted({r.stats.get("target_load", 0) for _, r in theirs})
        out.append(
            Check(
                "their per-sender arrival rate overloads the fabric: flows never finish, and finished-only averages hide them",
                f"offered load {loads[0]:.1f} to {loads[-1]:.1f}; {lost} of {total} flows unfinished",
                "CS244: averages far above best case, erratic p99 (divergences 1, 4)",
                loads[0] >= 1 and lost > 0,
            )
        )
    return out


FIGURE = Figure(
    name="cs244",
    paper="CS244 2017 (seed 002)",
    title="The CS244 Mininet reproduction beside the correct set-up",
    shows="normalized FCT vs load on their 28-host 100 Mbps star: TCP, pFabric, their 16-band PRIO approximation "
    "(linear and log bins), at the intended load and at their per-sender rate (28x)",
    schemes=("tcp", "pfabric", "prio-queues"),
    points=points,
    plot=plot,
    checks=checks,
    table=fct_table,
    notes=(
        (
            "pFabric's parameters scale with the fabric (queue 2 x BDP, RTO 3 x RTT, initial window one BDP); "
            "'pFabric-10G-constants' keeps the paper's 36 KB / 45 us at 100 Mbps, where the RTO is shorter "
            "than one packet's transmission, to show what unscaled constants cost."
        ),
        "MinTCP is TCP with fast retransmit off (duplicate-ACK threshold 1000); their Reno's RTO estimation is kept.",
        "PRIO bands are FIFOs of 1000 packets each with no sharing; a full band drops the arrival.",
        "Paper scale runs 240 s per load, as they did; quick runs 4 s.",
    ),
)
