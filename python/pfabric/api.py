"""The Python API: `pfabric.run(scenario)` and `pfabric.load_scenario(path)`.

`run` validates in Python, hands the core one JSON string, and wraps the raw columns it returns in a
`RunResult`. The compiled core is imported only here, at call time, so that everything else (validation,
analysis, their tests) works without it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import _native
from .errors import ScenarioError
from .result import RunResult
from .scenario import Scenario

__all__ = ["as_scenario", "load_scenario", "run"]

Progress = Callable[[dict], Any]


def load_scenario(path: str | os.PathLike) -> Scenario:
    """Read and validate a scenario TOML file."""
    return Scenario.from_toml(path)


def as_scenario(scenario: Scenario | dict | str | os.PathLike) -> Scenario:
    """A `Scenario` from a Scenario, a dict of its fields, or the path of a TOML file."""
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, dict):
        return Scenario.from_dict(scenario)
    if isinstance(scenario, (str, os.PathLike)):
        return Scenario.from_toml(Path(scenario))
    raise ScenarioError(
        "scenario", scenario, "expected a Scenario, a dict of its fields or the path of a TOML file"
    )


def run(scenario: Scenario | dict | str | os.PathLike, progress: bool | Progress = False) -> RunResult:
    """Simulate one scenario and return its per-flow table, port table, counters and summary.

    `progress=True` reports on stderr: a bar on a terminal, a plain line every few seconds elsewhere (see
    `pfabric.progress`); a callable receives the core's progress dicts (`flows_finished`, `flows_started`,
    `flows_total`, `sim_time_ps`, `events`, `done`). The core releases the GIL while it runs. A scenario the
    core rejects raises `ScenarioError`.
    """
    scenario = as_scenario(scenario)
    payload = scenario.to_core_json()
    module = _native.core()
    if progress is True:
        from .progress import Expected, ProgressBar

        with ProgressBar(expected=Expected.of(scenario)) as bar:
            raw = _run_core(module, payload, bar)
    else:
        raw = _run_core(module, payload, progress or None)
    result = RunResult.from_core(raw, scenario)
    if os.environ.get("PFABRIC_CHECK_INVARIANTS"):
        # The test suite sets it (tests/conftest.py): every run it makes is held to pfabric.invariants.
        from . import invariants

        invariants.check(result)
    return result


def _run_core(module: Any, payload: str, callback: Progress | None) -> dict:
    """Call the core; its ValueError means a scenario it refuses, unless the callback raised it."""
    raised: list[BaseException] = []

    def guarded(info: dict) -> Any:
        try:
            return callback(info)
        except BaseException as exc:
            raised.append(exc)
            raise

    try:
        return module.run(payload, guarded if callback is not None else None)
    except ValueError as exc:
        if (raised and exc is raised[0]) or isinstance(exc, ScenarioError):
            raise
        raise ScenarioError.plain("", str(exc)) from None
