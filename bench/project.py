"""Project the partitioned engine's speed-up on many cores from what this machine can measure.

A conservative parallel engine's wall time is, window after window, the busiest thread's work plus a meeting.
These runs measure its inputs:

- the engine's own critical path at N threads (`critical`: the sum over windows of the busiest block's events,
  as a share of all events). It depends on the partitioning and the blocks, not on the machine, so a run with
  more threads than cores gives it exactly (slowly: the threads take turns);
- the CPU time per event of the sequential engine and of one thread (pinned, runs interleaved);
- two threads' wall time (both cores), from which the model below takes what two threads cost beyond their
  critical events at one thread's cost per event and their meetings.

One input is given (`--barrier-ns`): the meeting, a round of the engine's barrier between two threads, as
`bench/experiments/barrier_round.rs` measured it on this machine (126-276 ns, RESULTS.md, thirty-first
session). With N threads a waiter reads N slots; no machine here has more than two cores to measure that on.

The model, for N threads, E events, W windows and H packets handed over, in two readings of what two threads
measure beyond their critical events (at one thread's cost per event, c1) and their meetings:

- crossings: wall(N) = c1 E critical(N) + W b ceil(log2 N) + x H (N - 1) / N^2, where each block takes in its
  share, H / N, of the packets that cross, of which the fraction (N - 1) / N comes from another block, and x is
  fitted so that wall(2) is the measured two-thread wall time; the meeting's rounds grow as log2 N;
- a factor: wall(N) = m (c1 E critical(N) + W b N / 2), where m is what the two-thread run took over its critical
  events and one meeting a window (cache misses, windows whose work is uneven beyond their events), applied to
  every thread count, and a waiter reads the N slots one after another.

The projected speed-up is the sequential engine's time over wall(N). Neither counts memory bandwidth shared by
N cores, nor a per-event cost that falls further as each block's share of the state shrinks (two threads show
the first step of it on the large fabrics, which the factor carries: a k = 64 packet-hop costs 2.4x a
leaf-spine's on one thread).

    cargo build --release -p pfabric-core --example bench
    python bench/project.py target/release/examples/bench pfabric-fattree-k32-websearch-0.6-20k --threads 16 32

A run too long to repeat in interleaved rounds (the moonshot's million flows: hours here) is projected from its
recorded result lines instead, one run each (`bench/runs/`): the sequential engine's, and any of `@t1`, `@t2`
and `@tN`. Without `@t1`, one thread is taken to cost what the sequential engine does (0.998x at 100,000 flows
on k = 64); without `@t2`, `--factor` gives two threads' excess from another run, and only that reading applies.

    python bench/project.py --recorded bench/runs/fattree-k64-websearch-0.6-1m.txt --factor 1.144
"""

from __future__ import annotations

import argparse
import math
import re
import statistics
from dataclasses import dataclass
from pathlib import Path

from compare import LINE, PEAK, fail, require_executables, result_line

RUN = re.compile(r"partitions (\d+) windows (\d+) handovers (\d+) critical ([0-9.]+)%")
NAMED = re.compile(r"^(\S+): ")


def parsed(stdout: str, m: re.Match, where: str) -> dict:
    """A result line's numbers: `m` is its `LINE` match; a partitioned run's line must carry its figures."""
    run, name = RUN.search(stdout), NAMED.match(stdout)
    if not run and name and "@t" in name.group(1):
        fail(f"{where}: no partitioned engine's figures in its result line")
    peak = PEAK.search(stdout)
    return {
        "events": int(m.group(1)),
        "cpu": float(m.group(3)),
        "wall": float(m.group(4)),
        "peak_mib": int(peak.group(1)) if peak else None,
        **(
            {
                "partitions": int(run.group(1)),
                "windows": int(run.group(2)),
                "handovers": int(run.group(3)),
                "critical": float(run.group(4)) / 100,
            }
            if run
            else {}
        ),
    }


def figures(binary: str, scenario: str, core: int | None = None) -> dict:
    """One run's result line as numbers, pinned to `core` unless it is None (threads take turns when they
    outnumber the cores: of such a run only the counts are used)."""
    stdout, m = result_line(binary, scenario, core)
    return parsed(stdout, m, f"{binary} {scenario}")


def recorded(path: str) -> dict[int, dict]:
    """The result lines recorded in file `path` (lines starting with `#` are notes), by thread count: 0 for
    the sequential engine's, N for `NAME@tN`'s. One scenario, one line each; anything else ends with one line."""
    try:
        text = Path(path).read_text()
    except OSError as e:
        fail(f"recorded = {path}: cannot be read ({e.strerror})")
    runs: dict[int, dict] = {}
    base = None
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m, name = LINE.search(line), NAMED.match(line)
        if not m or not name:
            fail(f"recorded = {path}, line {number}: not a bench result line")
        scenario, _, threads = name.group(1).partition("@t")
        threads = threads.partition("/")[0]
        if not (threads == "" or threads.isdigit()):
            fail(f"recorded = {path}, line {number}: a thread count must follow @t in {name.group(1)!r}")
        if base not in (None, scenario):
            fail(f"recorded = {path}, line {number}: scenario {scenario!r}, the file began with {base!r}")
        n = int(threads or 0)
        if n in runs:
            fail(f"recorded = {path}, line {number}: a second line for {name.group(1)!r}")
        base, runs[n] = scenario, parsed(line, m, f"recorded = {path}, line {number}")
    if 0 not in runs:
        fail(f"recorded = {path}: no line for the sequential engine (a scenario without @t)")
    return runs


@dataclass(frozen=True)
class Model:
    """The two readings of the module docs, from one thread's and two threads' measurements: `c1` seconds an
    event on one thread, `events`, `windows` and `handovers` of the run, `barrier` seconds a meeting of two,
    and two threads' wall seconds `wall2` with critical path `critical2` (a share of the events). Where two
    threads did not run this scenario, `given_factor` is their excess as measured on another run (`wall2` and
    `critical2` None), and only the factor reading applies."""

    c1: float
    events: int
    windows: int
    handovers: int
    barrier: float
    wall2: float | None
    critical2: float | None
    given_factor: float | None = None

    def work(self, critical: float) -> float:
        return self.c1 * self.events * critical

    def per_crossing(self) -> float | None:
        """Seconds per packet taken in from another block: two threads' excess over their critical events and
        one meeting a window, over the packets each block takes in from the other (a quarter of them). None
        where there is no excess: two threads ran each event faster than one thread, as on a large fabric
        whose halves fit the caches better than the whole, and crossings explain nothing."""
        if self.wall2 is None or self.critical2 is None:
            return None
        excess = self.wall2 - self.work(self.critical2) - self.windows * self.barrier
        return excess / (self.handovers / 4) if excess >= 0 and self.handovers else None

    def factor(self) -> float:
        """Two threads' wall time over their critical events and one meeting a window (or the given one)."""
        if self.given_factor is not None:
            return self.given_factor
        return self.wall2 / (self.work(self.critical2) + self.windows * self.barrier)

    def crossings(self, blocks: int, critical: float) -> float | None:
        """Wall seconds on `blocks` threads: crossings at their fitted cost, log2 N rounds a meeting (None where
        there is no such cost: `per_crossing`)."""
        cost = self.per_crossing()
        if cost is None:
            return None
        meetings = self.windows * self.barrier * math.ceil(math.log2(blocks))
        return self.work(critical) + meetings + cost * self.handovers * (blocks - 1) / blocks**2

    def scaled(self, blocks: int, critical: float) -> float:
        """Wall seconds on `blocks` threads: two threads' excess as a factor, N / 2 rounds a meeting."""
        return self.factor() * (self.work(critical) + self.windows * self.barrier * blocks / 2)


def measured(args: argparse.Namespace) -> tuple[dict[int, dict], list[float], list[float], list[float]]:
    """Run the bench: the sequential engine, one thread and two in `args.rounds` interleaved rounds (their
    medians taken), then once on each of `args.threads`. By thread count as `recorded` gives them, each
    timed run's median in place, and the rounds' values."""
    require_executables([args.binary])
    name, _, partition = args.scenario.partition("/")
    on = lambda threads: f"{name}@t{threads}" + (f"/{partition}" if partition else "")
    seq, one, two = [], [], []
    for _ in range(args.rounds):
        seq.append(figures(args.binary, name, args.core)["cpu"])
        base = figures(args.binary, on(1), args.core)
        one.append(base["cpu"])
        pair = figures(args.binary, on(2))
        two.append(pair["wall"])
    runs = {
        0: {"cpu": statistics.median(seq)},
        1: {**base, "cpu": statistics.median(one)},
        2: {**pair, "wall": statistics.median(two)},
    }
    for n in args.threads:
        if n not in runs:
            runs[n] = figures(args.binary, on(n))
    return runs, seq, one, two


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binary", nargs="?", help="the bench binary (not with --recorded)")
    ap.add_argument(
        "scenario", nargs="?", help="a bench scenario (a fat-tree's, say), optionally SCENARIO/PARTITION"
    )
    ap.add_argument("--threads", type=int, nargs="+", default=[16, 32, 64], help="thread counts to project")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds of the timed runs (default 3)")
    ap.add_argument("--core", type=int, default=1, help="the core the one-thread runs are pinned to")
    ap.add_argument(
        "--barrier-ns", type=float, default=200.0, help="one meeting of two threads, ns (default 200)"
    )
    ap.add_argument(
        "--recorded",
        metavar="FILE",
        help="project from the bench result lines recorded in FILE (one run each) instead of running the bench",
    )
    ap.add_argument(
        "--factor",
        type=float,
        help="with --recorded and no @t2 line: two threads' excess as a factor, from another run",
    )
    args = ap.parse_args()
    if args.rounds < 1:
        fail(f"rounds = {args.rounds}: at least 1")
    if not args.barrier_ns >= 0:
        fail(f"barrier-ns = {args.barrier_ns}: a meeting takes 0 ns or more")
    if any(n < 2 for n in args.threads):
        fail(f"threads = {args.threads}: each at least 2")
    if args.factor is not None and not (args.factor > 0 and math.isfinite(args.factor)):
        fail(f"factor = {args.factor}: a positive number")
    if args.recorded is None:
        if args.binary is None or args.scenario is None:
            fail("binary and scenario: both are needed unless --recorded names the runs' lines")
        if args.factor is not None:
            fail(f"factor = {args.factor}: only with --recorded (a run here measures two threads)")
        runs, seq, one, two = measured(args)
        rounds = [("sequential", seq), ("one thread", one), ("two threads (wall)", two)]
        title = args.scenario
    else:
        if args.binary is not None:
            fail(f"recorded = {args.recorded}: give the recorded lines or a bench binary, not both")
        runs = recorded(args.recorded)
        if 2 in runs and args.factor is not None:
            fail(f"factor = {args.factor}: {args.recorded} has two threads' line, which gives the factor")
        if 2 not in runs and args.factor is None:
            fail(f"recorded = {args.recorded}: no @t2 line; give two threads' excess with --factor")
        rounds, title = [], args.recorded
    report(title, runs, rounds, args, sorted(n for n in runs if n >= 2) if args.recorded else args.threads)


def report(
    title: str, runs: dict[int, dict], rounds: list, args: argparse.Namespace, threads: list[int]
) -> None:
    """Print the inputs and the projection table for `threads` (2 first, where two threads ran)."""
    parted = next((runs[n] for n in sorted(runs) if n >= 1), None)
    if parted is None:
        fail(
            f"{title}: no partitioned engine's run (a line for @tN) to take the windows and the critical path from"
        )
    e, w, h = parted["events"], parted["windows"], parted["handovers"]
    seq = runs[0]["cpu"]
    c_seq = seq / e
    one = runs[1]["cpu"] if 1 in runs else None
    c1 = one / e if one is not None else c_seq
    pair = runs.get(2)
    model = Model(
        c1,
        e,
        w,
        h,
        args.barrier_ns * 1e-9,
        pair["wall"] if pair else None,
        pair["critical"] if pair else None,
        args.factor,
    )
    print(f"{title}: {e:,} events, {parted['partitions']} partitions, {w:,} windows, {h:,} handovers")
    print(
        f"  sequential {seq:.2f} s CPU ({c_seq * 1e9:.1f} ns an event), one thread "
        + (f"{one:.2f} s ({c1 / c_seq:.3f}x)" if one is not None else "taken as the sequential engine")
        + (
            f", two threads {pair['wall']:.2f} s wall ({pair['wall'] / seq:.3f} of sequential)"
            if pair
            else ", two threads not run here"
        )
        + (f"; medians of {args.rounds} rounds" if rounds else "")
    )
    for label, values in rounds:
        print(f"  {label}, each round: " + " ".join(f"{v:.2f}" for v in values))
    peaks = [
        f"{({0: 'sequential', 1: 'one thread'}).get(n, f'{n} threads')} {r['peak_mib']} MiB"
        for n, r in sorted(runs.items())
        if r.get("peak_mib")
    ]
    if peaks and not rounds:
        print("  peak resident: " + ", ".join(peaks))
    print(
        f"  barrier {args.barrier_ns:.0f} ns a round; "
        + ("given" if args.factor is not None else "fitted")
        + f": a factor of {model.factor():.3f} on every block's "
        + (
            f"work, or {cost * 1e9:.0f} ns per packet taken in from another block"
            if (cost := model.per_crossing()) is not None
            else "work (two threads ran each event faster than one: no cost left for crossings)"
            if pair
            else "work (two threads' excess on another run: no cost of crossings fitted)"
        )
    )
    print()
    print(
        "| threads | blocks | critical path | bound (critical only) | projected wall: crossings, log2 N meetings "
        "| speed-up | projected wall: two threads' excess as a factor, N / 2 meetings | speed-up |"
    )
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for n in ([2] if pair else []) + [t for t in threads if t != 2]:
        fig = runs[n]
        blocks = min(n, fig["partitions"])
        fast, slow = model.crossings(blocks, fig["critical"]), model.scaled(blocks, fig["critical"])
        by_crossings = "- | -" if fast is None else f"{fast:.2f} s | {c_seq * e / fast:.2f}"
        print(
            f"| {n} | {blocks} | {fig['critical']:.1%} | {1 / fig['critical']:.2f} | {by_crossings} "
            f"| {slow:.2f} s | {c_seq * e / slow:.2f} |"
        )


if __name__ == "__main__":
    main()
