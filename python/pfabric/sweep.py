"""Running many scenarios: a grid over scenario fields and seeds, on every local core or on a Dask cluster.

A run is independent of every other, so a sweep is a map over scenarios. Two layers:

- `SweepSpec` says *what* to run: a base scenario, a grid `{dotted field: [values]}` and optional seeds.
  `expand()` takes the cartesian product in a stable order (grid fields in the order given, each field's
  values in the order given, seeds innermost) and validates every point through `Scenario.with_values`, so a
  typo in a field name is the usual one-line `ScenarioError` before anything runs. A sweep file is TOML:
  `seeds = [1, 2]`, a `[base]` table (a scenario, same sections as a scenario file) and a `[grid]` table
  (`"workload.load" = [0.2, 0.4]`).
- `run_sweep` says *how*: points already in the `Store` are skipped (unless `force`); the rest run on a
  process pool (default: every core), in this process (`jobs=1`), or on any `concurrent.futures` executor,
  e.g. `dask.distributed.Client(...).get_executor()` (a `Client` itself is accepted too). Workers only
  simulate and hand back the `RunResult`; this process saves each one as it completes, so a crash, Ctrl-C or
  SIGKILL loses only the runs in flight, and a cluster's workers need no access to the store's disk.

`run_all` is the older store-less map (presets use it).
"""

from __future__ import annotations

import contextlib
import itertools
import multiprocessing
import os
import queue
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, as_completed, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import ScenarioError, SweepError
from .result import RunResult
from .scenario import Scenario, read_toml

if TYPE_CHECKING:
    from .store import Store

__all__ = ["Point", "SweepError", "SweepSpec", "default_jobs", "expected_work", "run_all", "run_sweep"]

# A labelled scenario: the labels say where in the sweep it sits (e.g. {"workload.load": 0.2, "seed": 1}).
Point = tuple[dict[str, Any], Scenario]


def default_jobs() -> int:
    """Worker processes to use: every core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


# --- what to run ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SweepSpec:
    """A base scenario, a grid over its dotted fields, and seeds (None: the base scenario's seed only)."""

    base: Scenario = field(default_factory=Scenario)
    grid: dict[str, list] = field(default_factory=dict)
    seeds: list[int] | None = None

    def expand(self) -> list[Point]:
        """Every point of the grid, validated, in a stable order (the last field varies fastest, seeds last)."""
        axes = []
        for name, values in self.grid.items():
            if not isinstance(values, (list, tuple)) or not values:
                raise ScenarioError(name, values, "expected a non-empty list of values for the sweep grid")
            axes.append((name, list(values)))
        if self.seeds is not None:
            if "seed" in self.grid:
                raise ScenarioError("seeds", self.seeds, "expected seeds or a grid over seed, not both")
            if not isinstance(self.seeds, (list, tuple)) or not self.seeds:
                raise ScenarioError("seeds", self.seeds, "expected a non-empty list of seeds")
            axes.append(("seed", list(self.seeds)))
        names = [name for name, _ in axes]
        points = []
        for values in itertools.product(*(v for _, v in axes)):
            labels = dict(zip(names, values, strict=True))
            points.append((labels, self.base.with_values(labels) if labels else self.base))
        return points

    @classmethod
    def from_dict(cls, data: dict, base_dir: str | Path | None = None) -> SweepSpec:
        """A sweep from plain data: `{"base": {...}, "grid": {...}, "seeds": [...]}`."""
        unknown = sorted(set(data) - {"base", "grid", "seeds"})
        if unknown:
            raise ScenarioError(
                unknown[0], data[unknown[0]], "a sweep file has only seeds, [base] and [grid]"
            )
        grid = data.get("grid", {})
        if not isinstance(grid, dict):
            raise ScenarioError("grid", grid, 'expected a table of lists, e.g. "workload.load" = [0.2, 0.4]')
        seeds = data.get("seeds")
        if seeds is not None and (
            not isinstance(seeds, list)
            or not all(isinstance(s, int) and not isinstance(s, bool) for s in seeds)
        ):
            raise ScenarioError("seeds", seeds, "expected a list of integer seeds")
        base = data.get("base", {})
        if not isinstance(base, dict):
            raise ScenarioError("base", base, "expected a table: a scenario")
        return cls(Scenario.from_dict(base, base_dir=base_dir), grid, seeds)

    @classmethod
    def from_toml(cls, path: str | Path) -> SweepSpec:
        """A sweep from a TOML file; paths in `[base]` are relative to the file's folder."""
        path = Path(path)
        try:
            data = read_toml(path, "sweep")
        except (OSError, UnicodeDecodeError) as exc:
            raise ScenarioError.plain(str(path), f"cannot read the sweep file ({exc})") from None
        return cls.from_dict(data, base_dir=path.absolute().parent)


# --- running it -------------------------------------------------------------------------------------------

# Set in each pool worker by `_init_worker`: where to send the progress of the run in flight.
_progress_queue: Any = None
_REPORT_EVERY_S = 0.25
# What a worker forwards of the core's progress dicts (what `progress.RunEta` reads).
_REPORTED = ("flows_started", "flows_finished", "flows_total", "sim_time_ps", "done")


def _init_worker(progress_queue: Any, parent_pid: int) -> None:
    """Pool worker set-up: die with the parent, and remember where to report progress."""
    global _progress_queue
    _progress_queue = progress_queue
    die_with_parent(parent_pid)


def die_with_parent(parent_pid: int) -> None:
    """Ask Linux to kill this worker when the sweep's process dies (a SIGKILLed sweep leaves no orphans
    running on). Elsewhere a no-op: the worker then ends when its pool's pipes close."""
    import signal
    import sys

    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent_pid:  # the parent died before prctl took effect
        os._exit(1)


def _run_point(key: str, scenario: Scenario) -> RunResult:
    """Worker side: simulate one scenario (reporting progress to the parent when it listens)."""
    from . import api

    if _progress_queue is None:
        return api.run(scenario)
    last = [0.0]

    def report(info: dict) -> None:
        now = time.monotonic()
        if now - last[0] >= _REPORT_EVERY_S or info.get("done"):
            last[0] = now
            with contextlib.suppress(Exception):  # progress is best effort; the run is what matters
                _progress_queue.put_nowait((key, {k: info.get(k) for k in _REPORTED}))

    return api.run(scenario, progress=report)


def run_sweep(
    points: Sequence[Point | Scenario],
    store: Store,
    jobs: int | None = None,
    executor: Any = None,
    force: bool = False,
    progress: bool = False,
    on_done: Callable[[str, RunResult], None] | None = None,
    collect: bool = True,
) -> list[RunResult]:
    """Run every point not yet in `store`, saving each as it completes; return all results in point order.

    Points with the same scenario run once. `jobs`: worker processes (default every core; 1 = in this
    process). `executor`: a `concurrent.futures.Executor` or a `dask.distributed.Client` to run on instead.
    `force`: rerun and overwrite points already stored. `progress`: report on stderr, the runs done of the
    total and each run in flight, with an ETA: bars on a terminal, a plain line every few seconds elsewhere
    (see `pfabric.progress`). `on_done(key, result)` is called after each new run is stored. `collect=False`
    only fills the store and returns an empty list: a sweep of thousands of runs need not fit in memory.
    """
    points = [p if isinstance(p, tuple) else ({}, p) for p in points]
    keys = [store.key(scenario) for _, scenario in points]
    unique = dict(zip(keys, (s for _, s in points), strict=True))
    todo = [k for k in unique if force or not store.has_key(k)]
    fresh: dict[str, RunResult] = {}
    labels_of = {}
    for (labels, _), key in zip(points, keys, strict=True):
        labels_of.setdefault(key, labels)

    def done(key: str, result: RunResult) -> None:
        store.save(result)
        if collect:
            fresh[key] = result
        if on_done is not None:
            on_done(key, result)

    from . import api
    from .progress import Expected, RunsBar

    jobs = default_jobs() if jobs is None else jobs
    # The longest runs start first, so the last to finish is a short one and no worker waits idle on it.
    todo.sort(key=lambda k: expected_work(unique[k]), reverse=True)
    stored = len(unique) - len(todo)
    with RunsBar(len(todo), enabled=progress and bool(todo), stored=stored) as bar:
        if todo and executor is None and (jobs <= 1 or len(todo) == 1):
            for key in todo:  # in this process: no pool to start, and the core's progress comes straight here
                with bar.run(key, _describe(labels_of[key]), Expected.of(unique[key])) as report:
                    result = api.run(unique[key], progress=report if progress else False)
                done(key, result)
                bar.advance()
        elif todo:
            _run_on_executor(todo, unique, labels_of, jobs, executor, progress, bar, done)
    if not collect:
        return []
    return [fresh[k] if k in fresh else store.load_key(k) for k in keys]


def expected_work(scenario: Scenario) -> float:
    """What a run will cost, in wire bytes offered before the run stops (an order of runs, not a forecast).

    Poisson: flows x mean wire bytes, or arrival rate x duration x mean wire bytes; a trace or fan-in: its
    bytes. Capped at what the host links can carry until `run.max_sim_time_s`, where an overloaded run stops.
    """
    from .scenario import FanIn, Poisson, Trace, mean_wire_bytes

    workload = scenario.workload
    if isinstance(workload, Poisson):
        per_flow = mean_wire_bytes(workload.cdf_data, scenario.packet)
        if workload.flows is not None:
            work = workload.flows * per_flow
        else:
            rate = workload.arrival_rate(scenario.hosts, scenario.topology.host_rate_gbps, scenario.packet)
            work = rate * workload.duration_s * per_flow
    elif isinstance(workload, Trace):
        work = float(workload.trace_data.size_bytes.sum())
    elif isinstance(workload, FanIn):
        if workload.sizes_bytes is not None:
            work = float(sum(workload.sizes_bytes))
        elif workload.flow_bytes is not None:
            work = float(workload.flow_bytes * workload.sender_count)
        else:
            work = float(workload.total_bytes)
    else:
        return 0.0
    stop = scenario.run.max_sim_time_s
    if stop is not None:
        work = min(work, stop * scenario.hosts * scenario.topology.host_rate_gbps * 1e9 / 8)
    return work


def _run_on_executor(todo, unique, labels_of, jobs, executor, progress, bar, done) -> None:
    """Submit every run, then save each as it completes; on any failure cancel what has not started."""
    own = executor is None
    listener = None
    if own:
        progress_queue = multiprocessing.Queue() if progress else None
        pool: Executor = ProcessPoolExecutor(
            max_workers=min(jobs, len(todo)),
            # Forked where Linux forks (Python 3.14 would default to a forkserver, whose workers are not our
            # children: `die_with_parent` would end them at once).
            mp_context=multiprocessing.get_context("fork") if sys.platform.startswith("linux") else None,
            initializer=_init_worker,
            initargs=(progress_queue, os.getpid()),
        )
        if progress_queue is not None:
            listener = _ProgressListener(progress_queue, bar, labels_of, unique)
    elif hasattr(executor, "get_executor"):  # a dask.distributed Client
        pool = executor.get_executor(pure=False)
    else:
        pool = executor
    futures: dict[Future, str] = {}
    try:
        futures = {pool.submit(_run_point, key, unique[key]): key for key in todo}
        pending = set(futures)
        while pending:
            finished, pending = wait(pending, timeout=1.0, return_when=FIRST_COMPLETED)
            bar.tick()
            for future in finished:
                key = futures[future]
                result = _result(future, labels_of[key])
                bar.finish_run(key)
                done(key, result)
                bar.advance()
    except BaseException:
        for future in futures:
            future.cancel()
        if own:
            stop_workers(pool)
        raise
    finally:
        if listener is not None:
            listener.stop()
    if own:
        pool.shutdown(wait=True)


# How long a stopped worker may take to end on its SIGTERM before it is killed.
STOP_GRACE_S = 2.0


def stop_workers(pool: ProcessPoolExecutor) -> None:
    """Interrupted or failed: end the runs in flight now instead of waiting for them (nothing of theirs is
    saved). `_processes` is private; Python 3.14 has `terminate_workers()` for this. A worker still alive
    after `STOP_GRACE_S` is killed: one seen to outlive its SIGTERM (a spawned worker still starting, once in
    a test run) would otherwise run its call to the end."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    for process in processes:
        with contextlib.suppress(Exception):
            process.terminate()
    deadline = time.monotonic() + STOP_GRACE_S
    for process in processes:
        with contextlib.suppress(Exception):
            process.join(max(0.0, deadline - time.monotonic()))
            if process.exitcode is None:
                process.kill()
    pool.shutdown(wait=False, cancel_futures=True)


def _result(future: Future, labels: dict) -> RunResult:
    from concurrent.futures.process import BrokenProcessPool

    try:
        return future.result()
    except BrokenProcessPool as exc:
        raise SweepError(f"a worker process died while running {_describe(labels)} ({exc})") from None


def _describe(labels: dict) -> str:
    return " ".join(f"{k}={v}" for k, v in labels.items()) or "run"


class _ProgressListener:
    """Parent side of the workers' progress: a thread moving queue messages onto the runs' progress."""

    def __init__(self, progress_queue: Any, bar: Any, labels_of: dict, scenarios: dict) -> None:
        self._queue = progress_queue
        self._bar = bar
        self._labels = labels_of
        self._scenarios = scenarios
        self._expected: dict = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="sweep-progress", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                key, info = self._queue.get(timeout=0.2)
            except queue.Empty:
                continue
            except (EOFError, OSError, ValueError):
                return
            if key not in self._expected:
                from .progress import Expected

                self._expected[key] = Expected.of(self._scenarios[key])
            self._bar.update_run(key, _describe(self._labels[key]), info, self._expected[key])

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)


def run_all(
    scenarios: Sequence[Scenario],
    jobs: int | None = None,
    executor: Executor | None = None,
    on_done: Callable[[int, RunResult], None] | None = None,
) -> list[RunResult]:
    """Run every scenario without a store; return the results in the order given.

    `jobs=1` runs in this process; otherwise a process pool of `jobs` workers (default: every core), or the
    given `executor`. `on_done(i, result)` is called as each run finishes, in completion order.
    """
    from . import api

    jobs = default_jobs() if jobs is None else jobs
    results: list[RunResult | None] = [None] * len(scenarios)
    if executor is None and (jobs <= 1 or len(scenarios) <= 1):
        for i, scenario in enumerate(scenarios):
            results[i] = api.run(scenario)
            if on_done:
                on_done(i, results[i])
        return results  # type: ignore[return-value]
    own = executor is None
    pool = executor or ProcessPoolExecutor(max_workers=min(jobs, len(scenarios)))
    try:
        futures = {pool.submit(_run_one, scenario): i for i, scenario in enumerate(scenarios)}
        for future in as_completed(futures):
            i = futures[future]
            results[i] = future.result()
            if on_done:
                on_done(i, results[i])
    finally:
        if own:
            pool.shutdown(cancel_futures=True)
    return results  # type: ignore[return-value]


def _run_one(scenario: Scenario) -> RunResult:
    from . import api

    return api.run(scenario)
