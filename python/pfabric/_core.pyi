"""Type stub of the compiled core (crates/pfabric-py): the contract between Rust and Python.

Private: users call `pfabric.run`. The scenario JSON is `pfabric.Scenario.to_core_json()`.
"""

from collections.abc import Callable
from typing import Any, TypeAlias

Columns: TypeAlias = dict[str, tuple[str, bytes | list[str]]]

__version__: str

def run(scenario_json: str, progress: Callable[[dict[str, Any]], Any] | None = None) -> dict[str, Any]:
    """Simulate; returns {"flows": Columns, "ports": Columns, "stats": dict}. Raises ValueError (one line,
    `field: value is not allowed; expected ...`) for a scenario it refuses. `progress` receives
    {"flows_finished", "flows_started", "flows_total", "sim_time_ps", "events", "done"}; an exception it
    raises propagates out of `run`."""

def validate(scenario_json: str) -> None:
    """Check a scenario JSON without running it; raises ValueError like `run`."""

def scheme_names() -> list[str]:
    """Every scheme name the core runs."""

def scheme_defaults_json(name: str) -> str | None:
    """The paper parameters of a scheme as a JSON object (user units); None for an unknown name."""
