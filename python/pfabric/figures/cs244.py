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
from the overload, whose unfinished flows a finished-only average hides. Two more of their observations are
checked: log-scale bands "made pFabric perform worse" (both bandings run on the same flows), and their
divergence 3 (data-mining runs on their star: pFabric at the intended load, their PRIO at their rate, PRIO
bands over data mining's own sizes; quick runs data mining for 20 s, paper scale 240 s).
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np

from ..presets import Check
from ..result import RunResult
from ..scenario import Scenario
from ..workloads import load_cdf
from .common import (
    LOAD,
    NFCT,
    SMALL,
    Done,
    bin_stat,
    fct_table,
    line_panels,
    mean_nfct,
    select,
    series,
    unfinished,
)
from .figure import Figure

HOSTS, RATE_GBPS, LINK_US = 28, 0.1, 6.0
BANDS, BAND_PKTS = 16, 1000  # Linux PRIO: 16 bands, each a pfifo of txqueuelen = 1000 packets
LOADS, LOADS_QUICK = (0.1, 0.2, 0.4, 0.6, 0.8), (0.2, 0.5, 0.8)
DURATION_S, DURATION_QUICK_S = 240.0, 4.0
# Data mining's flows are 4.4x web search's on average (7.5 MB, 0.6 s alone at 100 Mbps): quick runs it longer.
DATAMINING_QUICK_S = 20.0
TOPOLOGY = {
    "kind": "star",
    "hosts": HOSTS,
    "host_rate_gbps": RATE_GBPS,
    "link_delay_us": LINK_US,
    "host_delay_us": 0,
}
MIN_TCP = {"name": "prio-queues", "dupack_threshold": 1000, "init_cwnd_pkts": 12}


def band_thresholds(binning: str, workload: str = "websearch") -> list[int]:
    """15 thresholds splitting a workload's flow sizes into 16 bands, equal-width or log-spaced."""
    cdf = load_cdf(workload)
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


def scenario(variant: str, load: float, their_rate: bool, quick: bool, cdf: str = "websearch") -> Scenario:
    """A run on their star; `their_rate` uses the per-sender rate as the total (N x the intended load)."""
    quick_s = DURATION_QUICK_S if cdf == "websearch" else DATAMINING_QUICK_S
    workload: dict = {
        "kind": "poisson",
        "cdf": cdf,
        "duration_s": quick_s if quick else DURATION_S,
    }
    if their_rate:
        # lambda = load x B / E[size] per sender, used as the total: N times the rate the load asks for.
        intended = Scenario.from_dict({"topology": TOPOLOGY, "workload": {**workload, "load": load}})
        workload["arrival_rate_per_s"] = HOSTS * _rate_for(intended)
    else:
        workload["load"] = load
    scheme = dict(VARIANTS[variant])
    if variant.startswith("PRIO-") and cdf != "websearch":  # bands over this workload's own sizes
        scheme["thresholds_bytes"] = band_thresholds(variant.removeprefix("PRIO-"), cdf)
    return Scenario.from_dict(
        {
            "topology": TOPOLOGY,
            "workload": workload,
            "scheme": scheme,
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


WEB = {"workload": "web search"}
MINING = {"workload": "data mining"}
# Their divergence 3 (data mining): pFabric as designed at the intended load, their PRIO (linear bands over data
# mining's sizes) at their 28x rate.
MINING_RUNS = (("pFabric", False), ("PRIO-linear", True))


def points(quick: bool):
    loads = LOADS_QUICK if quick else LOADS
    out = []
    for load in loads:
        for variant in VARIANTS:
            out.append(
                (
                    {**WEB, "variant": variant, "rate": "intended", "load": load},
                    scenario(variant, load, False, quick),
                )
            )
        for variant in ("PRIO-linear", "PRIO-log", "TCP-DropTail"):
            out.append(
                (
                    {**WEB, "variant": variant, "rate": "theirs (28x)", "load": load},
                    scenario(variant, load, True, quick),
                )
            )
        for variant, theirs in MINING_RUNS:
            out.append(
                (
                    {
                        **MINING,
                        "variant": variant,
                        "rate": "theirs (28x)" if theirs else "intended",
                        "load": load,
                    },
                    scenario(variant, load, theirs, quick, "datamining"),
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
                xs, ys = series(done, "load", metric, variant=variant, rate=rate, **WEB)
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
    pf = dict(zip(*series(done, "load", mean_nfct, variant="pFabric", rate="intended", **WEB), strict=True))
    tcp = dict(
        zip(*series(done, "load", mean_nfct, variant="TCP-DropTail", rate="intended", **WEB), strict=True)
    )
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
    theirs = [
        (labels, r)
        for labels, r in done
        if labels["rate"] != "intended" and labels["workload"] == "web search"
    ]
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
    out += _binning_check(done)
    out += _mining_check(done)
    return out


def top_band_share(binning: str, workload: str = "websearch") -> float:
    """The share of a workload's flows in the highest-priority band (sizes up to the first threshold)."""
    from ..analysis.thresholds import SizeDistribution

    sizes = SizeDistribution.from_cdf(load_cdf(workload))
    return float(sizes.partial(band_thresholds(binning, workload)[0])[0])


def _binning_check(done: Done) -> list[Check]:
    """Their report: log-scale bands 'made pFabric perform worse' than linear ones (web search).

    Explained when the runs of both bandings on the same flows show log bands better wherever the fabric is not
    overloaded, and better for the small flows everywhere: then wherever their mean is worse it is an overload's
    (offered load above 1), whose longer flows log bands starve further while its short ones gain."""
    rows = {}
    for rate in ("intended", "theirs (28x)"):
        lin = dict(
            zip(*series(done, "load", mean_nfct, variant="PRIO-linear", rate=rate, **WEB), strict=True)
        )
        log = dict(zip(*series(done, "load", mean_nfct, variant="PRIO-log", rate=rate, **WEB), strict=True))
        rows[rate] = [(x, log[x], lin[x]) for x in sorted(lin) if x in log]
    if not rows["theirs (28x)"]:
        return []
    worse = all(g > n for _, g, n in rows["theirs (28x)"])
    shown = "; ".join(
        f"{rate}: " + ", ".join(f"{x}: log {g:.2f} vs linear {n:.2f}" for x, g, n in r)
        for rate, r in rows.items()
    )
    explained = None
    if not worse:
        explained = _binning_explained(done, rows, shown)
    return [
        Check(
            "log-scale priority bands worse than linear ones, at their rate (CS244)",
            shown,
            "CS244: a logarithmic scale 'made pFabric perform worse' (seed 002)",
            worse,
            explained,
        )
    ]


def _binning_explained(done: Done, rows: dict, shown: str) -> str | None:
    """The explanation of a failing binning check, if the runs give it (`_binning_check`)."""

    def run(variant: str, rate: str, load: float) -> RunResult:
        ((_, result),) = select(done, variant=variant, rate=rate, load=load, **WEB)
        return result

    exceptions = []
    for rate, r in rows.items():
        for x, g, n in r:
            log, lin = run("PRIO-log", rate, x), run("PRIO-linear", rate, x)
            small_log, small_lin = bin_stat(log, SMALL), bin_stat(lin, SMALL)
            if not small_log < small_lin:
                return None
            if g >= n:
                offered = log.stats.get("target_load", 0)
                if not offered > 1:
                    return None
                exceptions.append(
                    f"at their rate and load {x} (offered {offered:.1f}), where log's mean is worse while its "
                    f"(0,100KB] mean is {small_log:.2f} against {small_lin:.2f}"
                )
    where = (
        "every load, at their rate and at the intended one"
        if not exceptions
        else f"every load but {len(exceptions)}, each in an overload: " + "; ".join(exceptions)
    )
    return (
        f"the module runs both bandings on their star with the same flows: log bands are below linear at {where} "
        f"({shown}); linear bands 1.8 MB wide put {top_band_share('linear') * 100:.0f}% of the flows in the top "
        f"band, where log bands put {top_band_share('log') * 100:.0f}% and spread the rest over the next, so the "
        "binning alone makes pFabric's approximation better, not worse, except for the longer flows of an overload, "
        "which finer bands starve further"
    )


def _mining_check(done: Done) -> list[Check]:
    """Their divergence 3: no rise of pFabric's data-mining FCT with load; the paper's curves rise."""
    lines = {}
    for variant, theirs in MINING_RUNS:
        rate = "theirs (28x)" if theirs else "intended"
        xs, ys = series(done, "load", mean_nfct, variant=variant, rate=rate, **MINING)
        if xs:
            lines[f"{variant} ({rate})"] = ys
    if len(lines) < len(MINING_RUNS):
        return []
    return [
        Check(
            "data mining on their star: the mean rises with load both for pFabric at the intended load and for "
            "their PRIO at their rate (their divergence 3 is neither's)",
            "; ".join(f"{k}: " + " -> ".join(f"{y:.2f}" for y in ys) for k, ys in lines.items()),
            "paper: rises with load (Fig. 7(b)); CS244 divergence 3: no increase for pFabric in data mining",
            all(all(b > a for a, b in itertools.pairwise(ys)) for ys in lines.values()),
        )
    ]


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
