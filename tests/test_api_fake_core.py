"""The plumbing around the core (API, result tables, output files, CLI run) against a fake core.

`fake_core` honours the contract of `pfabric._core` (python/pfabric/_core.pyi) without simulating, so
these tests need no compiled extension.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pfabric
import pyarrow.parquet as pq
import pytest
from pfabric.cli import main
from pfabric.result import columns_to_table

ROOT = Path(__file__).resolve().parents[1]
SMALL = {"topology": {"kind": "star", "hosts": 8}, "workload": {"flows": 20}, "scheme": {"name": "tcp"}}


def test_columns_to_table_from_buffers_and_strings():
    table = columns_to_table(
        {
            "a": ("<u8", np.array([1, 2], dtype="<u8").tobytes()),
            "b": ("<f8", np.array([0.5, 1.5]).tobytes()),
            "c": ("|u1", bytes([0, 1])),
            "tier": ("labels", (bytes([0, 1]), ["host", "leaf"])),
        }
    )
    assert table.column_names == ["a", "b", "c", "tier"]
    assert table.column("a").to_pylist() == [1, 2] and str(table.schema.field("a").type) == "uint64"
    assert (
        table.column("tier").to_pylist() == ["host", "leaf"]
        and str(table.schema.field("tier").type) == "string"
    )


def test_run_returns_tables_with_derived_columns(fake_core):
    result = pfabric.run(SMALL)
    flows = result.flows
    for name in ("start_s", "finish_s", "fct_s", "ideal_fct_s", "slowdown", "finished"):
        assert name in flows.column_names
    finished = flows.column("finished").to_pylist()
    assert finished[-1] is False and all(finished[:-1])
    assert flows.column("fct_s").null_count == 1 and flows.column("slowdown").null_count == 1
    assert flows.column("finish_s").to_pylist()[-1] is None
    assert flows.column("slowdown").to_pylist()[0] == pytest.approx(2.0)
    assert result.ports.column("tier").to_pylist() == ["host", "leaf", "spine"]
    assert result.stats["events"] == 200
    assert result.summary["flows_unfinished"] == 1 and result.summary["warnings"]
    assert fake_core.calls[0]["scheme"] == {"name": "tcp"}


def test_run_accepts_a_toml_path(fake_core):
    result = pfabric.run(str(ROOT / "examples" / "star_tcp.toml"))
    assert result.scenario.topology.kind == "star" and result.flows.num_rows == 1000


def test_progress_callback_receives_the_core_dicts(fake_core):
    seen = []
    pfabric.run(SMALL, progress=seen.append)
    assert len(seen) == 3
    assert set(seen[0]) == {"flows_finished", "flows_started", "flows_total", "sim_time_ps", "events"}


def test_an_error_raised_by_the_callback_is_not_turned_into_a_scenario_error(fake_core):
    def callback(info):
        raise ValueError("mine")

    with pytest.raises(ValueError, match="^mine$") as info:
        pfabric.run(SMALL, progress=callback)
    assert not isinstance(info.value, pfabric.ScenarioError)


def test_core_value_error_becomes_a_scenario_error(fake_core):
    with pytest.raises(pfabric.ScenarioError, match=r"^scheme.queue_bytes: 1234567 is not allowed"):
        pfabric.run({**SMALL, "scheme": {"name": "tcp", "queue_bytes": 1_234_567}})


def test_write_outputs(fake_core, tmp_path):
    result = pfabric.run(SMALL)
    paths = result.write(tmp_path / "out")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "flows.parquet",
        "ports.parquet",
        "summary.json",
    ]
    assert pq.read_table(paths["flows.parquet"]).equals(result.flows)
    document = json.loads(paths["summary.json"].read_text())
    assert document["summary"]["flows_total"] == 20
    assert document["scenario"]["topology"]["hosts"] == 8
    assert document["scenario_hash"] == result.scenario.canonical_hash()
    assert pfabric.Scenario.from_dict(document["scenario"]) == result.scenario


def test_to_polars(fake_core, monkeypatch):
    import polars  # the test extra installs it

    result = pfabric.run(SMALL)
    frame = result.to_polars()
    assert isinstance(frame, polars.DataFrame) and frame.height == 20
    monkeypatch.setitem(sys.modules, "polars", None)  # as if polars were not installed
    with pytest.raises(ImportError, match="pip install"):
        result.to_polars()


def test_cli_run_writes_outputs_and_prints_summary(fake_core, tmp_path, capsys):
    status = main(
        ["run", str(ROOT / "examples" / "star_tcp.toml"), "-o", str(tmp_path / "out"), "--seed", "5"]
    )
    assert status == 0
    assert fake_core.calls[0]["seed"] == 5
    out = capsys.readouterr().out
    assert "(0,100KB]" in out and "unfinished" in out
    assert (tmp_path / "out" / "summary.json").exists()


def test_cli_core_refusal_is_a_usage_error(fake_core, tmp_path, capsys):
    scenario = tmp_path / "s.toml"
    scenario.write_text('[scheme]\nname = "tcp"\nqueue_bytes = 1234567\n')
    assert main(["run", str(scenario), "-o", str(tmp_path / "out"), "-q"]) == 2
    err = capsys.readouterr().err
    assert (
        err == "pfabric: error: scheme.queue_bytes: 1234567 is not allowed; expected a refusal by the core\n"
    )


def test_cli_ctrl_c(fake_core, tmp_path, capsys, monkeypatch):
    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(fake_core, "run", interrupted)
    (tmp_path / "s.toml").write_text("")
    assert main(["run", str(tmp_path / "s.toml"), "-o", str(tmp_path / "out"), "-q"]) == 130
    assert capsys.readouterr().err == "pfabric: interrupted\n"


def test_overrides_are_checked_per_scheme_with_the_core(fake_core):
    with pytest.raises(
        pfabric.ScenarioError, match=r"^scheme.rto_us: 45 is not allowed; scheme 'tcp' has no"
    ):
        pfabric.Scenario.from_dict({"scheme": {"name": "tcp", "rto_us": 45}})
    scheme = pfabric.Scenario.from_dict({"scheme": {"name": "pfabric", "rto_us": 45}}).scheme
    assert scheme.model_dump() == {"name": "pfabric", "rto_us": 45.0}


def test_fields_reference_shows_the_cores_paper_values(fake_core, capsys):
    assert main(["fields"]) == 0
    out = capsys.readouterr().out
    assert "tcp/dctcp 225000; pfabric/pfabric-linerate 36000" in out


def test_deadlines_met(fake_core, tmp_path):
    (tmp_path / "flows.csv").write_text(
        "start_s,src,dst,size_bytes,deadline_s\n0,0,1,1000,1\n0.001,1,2,1000,1e-9\n0.002,2,3,1000,1\n"
    )
    result = pfabric.run({"workload": {"kind": "trace", "path": str(tmp_path / "flows.csv")}})
    assert result.flows.column("deadline_met").to_pylist() == [True, False, False]  # the last never finishes
    assert result.summary["deadlines"] == {"flows": 3, "met": 1, "met_fraction": pytest.approx(1 / 3)}


def test_trace_flow_ids_follow_the_files_rows(fake_core, tmp_path):
    """Unsorted rows: the core gets them in start order, the flow table comes back in the file's order."""
    (tmp_path / "flows.csv").write_text(
        "start_s,src,dst,size_bytes,deadline_s\n0.003,0,1,300,\n0.001,1,2,100,1\n0.002,2,3,200,\n"
    )
    result = pfabric.run({"workload": {"kind": "trace", "path": str(tmp_path / "flows.csv")}})
    assert fake_core.calls[0]["workload"]["size_bytes"] == [100, 200, 300]  # start order for the core
    assert fake_core.calls[0]["workload"]["deadline_s"] == [1.0, 0.0, 0.0]  # 0: none
    flows = result.flows
    assert flows.column_names[:2] == ["flow_id", "trace_row"]
    assert flows.column("flow_id").to_pylist() == [0, 1, 2]
    assert flows.column("trace_row").to_pylist() == [1, 2, 3]
    assert flows.column("size_bytes").to_pylist() == [300, 100, 200]  # the file's rows
    assert flows.column("start_s").to_pylist() == pytest.approx([0.003, 0.001, 0.002])
    # The flow the core started last (the file's first row) is the one the fake core leaves unfinished.
    assert flows.column("finished").to_pylist() == [False, True, True]
    assert flows.column("deadline_met").to_pylist() == [None, True, None]  # only row 2 has a deadline


def test_trace_ids_map_the_tracked_flows_tables_too():
    import pyarrow as pa
    from pfabric.result import in_trace_rows

    order = np.array([2, 0, 1])  # core flow i is row order[i]
    flows = pa.table({"flow_id": pa.array([0, 1, 2], pa.uint64()), "size_bytes": [30, 10, 20]})
    samples = pa.table({"time_ps": [5, 5], "flow_id": pa.array([0, 1], pa.uint32())})
    flows, samples = in_trace_rows(order, flows, samples)
    assert flows.column("flow_id").to_pylist() == [0, 1, 2]
    assert flows.column("size_bytes").to_pylist() == [10, 20, 30]
    assert (
        samples.column("flow_id").to_pylist() == [2, 0]
        and samples.schema.field("flow_id").type == pa.uint32()
    )
