"""bench/experiments/window_balance.py on small logs whose critical paths are worked out by hand."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "bench" / "experiments" / "window_balance.py"


def run(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, check=False)


def table(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("| the")]


def test_critical_paths_of_the_engines_cut_the_most_even_totals_and_the_shortest(tmp_path):
    # Four partitions with totals 100 52 50 90 (292 events) in two windows, the second logged by two blocks.
    # The engine's first block, partition 0 alone, runs 192 of them on one thread; by window, max(100, 50) +
    # max(0, 142) = 242. Partitions 0 and 2 hold the most even 150, but all of it in the first window and none
    # in the second (critical path 150 + 142 = 292). Partitions 0 and 1 hold 152, within 1% of that, and
    # max(100, 50) + max(52, 90) = 190: the shortest critical path of the two.
    log = tmp_path / "w.log"
    log.write_text("100 100 0 50 0\n200 0 52 0 0\n200 0 0 0 90\n")
    out = run([str(log), "--cut", "1"])
    assert out.returncode == 0, out.stderr
    assert "2 windows, 292 events, 4 partitions" in out.stdout
    assert table(out.stdout) == [
        "| the engine's (first 1 partitions) | 0 | 65.75% | 82.88% |",
        "| the most even totals | 0 2 | 51.37% | 100.00% |",
        "| the shortest critical path | 0 1 | 52.05% | 65.07% |",
    ]


def test_bad_input_is_one_line_and_status_2(tmp_path):
    ragged = tmp_path / "ragged.log"
    ragged.write_text("100 1 2\n200 1\n")
    two = tmp_path / "two.log"
    two.write_text("100 1 2\n")
    for args, words in [
        ([str(tmp_path / "none.log")], "No such file"),
        ([str(ragged)], "every line needs the same number"),
        ([str(two), "--cut", "5"], "--cut 5: between 1 and 1"),
    ]:
        out = run(args)
        assert out.returncode == 2, out
        assert words in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr
