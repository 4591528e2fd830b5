"""Reproducing one paper figure end to end: its runs through the store, its plot, its checks, its files.

Why a module of its own: the CLI, `make demo` and Python users all do the same five steps, and the output
folder is a contract with `pfabric report`, which reads it back:

    OUT/<figure>/*.png, *.pdf   the plots (paper layout, units on every axis)
    OUT/<figure>/table.csv      the numbers behind the plot, one row per run (or per model point)
    OUT/<figure>/checks.json    the figure's description, our values against the paper's, timings
"""

from __future__ import annotations

import csv
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .figures import Figure
from .plots import title_note
from .presets import Check
from .result import _atomic, _json_safe
from .store import Store
from .sweep import run_sweep

__all__ = ["FigureUnavailable", "Reproduction", "reproduce", "run_figures"]


class FigureUnavailable(RuntimeError):
    """A figure nothing here can produce yet (its schemes are missing or it is a testbed experiment)."""


@dataclass
class Reproduction:
    """What one `reproduce` call made: where, which checks hold, how long it took."""

    figure: Figure
    out_dir: Path
    plots: list[Path]
    checks: list[Check]
    rows: list[dict]
    runs: int
    seconds: float

    @property
    def passed(self) -> bool:
        return all(c.settled for c in self.checks)


def reproduce(
    figure: Figure,
    quick: bool = False,
    store: Store | str | os.PathLike = "results/store",
    out: str | os.PathLike = "results/figures",
    jobs: int | None = None,
    executor: Any = None,
    force: bool = False,
    progress: bool = False,
) -> Reproduction:
    """Run `figure`'s points (skipping those already stored), then draw, check and write its folder."""
    if not figure.runnable:
        raise FigureUnavailable(f"{figure.name} cannot be reproduced yet: {' '.join(figure.notes)}")
    store = store if isinstance(store, Store) else Store(store)
    started = time.perf_counter()
    points = figure.points(quick)
    if not points and figure.simulated:
        # Every run needs something the core lacks (`Figure.missing`): nothing to draw or check.
        raise FigureUnavailable(
            f"{figure.name} has no run this core can make; missing: {', '.join(figure.missing()) or 'parameters of its schemes'}"
        )
    results = run_sweep(points, store, jobs=jobs, executor=executor, force=force, progress=progress)
    done = [(labels, result) for (labels, _), result in zip(points, results, strict=True)]
    out_dir = Path(out) / figure.name
    out_dir.mkdir(parents=True, exist_ok=True)
    with title_note(quick_note(done) if quick else None):
        plots = figure.plot(done, out_dir)
    checks = figure.checks(done)
    rows = figure.table(done)
    seconds = time.perf_counter() - started
    made = Reproduction(figure, out_dir, plots, checks, rows, len(points), seconds)
    write_table(rows, out_dir / "table.csv")
    write_checks(made, quick, out_dir / "checks.json")
    return made


def run_figures(
    figures: list[Figure],
    quick: bool = False,
    store: Store | str | os.PathLike = "results/store",
    jobs: int | None = None,
    executor: Any = None,
    force: bool = False,
    progress: bool = False,
) -> int:
    """Every run of `figures` into `store`, in one sweep that starts the longest first (figure by figure,
    each figure's last run would hold up the next while the other cores idle; a run two figures share runs
    once). `reproduce` then finds them stored. Returns how many runs were made."""
    store = store if isinstance(store, Store) else Store(store)
    points = [point for figure in figures if figure.runnable for point in figure.points(quick)]
    keys = {store.key(scenario) for _, scenario in points}
    new = len(keys) if force else sum(not store.has_key(key) for key in keys)
    run_sweep(points, store, jobs=jobs, executor=executor, force=force, progress=progress, collect=False)
    return new


def quick_note(done: list[tuple[dict, Any]]) -> str:
    """What the title of a `--quick` figure says: "quick (2,000 flows per run)", a range where runs differ,
    plain "quick" for a figure without runs."""
    flows = sorted({result.flows.num_rows for _, result in done})
    if not flows:
        return "quick"
    counts = f"{flows[0]:,}" if len(flows) == 1 else f"{flows[0]:,}-{flows[-1]:,}"
    return f"quick ({counts} flows per run)"


def write_table(rows: list[dict], path: Path) -> None:
    """table.csv: one column per key seen in any row, atomically."""
    columns = list(dict.fromkeys(key for row in rows for key in row))

    def write(tmp: Path) -> None:
        with tmp.open("w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=columns)
            writer.writeheader()
            writer.writerows({k: _cell(v) for k, v in row.items()} for row in rows)

    _atomic(path, write)


def write_checks(made: Reproduction, quick: bool, path: Path) -> None:
    """checks.json: the figure's description, the checks (ours, paper, holds) and what the run cost."""
    document = _json_safe(
        {
            **made.figure.describe(),
            "quick": quick,
            "runs": made.runs,
            "seconds": round(made.seconds, 2),
            "plots": [p.name for p in made.plots],
            "checks": [c.document() for c in made.checks],
            "all_checks_hold": made.passed,
        }
    )
    text = json.dumps(document, indent=2, default=str) + "\n"
    _atomic(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def _cell(value: Any) -> Any:
    """CSV cells: dicts and lists as JSON, the rest as is."""
    return json.dumps(value, sort_keys=True) if isinstance(value, (dict, list)) else value
