"""A terminal progress bar fed by the core's progress callback.

The core calls back every so often with `{"flows_finished", "flows_started", "flows_total", "sim_time_ps",
"events"}`; the bar shows flows finished of the total, the simulated time reached and an ETA. It draws on
stderr so that stdout stays clean for the summary (and for pipes).
"""

from __future__ import annotations

from typing import Any, Self

__all__ = ["ProgressBar", "RunsBar"]


class ProgressBar:
    """Context manager; the instance is the callback handed to the core."""

    def __init__(self, description: str = "simulating", console: Any = None) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("flows"),
            TextColumn("{task.fields[sim_ms]:.3f} ms simulated"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=console or Console(stderr=True),
            transient=False,
        )
        self._task = self._progress.add_task(description, total=None, sim_ms=0.0)

    def __enter__(self) -> Self:
        self._progress.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._progress.stop()

    def __call__(self, info: dict) -> None:
        self._progress.update(
            self._task,
            total=info.get("flows_total") or None,
            completed=info.get("flows_finished", 0),
            sim_ms=info.get("sim_time_ps", 0) / 1e9,
        )


class RunsBar:
    """A progress bar over the runs of a sweep: runs done of total, elapsed, ETA. `advance()` per run."""

    def __init__(self, total: int, enabled: bool = True, description: str = "runs") -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self._enabled = enabled
        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
        )
        self._task = self._progress.add_task(description, total=total)

    def __enter__(self) -> Self:
        if self._enabled:
            self._progress.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._enabled:
            self._progress.stop()

    def advance(self) -> None:
        self._progress.advance(self._task)
