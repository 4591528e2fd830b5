"""The results store: a run saved is a run loaded whole, keyed by scenario and code version, written atomically.

Why these tests: sweeps resume from the store, so a wrong key reruns (or worse, reuses) the wrong runs, and
a torn file would poison every later figure.
"""

from __future__ import annotations

import os

import pyarrow.parquet as pq
import pytest

pytest.importorskip("pfabric._core")

import pfabric
from pfabric.scenario import Scenario
from pfabric.store import Store, run_key

FAN_IN = {
    "workload": {"kind": "fan-in", "senders": 3, "flow_bytes": 200_000},
    "scheme": {"name": "pfabric"},
    "output": {"sample_interval_s": 1e-4, "track_flows": 3},
}


@pytest.fixture(scope="module")
def result():
    return pfabric.run(FAN_IN)


def test_save_then_load_gives_the_same_run(tmp_path, result):
    store = Store(tmp_path)
    assert not store.has(result.scenario)
    key = store.save(result)
    assert store.has(result.scenario) and store.run_keys() == [key]
    loaded = store.load(result.scenario)
    assert loaded.scenario == result.scenario
    assert loaded.scenario.canonical_hash() == result.scenario.canonical_hash()
    for name, table in result.tables().items():
        if table.num_columns:
            assert loaded.tables()[name].equals(table), name
    assert loaded.summary == result.summary
    assert loaded.stats == result.stats
    # The side tables are files of their own; the flow table carries the metadata.
    names = sorted(p.name for p in (tmp_path / "runs").iterdir())
    assert f"{key}.parquet" in names and f"{key}.throughput.parquet" in names
    meta = pq.read_schema(tmp_path / "runs" / f"{key}.parquet").metadata
    assert b"pfabric.scenario" in meta and b"pfabric.summary" in meta and b"pfabric.stats" in meta


def test_key_changes_with_the_scenario_and_with_the_code_version(result):
    scenario = result.scenario
    versions = ("1.0", "core-1.0")
    key = run_key(scenario, versions)
    assert run_key(Scenario.from_dict(FAN_IN), versions) == key  # equal scenarios, equal keys
    assert run_key(scenario.with_values({"seed": 2}), versions) != key
    assert run_key(scenario.with_values({"scheme.rto_us": 50.0}), versions) != key
    assert run_key(scenario, ("1.1", "core-1.0")) != key
    assert run_key(scenario, ("1.0", "core-1.1")) != key


def test_a_failed_write_leaves_no_run_and_no_file(tmp_path, result, monkeypatch):
    store = Store(tmp_path)
    real = pq.write_table

    def write_then_die(table, where, **kwargs):
        real(table, where, **kwargs)
        if ".parquet." in str(where) and "pfabric.scenario" in str(table.schema.metadata or {}):
            raise KeyboardInterrupt  # killed after the bytes hit the temp file, before the rename

    monkeypatch.setattr(pq, "write_table", write_then_die)
    with pytest.raises(KeyboardInterrupt):
        store.save(result)
    monkeypatch.undo()
    assert not store.has(result.scenario) and store.run_keys() == []
    assert not [p for p in (tmp_path / "runs").iterdir() if p.name.endswith(".tmp")]  # cleaned on the way out


def test_leftover_temp_files_are_ignored_then_cleaned(tmp_path, result):
    store = Store(tmp_path)
    runs = tmp_path / "runs"
    runs.mkdir(parents=True)
    dead_pid = _dead_pid()
    orphan = runs / f".{'a' * 64}.parquet.{dead_pid}.tmp"
    orphan.write_bytes(b"PAR1 torn")
    mine = runs / f".{'b' * 64}.parquet.{os.getpid()}.tmp"  # a live writer's file is left alone
    mine.write_bytes(b"PAR1 in progress")
    assert store.run_keys() == [] and store.runs() == []
    store.save(result)
    assert not orphan.exists() and mine.exists()
    assert len(store.runs()) == 1


def test_duckdb_views_over_the_store(tmp_path, result):
    pytest.importorskip("duckdb")
    store = Store(tmp_path)
    key = store.save(result)
    con = store.connect()
    row = con.sql("SELECT key, scheme, workload_kind, seed, flows_total FROM runs").fetchall()
    assert row == [(key, "pfabric", "fan-in", 1, 3)]
    count = con.sql("SELECT key, count(*) FROM flows GROUP BY key").fetchall()
    assert count == [(key, 3)]


def _dead_pid() -> int:
    """A process id that no process holds (a finished child's)."""
    import subprocess
    import sys

    child = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], check=False, capture_output=True, text=True
    )
    return int(child.stdout)
