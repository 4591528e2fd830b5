"""`python -m pfabric ARGS` in a subprocess, for the tests that drive the command line end to end."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def pfabric(
    env: dict, *args: str, cwd: Path | None = None, timeout: float = 60
) -> subprocess.CompletedProcess:
    """Run the CLI with `env` (the `pfabric_env` fixture), its output captured as text; a nonzero status
    does not raise."""
    return subprocess.run(
        [sys.executable, "-m", "pfabric", *args],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=timeout,
    )
