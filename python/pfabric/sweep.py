"""Running many scenarios: on every local core by default, one process per run.

A run is independent of every other, so a sweep is a map over scenarios. Each worker process imports the
core once and runs whole scenarios; results come back as `RunResult`s (Arrow tables pickle cheaply). Any
executor with the `concurrent.futures` interface works (a Dask `Client` has it), so the same code serves a
laptop and a cluster.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed

from .result import RunResult
from .scenario import Scenario

__all__ = ["default_jobs", "run_all"]


def default_jobs() -> int:
    """Worker processes to use: every core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _run_one(scenario: Scenario) -> RunResult:
    from . import api

    return api.run(scenario)


def run_all(
    scenarios: Sequence[Scenario],
    jobs: int | None = None,
    executor: Executor | None = None,
    on_done: Callable[[int, RunResult], None] | None = None,
) -> list[RunResult]:
    """Run every scenario; return the results in the order given.

    `jobs=1` runs in this process (with a progress bar per run when `on_done` is None and there is one run);
    otherwise a process pool of `jobs` workers (default: every core), or the given `executor`. `on_done(i,
    result)` is called as each run finishes, in completion order.
    """
    jobs = default_jobs() if jobs is None else jobs
    results: list[RunResult | None] = [None] * len(scenarios)
    if executor is None and (jobs <= 1 or len(scenarios) <= 1):
        for i, scenario in enumerate(scenarios):
            results[i] = _run_one(scenario)
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
