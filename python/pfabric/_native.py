"""Lazy access to the compiled core, so that validation, analysis and their tests run without it.

Users never import `pfabric._core`; the Python API wraps it (DESIGN section 6). Everything that needs the
core goes through `core()`, which turns a missing build into one clear message.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["CoreUnavailable", "core", "scheme_names", "scheme_override_keys", "FALLBACK_SCHEMES"]

# The schemes every build of the core runs; used only when the extension cannot be imported (pure-Python tests).
FALLBACK_SCHEMES = ("tcp", "dctcp", "pfabric", "pfabric-linerate")


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


def scheme_override_keys() -> tuple[str, ...]:
    """Extra override keys the core declares beyond the typed ones of `Scheme` (none if it declares none)."""
    module = _optional_core()
    if module is None or not hasattr(module, "scheme_override_keys"):
        return ()
    return tuple(module.scheme_override_keys())
