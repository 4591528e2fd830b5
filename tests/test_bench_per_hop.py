"""bench/per_hop.py against a stand-in bench binary (a shell script whose CPU time depends on the scenario)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from bench_scripts import run_script, stand_in


def fake_bench(tmp_path: Path) -> Path:
    """Scenario `small`: 1 s for 10^7 hops (100 ns each), 500 packets; any other: 1.5 s (150 ns), 900 packets."""
    return stand_in(
        tmp_path / "bench",
        'if [ "$1" = small ]; then cpu=1.00; pk=500; else cpu=1.50; pk=900; fi\n'
        'echo "$1: flows 10/10  events 20000000  packet-hops 10000000  cpu $cpu s  wall $cpu s  peak pkts $pk"\n',
    )


def run(*args: str) -> subprocess.CompletedProcess:
    return run_script("per_hop.py", *args)


def test_ns_per_hop_and_ratio_to_the_first_scenario_round_by_round(tmp_path):
    exe = str(fake_bench(tmp_path))
    out = run(exe, "small", "large", "--rounds", "2", "--core", "0")
    assert out.returncode == 0, out.stderr
    rows = out.stdout.splitlines()[2:]
    assert rows == [
        "| `small` | 500 | 100.0 100.0 | 1.00 1.00: 1.00 |",
        "| `large` | 900 | 150.0 150.0 | 1.50 1.50: 1.50 |",
    ]


def test_bad_input_is_one_line_and_exit_code_2(tmp_path):
    exe = str(fake_bench(tmp_path))
    silent = stand_in(tmp_path / "silent", "exit 3\n")
    for args in (
        [str(tmp_path / "missing"), "s"],
        [exe, "s", "--rounds", "0"],
        [str(silent), "s", "--core", "0"],
    ):
        r = run(*args)
        assert r.returncode == 2
        assert r.stderr.count("\n") == 1 and r.stderr.startswith("error: ")
