"""Type stub of the compiled core (crates/pfabric-py): the contract between Rust and Python.

Private: users call `pfabric.run`. The scenario JSON is `pfabric.Scenario.to_core_json()`.
"""

from collections.abc import Callable
from typing import Any

Columns = dict[str, tuple[str, bytes | list[str]]]

def run(scenario_json: str, progress: Callable[[dict[str, int]], Any] | None = None, /) -> dict[str, Any]:
    """Simulate; returns {"flows": Columns, "ports": Columns, "stats": dict}. Raises ValueError for a
    scenario it refuses. `progress` receives {"flows_finished", "flows_started", "flows_total",
    "sim_time_ps", "events"}; an exception it raises propagates out of `run`."""

def scheme_names() -> list[str]:
    """Every scheme name the core runs."""
