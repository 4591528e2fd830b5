"""bench/project.py against a stand-in bench binary whose figures are worked out by hand."""

from __future__ import annotations

from pathlib import Path

from bench_scripts import run_script, stand_in


def fake_bench(tmp_path: Path, two: str = "0.70") -> Path:
    """1,000,000 events, 1,000 windows, 400,000 handovers. The sequential engine takes 1.0 s of CPU and one
    thread 1.1 s; two threads `two` s of wall time with 55% of the events on their critical path; 4 threads
    30% and 8 threads 20%, of 4 partitions (so 8 threads run 4 blocks)."""
    return stand_in(
        tmp_path / "bench",
        f'case "$1" in *@t1) c=1.10 k=100.0;; *@t2) c={two} k=55.0;; *@t4) c=9 k=30.0;; *@t8) c=9 k=20.0;;'
        " *) c=1.00 k=0.0;; esac\n"
        'echo "$1: partitions 4 windows 1000 handovers 400000 critical $k%  flows 10/10  events 1000000  '
        'packet-hops 900000  cpu $c s  wall $c s  peak 5 MiB"\n',
    )


def test_both_readings_meet_the_two_thread_measurement_and_project_by_hand(tmp_path):
    out = run_script("project.py", str(fake_bench(tmp_path)), "s", "--threads", "4", "8", "--rounds", "1")
    assert out.returncode == 0, out.stderr
    # c1 = 1.1 us an event; two threads' critical work 0.605 s and one meeting a window 0.2 ms: the excess
    # 0.0948 s over the 100,000 packets each block takes in is 948 ns a packet, or a factor 0.7 / 0.6052.
    assert (
        "a factor of 1.157 on every block's work, or 948 ns per packet taken in from another block"
        in out.stdout
    )
    rows = [r.split(" | ") for r in out.stdout.splitlines() if r.startswith("| ") and r[2].isdigit()]
    assert [r[0].lstrip("| ") for r in rows] == ["2", "4", "8"]
    # Two threads: both readings give the measured 0.70 s, a speed-up of 1/0.7.
    assert rows[0][4:] == ["0.70 s", "1.43", "0.70 s", "1.43 |"]
    # Four threads, crossings: 0.33 s of work, 2 rounds a meeting (0.4 ms), 948 ns x 400,000 x 3 / 16
    # (0.0711 s): 0.4015 s. As a factor: 1.1566 x (0.33 + 0.4 ms) = 0.3821 s.
    assert rows[1][1:] == ["4", "30.0%", "3.33", "0.40 s", "2.49", "0.38 s", "2.62 |"]
    # Eight threads on four partitions: four blocks, 20% of the events on the critical path.
    assert rows[2][1:4] == ["4", "20.0%", "5.00"]


def test_two_threads_faster_than_their_critical_events_leave_no_cost_for_crossings(tmp_path):
    # 0.5 s against 0.605 s of critical events at one thread's cost: each event ran faster on two threads (a
    # large fabric's halves fit the caches better than the whole), so only the factor reading applies.
    out = run_script("project.py", str(fake_bench(tmp_path, "0.50")), "s", "--threads", "4", "--rounds", "1")
    assert out.returncode == 0, out.stderr
    assert "a factor of 0.826 on every block's work (two threads ran each event faster than one" in out.stdout
    rows = [r.split(" | ") for r in out.stdout.splitlines() if r.startswith("| ") and r[2].isdigit()]
    assert rows[0][4:] == ["-", "-", "0.50 s", "2.00 |"]
    # 0.8262 x (0.33 + 0.4 ms) = 0.2730 s.
    assert rows[1][4:] == ["-", "-", "0.27 s", "3.66 |"]


def test_bad_arguments_are_one_line_and_status_2(tmp_path):
    bench = str(fake_bench(tmp_path))
    for args, says in [
        ([bench, "s", "--rounds", "0"], "rounds = 0"),
        ([bench, "s", "--threads", "1"], "threads = [1]"),
        ([bench, "s", "--barrier-ns", "-5"], "barrier-ns = -5.0"),
        ([str(tmp_path / "missing"), "s"], "not an executable file"),
    ]:
        out = run_script("project.py", *args)
        assert out.returncode == 2 and says in out.stderr and "Traceback" not in out.stderr


def line(name: str, cpu: str, critical: str = "0.0", partitions: int = 4) -> str:
    """A result line as the bench prints it, for the stand-in run of `fake_bench`."""
    return (
        f"{name}: partitions {partitions} windows 1000 handovers 400000 critical {critical}%  flows 10/10  "
        f"events 1000000  packet-hops 900000  cpu {cpu} s  wall {cpu} s  peak 5 MiB"
    )


def test_recorded_lines_project_as_the_runs_they_record(tmp_path):
    # The same runs as `fake_bench`'s, one line each and a note: the same table.
    lines = tmp_path / "runs.txt"
    lines.write_text(
        "# one run each\n"
        + "\n".join(
            [line("s", "1.00", partitions=0), line("s@t1", "1.10", "100.0"), line("s@t2", "0.70", "55.0")]
            + [line("s@t4", "9", "30.0"), line("s@t8", "9", "20.0")]
        )
        + "\n"
    )
    out = run_script("project.py", "--recorded", str(lines))
    assert out.returncode == 0, out.stderr
    assert "a factor of 1.157 on every block's work, or 948 ns per packet" in out.stdout
    assert "peak resident: sequential 5 MiB, one thread 5 MiB, 2 threads 5 MiB" in out.stdout
    rows = [r.split(" | ") for r in out.stdout.splitlines() if r.startswith("| ") and r[2].isdigit()]
    assert [r[0].lstrip("| ") for r in rows] == ["2", "4", "8"]
    assert rows[0][4:] == ["0.70 s", "1.43", "0.70 s", "1.43 |"]
    assert rows[1][1:] == ["4", "30.0%", "3.33", "0.40 s", "2.49", "0.38 s", "2.62 |"]


def test_a_long_run_without_two_threads_takes_their_factor_from_another(tmp_path):
    # No @t1 (one thread costs the sequential engine's 1 us an event) and no @t2: a factor of 1.2 on 0.30 s of
    # critical events and 1,000 meetings of two rounds (0.4 ms) is 0.3605 s, a speed-up of 2.77; no crossings.
    lines = tmp_path / "runs.txt"
    lines.write_text(line("s", "1.00", partitions=0) + "\n" + line("s@t4", "9", "30.0") + "\n")
    out = run_script("project.py", "--recorded", str(lines), "--factor", "1.2")
    assert out.returncode == 0, out.stderr
    assert "one thread taken as the sequential engine, two threads not run here" in out.stdout
    assert "given: a factor of 1.200" in out.stdout
    rows = [r.split(" | ") for r in out.stdout.splitlines() if r.startswith("| ") and r[2].isdigit()]
    assert rows == [["| 4", "4", "30.0%", "3.33", "-", "-", "0.36 s", "2.77 |"]]


def test_recorded_lines_that_cannot_be_projected_are_one_line_and_status_2(tmp_path):
    def recorded(*lines: str) -> str:
        path = tmp_path / f"runs{len(list(tmp_path.iterdir()))}.txt"
        path.write_text("\n".join(lines) + "\n")
        return str(path)

    seq, four = line("s", "1.00", partitions=0), line("s@t4", "9", "30.0")
    bench = str(fake_bench(tmp_path))
    for args, says in [
        (["--recorded", recorded(four), "--factor", "1.2"], "no line for the sequential engine"),
        (["--recorded", recorded(seq, four)], "no @t2 line; give two threads' excess with --factor"),
        (["--recorded", recorded(seq, "hello")], "line 2: not a bench result line"),
        (["--recorded", recorded(seq, four.replace("s@t4", "t@t4")), "--factor", "1"], "scenario 't'"),
        (["--recorded", recorded(seq, four, four), "--factor", "1"], "a second line for 's@t4'"),
        (
            ["--recorded", recorded(seq, line("s@t2", "0.7", "55.0")), "--factor", "1"],
            "has two threads' line",
        ),
        (["--recorded", recorded(seq), "--factor", "1"], "no partitioned engine's run"),
        (
            ["--recorded", recorded(seq, "s@t4: " + seq.split("critical 0.0%  ")[1]), "--factor", "1"],
            "no partitioned engine's figures",
        ),
        (["--recorded", str(tmp_path / "none.txt"), "--factor", "1"], "cannot be read"),
        (["--recorded", recorded(seq, four), "--factor", "-1"], "factor = -1.0"),
        ([bench, "s", "--recorded", recorded(seq, four)], "not both"),
        ([bench], "both are needed"),
        ([bench, "s", "--factor", "1.1"], "only with --recorded"),
    ]:
        out = run_script("project.py", *args)
        assert out.returncode == 2 and says in out.stderr and "Traceback" not in out.stderr, (
            args,
            out.stderr,
        )
