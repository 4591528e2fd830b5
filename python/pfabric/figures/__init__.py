"""The figures of the pFabric paper (SIGCOMM 2013) and of the AIFO paper (SIGCOMM 2021), one module each, and
`beyond-fct`: the schemes that followed pFabric on its fabric.

`FIGURES` maps a name (`pfabric-fig7`, `aifo-fig14`) to its `Figure`: what it shows, the schemes it needs,
its runs, its plot, its checks against the paper and the paper's published values. `pfabric reproduce
FIGURE` runs one through the results store (`reproduce.py`); figures that share scenarios share runs.
"""

from __future__ import annotations

from importlib import import_module

from ..errors import ScenarioError
from .figure import Figure

__all__ = ["FIGURES", "Figure", "figure"]

_MODULES = (
    "pfabric_fig5a",
    "pfabric_fig5b",
    "pfabric_fig6",
    "pfabric_fig7",
    "pfabric_fig8",
    "pfabric_fig9",
    "pfabric_fig10",
    "pfabric_fig11",
    "pfabric_fig12",
    "pfabric_fig13",
    "pfabric_fig14",
    "pfabric_fig16",
    "pfabric_fig17",
    "aifo_fig7",
    "aifo_fig7_datamining",
    "aifo_fig7_1g",
    *(f"aifo_fig{n}" for n in range(8, 17)),
    "cs244",
    "beyond_fct",
    "phost",
    "homa",
    "ndp",
)

FIGURES: dict[str, Figure] = {}
for _name in _MODULES:
    _figure = import_module(f".{_name}", __name__).FIGURE
    FIGURES[_figure.name] = _figure


def figure(name: str) -> Figure:
    """The figure called `name`; a one-line `ScenarioError` listing the names if there is none."""
    if name not in FIGURES:
        raise ScenarioError.plain(
            "FIGURE", f"{name!r} is not a figure; expected one of: {', '.join(FIGURES)}"
        )
    return FIGURES[name]
