"""bench/counts.py against a stand-in valgrind (a script that writes cachegrind's output file) and bench binary."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

COUNTS = Path(__file__).resolve().parent.parent / "bench" / "counts.py"


def stand_ins(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A bench binary (never run itself) and a `valgrind` first on PATH. The stand-in valgrind runs the
    scenario's line as a bench would print it, and counts twice as much of everything for `@t1`."""
    exe = tmp_path / "bench"
    exe.write_text("#!/bin/sh\nexit 0\n")
    exe.chmod(0o755)
    valgrind = tmp_path / "bin" / "valgrind"
    valgrind.parent.mkdir()
    valgrind.write_text(
        "#!/bin/sh\n"
        'for a in "$@"; do case "$a" in --cachegrind-out-file=*) out="${a#*=}";; esac; scen="$a"; done\n'
        'case "$scen" in *@t1) k=2;; *) k=1;; esac\n'
        'printf "events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim\\n" > "$out"\n'
        'printf "summary: $((5000*k)) 0 0 0 $((30*k)) $((1*k)) 0 $((10*k)) $((1*k)) 0 $((4*k)) 0 $((1*k))\\n" >> "$out"\n'
        'echo "$scen: flows 1/1  events 10  packet-hops 10  cpu 1.0 s  wall 1.0 s"\n'
    )
    valgrind.chmod(0o755)
    env = {**os.environ, "PATH": f"{valgrind.parent}:{os.environ['PATH']}"}
    return exe, env


def run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(COUNTS), *args], capture_output=True, text=True, env=env, check=False
    )


def test_counts_per_packet_hop_and_ratio_to_the_first_build(tmp_path):
    exe, env = stand_ins(tmp_path)
    out = run(["s", str(exe), f"{exe}@t1", "--d1", "32768,8,64", "--l2", "524288,8,64"], env)
    assert out.returncode == 0, out.stderr
    rows = [line for line in out.stdout.splitlines() if line.startswith("| `")]
    assert rows == [
        f"| `{exe}` | 10 | 0.0 M (500.00) | 0.0 M (4.00) | 0.0 M (0.20) | 0.0 M (0.50) |",
        f"| `{exe}@t1` | 10 | 0.0 M (1000.00) 2.000 | 0.0 M (8.00) 2.000 | 0.0 M (0.40) 2.000 | 0.0 M (1.00) 2.000 |",
    ]


def test_cache_geometry_comes_from_sys(tmp_path):
    sys.path.insert(0, str(COUNTS.parent))
    try:
        import counts
    finally:
        sys.path.pop(0)
    for i, (level, kind, size, ways) in enumerate(
        [(1, "Data", "32K", 8), (1, "Instruction", "32K", 8), (2, "Unified", "512K", 8)]
    ):
        d = tmp_path / f"index{i}"
        d.mkdir()
        for name, value in [
            ("level", level),
            ("type", kind),
            ("size", size),
            ("ways_of_associativity", ways),
            ("coherency_line_size", 64),
        ]:
            (d / name).write_text(f"{value}\n")
    assert counts.cache_geometry(1, ("Data",), tmp_path) == "32768,8,64"
    assert counts.cache_geometry(2, ("Unified", "Data"), tmp_path) == "524288,8,64"


def test_bad_input_is_one_line_and_exit_code_2(tmp_path):
    exe, env = stand_ins(tmp_path)
    no_valgrind = {**os.environ, "PATH": str(tmp_path / "empty")}
    for args, e in (
        (["s", str(tmp_path / "missing")], env),
        (["s", str(exe), "--d1", "1,1,64", "--l2", "1,1,64"], no_valgrind),
    ):
        r = run(args, e)
        assert r.returncode == 2, r.stderr
        assert r.stderr.count("\n") == 1 and r.stderr.startswith("error: ")
