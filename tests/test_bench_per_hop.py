"""bench/per_hop.py against a stand-in bench binary (a shell script whose CPU time depends on the scenario)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PER_HOP = Path(__file__).resolve().parent.parent / "bench" / "per_hop.py"


def fake_bench(tmp_path: Path) -> Path:
    """Scenario `small`: 1 s for 10^7 hops (100 ns each), 500 packets; any other: 1.5 s (150 ns), 900 packets."""
    exe = tmp_path / "bench"
    exe.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = small ]; then cpu=1.00; pk=500; else cpu=1.50; pk=900; fi\n'
        'echo "$1: flows 10/10  events 20000000  packet-hops 10000000  cpu $cpu s  wall $cpu s  peak pkts $pk"\n'
    )
    exe.chmod(0o755)
    return exe


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(PER_HOP), *args], capture_output=True, text=True, check=False)


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
    silent = tmp_path / "silent"
    silent.write_text("#!/bin/sh\nexit 3\n")
    silent.chmod(0o755)
    for args in (
        [str(tmp_path / "missing"), "s"],
        [exe, "s", "--rounds", "0"],
        [str(silent), "s", "--core", "0"],
    ):
        r = run(*args)
        assert r.returncode == 2
        assert r.stderr.count("\n") == 1 and r.stderr.startswith("error: ")
