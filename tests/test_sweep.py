"""Sweeps: grid expansion and its errors, resuming after SIGKILL, and Dask giving the same runs as local cores.

Why: a paper figure is an hour of runs; a crash must cost only the runs in flight, a rerun must not redo
finished ones, and the cluster backend must not change a single number.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pyarrow.parquet as pq
import pytest
from pfabric.errors import ScenarioError
from pfabric.scenario import Scenario
from pfabric.sweep import SweepSpec

SMALL = {"workload": {"flows": 150}, "scheme": {"name": "pfabric"}}


def test_expand_is_the_cartesian_product_in_a_stable_order():
    spec = SweepSpec(
        Scenario.from_dict(SMALL), {"workload.load": [0.2, 0.5], "scheme.name": ["tcp", "pfabric"]}, [1, 2]
    )
    points = spec.expand()
    assert [tuple(labels.values()) for labels, _ in points] == [
        (load, scheme, seed) for load in (0.2, 0.5) for scheme in ("tcp", "pfabric") for seed in (1, 2)
    ]
    for labels, scenario in points:
        assert scenario.workload.load == labels["workload.load"]
        assert scenario.scheme.name == labels["scheme.name"]
        assert scenario.seed == labels["seed"]
        assert scenario.workload.flows == 150  # the base is kept
    assert [s.canonical_hash() for _, s in spec.expand()] == [s.canonical_hash() for _, s in points]


def test_unknown_field_is_a_one_line_error_naming_it():
    with pytest.raises(ScenarioError) as info:
        SweepSpec(Scenario(), {"workload.lod": [0.2]}).expand()
    assert str(info.value).startswith("workload.lod: 0.2 is not allowed")
    assert "\n" not in str(info.value)


def test_bad_value_and_empty_grid_are_errors_naming_the_field():
    with pytest.raises(ScenarioError, match=r"^workload\.load: 1\.5 is not allowed"):
        SweepSpec(Scenario(), {"workload.load": [0.5, 1.5]}).expand()
    with pytest.raises(
        ScenarioError, match=r"^workload\.load: \[\] is not allowed; expected a non-empty list"
    ):
        SweepSpec(Scenario(), {"workload.load": []}).expand()
    with pytest.raises(ScenarioError, match=r"^seeds: .* not both"):
        SweepSpec(Scenario(), {"seed": [1]}, [1, 2]).expand()


def test_sweep_file(tmp_path):
    path = tmp_path / "sweep.toml"
    path.write_text('seeds = [3]\n[base.workload]\nflows = 150\n[grid]\n"workload.load" = [0.2, 0.4]\n')
    points = SweepSpec.from_toml(path).expand()
    assert [(s.workload.load, s.seed, s.workload.flows) for _, s in points] == [(0.2, 3, 150), (0.4, 3, 150)]
    path.write_text("[grid]\nload = 0.2\n")
    with pytest.raises(ScenarioError, match="^load: 0.2 is not allowed; expected a non-empty list"):
        SweepSpec.from_toml(path).expand()


def core(module: str = "pfabric._core") -> None:
    """Skip the test unless the compiled core is built (the tests below run simulations)."""
    pytest.importorskip(module)


def test_a_rerun_skips_stored_runs_and_force_redoes_them(tmp_path):
    core()
    from pfabric.store import Store
    from pfabric.sweep import run_sweep

    points = SweepSpec(Scenario.from_dict(SMALL), {"workload.load": [0.2, 0.4]}).expand()
    store, ran = Store(tmp_path), []
    first = run_sweep(points, store, jobs=1, on_done=lambda key, _: ran.append(key))
    assert len(ran) == 2 and len(store) == 2
    again = run_sweep(points, store, jobs=2, on_done=lambda key, _: ran.append(key))
    assert len(ran) == 2  # nothing rerun
    for a, b in zip(first, again, strict=True):
        assert a.flows.equals(b.flows) and a.summary == b.summary
    run_sweep(points[:1], store, jobs=1, force=True, on_done=lambda key, _: ran.append(key))
    assert len(ran) == 3


def test_sigkill_mid_sweep_loses_only_the_run_in_flight(tmp_path, pfabric_env):
    core()
    from pfabric.store import Store

    spec = tmp_path / "sweep.toml"
    spec.write_text(
        "seeds = [1, 2, 3]\n[base.workload]\nflows = 600\n[grid]\n"
        '"workload.load" = [0.5, 0.7]\n"scheme.name" = ["pfabric"]\n'
    )
    store_dir = tmp_path / "store"
    command = [
        sys.executable,
        "-m",
        "pfabric",
        "sweep",
        str(spec),
        "--store",
        str(store_dir),
        "-j",
        "1",
        "-q",
    ]
    process = subprocess.Popen(command, env=pfabric_env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    store = Store(store_dir)
    deadline = time.monotonic() + 120
    while not store.run_keys() and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL, process.stderr.read().decode()
    before = {
        p.name: p.stat().st_mtime_ns for p in (store_dir / "runs").iterdir() if not p.name.startswith(".")
    }
    kept = store.run_keys()
    assert 1 <= len(kept) < 6, "the sweep was not killed in the middle"

    rerun = subprocess.run(command, check=False, env=pfabric_env, capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stderr
    assert len(store.run_keys()) == 6 and set(kept) <= set(store.run_keys())
    for name, mtime in before.items():
        if any(name.startswith(key) for key in kept):  # a finished run's files were not rewritten
            assert (store_dir / "runs" / name).stat().st_mtime_ns == mtime, name
    files = list((store_dir / "runs").iterdir())
    assert not [p for p in files if p.name.endswith(".tmp")]  # the killed writer's leftovers are gone
    for path in files:
        pq.read_table(path)  # every file whole
    for key in store.run_keys():
        assert store.load_key(key).summary["flows_total"] == 600


def test_dask_local_cluster_and_local_processes_store_identical_runs(tmp_path):
    core()
    distributed = pytest.importorskip("distributed")
    from pfabric.store import Store
    from pfabric.sweep import run_sweep

    points = SweepSpec(Scenario.from_dict(SMALL), {"scheme.name": ["tcp", "pfabric"]}, [1, 2]).expand()
    local, remote = Store(tmp_path / "local"), Store(tmp_path / "dask")
    run_sweep(points, local, jobs=2)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        run_sweep(points, remote, executor=client)
    assert local.run_keys() == remote.run_keys() and len(local.run_keys()) == 4
    for key in local.run_keys():
        a, b = local.load_key(key), remote.load_key(key)
        assert a.flows.equals(b.flows), key
        assert a.ports.equals(b.ports) and a.priority_loss.equals(b.priority_loss)
        assert a.summary == b.summary


class _Recording:
    """An executor that runs each call at once and remembers the order calls were submitted in."""

    def __init__(self) -> None:
        self.order: list[str] = []

    def submit(self, fn, key, scenario):
        from concurrent.futures import Future

        self.order.append(key)
        future: Future = Future()
        future.set_result(fn(key, scenario))
        return future


def test_the_longest_runs_start_first_and_results_come_back_in_point_order(tmp_path):
    # A sweep's last run to finish should be a short one: no worker waits idle on a long straggler.
    core()
    from pfabric.store import Store
    from pfabric.sweep import expected_work, run_sweep

    points = SweepSpec(Scenario.from_dict(SMALL), {"workload.flows": [60, 240, 120]}).expand()
    executor = _Recording()
    results = run_sweep(points, Store(tmp_path), executor=executor)
    works = {Store(tmp_path).key(s): expected_work(s) for _, s in points}
    assert [works[k] for k in executor.order] == sorted(works.values(), reverse=True)
    assert [r.flows.num_rows for r in results] == [60, 240, 120]


def test_expected_work_counts_offered_bytes_and_stops_at_the_time_limit():
    from pfabric.sweep import expected_work

    fan_in = Scenario.from_dict({"workload": {"kind": "fan-in", "senders": 4, "flow_bytes": 1_000_000}})
    assert expected_work(fan_in) == 4_000_000
    small, large = (Scenario.from_dict({"workload": {"flows": n}}) for n in (100, 1000))
    assert expected_work(large) == pytest.approx(10 * expected_work(small))
    overloaded = Scenario.from_dict(
        {
            "topology": {"kind": "star", "hosts": 4, "host_rate_gbps": 1.0},
            "workload": {"arrival_rate_per_s": 1e6, "duration_s": 1.0},
            "run": {"max_sim_time_s": 0.01},
        }
    )
    assert expected_work(overloaded) == pytest.approx(0.01 * 4 * 1e9 / 8)


def test_a_sweep_that_collects_nothing_still_stores_every_run(tmp_path):
    core()
    from pfabric.store import Store
    from pfabric.sweep import run_sweep

    points = SweepSpec(Scenario.from_dict(SMALL), {"workload.load": [0.2, 0.4]}).expand()
    assert run_sweep(points, Store(tmp_path), jobs=1, collect=False) == []
    assert len(Store(tmp_path)) == 2
