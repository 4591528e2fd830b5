"""pFabric Figure 7: overall average normalized FCT vs load, web search and data mining.

Paper (section 5.3): pFabric is within ~0.7-17.8% of Ideal for web search and ~1.7-10.6% for data mining,
well below TCP-DropTail and DCTCP, and ~19-39% (web search) and ~40-50% (data mining) below PDQ; every curve
rises with load; data mining is easier than web search, especially at high load. Loads
0.1..0.8 (quick: 0.2, 0.5, 0.8 with fewer flows). PDQ runs when the core has it (otherwise it is left out,
never imitated, and `--list` names it missing).

The runs are shared with Figures 8 and 9 (the same scenarios, so the same store keys) and with 14 and 17
(their pFabric and Ideal runs).
"""

from __future__ import annotations

import itertools
from pathlib import Path

from ..presets import Check
from .common import (
    LOAD,
    NFCT,
    WORKLOADS,
    Done,
    always_below,
    fct_points,
    fct_table,
    line_panels,
    mean_nfct,
    pct,
    scheme_lines,
    select,
    series,
)
from .figure import Figure

SCHEMES = ("TCP", "DCTCP", "pFabric", "PDQ", "Ideal")
# Section 5.3, across loads: pFabric's average FCT above Ideal's, and below PDQ's, as fractions.
PUBLISHED = {
    "pfabric_over_ideal": {"web search": (0.007, 0.178), "data mining": (0.017, 0.106)},
    "pfabric_below_pdq": {"web search": (0.19, 0.39), "data mining": (0.40, 0.50)},
}
# The text gives the PDQ gaps as "~19-39%" and "~40-50%": the range, plus 2 points either side for the "~"
# (our allowance; the numbers are the paper's text, not read off a plot).
PDQ_ALLOWANCE = 0.02
# Section 5.3: "The data mining workload generally performs better, especially at high loads". Checked on the
# schemes whose FCT comes from contention; PDQ is shown beside them (its one-RTT flow initiation doubles the
# FCT of the 1-packet flows that are half of data mining's flows, so its data-mining mean is not lower).
EASIER_SCHEMES = ("TCP", "DCTCP", "pFabric", "Ideal")


def points(quick: bool):
    return fct_points(quick, SCHEMES)


def gaps(done: Done, workload: str) -> tuple[list, list]:
    """pFabric's mean normalized FCT over Ideal's, minus 1, per load."""
    xs, pf = series(done, "load", mean_nfct, workload=workload, scheme="pFabric")
    _, ideal = series(done, "load", mean_nfct, workload=workload, scheme="Ideal")
    return xs, [p / i - 1 for p, i in zip(pf, ideal, strict=True)]


def checks(done: Done) -> list[Check]:
    out = []
    for workload, (lo, hi) in PUBLISHED["pfabric_over_ideal"].items():
        xs, gap = gaps(done, workload)
        if not xs:
            continue
        worst = max(gap)
        at = xs[gap.index(worst)]
        out.append(
            Check(
                f"{workload}: pFabric's mean normalized FCT within the paper's band above Ideal",
                f"{pct(min(gap))} to {pct(worst)} (largest at load {at})",
                f"{pct(lo)} to {pct(hi)}",
                worst <= hi,
            )
        )
        others = [s for s in ("TCP", "DCTCP", "PDQ") if select(done, workload=workload, scheme=s)]
        out.append(always_below(done, mean_nfct, "pFabric", others, "mean normalized FCT", workload=workload))
        _, pdq = series(done, "load", mean_nfct, workload=workload, scheme="PDQ")
        if len(pdq) == len(xs):
            _, pf = series(done, "load", mean_nfct, workload=workload, scheme="pFabric")
            below = [1 - p / q for p, q in zip(pf, pdq, strict=True)]
            lo, hi = PUBLISHED["pfabric_below_pdq"][workload]
            out.append(
                Check(
                    f"{workload}: pFabric's mean normalized FCT below PDQ's by the paper's range "
                    f"(+-{PDQ_ALLOWANCE * 100:.0f} points for its '~')",
                    f"{pct(min(below))} to {pct(max(below))}",
                    f"~{pct(lo)} to {pct(hi)} (section 5.3)",
                    min(below) >= lo - PDQ_ALLOWANCE and max(below) <= hi + PDQ_ALLOWANCE,
                )
            )
        out.append(rises_with_load(done, workload))
    easier = data_mining_easier(done)
    if easier is not None:
        out.append(easier)
    return out


def rises_with_load(done: Done, workload: str) -> Check:
    """Every curve of Fig. 7 rises with load: TCP's and DCTCP's at every step, every scheme's over the range."""
    found = {s: series(done, "load", mean_nfct, workload=workload, scheme=s) for s in SCHEMES}
    lines = {s: ys for s, (xs, ys) in found.items() if xs}
    stepwise = [s for s in ("TCP", "DCTCP") if s in lines]
    ok = all(all(b >= a for a, b in itertools.pairwise(lines[s])) for s in stepwise) and all(
        ys[-1] > ys[0] for ys in lines.values()
    )
    shown = "; ".join(
        f"{s} " + (" -> ".join(f"{y:.2f}" for y in ys) if s in stepwise else f"{ys[0]:.3f} -> {ys[-1]:.3f}")
        for s, ys in lines.items()
    )
    return Check(
        f"{workload}: every scheme's mean normalized FCT rises with load (TCP and DCTCP at every step)",
        shown,
        "every curve rises with load (Fig. 7)",
        bool(lines) and ok,
    )


def data_mining_easier(done: Done) -> Check | None:
    """Section 5.3: data mining is easier than web search, especially at high load."""
    ratio = {}
    for scheme in SCHEMES:
        xs_w, web = series(done, "load", mean_nfct, workload="web search", scheme=scheme)
        xs_d, mining = series(done, "load", mean_nfct, workload="data mining", scheme=scheme)
        if xs_w and xs_w == xs_d:
            ratio[scheme] = (web[0] / mining[0], web[-1] / mining[-1], xs_w[0], xs_w[-1])
    checked = [s for s in EASIER_SCHEMES if s in ratio]
    if not checked:
        return None
    lo, hi = ratio[checked[0]][2:]
    ok = all(ratio[s][1] > 1 and ratio[s][1] > ratio[s][0] for s in checked)
    shown = ", ".join(f"{s} {ratio[s][0]:.2f} -> {ratio[s][1]:.2f}" for s in checked)
    if "PDQ" in ratio:
        shown += f" (PDQ, not checked: {ratio['PDQ'][0]:.2f} -> {ratio['PDQ'][1]:.2f})"
    return Check(
        f"data mining easier than web search, more so at high load: web search / data mining mean above 1 at "
        f"load {hi} and above its value at {lo} ({', '.join(checked)})",
        shown,
        "data mining generally performs better, especially at high loads (section 5.3)",
        ok,
    )


def plot(done: Done, out_dir: Path) -> list[Path]:
    panels = []
    for letter, workload in zip("ab", WORKLOADS, strict=False):
        lines = scheme_lines(done, mean_nfct, SCHEMES, workload=workload)
        if not lines:
            continue
        xs, ideal = series(done, "load", mean_nfct, workload=workload, scheme="Ideal")
        lo, hi = PUBLISHED["pfabric_over_ideal"][workload]
        band = (
            "paper: pFabric's band above Ideal",
            xs,
            [i * (1 + lo) for i in ideal],
            [i * (1 + hi) for i in ideal],
        )
        panels.append(
            {
                "title": f"({letter}) {workload}",
                "xlabel": LOAD,
                "ylabel": f"mean {NFCT}",
                "lines": lines,
                "band": band if xs else None,
            }
        )
    return line_panels(out_dir, "overall_mean_fct", panels, "Overall average FCT (Figure 7)")


FIGURE = Figure(
    name="pfabric-fig7",
    paper="pFabric",
    title="Figure 7: overall average FCT vs load",
    shows="mean normalized FCT over all flows vs load, web search and data mining: TCP, DCTCP, pFabric, PDQ, Ideal",
    schemes=("tcp", "dctcp", "pfabric", "pdq", "ideal"),
    points=points,
    plot=plot,
    checks=checks,
    table=fct_table,
    published=PUBLISHED,
    notes=(
        "PDQ runs when the core has it; `pfabric reproduce --list` names any scheme missing.",
        (
            "TCP's and DCTCP's windows stop at 149 packets, the 225 KB buffer less one packet, as the authors' "
            "ns-2 scripts set them (maxcwnd_ = queueSize - 1; `figures.common.TCP_MAX_CWND_PKTS`)."
        ),
        (
            "The band is where the paper's pFabric lies relative to Ideal (0.7-17.8% web search, 1.7-10.6% "
            "data mining), drawn over our Ideal."
        ),
        (
            "Paper scale: 20,000 flows per run; quick: 2,000 (web search) and 1,000 (data mining) at loads "
            "0.2, 0.5, 0.8."
        ),
    ),
)
