"""A terminal progress bar fed by the core's progress callback.

The core calls back every so often with `{"flows_finished", "flows_started", "flows_total", "sim_time_ps",
"events"}`; the bar shows flows finished of the total, the simulated time reached and an ETA. It draws on
stderr so that stdout stays clean for the summary (and for pipes).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
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
    """Progress of a sweep: one bar for the runs (done of total, elapsed, ETA) and one per run in flight.

    `advance()` after each finished run. A run's own bar (flows finished of its total) is fed either in this
    process (`with bar.run(key, label) as callback`: the callback goes to the core) or from the messages of
    pool workers (`update_run`, then `finish_run`). Disabled, every method is a cheap no-op.
    """

    def __init__(self, total: int, enabled: bool = True, description: str = "runs", stored: int = 0) -> None:
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
        if stored:
            description = f"{description} ({stored} already stored)"
        self._task = self._progress.add_task(description, total=total)
        self._runs: dict[str, Any] = {}

    def __enter__(self) -> Self:
        if self._enabled:
            self._progress.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._enabled:
            self._progress.stop()

    def advance(self) -> None:
        self._progress.advance(self._task)

    def update_run(self, key: str, label: str, flows_finished: int, flows_total: int | None) -> None:
        """Show the progress of the run `key` (a bar of its own, made on its first report)."""
        if not self._enabled:
            return
        if key not in self._runs:
            self._runs[key] = self._progress.add_task(f"  {label} flows", total=flows_total or None)
        self._progress.update(self._runs[key], total=flows_total or None, completed=flows_finished)

    def finish_run(self, key: str) -> None:
        """Remove the bar of a run that ended."""
        task = self._runs.pop(key, None)
        if task is not None:
            self._progress.remove_task(task)

    @contextmanager
    def run(self, key: str, label: str) -> Iterator[Callable[[dict], None]]:
        """A run in this process: yields the callback to hand the core; its bar goes when the block ends."""

        def report(info: dict) -> None:
            self.update_run(key, label, info.get("flows_finished", 0), info.get("flows_total"))

        try:
            yield report
        finally:
            self.finish_run(key)
