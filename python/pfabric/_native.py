"""Lazy access to the compiled core, so that validation, analysis and their tests run without it.

Users never import `pfabric._core`; the Python API wraps it (DESIGN section 6). Everything that needs the
core goes through `core()`, which turns a missing build into one clear message.
"""

from __future__ import annotations

import importlib
import json
from types import ModuleType
from typing import Any

__all__ = [
    "FALLBACK_SCHEMES",
    "CoreUnavailable",
    "core",
    "scheme_catalogue",
    "scheme_defaults",
    "scheme_names",
    "scheme_parameters",
]

# The schemes every build of the core runs; used only when the extension cannot be imported (pure-Python tests).
FALLBACK_SCHEMES = (
    "tcp",
    "dctcp",
    "pfabric",
    "pfabric-linerate",
    "pdq",
    "ideal",
    "prio-queues",
    "pias",
    "pifo",
    "sp-pifo",
    "aifo",
    "pieo",
    "afq",
)


class CoreUnavailable(RuntimeError):
    """The compiled extension `pfabric._core` is not built or not importable."""


def core() -> ModuleType:
    """The compiled extension module; raises `CoreUnavailable` with a how-to-fix message if it is missing."""
    try:
        return importlib.import_module("pfabric._core")
    except ImportError as exc:
        raise CoreUnavailable(
            f"the compiled core pfabric._core is not available ({exc}); build it with `pip install .` "
            "or `maturin develop` in the repository"
        ) from None


def _optional_core() -> ModuleType | None:
    try:
        return importlib.import_module("pfabric._core")
    except ImportError:
        return None


def scheme_names() -> tuple[str, ...]:
    """The scheme names the core runs (the core is the authority; the fallback keeps validation usable)."""
    module = _optional_core()
    if module is None or not hasattr(module, "scheme_names"):
        return FALLBACK_SCHEMES
    return tuple(module.scheme_names())


def _defaults_json(name: str) -> str | None:
    module = _optional_core()
    if module is None or not hasattr(module, "scheme_defaults_json"):
        return None
    return module.scheme_defaults_json(name)


def scheme_defaults(name: str) -> dict[str, Any] | None:
    """The paper parameters of a scheme as the core applies them (user units); None if unknown to the
    core or if the core is not built. Its keys are the overrides that scheme accepts."""
    text = _defaults_json(name)
    return None if text is None else json.loads(text)


def scheme_parameters(name: str, host: str | None = None, switch: str | None = None) -> dict[str, Any] | None:
    """The parameters bundle `name` accepts with `host` and/or `switch` swapped in, with the defaults the core
    applies (`host` and `switch` among them); None if the core is not built or the name is unknown. A pair
    that cannot run is a one-line `ScenarioError` (the core's words)."""
    module = _optional_core()
    if module is None or name not in scheme_names():
        return None
    if not hasattr(module, "scheme_parameters_json"):
        # A core without parts: its per-scheme defaults, the one pair it knows.
        return scheme_defaults(name) if host is None and switch is None else None
    try:
        return json.loads(module.scheme_parameters_json(name, host, switch))
    except ValueError as exc:
        from .errors import ScenarioError

        # "scheme.FIELD: VALUE is not allowed; expected WHAT": the field relative to the scheme section.
        field, _, rest = str(exc).partition(": ")
        value, _, allowed = rest.partition(" is not allowed; expected ")
        raise ScenarioError(field.removeprefix("scheme."), value, allowed) from None


def scheme_catalogue() -> dict[str, Any]:
    """Every host, switch and bundle the core runs, with parameters, defaults and papers (raises
    `CoreUnavailable` without the core)."""
    return json.loads(core().scheme_catalogue_json())
