"""bench/targets.py against a stand-in bench binary (a shell script whose times depend on the scenario)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from bench_scripts import run_script, stand_in


def fake_bench(tmp_path: Path) -> Path:
    """Two threads take half the sequential time, one thread 1.1x; k = 32 costs 1.2x per hop with the
    leaf-spine's flows and 2x with its own."""
    return stand_in(
        tmp_path / "bench",
        'case "$1" in *@t2) c=0.50;; *@t1) c=1.10;; *k32-leafspine*) c=1.20;; *k32-websearch*) c=2.00;;'
        " *) c=1.00;; esac\n"
        'echo "$1: flows 10/10  events 20000000  packet-hops 10000000  cpu $c s  wall $c s  peak pkts 500"\n',
    )


def run(*args: str) -> subprocess.CompletedProcess:
    return run_script("targets.py", *args)


def test_each_target_is_judged_by_its_median_ratio(tmp_path):
    out = run(str(fake_bench(tmp_path)), "--rounds", "2", "--core", "0", "--quick")
    assert out.returncode == 0, out.stderr
    rows = [r.split(" | ") for r in out.stdout.splitlines()[2:]]
    assert [(r[0].lstrip("| "), r[3], r[5].rstrip(" |")) for r in rows] == [
        ("two threads, k = 16", "0.500 0.500: **0.500**", "met (2 of 2 rounds within)"),
        ("two threads, leaf-spine", "0.500 0.500: **0.500**", "met (2 of 2 rounds within)"),
        ("one thread, k = 16", "1.100 1.100: **1.100**", "not met (0 of 2 rounds within)"),
        ("one thread, leaf-spine", "1.100 1.100: **1.100**", "not met (0 of 2 rounds within)"),
        (
            "k = 32 per packet-hop, the leaf-spine's flows",
            "1.200 1.200: **1.200**",
            "met (2 of 2 rounds within)",
        ),
        (
            "k = 32 per packet-hop, the workload's own flows",
            "2.000 2.000: **2.000**",
            "not met (0 of 2 rounds within)",
        ),
    ]
    # The runs the targets name: the 20,000 flows unless --quick.
    assert "`pfabric-fattree-k16-websearch-0.6-5k@t2`" in out.stdout
    full = run(str(fake_bench(tmp_path)), "--rounds", "1", "--core", "0")
    assert "`pfabric-fattree-k16-websearch-0.6-20k@t2`" in full.stdout


def test_a_median_met_by_some_rounds_says_how_many(tmp_path):
    # One thread takes 1.00x, 1.05x, 1.02x of the sequential time in turn: the median (1.02) is within 1.03,
    # one round is not.
    counter = tmp_path / "count"
    pick = (
        f'n=$(cat "{counter}" 2>/dev/null || echo 0); echo $((n + 1)) > "{counter}";'
        " set -- 1.00 1.05 1.02; shift $((n % 3)); c=$1"
    )
    bench = stand_in(
        tmp_path / "bench",
        f'case "$1" in *@t1) {pick};; *) c=1.00;; esac\n'
        'echo "x: flows 10/10  events 20000000  packet-hops 10000000  cpu $c s  wall $c s  peak pkts 500"\n',
    )
    out = run(str(bench), "--rounds", "3", "--core", "0", "--quick")
    assert out.returncode == 0, out.stderr
    row = next(r.split(" | ") for r in out.stdout.splitlines() if r.startswith("| one thread, k = 16"))
    assert (row[3], row[5].rstrip(" |")) == ("1.000 1.050 1.020: **1.020**", "met (2 of 3 rounds within)")


def test_bad_input_is_one_line_and_exit_code_2(tmp_path):
    silent = stand_in(tmp_path / "silent", "exit 3\n")
    for args in (
        [str(tmp_path / "missing")],
        [str(fake_bench(tmp_path)), "--rounds", "0"],
        [str(silent), "--core", "0"],
    ):
        r = run(*args)
        assert r.returncode == 2
        assert r.stderr.count("\n") == 1 and r.stderr.startswith("error: ")
