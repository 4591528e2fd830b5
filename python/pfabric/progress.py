"""Progress of runs and sweeps: bars on a terminal, plain lines everywhere else, and an honest ETA.

The core calls back between chunks of events with `{"flows_finished", "flows_started", "flows_total",
"sim_time_ps", "events", "done"}`. Where progress goes depends on stderr (stdout stays clean for summaries
and pipes):

- a terminal (or Jupyter): rich bars, redrawn in place: flows finished of the total, the simulated time
  reached, the elapsed time and an ETA; a sweep has one bar for its runs and one per run in flight;
- anything else (nohup, CI, a log file): one plain line when the work starts, one every few seconds and one
  when it ends, so that a log never stays empty while a long figure runs. Each line has the runs done of
  the total (sweeps and figures), the flows finished of the total and the simulated time of the runs in
  flight, the elapsed time and the ETA.

Two environment variables steer it: `PFABRIC_PROGRESS=bar|lines` forces one kind (default: by stderr), and
`PFABRIC_PROGRESS_EVERY_S` sets the seconds between plain lines (default 5).

The ETA of a run is estimated in simulated time, not in flows (see `RunEta`): counting flows says "one
second left" at 999 of 1,000 flows while the last long flows drain for most of the run's wall time.
"""

from __future__ import annotations

import math
import os
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Self, TextIO

import numpy as np

if TYPE_CHECKING:
    from .scenario import Scenario

__all__ = ["Expected", "ProgressBar", "RunEta", "RunsBar", "SweepEta", "format_duration"]

DEFAULT_EVERY_S = 5.0
ENV_MODE = "PFABRIC_PROGRESS"
ENV_EVERY = "PFABRIC_PROGRESS_EVERY_S"
PS_PER_S = 1e12

Clock = Callable[[], float]


# --- what a scenario says in advance about its end ------------------------------------------------------------


@dataclass(frozen=True)
class Expected:
    """What a scenario tells before it runs about when its run ends, in simulated seconds (None: unknown).

    `last_start_s`: when the last flow starts (a trace, a fan-in, a Poisson run over `duration_s`).
    `end_at_least_s`: the run cannot end earlier: every flow alone in the fabric at its host link's rate.
    `drain_s`: how long the last flows are expected to take after the last start: the time the largest flow
    of the run needs alone at the host link's rate (for a Poisson workload of N flows, the size its CDF
    puts at quantile 1 - 1/(N+1), the expected largest of N draws).
    `stop_s`: `run.max_sim_time_s`, where the core stops whatever is left.
    """

    last_start_s: float | None = None
    end_at_least_s: float | None = None
    drain_s: float | None = None
    stop_s: float | None = None

    @classmethod
    def of(cls, scenario: Scenario) -> Expected:
        """The expectations of a validated scenario (what it cannot tell stays None)."""
        from .scenario import FanIn, Poisson, Trace

        stop = scenario.run.max_sim_time_s
        bytes_per_s = scenario.topology.host_rate_gbps * 1e9 / 8
        workload = scenario.workload
        if isinstance(workload, Trace):
            flows = workload.trace_data
            alone = flows.start_s + flows.size_bytes / bytes_per_s
            return cls(float(flows.start_s.max()), float(alone.max()), None, stop)
        if isinstance(workload, FanIn):
            n = workload.sender_count
            if workload.sizes_bytes is not None:
                sizes = [float(s) for s in workload.sizes_bytes]
            elif workload.flow_bytes is not None:
                sizes = [float(workload.flow_bytes)] * n
            else:
                sizes = [math.ceil(workload.total_bytes / n)] * n
            starts = workload.starts_s or [workload.start_s] * n
            # One receiver link carries every byte: it cannot end before the first start plus all the bytes.
            return cls(max(starts), min(starts) + sum(sizes) / bytes_per_s, None, stop)
        if isinstance(workload, Poisson):
            drain = None
            if workload.flows is not None:
                largest = _quantile(workload.cdf_data, 1 - 1 / (workload.flows + 1))
                drain = largest / bytes_per_s
            return cls(workload.duration_s, None, drain, stop)
        return cls(stop_s=stop)


def _quantile(cdf: Any, q: float) -> float:
    """The flow size (bytes) at cumulative probability `q` of a `workloads.Cdf`."""
    if cdf.interpolation == "step":
        index = min(int(np.searchsorted(cdf.cdf, q, side="left")), len(cdf.cdf) - 1)
        return float(cdf.size_bytes[index])
    return float(np.interp(q, cdf.cdf, cdf.size_bytes))


# --- the estimates --------------------------------------------------------------------------------------------


class RunEta:
    """Where one run stands and how long it has left, from the core's progress dicts.

    How the ETA is made: the run ends at a simulated time E; the ETA is (E - now) in simulated seconds times
    the wall seconds a simulated second costs: while flows arrive, the average since the run began (the
    arrivals are steady, so this is smooth, and it leans pessimistic: a simulated second of the drain, with
    fewer flows in the fabric, costs less); once they have all arrived, the average over the drain's most
    recent stretch (its last quarter, at most `WINDOW_S`, at least `MIN_SAMPLES` reports), as the cost
    falls while the fabric empties. E is the last flow's start plus a drain:

    - the last start: known from the scenario (`Expected.last_start_s`), or seen (the first report with
      every flow started), or else extrapolated from the arrivals so far (flows arrive at a steady rate, so
      the last of N starts at now x N / started);
    - the drain: the larger of the mean time a flow has spent in the fabric during the arrivals (Little's
      law: flows in flight / arrival rate) and the time the run's largest flow needs alone
      (`Expected.drain_s`); E is at least `Expected.end_at_least_s` and at most `Expected.stop_s`;
    - once simulated time passes that E with flows still unfinished (the last long flows share their links
      and drain longer than alone), the drain is expected to last as long again as it has lasted so far.
      So the ETA grows with a long drain instead of sitting at one second, and stays a rough figure: the
      core reports no remaining bytes, only counts and times.
    """

    WINDOW_S = 30.0
    WINDOW_SHARE = 0.25
    MIN_SAMPLES = 5  # reports the drain's window keeps however short it is

    def __init__(
        self, expected: Expected | None = None, clock: Clock = time.monotonic, at_start: bool = True
    ) -> None:
        """`at_start=False`: made on the run's first report (a pool worker's run), not when it began; the
        cost of a simulated second is then measured from that report on."""
        self.expected = expected or Expected()
        self._clock = clock
        self._from_first_report = not at_start
        self.started_at = clock()
        self.flows_started = 0
        self.flows_finished = 0
        self.flows_total: int | None = None
        self.sim_s = 0.0
        self.done = False
        self._samples: deque[tuple[float, float]] = deque([(self.started_at, 0.0)])
        self._all_started_s: float | None = None
        self._drain_began = self.started_at
        self._in_fabric_s = 0.0

    def update(self, info: dict) -> None:
        """Take one progress dict of the core."""
        now = self._clock()
        self.sim_s = float(info.get("sim_time_ps") or 0) / PS_PER_S
        if self._from_first_report:
            self._from_first_report = False
            self._samples = deque([(now, self.sim_s)])
        self.flows_started = int(info.get("flows_started") or 0)
        self.flows_finished = int(info.get("flows_finished") or 0)
        self.flows_total = int(info["flows_total"]) if info.get("flows_total") else None
        self.done = bool(info.get("done"))
        started, total = self.flows_started, self.flows_total
        last_start = self.expected.last_start_s
        all_started = (total is not None and started >= total) or (
            total is None and last_start is not None and self.sim_s >= last_start
        )
        if not all_started:
            if started > 0 and self.sim_s > 0:
                self._in_fabric_s = (started - self.flows_finished) * self.sim_s / started
            self._samples = deque([self._samples[0], (now, self.sim_s)])  # since the run began
            return
        if self._all_started_s is None:  # the drain begins: its cost is measured from here
            self._all_started_s = self.sim_s
            self._drain_began = now
            self._samples = deque([self._samples[-1]])
        self._samples.append((now, self.sim_s))
        window = min(self.WINDOW_S, self.WINDOW_SHARE * (now - self._drain_began))
        while len(self._samples) > self.MIN_SAMPLES and now - self._samples[1][0] >= window:
            self._samples.popleft()

    def elapsed_s(self) -> float:
        return max(self._clock() - self.started_at, 0.0)

    def wall_per_sim(self) -> float | None:
        """Wall seconds per simulated second over the recent window (None before it can be told)."""
        (w0, t0), (w1, t1) = self._samples[0], self._samples[-1]
        if t1 <= t0 or w1 <= w0:
            return None
        return (w1 - w0) / (t1 - t0)

    def end_sim_s(self) -> float | None:
        """The simulated time the run is expected to end at (None while nothing tells)."""
        if self.done:
            return self.sim_s
        now, e = self.sim_s, self.expected
        if self._all_started_s is not None:
            last = self._all_started_s
            if e.last_start_s is not None:
                last = min(last, e.last_start_s)
        elif e.last_start_s is not None:
            last = e.last_start_s
        elif self.flows_total and self.flows_started:
            last = now * self.flows_total / self.flows_started
        else:
            return e.stop_s
        end = max(last + max(self._in_fabric_s, e.drain_s or 0.0), e.end_at_least_s or 0.0)
        if end <= now:  # draining longer than expected: as long again as so far
            end = now + (now - last)
        if e.stop_s is not None:
            end = min(end, e.stop_s)
        return max(end, now)

    def eta_s(self) -> float | None:
        """Wall seconds left (None while it cannot be told; 0 when done)."""
        if self.done:
            return 0.0
        end, rate = self.end_sim_s(), self.wall_per_sim()
        if end is None or rate is None:
            return None
        return (end - self.sim_s) * rate

    def fraction(self) -> float | None:
        """Fraction of the run's wall time behind it: elapsed / (elapsed + ETA)."""
        eta = self.eta_s()
        if eta is None:
            return None
        elapsed = self.elapsed_s()
        return 1.0 if elapsed + eta <= 0 else elapsed / (elapsed + eta)

    def flows_text(self) -> str:
        total = f"/{self.flows_total:,}" if self.flows_total else ""
        text = f"flows {self.flows_finished:,}{total}"
        if self.flows_started != self.flows_finished and self.flows_started != self.flows_total:
            text += f" ({self.flows_started:,} started)"
        return text

    def sim_text(self) -> str:
        return f"{self.sim_s * 1e3:,.3f} ms simulated"


class SweepEta:
    """Runs done of a total, the runs in flight, and the ETA of the whole.

    The work done is the runs finished plus, for each run in flight, the fraction of its own wall time
    behind it (`RunEta.fraction`); the ETA is the work left at the pace of the work done so far (which
    counts every worker, so a pool's parallelism is in it).
    """

    def __init__(self, total: int, clock: Clock = time.monotonic) -> None:
        self.total = total
        self.done = 0
        self._clock = clock
        self.started_at = clock()
        self.runs: dict[str, tuple[str, RunEta]] = {}

    def elapsed_s(self) -> float:
        return max(self._clock() - self.started_at, 0.0)

    def eta_s(self) -> float | None:
        if self.done >= self.total:
            return 0.0
        work = self.done + sum(r.fraction() or 0.0 for _, r in self.runs.values())
        elapsed = self.elapsed_s()
        if work <= 0 or elapsed <= 0:
            return None
        return (self.total - work) * elapsed / work


def format_duration(seconds: float | None) -> str:
    """H:MM:SS, or ? when unknown."""
    if seconds is None or not math.isfinite(seconds):
        return "?"
    seconds = max(round(seconds), 0)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


# --- where it goes --------------------------------------------------------------------------------------------


def every_s() -> float:
    """Seconds between plain progress lines: `PFABRIC_PROGRESS_EVERY_S`, else 5."""
    try:
        value = float(os.environ.get(ENV_EVERY, DEFAULT_EVERY_S))
    except ValueError:
        return DEFAULT_EVERY_S
    return value if math.isfinite(value) and value > 0 else DEFAULT_EVERY_S


def _mode(mode: str | None, console: Any = None) -> str:
    """Bar or lines: as asked, else `PFABRIC_PROGRESS`, else bars where stderr is a terminal."""
    mode = (mode or os.environ.get(ENV_MODE, "")).strip().lower()
    if mode in ("bar", "lines"):
        return mode
    if console is not None:
        return "bar"
    from rich.console import Console

    stderr = Console(stderr=True)
    return "bar" if stderr.is_terminal or stderr.is_jupyter else "lines"


class _Lines:
    """Plain progress lines: one at the start (if given), one when due (`poke`, also called every second by a ticker
    thread, so a stretch without reports still logs), one at the end. `lock` guards the owner's state, which
    `render` reads."""

    def __init__(
        self,
        render: Callable[[], str],
        interval_s: float | None,
        stream: TextIO | None,
        clock: Clock,
        ticker: bool,
        lock: Any = None,
    ) -> None:
        self.lock = lock if lock is not None else threading.RLock()
        self._render = render
        self._interval = interval_s if interval_s is not None else every_s()
        self._stream = stream
        self._clock = clock
        self._last: float | None = None
        self.written = 0  # lines written so far
        self._stop = threading.Event()
        self._thread = (
            threading.Thread(target=self._tick, name="pfabric-progress", daemon=True) if ticker else None
        )

    def start(self, line: str | None = None) -> None:
        if line is not None:
            self.write(line)
            self._last = self._clock()
        if self._thread is not None:
            self._thread.start()

    def poke(self) -> None:
        """Write a line if one is due."""
        with self.lock:
            now = self._clock()
            if self._last is None or now - self._last >= self._interval:
                self._last = now
                self.write(self._render())

    def stop(self, line: str | None = None) -> None:
        self._stop.set()
        if self._thread is not None and self._thread.is_alive():
            self._thread.join(timeout=2)
        if line is not None:
            with self.lock:
                self.write(line)

    def write(self, line: str) -> None:
        self.written += 1
        stream = self._stream or sys.stderr
        try:
            stream.write(f"pfabric: {line}\n")
            stream.flush()
        except (OSError, ValueError):  # a closed or broken stream: progress is best effort
            pass

    def _tick(self) -> None:
        while not self._stop.wait(min(self._interval, 1.0)):
            self.poke()


def _rich_progress(console: Any, *columns: Any) -> Any:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        *columns,
        TimeElapsedColumn(),
        TextColumn("ETA {task.fields[eta]}"),
        console=console or Console(stderr=True),
        transient=False,
    )


class ProgressBar:
    """Progress of one run; context manager, and the instance is the callback handed to the core.

    A bar on a terminal, plain lines elsewhere (see the module's docstring). `expected` (from
    `Expected.of(scenario)`) sharpens the ETA. `mode`, `interval_s`, `stream`, `clock` and `ticker` (the
    thread that writes lines while no report comes) are for tests and embedding.
    """

    def __init__(
        self,
        description: str = "simulating",
        console: Any = None,
        *,
        expected: Expected | None = None,
        mode: str | None = None,
        interval_s: float | None = None,
        stream: TextIO | None = None,
        clock: Clock = time.monotonic,
        ticker: bool = True,
    ) -> None:
        self._description = description
        self._eta = RunEta(expected, clock)
        self._mode = _mode(mode, console)
        self._lines: _Lines | None = None
        self._progress: Any = None
        if self._mode == "lines":
            self._lines = _Lines(self._line, interval_s, stream, clock, ticker)
        else:
            from rich.progress import TextColumn

            self._progress = _rich_progress(console, TextColumn("flows"), TextColumn("{task.fields[sim]}"))
            self._task = self._progress.add_task(description, total=None, sim="", eta="?")

    def __enter__(self) -> Self:
        if self._lines is not None:
            self._lines.start()  # its first line comes with the core's first report
        else:
            self._progress.start()
        return self

    def __exit__(self, exc_type: object, *exc_info: object) -> None:
        if self._lines is not None:
            eta = self._eta
            if exc_type is not None and not self._lines.written:  # refused before it ran: the error says it
                self._lines.stop()
                return
            if exc_type is None:
                end = f"done: {eta.flows_text()}, {eta.sim_text()}, in {format_duration(eta.elapsed_s())}"
            else:
                end = (
                    f"stopped after {format_duration(eta.elapsed_s())}: {eta.flows_text()}, {eta.sim_text()}"
                )
            self._lines.stop(f"{self._description}: {end}")
        else:
            self._progress.stop()

    def __call__(self, info: dict) -> None:
        if self._lines is not None:
            with self._lines.lock:
                self._eta.update(info)
            self._lines.poke()
            return
        self._eta.update(info)
        self._progress.update(
            self._task,
            total=self._eta.flows_total,
            completed=self._eta.flows_finished,
            sim=self._eta.sim_text(),
            eta=format_duration(self._eta.eta_s()),
        )

    def _line(self) -> str:
        eta = self._eta
        return (
            f"{self._description}: {eta.flows_text()}, {eta.sim_text()}, "
            f"elapsed {format_duration(eta.elapsed_s())}, ETA {format_duration(eta.eta_s())}"
        )


class RunsBar:
    """Progress of a sweep: the runs (done of total, elapsed, ETA) and each run in flight.

    `advance()` after each finished run. A run's own progress is fed either in this process (`with
    bar.run(key, label, expected) as callback`: the callback goes to the core) or from the messages of pool
    workers (`update_run`, then `finish_run`). On a terminal: one bar for the runs and one per run in
    flight; elsewhere plain lines (see the module's docstring). Disabled, every method is a cheap no-op.
    """

    # Runs in flight a plain line names one by one; beyond, it sums them.
    LISTED = 3

    def __init__(
        self,
        total: int,
        enabled: bool = True,
        description: str = "runs",
        stored: int = 0,
        *,
        mode: str | None = None,
        interval_s: float | None = None,
        stream: TextIO | None = None,
        clock: Clock = time.monotonic,
        ticker: bool = True,
    ) -> None:
        self._enabled = enabled
        self._description = description
        self._stored = stored
        self._clock = clock
        self._lock = threading.RLock()  # pool progress arrives on a thread of its own
        self._sweep = SweepEta(total, clock)
        self._tasks: dict[str, Any] = {}
        self._ended: set[str] = set()  # a pool's last report of a run may come after the run's end
        self._lines: _Lines | None = None
        self._progress: Any = None
        if not enabled:
            return
        if _mode(mode) == "lines":
            self._lines = _Lines(self._line, interval_s, stream, clock, ticker, self._lock)
        else:
            self._progress = _rich_progress(None)
            if stored:
                description = f"{description} ({stored} already stored)"
            self._task = self._progress.add_task(description, total=total, eta="?")

    def __enter__(self) -> Self:
        if self._lines is not None:
            stored = f" ({self._stored} already stored)" if self._stored else ""
            self._lines.start(f"{self._description}: {self._sweep.total} to run{stored}")
        elif self._progress is not None:
            self._progress.start()
        return self

    def __exit__(self, exc_type: object, *exc_info: object) -> None:
        if self._lines is not None:
            sweep = self._sweep
            if exc_type is not None and not sweep.done and self._lines.written <= 1:  # the error says it
                self._lines.stop()
                return
            how = "done" if exc_type is None else "stopped"
            self._lines.stop(
                f"{self._description}: {sweep.done}/{sweep.total} {how} in {format_duration(sweep.elapsed_s())}"
            )
        elif self._progress is not None:
            self._progress.stop()

    def advance(self) -> None:
        if not self._enabled:
            return
        with self._lock:
            self._sweep.done += 1
        self._refresh()

    def update_run(self, key: str, label: str, info: dict, expected: Expected | None = None) -> None:
        """Take a progress dict of the run `key` (its estimate, and on a terminal its bar, made on its
        first report)."""
        if not self._enabled:
            return
        with self._lock:
            if key in self._ended:
                return
            if key not in self._sweep.runs:
                self._sweep.runs[key] = (label, RunEta(expected, self._clock, at_start=False))
            run = self._sweep.runs[key][1]
            run.update(info)
            if self._progress is not None:
                if key not in self._tasks:
                    self._tasks[key] = self._progress.add_task(f"  {label} flows", total=None, eta="?")
                self._progress.update(
                    self._tasks[key],
                    total=run.flows_total,
                    completed=run.flows_finished,
                    eta=format_duration(run.eta_s()),
                )
        self._refresh()

    def finish_run(self, key: str) -> None:
        """Forget a run that ended (and remove its bar)."""
        if not self._enabled:
            return
        with self._lock:
            self._ended.add(key)
            self._sweep.runs.pop(key, None)
            task = self._tasks.pop(key, None)
            if task is not None:
                self._progress.remove_task(task)

    def tick(self) -> None:
        """Write a plain line if one is due (the ticker thread does this too)."""
        if self._lines is not None:
            self._lines.poke()

    @contextmanager
    def run(self, key: str, label: str, expected: Expected | None = None) -> Iterator[Callable[[dict], None]]:
        """A run in this process: yields the callback to hand the core; its progress goes when the block
        ends."""

        def report(info: dict) -> None:
            self.update_run(key, label, info, expected)

        if self._enabled:
            with self._lock:
                self._ended.discard(key)
                self._sweep.runs[key] = (label, RunEta(expected, self._clock))
        try:
            yield report
        finally:
            self.finish_run(key)

    def _refresh(self) -> None:
        if self._lines is not None:
            self._lines.poke()
        elif self._progress is not None:
            with self._lock:
                eta = format_duration(self._sweep.eta_s())
                self._progress.update(self._task, completed=self._sweep.done, eta=eta)

    def _line(self) -> str:
        sweep = self._sweep
        parts = [f"{self._description} {sweep.done}/{sweep.total}"]
        runs = [run for _, run in sweep.runs.values()]
        if runs and len(runs) <= self.LISTED:
            parts.extend(
                f"{label}: {run.flows_text()}, {run.sim_text()}" for label, run in sweep.runs.values()
            )
        elif runs:
            finished = sum(r.flows_finished for r in runs)
            totals = [r.flows_total for r in runs]
            total = f"/{sum(totals):,}" if all(totals) else ""
            most = max(r.sim_s for r in runs) * 1e3
            parts.append(f"{len(runs)} running: flows {finished:,}{total}, up to {most:,.3f} ms simulated")
        parts.append(f"elapsed {format_duration(sweep.elapsed_s())}, ETA {format_duration(sweep.eta_s())}")
        return " | ".join(parts)
