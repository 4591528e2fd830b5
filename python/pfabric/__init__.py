"""pfabric: a packet-level simulator of pFabric and the datacenter transports it is compared with.

    import pfabric
    result = pfabric.run("examples/websearch_tcp.toml", progress=True)
    result.summary["bins"]["(0,100KB]"]["mean_normalized_fct"]

The engine is compiled Rust (`pfabric._core`, private); scenarios, validation, metrics and the CLI are
Python. Importing pfabric does not load the engine: it is loaded by the first `run`.
"""

from __future__ import annotations

from importlib import metadata as _metadata

from .api import load_scenario, run
from .errors import ScenarioError
from .result import RunResult
from .scenario import Scenario

try:
    __version__ = _metadata.version("pfabric")
except _metadata.PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = ["RunResult", "Scenario", "ScenarioError", "__version__", "load_scenario", "run"]
