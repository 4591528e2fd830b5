"""Every run is right or refused: the reproducers that once gave silent wrong answers or hung, through the API
and the command line (issue "Every run is right or refused").

1. Off the paper's fabric, sprayed flows finished faster than their ideal FCT (slowdown 0.617 for one 1 MB
   flow over a 2 Gbps core; 487 of 1,501 flows below 1 on oversubscribed fat-trees): the ideal assumed one
   core path while spraying used them all.
2. A host delay of 1e12 us ran forever; a CDF reaching 1e15-byte flows was accepted and ran for days.
"""

from __future__ import annotations

import subprocess

import numpy as np
import pyarrow.parquet as pq
import pytest
from run_cli import pfabric as cli

pytest.importorskip("pfabric._core")

import pfabric
from pfabric.errors import ScenarioError

SLOW_CORE = {"kind": "leaf-spine", "leaves": 2, "hosts_per_leaf": 4, "core_rate_gbps": 2.0}
FAN_IN = {"kind": "fan-in", "receiver": 0, "senders": 1, "flow_bytes": 1_000_000}
OVERSUBSCRIBED = [
    ({"kind": "fat-tree", "k": 4, "core_rate_gbps": 4.0}, "tcp"),
    ({"kind": "fat-tree", "k": 4, "core_rate_gbps": 4.0}, "pfabric"),
    ({"kind": "fat-tree", "k": 8, "core_rate_gbps": 5.0}, "pieo"),
]


def slowdowns(result) -> np.ndarray:
    s = result.flows.column("slowdown").to_numpy(zero_copy_only=False).astype(float)
    return s[~np.isnan(s)]


def test_a_sprayed_flow_over_a_slow_core_is_not_faster_than_its_ideal():
    result = pfabric.run({"topology": SLOW_CORE, "workload": FAN_IN, "scheme": {"name": "tcp"}})
    assert slowdowns(result).min() >= 1.0


@pytest.mark.parametrize("topology, scheme", OVERSUBSCRIBED, ids=lambda x: str(x))
def test_no_flow_beats_its_ideal_on_oversubscribed_fabrics(topology, scheme):
    for routing in ("spray", "ecmp", "adaptive"):
        result = pfabric.run(
            {
                "topology": {**topology, "routing": routing},
                "workload": {"load": 0.5, "flows": 300},
                "scheme": {"name": scheme},
            }
        )
        s = slowdowns(result)
        assert len(s) > 250 and s.min() >= 1.0, (routing, s.min())


def test_the_command_line_writes_no_flow_below_its_ideal(tmp_path, pfabric_env):
    scenario = tmp_path / "slow_core.toml"
    scenario.write_text(
        '[topology]\nkind = "leaf-spine"\nleaves = 2\nhosts_per_leaf = 4\ncore_rate_gbps = 2.0\n'
        '[workload]\nkind = "fan-in"\nreceiver = 0\nsenders = 3\nflow_bytes = 1000000\n'
        '[scheme]\nname = "tcp"\n'
    )
    done = cli(pfabric_env, "run", str(scenario), "-o", str(tmp_path / "out"), "-q")
    assert done.returncode == 0, done.stderr
    flows = pq.read_table(tmp_path / "out" / "flows.parquet")
    assert np.nanmin(flows.column("slowdown").to_numpy(zero_copy_only=False).astype(float)) >= 1.0


def one_line_refusal(done: subprocess.CompletedProcess, *expected: str) -> None:
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    for text in expected:
        assert text in lines[0]


def test_a_host_delay_beyond_a_second_is_refused(tmp_path, pfabric_env):
    scenario = {"topology": {"kind": "star", "hosts": 8, "host_delay_us": 1e12}, "workload": {"flows": 50}}
    with pytest.raises(ScenarioError, match="topology.host_delay_us"):
        pfabric.run(scenario)
    path = tmp_path / "hang.toml"
    path.write_text('[topology]\nkind = "star"\nhosts = 8\nhost_delay_us = 1e12\n[workload]\nflows = 50\n')
    out = str(tmp_path / "out")
    one_line_refusal(cli(pfabric_env, "run", str(path), "-o", out, "-q"), "topology.host_delay_us")
    assert not (tmp_path / "out").exists(), "a refused run leaves no folder behind"


def test_flows_over_a_terabyte_are_refused(tmp_path, pfabric_env):
    cdf = tmp_path / "huge.csv"
    cdf.write_text("size_bytes,cdf\n1460,0.5\n1e15,1\n")
    with pytest.raises(ScenarioError, match=r"1e\+?12"):
        pfabric.run({"workload": {"cdf": str(cdf), "flows": 10}})
    path = tmp_path / "huge.toml"
    path.write_text(f'[workload]\ncdf = "{cdf}"\nflows = 10\n')
    one_line_refusal(cli(pfabric_env, "run", str(path), "-o", str(tmp_path / "out"), "-q"), "workload.cdf")


def test_a_run_that_does_not_converge_stops_at_its_event_budget_with_a_warning():
    """At the longest host delay allowed (one second), pFabric's 45 us timeouts fire thousands of times a
    round trip: the run stops at its budget, flows not done reported unfinished, and says so."""
    result = pfabric.run(
        {
            "topology": {"kind": "star", "hosts": 4, "host_delay_us": 1e6},
            "workload": {"load": 0.5, "flows": 5},
            "scheme": {"name": "pfabric"},
            "run": {"max_events": 200_000},
        }
    )
    assert result.stats["out_of_event_budget"] == 1
    assert result.stats["events"] == 200_000
    assert any("stopped after 200,000 events" in w for w in result.summary["warnings"])
    assert result.flows.num_rows == result.stats["flows_started"]
