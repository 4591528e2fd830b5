"""The bench scripts (`bench/*.py`) run as a user runs them, against stand-in bench binaries: shell scripts
that print a result line as the core's bench example does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"


def stand_in(path: Path, body: str) -> Path:
    """An executable shell script at `path` that runs `body` (a stand-in for a bench binary)."""
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


def run_script(name: str, *args: str) -> subprocess.CompletedProcess:
    """`python bench/NAME ARGS`, its output captured as text; a nonzero status does not raise."""
    return subprocess.run(
        [sys.executable, str(BENCH / name), *args], capture_output=True, text=True, check=False
    )
