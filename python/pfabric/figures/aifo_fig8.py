"""AIFO Figure 8: the headroom parameter k (0.1 to 0.9) against FIFO and PIFO.

Paper (section 5.1, "The effect of parameter k"): "AIFO with smaller k always delivers better performance than
larger k for small flows, and it also delivers better performance for large flows when the traffic load is big
(e.g., 0.7, 0.8) ... When k = 0.1, the average and 99th percentile FCT for small flows is about 9x lower than
that of k = 0.9". As k grows AIFO approaches FIFO. FIFO here is a queue of AIFO's size (20 packets) without
admission control.

Where "about 9x" comes from: in the authors' plotted data (netx-repo/AIFO @333c214,
aifo_simulation/java-code/projects/aifo/plots/aifo_evaluation/pFabric/web_search_workload_C_K/
pFabric_less_100KB_{mean,99th}_fct_ms.dat) k = 0.9 over k = 0.1 is 1.09 (mean) at load 0.2, 3.0 at 0.7 and
5.7 (mean) / 7.9 (p99) at their top point, which is not load 0.8 but 190,000 flows/s, an overloaded fabric
(`_aifo.AUTHORS_TOP_RATE_PER_S`: 1.07 of the host links), run for 1 s. `RATE_RUNS` repeat k = 0.1 and 0.9 at
that arrival rate for the figure's flow count and three times it, and the ratio check states what they give.

Checked: small-flow mean increasing in k at every load, over the authors' k (0.1, 0.3, 0.7, 0.9; 0.5 is ours and
only drawn; at the lowest load, where the k differ by less than a seed's noise, on the mean of five seeds); large-flow mean lower at k = 0.1 than at k = 0.9 at
loads of 0.7 and above (the authors' data: 30.1 vs 40.4 ms at their 0.7, 37.1 vs 89.6 at the top, higher at
0.2-0.6); k = 0.9 over k = 0.1, small-flow mean and p99, largest over loads, within `NINE` (the authors' 5.7 to
the text's 9, each widened by 10% for reading).

The experiment behind the large-flow and the ratio checks (`WINDOW_RUNS`): k = 0.1 and 0.9 at the authors' two
highest arrival rates, measured as the authors measure (`_aifo.window_points`: one second of arrivals, the run
stopped then, and the flows unfinished left out of every mean, as their analysis/analyze.py does). Measured so, at
paper scale, our large-flow means and the small-flow ratio land on the authors' plotted values; run to completion,
where every flow counts, k = 0.1 is the worse for large flows, because it leaves the largest ones for last.
"""

from __future__ import annotations

import math
import statistics
from itertools import pairwise
from pathlib import Path
from typing import Any

from ..presets import Check
from . import _aifo
from .common import Done, select
from .figure import Figure

KS = (0.1, 0.3, 0.5, 0.7, 0.9)
AUTHORS_KS = (0.1, 0.3, 0.7, 0.9)  # the k of the authors' runs (their C20_K* data); 0.5 is ours
VARIANTS = {
    **{f"AIFO k={k}": _aifo.aifo(headroom_k=k) for k in KS},
    "FIFO": _aifo.SCHEMES["FIFO"],
    "PIFO": _aifo.SCHEMES["PIFO"],
}
PUBLISHED = {"small_fct_k0.9_over_k0.1": 9.0}
NINE = (5.7 / 1.1, 9.0 * 1.1)
HIGH_LOAD = 0.7
RATE = _aifo.AUTHORS_TOP_RATE_PER_S
RATE_RUNS = {f"AIFO k={k} @ {RATE:,} flows/s": VARIANTS[f"AIFO k={k}"] for k in (0.1, 0.9)}
RATE_RUNS_LOW, RATE_RUNS_HIGH = RATE_RUNS
# The authors' two highest arrival rates (their "0.7" and "0.8": 141,500 and 190,000 flows/s) and what they
# plotted there for k = 0.1 and 0.9 (web_search_workload_C_K/*.dat above, rows 14150 and 19000, ms): the
# large-flow mean, and the small-flow mean and p99. `WINDOW_RUNS` measure k = 0.1 and 0.9 at these rates the way
# the authors do (`_aifo.window_points`), the experiment behind the large-flow and the ratio checks.
AUTHORS_HIGH_RATES = (141_500, 190_000)
AUTHORS_LARGE_MS = {141_500: (30.106, 40.396), 190_000: (37.097, 89.624)}
AUTHORS_TOP_SMALL_MS = {"mean": (0.15999, 0.90689), "p99": (0.47486, 3.75624)}


def window_label(k: float, rate: int) -> str:
    return f"AIFO k={k} @ {rate:,} flows/s, as the authors measure"


WINDOW_RUNS = {
    rate: {window_label(k, rate): VARIANTS[f"AIFO k={k}"] for k in (0.1, 0.9)} for rate in AUTHORS_HIGH_RATES
}
# At the lowest load the queue rarely passes k x C for any k, and the k differ by less than one seed's noise (the
# authors' k = 0.1 and 0.3 by 0.5%): there the ordering is taken on the mean over these seeds besides the
# figure's own (seed 1).
MORE_SEEDS = (2, 3, 4, 5)


def seeded(k: float, seed: int) -> str:
    return f"AIFO k={k} (seed {seed})"


def points(quick: bool) -> list:
    lowest = (_aifo.LOADS_QUICK if quick else _aifo.LOADS)[0]
    more = []
    for seed in MORE_SEEDS:
        variants = {seeded(k, seed): VARIANTS[f"AIFO k={k}"] for k in AUTHORS_KS}
        for labels, scenario in _aifo.points(quick, variants, loads=[lowest]):
            more.append(({**labels, "seed": seed}, scenario.with_values({"seed": seed})))
    windows = [p for rate, runs in WINDOW_RUNS.items() for p in _aifo.window_points(quick, runs, rate)]
    return _aifo.points(quick, VARIANTS) + _aifo.rate_points(quick, RATE_RUNS, RATE) + more + windows


def plot(done: Done, out_dir: Path) -> list[Path]:
    return _aifo.plot_fct(done, out_dir, "headroom_k", "AIFO Figure 8: headroom k", list(VARIANTS))


def seed_values(done: Done, k: float, load: float, own: float) -> list[float]:
    """The small-flow means of k at `load`: the figure's run (`own`) and the extra seeds' runs there."""
    return [own] + [
        _aifo.small_mean_ms(r)
        for seed in MORE_SEEDS
        for _, r in select(done, load=load, scheme=seeded(k, seed))
    ]


def within_noise(a: list[float], b: list[float]) -> bool:
    """Whether two seeds' samples differ by less than twice the standard error of their means' difference."""
    if len(a) < 2 or len(b) < 2:
        return False
    gap = abs(statistics.mean(b) - statistics.mean(a))
    return gap < 2 * math.sqrt(statistics.variance(a) / len(a) + statistics.variance(b) / len(b))


def increasing_in_k(done: Done) -> Check | None:
    by_k = [_aifo.values(done, f"AIFO k={k}", _aifo.small_mean_ms) for k in AUTHORS_KS]
    xs = by_k[0][0]
    if not xs or any(len(ys) != len(xs) for _, ys in by_k):
        return None
    samples = [
        [seed_values(done, k, x, by_k[j][1][i]) for i, x in enumerate(xs)] for j, k in enumerate(AUTHORS_KS)
    ]
    means = [[statistics.mean(v) for v in row] for row in samples]
    seeds = max(len(v) for row in samples for v in row)
    steps = range(len(AUTHORS_KS) - 1)
    bad = [(i, j) for i in range(len(xs)) for j in steps if means[j][i] >= means[j + 1][i]]
    spread = [means[-1][i] / means[0][i] for i in range(len(xs))]
    ks = ", ".join(map(str, AUTHORS_KS))
    ours = (
        f"k = 0.9 / k = 0.1 from {min(spread):.2f} to {max(spread):.2f}"
        + (f" (load {xs[0]}: mean of {seeds} seeds)" if seeds > 1 else "")
        + (
            f"; not increasing at load {', '.join(str(xs[i]) for i in sorted({i for i, _ in bad}))}"
            if bad
            else ""
        )
    )
    check = Check(
        f"smaller k is better for small flows at every load (small-flow mean increasing over k = {ks})",
        ours,
        "always better with smaller k",
        not bad,
    )
    if not bad or not all(within_noise(samples[j][i], samples[j + 1][i]) for i, j in bad):
        return check
    shown = "; ".join(
        f"load {xs[i]}: k = {AUTHORS_KS[j]} {statistics.mean(samples[j][i]):.4f} ms and k = {AUTHORS_KS[j + 1]} "
        f"{statistics.mean(samples[j + 1][i]):.4f} ms over {len(samples[j][i])} seeds (standard deviation "
        f"{statistics.stdev(samples[j][i]):.4f} and {statistics.stdev(samples[j + 1][i]):.4f})"
        for i, j in bad
    )
    return Check(
        check.name,
        check.ours,
        check.paper,
        False,
        explained=f"Where the order breaks the two k are equal within the seeds' noise - {shown} - less than two "
        "standard errors apart; the authors' own gap there is 0.5% (k = 0.1: 0.1071 ms, k = 0.3: 0.1076 ms at "
        "their lowest rate), below what one run resolves.",
    )


def large_flows_at_high_load(done: Done) -> Check | None:
    xs, low = _aifo.values(done, "AIFO k=0.1", _aifo.large_mean_ms)
    _, high = _aifo.values(done, "AIFO k=0.9", _aifo.large_mean_ms)
    pairs = [(x, a, b) for x, a, b in zip(xs, low, high, strict=True) if x >= HIGH_LOAD]
    if not pairs or len(high) != len(xs):
        return None
    holds = all(a < b for _, a, b in pairs)
    return Check(
        f"k = 0.1 better than k = 0.9 for large flows at loads of {HIGH_LOAD} and above",
        "; ".join(f"load {x}: {a:.2f} vs {b:.2f} ms" for x, a, b in pairs) + large_at_top_rate(done),
        "better at high load (authors' data: 30.1 vs 40.4 ms at 0.7, 37.1 vs 89.6 ms at their top point)",
        holds,
        explained=None if holds else large_as_authors_measure(done),
    )


def window_runs(done: Done, rate: int) -> tuple[Any, Any] | None:
    """The k = 0.1 and k = 0.9 results of `WINDOW_RUNS` at `rate` (None unless both ran)."""
    found = [select(done, scheme=label, arrival_rate_per_s=rate) for label in WINDOW_RUNS[rate]]
    if not all(found):
        return None
    return found[0][0][1], found[1][0][1]


def window_seconds(done: Done) -> float:
    """How long the `WINDOW_RUNS` measured (the authors' second, or the quick window)."""
    return next(labels["window_s"] for labels, _ in done if "window_s" in labels)


def large_as_authors_measure(done: Done) -> str | None:
    """The experiment behind the large-flow check, as its evidence, or None where it does not hold (or did not
    run): measured as the authors measure (`_aifo.window_points`), k = 0.1 beats k = 0.9 for large flows at both
    of their high arrival rates, while run to completion at their top rate (`RATE_RUNS`) it does not. The
    difference is then which large flows the mean counts: the ones k = 0.1 starves are still unfinished when the
    authors' run stops."""
    shown = []
    for rate in AUTHORS_HIGH_RATES:
        runs = window_runs(done, rate)
        if runs is None:
            return None
        (low, high), (theirs_low, theirs_high) = runs, AUTHORS_LARGE_MS[rate]
        a, b = _aifo.large_mean_ms(low), _aifo.large_mean_ms(high)
        if not a < b:
            return None
        shown.append(
            f"{rate:,} flows/s: {a:.2f} vs {b:.2f} ms (theirs {theirs_low:.1f} vs {theirs_high:.1f}), leaving out "
            f"{_aifo.large_unfinished(low):.0%} and {_aifo.large_unfinished(high):.0%} of the large flows, "
            f"of {_aifo.large_unfinished_mean_mb(low):.1f} and {_aifo.large_unfinished_mean_mb(high):.1f} MB on "
            "average"
        )
    # Run to completion, by run length: the longest run, the nearest to the authors' 190,000 flows, decides (a
    # shorter one at quick scale, 2,000 flows, put the two k within 1% of each other, either way by seed and by
    # how the ties of an instant fall: bench/RESULTS.md, forty-third session).
    to_completion = [
        (labels["flows"], _aifo.large_mean_ms(r), _aifo.large_mean_ms(o[0][1]))
        for labels, r in select(done, scheme=RATE_RUNS_LOW)
        if (o := select(done, scheme=RATE_RUNS_HIGH, flows=labels["flows"]))
    ]
    if not to_completion or max(to_completion)[1] < max(to_completion)[2]:
        return None
    seconds = window_seconds(done)
    return (
        f"measured as the authors measure ({seconds:g} s of arrivals, stopped then, unfinished flows left out "
        f"of the mean: their run_time_s=1 and analysis/analyze.py), k = 0.1 beats k = 0.9 for large flows: "
        + "; ".join(shown)
        + ". Run to completion at the same arrival rate, over the longest run, it does not (above), because every "
        "large flow counts: "
        "k = 0.1, near SRPT, leaves the largest ones for last, and the authors' mean leaves out the largest of "
        "k = 0.1's, while k = 0.9, sharing the links, leaves out those that arrived late"
    )


def large_at_top_rate(done: Done) -> str:
    """The large-flow means of k = 0.1 and k = 0.9 at the authors' top arrival rate (`RATE_RUNS`), by run length:
    shown beside the loads, since the authors' "0.7" and "0.8" are arrival rates above ours (module docstring)."""
    low, high = RATE_RUNS
    shown = []
    for labels, result in sorted(select(done, scheme=low), key=lambda lr: lr[0]["flows"]):
        other = select(done, scheme=high, flows=labels["flows"])
        if other:
            a, b = _aifo.large_mean_ms(result), _aifo.large_mean_ms(other[0][1])
            shown.append(f"{labels['flows']:,} flows {a:.2f} vs {b:.2f} ms")
    return f"; at the authors' top rate, {RATE:,} flows/s: " + ", ".join(shown) if shown else ""


def rate_ratios(done: Done) -> list[tuple[int, float, float]]:
    """(flows, mean ratio, p99 ratio) of k = 0.9 over k = 0.1 at the authors' top arrival rate, by run length."""
    low, high = RATE_RUNS
    out = []
    for labels, result in sorted(select(done, scheme=low), key=lambda lr: lr[0]["flows"]):
        other = select(done, scheme=high, flows=labels["flows"])
        if other:
            r = other[0][1]
            out.append(
                (
                    labels["flows"],
                    _aifo.small_mean_ms(r) / _aifo.small_mean_ms(result),
                    _aifo.small_p99_ms(r) / _aifo.small_p99_ms(result),
                )
            )
    return out


def about_nine(done: Done) -> Check | None:
    xs, low = _aifo.values(done, "AIFO k=0.1", _aifo.small_mean_ms)
    _, high = _aifo.values(done, "AIFO k=0.9", _aifo.small_mean_ms)
    _, low99 = _aifo.values(done, "AIFO k=0.1", _aifo.small_p99_ms)
    _, high99 = _aifo.values(done, "AIFO k=0.9", _aifo.small_p99_ms)
    if not xs or len(high) != len(xs):
        return None
    mean = max(h / l for l, h in zip(low, high, strict=True))
    p99 = max(h / l for l, h in zip(low99, high99, strict=True))
    check = Check(
        f"small-flow mean and p99 FCT, k = 0.9 over k = 0.1 (largest over loads; {NINE[0]:.1f}-{NINE[1]:.1f}x)",
        f"mean {mean:.2f}x, p99 {p99:.2f}x",
        "about 9x (authors' data: mean 5.7x, p99 7.9x at their top point)",
        all(NINE[0] <= r <= NINE[1] for r in (mean, p99)),
    )
    measured = ratio_as_authors_measure(done)
    if not check.passed and measured:
        return Check(check.name, check.ours, check.paper, False, explained=measured)
    runs = rate_ratios(done)
    grows = len(runs) >= 2 and all(b[1] > a[1] and b[2] > a[2] for a, b in pairwise(runs))
    if check.passed or not runs or not grows or runs[0][1] <= mean:
        return check
    shown = "; ".join(f"{n:,} flows: mean {m:.2f}x, p99 {p:.2f}x" for n, m, p in runs)
    return Check(
        check.name,
        check.ours,
        check.paper,
        False,
        explained=f"The paper's ratio is its overloaded top point (190,000 flows/s, 1.07 of the host links, run "
        f"for 1 s). Ours at that arrival rate - {shown} - is above ours at load {xs[-1]} and grows with the "
        "time the fabric stays overloaded; the authors' run is 190,000 flows long.",
    )


def ratio_as_authors_measure(done: Done) -> str | None:
    """The experiment behind the ratio check, as its evidence, or None where it does not hold (or did not run):
    at the authors' top point (190,000 flows/s), measured as they measure (`WINDOW_RUNS`), k = 0.9 over k = 0.1
    for the small-flow mean and p99 lies within `NINE`."""
    top = AUTHORS_HIGH_RATES[-1]
    runs = window_runs(done, top)
    if runs is None:
        return None
    low, high = runs
    mean = _aifo.small_mean_ms(high) / _aifo.small_mean_ms(low)
    p99 = _aifo.small_p99_ms(high) / _aifo.small_p99_ms(low)
    if not all(NINE[0] <= r <= NINE[1] for r in (mean, p99)):
        return None
    theirs = {stat: high_ms / low_ms for stat, (low_ms, high_ms) in AUTHORS_TOP_SMALL_MS.items()}
    seconds = window_seconds(done)
    return (
        f"the paper's ratio is its overloaded top point ({top:,} flows/s, 1.07 of the host links), measured as "
        f"the authors measure ({seconds:g} s of arrivals, stopped then, unfinished flows left out: their "
        f"run_time_s=1 and analysis/analyze.py). Measured so, ours there is mean {mean:.2f}x, p99 {p99:.2f}x "
        f"(theirs {theirs['mean']:.2f}x, {theirs['p99']:.2f}x): small flows k = 0.1 {_aifo.small_mean_ms(low):.3f} "
        f"ms and k = 0.9 {_aifo.small_mean_ms(high):.3f} ms (theirs {AUTHORS_TOP_SMALL_MS['mean'][0]:.3f} and "
        f"{AUTHORS_TOP_SMALL_MS['mean'][1]:.3f}). Our loads, run to completion, stay below the overload"
    )


def checks(done: Done) -> list[Check]:
    found = [increasing_in_k(done), large_flows_at_high_load(done), about_nine(done)]
    return [c for c in found if c]


FIGURE = Figure(
    name="aifo-fig8",
    paper="AIFO",
    title="AIFO Figure 8: the effect of the headroom k",
    shows="small-flow mean and p99 and large-flow mean FCT vs load for AIFO with k = 0.1 to 0.9, FIFO and PIFO",
    schemes=("aifo", "pifo"),
    points=points,
    plot=plot,
    checks=checks,
    table=_aifo.rows,
    published=PUBLISHED,
    notes=(
        "FIFO is a 20-packet queue in arrival order (PIFO with rank = fifo), our reading of the paper's FIFO.",
        (
            f"AIFO k = 0.1 and 0.9 also run at the authors' top arrival rate, {RATE:,} flows/s, for the "
            "figure's flow count and three times it (rows without a load)."
        ),
        (
            f"AIFO k = 0.1 and 0.9 also run at the authors' two highest arrival rates measured as they measure: "
            f"{_aifo.AUTHORS_WINDOW_S:g} s of arrivals (quick: {_aifo.AUTHORS_WINDOW_S_QUICK:g} s), stopped then, "
            "unfinished flows left out of the means (rows with window_s)."
        ),
    ),
)
