"""A paper figure as data: what it shows, the runs behind it, how to draw it, and how to judge it.

Why a plain record of functions: `pfabric reproduce` and `--list` treat every figure alike (run the points
through the store, draw, check, write), while each module keeps its own sweep, plot and published values
side by side, so that reading one file tells the whole story of one figure.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._native import scheme_names
from ..presets import Check
from ..result import RunResult
from ..scenario import Scenario

__all__ = ["Figure"]

Done = list[tuple[dict[str, Any], RunResult]]


def _no_points(quick: bool) -> list[tuple[dict, Scenario]]:
    return []


def _no_checks(done: Done) -> list[Check]:
    return []


def _no_rows(done: Done) -> list[dict]:
    return []


def _no_plot(done: Done, out_dir: Path) -> list[Path]:
    return []


@dataclass(frozen=True)
class Figure:
    """One figure of a paper.

    `schemes` are the schemes the paper compares, by the name the core gives (or will give) them; those the
    core lacks are `missing()` and the figure runs without them (never a stand-in). `points(quick)` are the
    labelled scenarios to run; `plot(done, out_dir)` draws PNG and PDF files and returns their paths;
    `checks(done)` compares ours with the paper; `table(done)` gives the rows of table.csv. `published` holds
    the paper's numbers the plot draws as reference marks. `simulated=False` marks a figure made from a model
    alone (no runs); `runnable=False` one that nothing here can produce yet (`notes` say why).
    """

    name: str
    paper: str
    title: str
    shows: str
    schemes: tuple[str, ...] = ()
    points: Callable[[bool], list[tuple[dict, Scenario]]] = _no_points
    plot: Callable[[Done, Path], list[Path]] = _no_plot
    checks: Callable[[Done], list[Check]] = _no_checks
    table: Callable[[Done], list[dict]] = _no_rows
    published: dict[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    simulated: bool = True
    runnable: bool = True

    def missing(self) -> list[str]:
        """The schemes the paper compares that the core does not run yet."""
        have = set(scheme_names())
        return [s for s in self.schemes if s not in have]

    def describe(self) -> dict[str, Any]:
        """What `--list` and checks.json say about the figure."""
        return {
            "figure": self.name,
            "paper": self.paper,
            "title": self.title,
            "shows": self.shows,
            "schemes": list(self.schemes),
            "missing_schemes": self.missing(),
            "simulated": self.simulated,
            "runnable": self.runnable,
            "notes": list(self.notes),
            "published": self.published,
        }
