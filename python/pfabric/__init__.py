"""pfabric: a packet-level simulator of pFabric and the datacenter transports it is compared with.

    import pfabric
    result = pfabric.run("examples/websearch_tcp.toml", progress=True)
    result.summary["bins"]["(0,100KB]"]["mean_normalized_fct"]

The engine is compiled Rust (`pfabric._core`, private); scenarios, validation, metrics and the CLI are
Python. Importing pfabric does not load the engine: it is loaded by the first `run`.
"""

from __future__ import annotations

from importlib import metadata as _metadata
from typing import TYPE_CHECKING, Any

from .errors import ScenarioError

if TYPE_CHECKING:
    from .api import load_scenario, run
    from .result import RunResult
    from .scenario import Scenario

# Where each public name lives, imported when first asked for: the API loads numpy, pyarrow and pydantic, and
# the command sets what numpy reads when it loads (`cli.py`) after this package's `__init__` has run.
_LAZY = {"load_scenario": "api", "run": "api", "RunResult": "result", "Scenario": "scenario"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)


try:
    __version__ = _metadata.version("pfabric")
except _metadata.PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = ["RunResult", "Scenario", "ScenarioError", "__version__", "load_scenario", "run"]
