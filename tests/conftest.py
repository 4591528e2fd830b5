"""Test set-up: import pfabric from the working tree when it is not installed, and a fake core.

The tests in this folder need no compiled extension: validation, metrics and the CLI's error paths are
pure Python, and the API's plumbing is exercised against `fake_core` (same contract as `pfabric._core`,
see python/pfabric/_core.pyi). Tests of the real core live in their own file.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Every run the tests make, in this process or a sweep's workers, is held to pfabric.invariants (api.run).
os.environ["PFABRIC_CHECK_INVARIANTS"] = "1"
if importlib.util.find_spec("pfabric") is None:
    sys.path.insert(0, str(ROOT / "python"))


@pytest.fixture
def fake_core(monkeypatch):
    """Stand the fake core in for `pfabric._core` for one test."""
    import fake_core as module

    monkeypatch.setitem(sys.modules, "pfabric._core", module)
    # The fake's counters are not a real run's ledger: nothing to hold it to.
    monkeypatch.delenv("PFABRIC_CHECK_INVARIANTS", raising=False)
    module.calls.clear()
    return module


@pytest.fixture
def pfabric_env() -> dict[str, str]:
    """Environment for a `python -m pfabric` subprocess that imports the same pfabric as this process."""
    import pfabric

    package_parent = str(Path(pfabric.__file__).resolve().parents[1])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_parent, env.get("PYTHONPATH")) if p)
    return env
