"""pFabric Figure 5(b): loss rate with N long flows into one port, with and without probe mode.

Paper: without probe mode the loss rises from ~4.8% at 5 flows to ~38.5% at 50; with it, under 5.5% at 50.
Runs and checks are the `loss-stress` preset (quick: 5, 25, 50 flows; paper scale: 5..50; 10 MB each).
"""

from __future__ import annotations

from pathlib import Path

from ..presets import loss_rate
from ._preset import preset_figure
from .common import Done, line_panels, paper_marks, series

PRESET = "loss-stress"
PUBLISHED = {"without_probe_loss_pct": {5: 4.8, 50: 38.5}, "with_probe_loss_pct_below": {50: 5.5}}


def plot(done: Done, out_dir: Path) -> list[Path]:
    lines = [
        (label, *series(done, "flows", lambda r: loss_rate(r) * 100, probe_mode=probe))
        for probe, label in ((False, "without probe mode"), (True, "with probe mode"))
    ]
    panel = {
        "title": "loss rate vs number of flows into one port, pFabric",
        "xlabel": "number of flows",
        "ylabel": "loss rate (% of data packets)",
        "lines": lines,
        "marks": [
            paper_marks("paper, without probe mode", PUBLISHED["without_probe_loss_pct"]),
            paper_marks("paper, with probe mode (upper bound)", PUBLISHED["with_probe_loss_pct_below"]),
        ],
    }
    return line_panels(out_dir, "loss_rate", [panel])


FIGURE = preset_figure(
    PRESET,
    name="pfabric-fig5b",
    title="Figure 5(b): loss rate with and without probe mode",
    shows="loss rate vs number of long flows into one port, pFabric with and without probe mode",
    schemes=("pfabric",),
    plot=plot,
    published=PUBLISHED,
    notes=("Same runs and checks as `pfabric run --preset loss-stress`.",),
)
