"""bench/compare.py against stand-in bench binaries (shell scripts printing a result line)."""

from __future__ import annotations

from pathlib import Path

from bench_scripts import run_script, stand_in


def fake_bench(tmp_path: Path, name: str, cpu: str) -> Path:
    return stand_in(
        tmp_path / name,
        f'echo "$1: flows 10/10  events 120  packet-hops 80  cpu {cpu} s  wall {cpu} s  1.00 M packet-hops/cpu-s"\n',
    )


def compare_lines(*args: str) -> list[str]:
    """What bench/compare.py prints for `args`, a line each (it must succeed)."""
    out = run_script("compare.py", *args)
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def test_reports_min_and_median_of_each_binary(tmp_path):
    a, b = fake_bench(tmp_path, "old", "2.50"), fake_bench(tmp_path, "new", "1.25")
    out = compare_lines("s", str(a), str(b), "--rounds", "3", "--core", "0")
    assert out == [
        f"{a}: min 2.50 s  median 2.50 s  (events 120 packet-hops 80)",
        f"{b}: min 1.25 s  median 1.25 s  (events 120 packet-hops 80)",
        f"{b} / {a}, each round: 0.500 0.500 0.500  median 0.500",
    ]


def test_the_same_binary_twice_is_compared_with_itself_round_by_round(tmp_path):
    a = fake_bench(tmp_path, "same", "2.00")
    out = compare_lines("s", str(a), str(a), "--rounds", "2", "--core", "0")
    assert out[-1] == f"{a} / {a}, each round: 1.000 1.000  median 1.000"
    assert len(out) == 3


def test_reports_peak_memory_when_the_binary_does(tmp_path):
    exe = stand_in(
        tmp_path / "mem",
        'echo "$1: flows 1/1  events 5  packet-hops 4  cpu 0.50 s  wall 0.5 s  peak 9 MiB"\n',
    )
    out = compare_lines("s", str(exe), "--rounds", "1", "--core", "0")
    assert out == [f"{exe}: min 0.50 s  median 0.50 s  (events 5 packet-hops 4 peak 9 MiB)"]


def test_bad_input_is_one_line_and_exit_code_2(tmp_path):
    for args in (
        ["s", str(tmp_path / "missing")],
        ["s", str(fake_bench(tmp_path, "ok", "1.0")), "--rounds", "0"],
    ):
        r = run_script("compare.py", *args)
        assert r.returncode == 2
        assert r.stderr.count("\n") == 1 and r.stderr.startswith("error: ")
    silent = stand_in(tmp_path / "silent", "exit 3\n")
    r = run_script("compare.py", "s", str(silent), "--core", "0")
    assert r.returncode == 2 and "no result line" in r.stderr


def test_a_binary_at_threads_runs_the_threaded_scenario_and_wall_seconds_compare(tmp_path):
    # A stand-in whose wall time halves on two threads while its CPU time grows.
    exe = stand_in(
        tmp_path / "threads",
        'case "$1" in *@t2) cpu=2.20; wall=1.10;; *) cpu=2.00; wall=2.00;; esac\n'
        'echo "$1: flows 1/1  events 6  packet-hops 4  cpu $cpu s  wall $wall s"\n',
    )
    out = compare_lines("s", str(exe), f"{exe}@t2", "--rounds", "2", "--wall")
    assert out == [
        f"{exe}: min 2.00 wall s  median 2.00 wall s  (events 6 packet-hops 4)",
        f"{exe}@t2: min 1.10 wall s  median 1.10 wall s  (events 6 packet-hops 4)",
        f"{exe}@t2 / {exe}, each round: 0.550 0.550  median 0.550",
    ]
    # Without --wall, CPU seconds.
    assert compare_lines("s", str(exe), f"{exe}@t2", "--rounds", "1", "--core", "0")[-1].endswith(
        "median 1.100"
    )
