"""`python -m pfabric` reports a bad scenario or argument in one line on stderr, status 2, no traceback.

These run before the core is needed, so they pass without the compiled extension.
"""

from __future__ import annotations

import subprocess

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
}


@pytest.mark.parametrize("text, expected", BAD_SCENARIOS.values(), ids=BAD_SCENARIOS.keys())
def test_bad_scenario(tmp_path, pfabric_env, text, expected):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    result = pfabric(pfabric_env, "run", str(path), "-o", str(tmp_path / "out"))
    assert_usage_error(result, *expected)


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
