"""Count what builds of the core's bench example do on one scenario: instructions, first-level data misses, L2
misses and branch mispredictions per packet-hop, under cachegrind with this machine's caches.

Time on this shared VM moves with the machine's phase: the same binary ran the paper's leaf-spine at 54 ns per
packet-hop on one day and 123 ns on another (bench/RESULTS.md, twenty-sixth session), and a few percent between
builds hides in that. The counts are the same on any day. cachegrind simulates this machine's first-level data
cache and, as its last level, the L2 (both read from /sys), and a simple branch predictor. Its misses are the
lines a run touches that are not in the cache already, prefetched or not, and its mispredictions are a model's,
not this CPU's. So the counts rank builds and show where a change acts; `compare.py` times them.

    python bench/counts.py pfabric-websearch-0.6-500 /tmp/bench_old /tmp/bench_new
    python bench/counts.py pfabric-fattree-k16-websearch-0.6-1k BENCH BENCH@t1

A binary given as `PATH@tN` runs the scenario on N threads, as in `compare.py`. A run under cachegrind takes
about 50 times its CPU time: pick a scenario of a few seconds.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
from pathlib import Path

from compare import LINE, fail, require_executables, split_threads

SYS_CACHES = Path("/sys/devices/system/cpu/cpu0/cache")
# What each column sums, from cachegrind's events.
COLUMNS = {
    "instructions": ("Ir",),
    "L1 data misses": ("D1mr", "D1mw"),
    "L2 data misses": ("DLmr", "DLmw"),
    "mispredictions": ("Bcm", "Bim"),
}


def cache_geometry(level: int, kinds: tuple[str, ...], root: Path = SYS_CACHES) -> str:
    """cachegrind's `SIZE,WAYS,LINE` for this machine's cache of `level` and one of `kinds` (Data, Unified)."""
    for index in sorted(root.glob("index*")):
        try:
            if (
                int((index / "level").read_text()) != level
                or (index / "type").read_text().strip() not in kinds
            ):
                continue
            size = (index / "size").read_text().strip()
            ways = int((index / "ways_of_associativity").read_text())
            line = int((index / "coherency_line_size").read_text())
        except (OSError, ValueError):
            continue
        factor = {"K": 1024, "M": 1024 * 1024}.get(size[-1:], 1)
        return f"{int(size.rstrip('KM')) * factor},{ways},{line}"
    fail(
        f"no level-{level} {'/'.join(kinds)} cache under {root}: give its geometry (--d1 / --l2 SIZE,WAYS,LINE)"
    )


def count(binary: str, scenario: str, d1: str, l2: str) -> dict[str, float]:
    """One run of `binary` on `scenario` under cachegrind: each column's total, and the run's packet-hops."""
    path, threads = split_threads(binary)
    with tempfile.TemporaryDirectory() as tmp:
        out_file = Path(tmp) / "cachegrind.out"
        out = subprocess.run(
            [
                "valgrind",
                "--tool=cachegrind",
                "--cache-sim=yes",
                "--branch-sim=yes",
                f"--D1={d1}",
                f"--LL={l2}",
                f"--cachegrind-out-file={out_file}",
                path,
                scenario + threads,
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        m = LINE.search(out.stdout)
        if out.returncode != 0 or not m or not out_file.exists():
            fail(f"{binary} {scenario}: exit {out.returncode}, no result line: {out.stderr.strip()[-200:]}")
        events: list[str] = []
        summary: list[int] = []
        for line in out_file.read_text().splitlines():
            if line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith("summary:"):
                summary = [int(x) for x in line.split()[1:]]
    totals = dict(zip(events, summary, strict=False))
    missing = [e for names in COLUMNS.values() for e in names if e not in totals]
    if missing:
        fail(f"{binary} {scenario}: cachegrind counted no {', '.join(missing)}")
    counts = {col: float(sum(totals[e] for e in names)) for col, names in COLUMNS.items()}
    counts["packet-hops"] = float(m.group(2))
    return counts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("scenario", help="a scenario name of the bench example (pfabric-websearch-0.6-500, ...)")
    ap.add_argument("binaries", nargs="+", help="bench binaries to count (PATH@tN: on N threads)")
    ap.add_argument("--d1", help="first-level data cache as SIZE,WAYS,LINE (default: this machine's)")
    ap.add_argument("--l2", help="L2 cache as SIZE,WAYS,LINE (default: this machine's)")
    a = ap.parse_args()
    require_executables(a.binaries)
    if shutil.which("valgrind") is None:
        fail("valgrind: not found (Debian: apt install valgrind)")
    d1 = a.d1 or cache_geometry(1, ("Data",))
    l2 = a.l2 or cache_geometry(2, ("Unified", "Data"))
    rows = [count(b, a.scenario, d1, l2) for b in a.binaries]
    print(f"`{a.scenario}`, cachegrind with D1 {d1} and L2 {l2} (size, ways, line); per packet-hop, and the")
    print("ratio to the first build")
    print()
    print("| build | packet-hops | " + " | ".join(COLUMNS) + " |")
    print("| --- | ---: |" + " ---: |" * len(COLUMNS))
    for b, r in zip(a.binaries, rows, strict=True):
        cells = []
        hops = r["packet-hops"] or 1.0
        for col in COLUMNS:
            cell = f"{r[col] / 1e6:,.1f} M ({r[col] / hops:.2f})"
            if r is not rows[0] and rows[0][col] > 0:
                cell += f" {r[col] / rows[0][col]:.3f}"
            cells.append(cell)
        print(f"| `{b}` | {r['packet-hops']:,.0f} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
