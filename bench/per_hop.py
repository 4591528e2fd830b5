"""Compare scenarios on one build of the core's bench example: CPU nanoseconds per packet-hop, runs interleaved.

What `compare.py` does for builds, this does for scenarios: each scenario runs in turn, ROUNDS times, pinned to
one core, and the table gives each round's ns per packet-hop, the peak packets in flight, and each scenario's
ratio to the first one in the same round (runs next to each other share the machine's phase) with its median.

    cargo build --release -p pfabric-core --example bench
    python bench/per_hop.py target/release/examples/bench pfabric-websearch-0.6-20k \\
        pfabric-fattree-k32-leafspine-flows-20k pfabric-fattree-k32-websearch-0.6-20k --rounds 3
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess

from compare import LINE, fail

PACKETS = re.compile(r"peak pkts (\d+)")


def per_hop(binary: str, scenario: str, core: int) -> tuple[float, int]:
    """CPU ns per packet-hop of one run of `scenario`, pinned to `core`, and its peak packets in flight."""
    pin = (lambda: os.sched_setaffinity(0, {core})) if hasattr(os, "sched_setaffinity") else None
    out = subprocess.run([binary, scenario], capture_output=True, text=True, preexec_fn=pin, check=False)
    m, packets = LINE.search(out.stdout), PACKETS.search(out.stdout)
    if out.returncode != 0 or not m or not packets:
        fail(f"{binary} {scenario}: exit {out.returncode}, no result line: {out.stderr.strip()[:200]}")
    hops = int(m.group(2))
    if hops == 0:
        fail(f"{scenario}: no packet-hops to divide by")
    return float(m.group(3)) * 1e9 / hops, int(packets.group(1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binary", help="the bench binary")
    ap.add_argument(
        "scenarios", nargs="+", help="scenario names of the bench example; the first is the reference"
    )
    ap.add_argument("--rounds", type=int, default=3, help="runs of each scenario, interleaved (default 3)")
    ap.add_argument("--core", type=int, default=max(os.cpu_count() or 1, 1) - 1, help="core to pin to")
    a = ap.parse_args()
    if a.rounds < 1:
        fail(f"--rounds = {a.rounds}: at least 1")
    if not os.access(a.binary, os.X_OK):
        fail(f"binary = {a.binary!r}: not an executable file")
    ns: list[list[float]] = [[] for _ in a.scenarios]
    packets = [0] * len(a.scenarios)
    for _ in range(a.rounds):
        for i, s in enumerate(a.scenarios):
            t, packets[i] = per_hop(a.binary, s, a.core)
            ns[i].append(t)
    print(
        "| scenario | peak packets in flight | ns per packet-hop, each round | ratio to the first, each round: median |"
    )
    print("| --- | ---: | --- | --- |")
    for s, ts, p in zip(a.scenarios, ns, packets, strict=True):
        ratios = [t / t0 for t, t0 in zip(ts, ns[0], strict=True)]
        shown = " ".join(f"{r:.2f}" for r in ratios)
        print(
            f"| `{s}` | {p:,} | {' '.join(f'{t:.1f}' for t in ts)} | {shown}: {statistics.median(ratios):.2f} |"
        )


if __name__ == "__main__":
    main()
