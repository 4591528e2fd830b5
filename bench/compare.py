"""Compare builds of the core's bench example on one scenario: CPU seconds per build, runs interleaved.

On a shared VM, CPU time of the same binary varies by up to 25% from run to run; pinned to one core and
interleaved with the build it is compared to, by 2-5% (bench/RESULTS.md, third session). So this runs each
binary in turn, ROUNDS times, on one core, and prints the minimum and median CPU seconds of each, with the
event and packet-hop counts (equal counts: the builds simulated the same thing), then each later binary's
ratio to the first in every round and their median.

    cargo build --release -p pfabric-core --example bench && cp target/release/examples/bench /tmp/bench_new
    python bench/compare.py pfabric-websearch-0.6-2k /tmp/bench_old /tmp/bench_new --rounds 5

A binary given as `PATH@tN` runs the scenario on N threads (the bench's `SCENARIO@tN`), so that one build's
threads are compared with its sequential engine; with `--wall` the figures are wall seconds, and no run is
pinned (threads need every core):

    python bench/compare.py pfabric-fattree-k16-websearch-0.6-20k BENCH BENCH@t2 --wall --rounds 5
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
from typing import NoReturn

LINE = re.compile(r"events (\d+)\s+packet-hops (\d+)\s+cpu ([0-9.]+) s\s+wall ([0-9.]+) s")
THREADS = re.compile(r"^(.+)@(t\d+)$")
PEAK = re.compile(r"\bpeak (\d+) MiB")


def fail(message: str) -> NoReturn:
    """Bad input or a failed run: one line, exit code 2."""
    print(f"error: {message}", file=sys.stderr)
    sys.exit(2)


def require_executables(binaries: list[str]) -> None:
    """Each binary (`PATH@tN` names PATH) is an executable file, or the run ends with one line."""
    for b in binaries:
        if not os.access(split_threads(b)[0], os.X_OK):
            fail(f"binary = {b!r}: not an executable file")


def split_threads(binary: str) -> tuple[str, str]:
    """`PATH@tN` as (PATH, "@tN"); any other binary as (binary, "")."""
    m = THREADS.match(binary)
    return (m.group(1), "@" + m.group(2)) if m else (binary, "")


def result_line(path: str, scenario: str, core: int | None) -> tuple[str, re.Match]:
    """The output of one run of bench binary `path` on `scenario` (`NAME@tN` on N threads), pinned to `core`
    unless it is None, and its result line's match; a run that fails or prints none ends with one line."""
    pin = (
        (lambda: os.sched_setaffinity(0, {core}))
        if core is not None and hasattr(os, "sched_setaffinity")
        else None
    )
    out = subprocess.run([path, scenario], capture_output=True, text=True, preexec_fn=pin, check=False)
    m = LINE.search(out.stdout)
    if out.returncode != 0 or not m:
        fail(f"{path} {scenario}: exit {out.returncode}, no result line: {out.stderr.strip()[:200]}")
    return out.stdout, m


def run_once(binary: str, scenario: str, core: int | None, wall: bool = False) -> tuple[float, str]:
    """CPU seconds (or with `wall`, wall seconds) of one run of `binary` on `scenario`, pinned to `core` unless it
    is None, its event/packet-hop counts and (when the binary reports it) its peak memory."""
    path, threads = split_threads(binary)
    stdout, m = result_line(path, scenario + threads, core)
    peak = PEAK.search(stdout)
    memory = f" peak {peak.group(1)} MiB" if peak else ""
    return float(m.group(4) if wall else m.group(3)), f"events {m.group(1)} packet-hops {m.group(2)}{memory}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("scenario", help="a scenario name of the bench example (pfabric-websearch-0.6-2k, ...)")
    ap.add_argument("binaries", nargs="+", help="bench binaries to compare (PATH@tN: on N threads)")
    ap.add_argument("--rounds", type=int, default=5, help="runs of each binary, interleaved (default 5)")
    ap.add_argument("--core", type=int, default=max(os.cpu_count() or 1, 1) - 1, help="core to pin to")
    ap.add_argument(
        "--wall", action="store_true", help="compare wall seconds, unpinned (runs on several threads)"
    )
    a = ap.parse_args()
    if a.rounds < 1:
        fail(f"--rounds = {a.rounds}: at least 1")
    require_executables(a.binaries)
    core = None if a.wall else a.core
    unit = "wall s" if a.wall else "s"
    # By position, not path: the same binary given twice measures the noise.
    times: list[list[float]] = [[] for _ in a.binaries]
    counts: list[str] = [""] * len(a.binaries)
    for _ in range(a.rounds):
        for i, b in enumerate(a.binaries):
            t, counts[i] = run_once(b, a.scenario, core, a.wall)
            times[i].append(t)
    for b, ts, c in zip(a.binaries, times, counts, strict=True):
        print(f"{b}: min {min(ts):.2f} {unit}  median {statistics.median(ts):.2f} {unit}  ({c})")
    # Each round's ratio to the first binary: runs next to each other share the machine's phase, so the ratios
    # drift less than the times do when the machine speeds up or slows down between rounds.
    for b, ts in zip(a.binaries[1:], times[1:], strict=True):
        ratios = [t / t0 if t0 > 0 else float("nan") for t, t0 in zip(ts, times[0], strict=True)]
        shown = " ".join(f"{r:.3f}" for r in ratios)
        print(f"{b} / {a.binaries[0]}, each round: {shown}  median {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
