"""`python -m pfabric` reports a bad scenario or argument in one line on stderr, status 2, no traceback.

These run before the core is needed, so they pass without the compiled extension.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from run_cli import pfabric


def assert_usage_error(result: subprocess.CompletedProcess, *expected: str) -> None:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("pfabric: error: ")
    for text in expected:
        assert text in lines[0]
    assert result.stdout == ""


BAD_SCENARIOS = {
    "load 1.5": ("[workload]\nload = 1.5\n", ("workload.load: 1.5 is not allowed", "(0, 1)")),
    "unknown topology kind": ('[topology]\nkind = "torus"\n', ("topology.kind: 'torus' is not allowed",)),
    "unknown scheme": ('[scheme]\nname = "bbr"\n', ("scheme.name: 'bbr' is not allowed", "'tcp'")),
    "negative delay": (
        "[topology]\nlink_delay_us = -0.2\n",
        ("topology.link_delay_us: -0.2 is not allowed",),
    ),
    "unknown field": ("sead = 1\n", ("sead: 1 is not allowed",)),
    "TOML syntax": ("[workload\nload = 0.5\n", ("invalid TOML", "line 1")),
    "missing CDF file": (
        '[workload]\ncdf = "sizes.csv"\n',
        ("workload.cdf: 'sizes.csv' is not allowed", "no such file"),
    ),
    # issue 12: each was a traceback (status 1) or a message in the validation library's words
    "prio-queues overloaded by an arrival rate": (
        (
            '[topology]\nkind = "star"\nhosts = 4\n[workload]\narrival_rate_per_s = 1e6\n'
            '[scheme]\nname = "prio-queues"\n'
        ),
        ("scheme.thresholds_bytes: a value is required", "load below 1"),
    ),
    "trace path component over 255 bytes": (
        f'[workload]\nkind = "trace"\npath = "{"x" * 300}/flows.csv"\n',
        ("workload.path: ", "File name too long"),
    ),
    "CDF path component over 255 bytes": (
        f'[workload]\ncdf = "{"x" * 300}"\n',
        ("workload.cdf: ", "File name too long"),
    ),
    "list item": (
        '[workload]\nkind = "fan-in"\nsizes_bytes = [100, 200]\nranks = [-1, 2]\n',
        ("workload.ranks[0]: -1 is not allowed; expected an integer >= 0",),
    ),
    "loss edges not increasing": (
        "[output]\nloss_priority_edges_bytes = [5, 3]\n",
        ("output.loss_priority_edges_bytes: [5, 3] is not allowed", "strictly increasing"),
    ),
    "TOML nested too deeply": ("x = " + "[" * 5000 + "]" * 5000 + "\n", ("nested too deeply",)),
    "a boolean as text": ('[output]\nlog_arrivals = "yes"\n', ("output.log_arrivals: 'yes' is not allowed",)),
}


@pytest.mark.parametrize("text, expected", BAD_SCENARIOS.values(), ids=BAD_SCENARIOS.keys())
def test_bad_scenario(tmp_path, pfabric_env, text, expected):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    result = pfabric(pfabric_env, "run", str(path), "-o", str(tmp_path / "out"))
    assert_usage_error(result, *expected)
    for words in ("Input should", "Value error", "validation error"):
        assert words not in result.stderr
    assert not (tmp_path / "out").exists()


def test_trace_host_outside_topology(tmp_path, pfabric_env):
    (tmp_path / "flows.csv").write_text("start_s,src,dst,size_bytes\n0,1,2,1000\n0.1,3,200,5000\n")
    (tmp_path / "bad.toml").write_text('[workload]\nkind = "trace"\npath = "flows.csv"\n')
    result = pfabric(pfabric_env, "run", str(tmp_path / "bad.toml"), "-o", str(tmp_path / "out"))
    assert_usage_error(result, "workload.path: row 2: dst=200 is not allowed", "[0, 144)")


def test_missing_scenario_file(tmp_path, pfabric_env):
    result = pfabric(pfabric_env, "run", str(tmp_path / "none.toml"), "-o", str(tmp_path / "out"))
    assert_usage_error(result, "none.toml", "no such scenario file")


def test_bad_seed_argument(tmp_path, pfabric_env):
    (tmp_path / "ok.toml").write_text("")
    result = pfabric(
        pfabric_env, "run", str(tmp_path / "ok.toml"), "-o", str(tmp_path / "out"), "--seed", "-3"
    )
    assert_usage_error(result, "seed: -3 is not allowed")


def test_bad_threads_argument(tmp_path, pfabric_env):
    (tmp_path / "ok.toml").write_text("")
    result = pfabric(
        pfabric_env, "run", str(tmp_path / "ok.toml"), "-o", str(tmp_path / "out"), "--threads", "-3"
    )
    assert_usage_error(result, "run.threads: -3 is not allowed", "[0, 4096]")


@pytest.mark.parametrize(
    "args, expected",
    [
        (("run",), "required"),
        (("run", "x.toml"), "-o"),
        (("run", "x.toml", "-o", "out", "--seed", "one"), "--seed"),
        (("run", "x.toml", "-o", "out", "--bogus"), "--bogus"),
        (("simulate",), "simulate"),
        ((), "required"),
    ],
    ids=["no scenario", "no output", "seed not a number", "unknown option", "unknown command", "no command"],
)
def test_bad_arguments(pfabric_env, tmp_path, args, expected):
    assert_usage_error(pfabric(pfabric_env, *args, cwd=tmp_path), expected)


def test_output_path_is_a_file(tmp_path, pfabric_env):
    (tmp_path / "ok.toml").write_text("")
    (tmp_path / "taken").write_text("")
    result = pfabric(pfabric_env, "run", str(tmp_path / "ok.toml"), "-o", str(tmp_path / "taken"))
    assert_usage_error(result, "is a file")


def test_fields_reference_lists_every_field(pfabric_env):
    from pfabric.describe import field_docs
    from pfabric.scenario import Scenario

    result = pfabric(pfabric_env, "fields")
    assert result.returncode == 0, result.stderr
    for doc in field_docs(Scenario):
        assert doc.path.split(".")[-1] in result.stdout
    for section in ('[topology] kind = "star"', '[workload] kind = "trace"', "[scheme]", "[output]", "[run]"):
        assert section in result.stdout


def test_run_help_documents_the_fields(pfabric_env):
    result = pfabric(pfabric_env, "run", "--help")
    assert result.returncode == 0
    assert "host_delay_us" in result.stdout and "warmup_fraction" in result.stdout


def test_fields_reference_lists_the_deadlines_fields(pfabric_env):
    result = pfabric(pfabric_env, "fields")
    assert result.returncode == 0, result.stderr
    section = result.stdout[result.stdout.index("[workload.deadlines]") :]
    for name in ("mean_s", "min_factor", "max_size_bytes", "fraction"):
        assert f"  {name} " in section


@pytest.mark.parametrize("where", ["under a file", "component over 255 bytes"])
def test_output_folder_that_cannot_be_made(tmp_path, pfabric_env, where):
    (tmp_path / "ok.toml").write_text("")
    (tmp_path / "taken").write_text("")
    out = tmp_path / "taken" / "out" if where == "under a file" else tmp_path / ("x" * 300) / "out"
    result = pfabric(pfabric_env, "run", str(tmp_path / "ok.toml"), "-o", str(out))
    assert_usage_error(result, f"-o {out}: cannot create the folder")


def test_report_names_the_page_it_cannot_write(tmp_path, pfabric_env):
    # Named the temporary file beside the page (".<name>.<pid>.tmp").
    (tmp_path / "figures").mkdir()
    out = tmp_path / ("r" * 250 + ".html")  # the page's name fits, the temporary file's does not
    result = pfabric(pfabric_env, "report", "--figures", str(tmp_path / "figures"), "-o", str(out))
    assert_usage_error(result, f"-o {out}: cannot write the page (File name too long)")
    assert ".tmp" not in result.stderr
    (tmp_path / "taken").write_text("")
    out = tmp_path / "taken" / "report.html"
    result = pfabric(pfabric_env, "report", "--figures", str(tmp_path / "figures"), "-o", str(out))
    assert_usage_error(result, f"-o {out}: cannot write the page")


@pytest.mark.parametrize("existing", [False, True], ids=["made by the run", "there before"])
def test_a_failed_run_leaves_no_empty_output_folder(fake_core, tmp_path, capsys, existing):
    # The folder was made before the run and left empty when the core refused the scenario.
    from pfabric.cli import main

    (tmp_path / "s.toml").write_text('[scheme]\nname = "tcp"\nqueue_bytes = 1234567\n')
    out = tmp_path / "a" / "b" / "out"
    if existing:
        out.mkdir(parents=True)
    assert main(["run", str(tmp_path / "s.toml"), "-o", str(out), "-q"]) == 2
    assert capsys.readouterr().err.startswith("pfabric: error: scheme.queue_bytes: 1234567 is not allowed")
    assert out.is_dir() == existing  # a folder the user made stays, even empty
    assert (tmp_path / "a").exists() == existing  # and the parents the run made go too


def test_the_command_starts_numpy_with_one_blas_thread_unless_the_user_says(pfabric_env):
    # BLAS starts its threads when numpy loads, so the command sets their number before anything loads numpy:
    # importing `pfabric.cli` (and the package's `__init__`) must not load it.
    # A bad argument is refused before anything loads it either (`run`'s help, which lists the scenario's
    # fields, is made only when shown).
    probe = (
        "import os, sys, pfabric.cli; status = pfabric.cli.main(['run', '--bogus']);"
        " print('numpy' in sys.modules, os.environ['OPENBLAS_NUM_THREADS'], status)"
    )
    for given, expected in ((None, "False 1 2"), ("3", "False 3 2")):
        env = {k: v for k, v in pfabric_env.items() if k != "OPENBLAS_NUM_THREADS"}
        if given is not None:
            env["OPENBLAS_NUM_THREADS"] = given
        out = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True
        )
        assert out.stdout.strip() == expected
