"""pHost (Gao et al., CoNEXT 2015) on the pFabric paper's fabric, beside pFabric and Ideal: mean normalized FCT
vs load (web search and data mining), the small flows' mean, and the pFabric paper's incast (Figure 6's
set-up: a 100 MB request striped over N senders).

Checked against pHost's abstract: "pHost achieves performance on par with pFabric (within 4% for typical
conditions)", read as the mean normalized FCT over all flows at load 0.6 (the load of the authors' scripts,
NetSys/simulator py/run_experiments.py), both workloads: pHost over pFabric at most +4%. Ours is further off on
web search (quick scale +8.7%, paper scale +13.2%) and, at paper scale, on data mining (+4.7%).

The experiment behind a failing 4% check, `AUTHORS_RULES`: pHost as the authors' own simulator runs it, which
the paper's numbers come from: free tokens only for the flows that fit in them (`init_capa_size` @00b7557; the
longer ones wait for their first token) and a window of one BDP, as their scripts set it. Where that gives a gap
to pFabric at least as large as ours, the 4% is not what pHost's rules as their authors coded them give on this
fabric, and our pHost, on the paper's rules, is the nearer to it: the check diverges, explained. (Their simulator
itself, built and run on this fabric, is at +50%: docs/receiver-driven-notes.md.) Shown beside it, never as the
explanation: the gap at every load run (it grows with load: within 4% only at the lightest), and `THIRD_LEVEL`,
the authors' optional third priority level (short flows' data ahead of the longer flows'), which narrows it by
two to four points.

Incast: pHost's receiver grants one packet per MTU plus a header's wire time (1540 of 1500 bytes, 2.7% of
headroom for tokens and ACKs beside the data), so a fan-in completes at best 2.7% after the best possible; checked
at 50 senders within that headroom plus 1 point. pFabric's and TCP's collapse, or not, is Figure 6's business.

The pFabric and Ideal runs are Figure 7's (shared through the store, same scenarios).
"""

from __future__ import annotations

from pathlib import Path

from ..presets import Check, best_fan_in_finish_s, request_completion_s
from .common import (
    LOAD,
    LOADS,
    LOADS_QUICK,
    NFCT,
    PFABRIC_INCAST_BYTES,
    PFABRIC_INCAST_SENDERS,
    SMALL,
    WORKLOADS,
    Done,
    bin_stat,
    fct_points,
    fct_table,
    flows_for,
    line_panels,
    mean_nfct,
    pfabric_incast_scenario,
    poisson,
    scheme_lines,
    select,
    series,
)
from .figure import Figure

SCHEMES = ("pFabric", "pHost", "Ideal")
# The abstract's "within 4% for typical conditions", at the load the authors' scripts run.
CLAIM_LOAD, WITHIN = 0.6, 0.04
# The receiver's grant pacing leaves 40 of every 1540 bytes for control packets: the best a granted transfer does.
GRANT_HEADROOM = 40 / 1500
INCAST_ALLOWANCE = 0.01
# What the authors' own simulator gives on this fabric (docs/receiver-driven-notes.md: YAPS built and run here,
# web search, load 0.6, free tokens and window 12, 10,000 flows): shown beside ours, not checked.
AUTHORS_WEB_SEARCH = " (the authors' simulator on this fabric: 1.99 against 1.33, +50%)"


# The experiment beside the 4% check: pHost with the authors' optional third priority level, the data of flows
# of at most one BDP (its free tokens) ahead of the longer flows' in every queue, at the claim's load.
THIRD_LEVEL = "pHost, short flows' data first"
THIRD_LEVEL_SCHEME = {"name": "phost", "short_data_pkts": 12}
# The experiment that explains a failing 4% check: the authors' simulator's rules, at the claim's load. Their
# scripts set free tokens and window alike to the BDP in packets (8 at their 40 Gbps); here one BDP is 12.
AUTHORS_RULES = "pHost, the authors' simulator's rules"
AUTHORS_RULES_SCHEME = {"name": "phost", "free_for_long_flows": False, "free_tokens": 12, "token_window": 12}
EXPERIMENTS = {THIRD_LEVEL: THIRD_LEVEL_SCHEME, AUTHORS_RULES: AUTHORS_RULES_SCHEME}


def points(quick: bool) -> list:
    loads = sorted({*(LOADS_QUICK if quick else LOADS), CLAIM_LOAD})
    out = fct_points(quick, SCHEMES, loads=loads)
    out += [
        (
            {"workload": name, "load": CLAIM_LOAD, "scheme": label},
            poisson(cdf, CLAIM_LOAD, flows_for(cdf, quick), scheme),
        )
        for label, scheme in EXPERIMENTS.items()
        for name, cdf in WORKLOADS.items()
    ]
    out += [
        (
            {"incast": True, "senders": n, "scheme": "pHost"},
            pfabric_incast_scenario("phost", n),
        )
        for n in PFABRIC_INCAST_SENDERS
    ]
    return out


def load_runs(done: Done) -> Done:
    return [(labels, result) for labels, result in done if "incast" not in labels]


def within_pfabric(done: Done) -> list[Check]:
    out = []
    for workload in WORKLOADS:
        at = {
            l["scheme"]: mean_nfct(r) for l, r in select(load_runs(done), workload=workload, load=CLAIM_LOAD)
        }
        if "pHost" not in at or "pFabric" not in at:
            continue
        over = at["pHost"] / at["pFabric"] - 1
        holds = over <= WITHIN
        out.append(
            Check(
                f"{workload}: pHost's mean normalized FCT within {WITHIN:.0%} of pFabric's at load {CLAIM_LOAD}",
                f"pHost {at['pHost']:.3f}, pFabric {at['pFabric']:.3f}: {over * 100:+.1f}%"
                + ("" if holds else beside_the_claim(done, workload, at))
                + (AUTHORS_WEB_SEARCH if workload == "web search" else ""),
                "within 4% for typical conditions (pHost abstract)",
                holds,
                explained=None if holds else as_the_authors_coded_it(at, over),
            )
        )
    return out


def as_the_authors_coded_it(at: dict[str, float], over: float) -> str | None:
    """The experiment behind a failing 4% check, as its evidence, or None where it does not hold (or did not
    run): pHost on the rules of the authors' simulator (`AUTHORS_RULES`) at least as far from pFabric as ours."""
    if AUTHORS_RULES not in at:
        return None
    theirs = at[AUTHORS_RULES] / at["pFabric"] - 1
    if theirs < over:
        return None
    window = AUTHORS_RULES_SCHEME["token_window"]
    return (
        f"on the rules of the authors' own simulator, where the paper's numbers come from (free tokens only for "
        f"the flows that fit in them, the longer ones waiting for their first token; window {window}, one BDP, "
        f"as their scripts set it), pHost is {at[AUTHORS_RULES]:.3f}, {theirs:+.1%} over pFabric, against "
        f"{over:+.1%} for ours on the paper's rules (every flow's first BDP free): the 4% is not what pHost's "
        f"rules as coded by its authors give on this fabric, and ours is the nearer to it"
    )


def beside_the_claim(done: Done, workload: str, at: dict[str, float]) -> str:
    """Shown beside a failing 4% check, not as its explanation (that is `as_the_authors_coded_it`): pHost over
    pFabric at every load run, and with the third priority level (`THIRD_LEVEL`) at the claim's load."""
    by_load = {}
    for labels, result in select(load_runs(done), workload=workload):
        by_load.setdefault(labels["load"], {})[labels["scheme"]] = mean_nfct(result)
    gaps = [
        f"{load} {means['pHost'] / means['pFabric'] - 1:+.1%}"
        for load, means in sorted(by_load.items())
        if "pHost" in means and "pFabric" in means
    ]
    text = f"; pHost over pFabric by load: {', '.join(gaps)}" if gaps else ""
    if THIRD_LEVEL in at:
        text += f"; with short flows' data a level first: {at[THIRD_LEVEL] / at['pFabric'] - 1:+.1%}"
    return text


def incast_near_best(done: Done) -> Check | None:
    runs = select(done, incast=True, senders=max(PFABRIC_INCAST_SENDERS))
    if not runs:
        return None
    result = runs[0][1]
    rct, best = request_completion_s(result), best_fan_in_finish_s(result)
    over = rct / best - 1
    bound = GRANT_HEADROOM + INCAST_ALLOWANCE
    return Check(
        f"incast, {PFABRIC_INCAST_BYTES // 10**6} MB over {max(PFABRIC_INCAST_SENDERS)} senders: pHost's request completes within "
        f"its grant pacing's headroom ({GRANT_HEADROOM:.1%}) plus 1 point of the best possible",
        f"{rct * 1e3:.2f} ms against {best * 1e3:.2f} ms: {over * 100:+.1f}%",
        f"at most {bound:.1%} over (ours; the pFabric paper's Fig. 6 set-up)",
        0 <= over <= bound,
    )


def checks(done: Done) -> list[Check]:
    return [*within_pfabric(done), *[c for c in (incast_near_best(done),) if c]]


def plot(done: Done, out_dir: Path) -> list[Path]:
    runs = load_runs(done)
    panels = []
    for workload in WORKLOADS:
        on = select(runs, workload=workload)
        panels.append(
            {
                "title": f"{workload}: all flows",
                "xlabel": LOAD,
                "ylabel": NFCT,
                "lines": scheme_lines(on, mean_nfct, SCHEMES),
            }
        )
        panels.append(
            {
                "title": f"{workload}: (0, 100KB] average",
                "xlabel": LOAD,
                "ylabel": NFCT,
                "lines": scheme_lines(on, lambda r: bin_stat(r, SMALL), SCHEMES),
            }
        )
    incast = select(done, incast=True)
    if incast:
        xs, ys = series(incast, "senders", lambda r: request_completion_s(r) * 1e3)
        _, best = series(incast, "senders", lambda r: best_fan_in_finish_s(r) * 1e3)
        panels.append(
            {
                "title": f"incast: {PFABRIC_INCAST_BYTES // 10**6} MB over N senders",
                "xlabel": "number of senders",
                "ylabel": "request completion time (ms)",
                "lines": [("pHost", xs, ys), ("best possible (with headers)", xs, best)],
            }
        )
    return line_panels(out_dir, "phost", panels, "pHost on the pFabric paper's fabric")


def table(done: Done) -> list[dict]:
    rows = fct_table(load_runs(done))
    for labels, result in select(done, incast=True):
        rows.append(
            {
                **labels,
                "request_completion_ms": round(request_completion_s(result) * 1e3, 4),
                "best_ms": round(best_fan_in_finish_s(result) * 1e3, 4),
            }
        )
    return rows


FIGURE = Figure(
    name="phost",
    paper="pHost",
    title="pHost on the pFabric paper's fabric",
    shows="mean normalized FCT vs load and the small flows' mean (web search, data mining), pHost beside "
    "pFabric and Ideal; the pFabric paper's incast for pHost",
    schemes=("phost", "pfabric", "ideal"),
    points=points,
    plot=plot,
    checks=checks,
    table=table,
    notes=(
        (
            "pHost runs on the paper's rules (every flow's first BDP free) with its authors' parameters scaled to "
            "this fabric (`pfabric schemes`; docs/receiver-driven-notes.md); at load 0.6 it also runs on the "
            "rules of the authors' simulator (free tokens only for the flows that fit in them, window 12)."
        ),
        "Loads are Figure 7's plus 0.6, the load of the pHost authors' scripts.",
    ),
)
