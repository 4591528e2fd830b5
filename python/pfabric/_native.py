"""Lazy access to the compiled core, so that validation, analysis and their tests run without it.

Users never import `pfabric._core`; the Python API wraps it (DESIGN section 6). Everything that needs the
core goes through `core()`, which turns a missing build into one clear message.
"""

from __future__ import annotations

import importlib
import json
from types import ModuleType
from typing import Any

__all__ = ["FALLBACK_SCHEMES", "CoreUnavailable", "core", "scheme_defaults", "scheme_names"]

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
