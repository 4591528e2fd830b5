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
"""

from __future__ import annotations

import argparse
import math
import re
import statistics
from dataclasses import dataclass

from compare import fail, require_executables, result_line

RUN = re.compile(r"partitions (\d+) windows (\d+) handovers (\d+) critical ([0-9.]+)%")


def figures(binary: str, scenario: str, core: int | None = None) -> dict:
    """One run's result line as numbers, pinned to `core` unless it is None (threads take turns when they
    outnumber the cores: of such a run only the counts are used)."""
    stdout, m = result_line(binary, scenario, core)
    run = RUN.search(stdout)
    if "@t" in scenario and not run:
        fail(f"{binary} {scenario}: no partitioned engine's figures in its result line")
    return {
        "events": int(m.group(1)),
        "cpu": float(m.group(3)),
        "wall": float(m.group(4)),
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


@dataclass(frozen=True)
class Model:
    """The two readings of the module docs, from one thread's and two threads' measurements: `c1` seconds an
    event on one thread, `events`, `windows` and `handovers` of the run, `barrier` seconds a meeting of two,
    and two threads' wall seconds `wall2` with critical path `critical2` (a share of the events)."""

    c1: float
    events: int
    windows: int
    handovers: int
    barrier: float
    wall2: float
    critical2: float

    def work(self, critical: float) -> float:
        return self.c1 * self.events * critical

    def per_crossing(self) -> float | None:
        """Seconds per packet taken in from another block: two threads' excess over their critical events and
        one meeting a window, over the packets each block takes in from the other (a quarter of them). None
        where there is no excess: two threads ran each event faster than one thread, as on a large fabric
        whose halves fit the caches better than the whole, and crossings explain nothing."""
        excess = self.wall2 - self.work(self.critical2) - self.windows * self.barrier
        return excess / (self.handovers / 4) if excess >= 0 and self.handovers else None

    def factor(self) -> float:
        """Two threads' wall time over their critical events and one meeting a window."""
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binary", help="the bench binary")
    ap.add_argument("scenario", help="a bench scenario (a fat-tree's, say), optionally SCENARIO/PARTITION")
    ap.add_argument("--threads", type=int, nargs="+", default=[16, 32, 64], help="thread counts to project")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds of the timed runs (default 3)")
    ap.add_argument("--core", type=int, default=1, help="the core the one-thread runs are pinned to")
    ap.add_argument(
        "--barrier-ns", type=float, default=200.0, help="one meeting of two threads, ns (default 200)"
    )
    args = ap.parse_args()
    if args.rounds < 1:
        fail(f"rounds = {args.rounds}: at least 1")
    if not args.barrier_ns >= 0:
        fail(f"barrier-ns = {args.barrier_ns}: a meeting takes 0 ns or more")
    if any(n < 2 for n in args.threads):
        fail(f"threads = {args.threads}: each at least 2")
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
    e, w, h = base["events"], base["windows"], base["handovers"]
    c_seq = statistics.median(seq) / e
    wall2 = statistics.median(two)
    model = Model(statistics.median(one) / e, e, w, h, args.barrier_ns * 1e-9, wall2, pair["critical"])

    print(f"{args.scenario}: {e:,} events, {base['partitions']} partitions, {w:,} windows, {h:,} handovers")
    print(
        f"  sequential {statistics.median(seq):.2f} s CPU ({c_seq * 1e9:.1f} ns an event), one thread "
        f"{statistics.median(one):.2f} s ({model.c1 / c_seq:.3f}x), two threads {wall2:.2f} s wall "
        f"({wall2 / statistics.median(seq):.3f} of sequential); medians of {args.rounds} rounds"
    )
    for label, values in (("sequential", seq), ("one thread", one), ("two threads (wall)", two)):
        print(f"  {label}, each round: " + " ".join(f"{v:.2f}" for v in values))
    print(
        f"  barrier {args.barrier_ns:.0f} ns a round; fitted: a factor of {model.factor():.3f} on every block's "
        + (
            f"work, or {cost * 1e9:.0f} ns per packet taken in from another block"
            if (cost := model.per_crossing()) is not None
            else "work (two threads ran each event faster than one: no cost left for crossings)"
        )
    )
    print()
    print(
        "| threads | blocks | critical path | bound (critical only) | projected wall: crossings, log2 N meetings "
        "| speed-up | projected wall: two threads' excess as a factor, N / 2 meetings | speed-up |"
    )
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for n in [2, *args.threads]:
        fig = pair if n == 2 else figures(args.binary, on(n))
        blocks = min(n, fig["partitions"])
        fast, slow = model.crossings(blocks, fig["critical"]), model.scaled(blocks, fig["critical"])
        by_crossings = "- | -" if fast is None else f"{fast:.2f} s | {c_seq * e / fast:.2f}"
        print(
            f"| {n} | {blocks} | {fig['critical']:.1%} | {1 / fig['critical']:.2f} | {by_crossings} "
            f"| {slow:.2f} s | {c_seq * e / slow:.2f} |"
        )


if __name__ == "__main__":
    main()
