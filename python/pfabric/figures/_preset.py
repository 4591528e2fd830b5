"""Figures 5a, 5b and 6 are the presets of `presets.py`: their runs, table and checks come from there.

Why a bridge instead of a copy: `pfabric run --preset` and `pfabric reproduce` must agree on the runs and on
the checks, so the presets stay the single definition and the figures add only the plot (`preset_figure`).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from ..presets import PRESETS, Check, LabelledRun
from ..scenario import Scenario
from .common import Done
from .figure import Figure


def preset_points(name: str, quick: bool) -> list[tuple[dict[str, Any], Scenario]]:
    return [(run.labels, run.scenario) for run in PRESETS[name].runs(quick)]


def preset_report(name: str, done: Done):
    return PRESETS[name].report([(LabelledRun(labels, result.scenario), result) for labels, result in done])


def preset_checks(name: str, done: Done) -> list[Check]:
    return preset_report(name, done).checks


def preset_rows(name: str, done: Done) -> list[dict]:
    return preset_report(name, done).rows


def preset_figure(preset: str, **fields: Any) -> Figure:
    """A pFabric figure whose runs, checks and table are those of the preset `preset`; `fields` are the rest
    of the `Figure` (name, title, plot, ...)."""
    return Figure(
        paper="pFabric",
        points=partial(preset_points, preset),
        checks=partial(preset_checks, preset),
        table=partial(preset_rows, preset),
        **fields,
    )
