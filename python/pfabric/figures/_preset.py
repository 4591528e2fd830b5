"""Figures 5a, 5b and 6 are the presets of `presets.py`: their runs, table and checks come from there.

Why a bridge instead of a copy: `pfabric run --preset` and `pfabric reproduce` must agree on the runs and on
the checks, so the presets stay the single definition and the figures add only the plot.
"""

from __future__ import annotations

from typing import Any

from ..presets import PRESETS, Check, LabelledRun
from ..scenario import Scenario
from .common import Done


def preset_points(name: str, quick: bool) -> list[tuple[dict[str, Any], Scenario]]:
    return [(run.labels, run.scenario) for run in PRESETS[name].runs(quick)]


def preset_report(name: str, done: Done):
    return PRESETS[name].report([(LabelledRun(labels, result.scenario), result) for labels, result in done])


def preset_checks(name: str, done: Done) -> list[Check]:
    return preset_report(name, done).checks


def preset_rows(name: str, done: Done) -> list[dict]:
    return preset_report(name, done).rows
