"""pFabric Figure 5(b): loss rate with N long flows into one port, with and without probe mode.

Paper: without probe mode the loss rises from ~4.8% at 5 flows to ~38.5% at 50; with it, under 5.5% at 50.
Runs and checks are the `loss-stress` preset (quick: 5, 25, 50 flows of 1 MB; paper scale: 5..50 of 10 MB).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from ..presets import loss_rate
from ._preset import preset_checks, preset_points, preset_rows
from .common import Done, line_panels
from .figure import Figure

PRESET = "loss-stress"
PUBLISHED = {"without_probe_loss_pct": {5: 4.8, 50: 38.5}, "with_probe_loss_pct_below": {50: 5.5}}


def plot(done: Done, out_dir: Path) -> list[Path]:
    lines = []
    for probe, label in ((False, "without probe mode"), (True, "with probe mode")):
        pairs = sorted((l["flows"], loss_rate(r) * 100) for l, r in done if l["probe_mode"] == probe)
        lines.append((label, [p[0] for p in pairs], [p[1] for p in pairs]))
    no_probe = PUBLISHED["without_probe_loss_pct"]
    probe = PUBLISHED["with_probe_loss_pct_below"]
    panel = {
        "title": "loss rate vs number of flows into one port, pFabric",
        "xlabel": "number of flows",
        "ylabel": "loss rate (% of data packets)",
        "lines": lines,
        "marks": [
            ("paper, without probe mode", list(no_probe), list(no_probe.values())),
            ("paper, with probe mode (upper bound)", list(probe), list(probe.values())),
        ],
    }
    return line_panels(out_dir, "loss_rate", [panel])


FIGURE = Figure(
    name="pfabric-fig5b",
    paper="pFabric",
    title="Figure 5(b): loss rate with and without probe mode",
    shows="loss rate vs number of long flows into one port, pFabric with and without probe mode",
    schemes=("pfabric",),
    points=partial(preset_points, PRESET),
    plot=plot,
    checks=partial(preset_checks, PRESET),
    table=partial(preset_rows, PRESET),
    published=PUBLISHED,
    notes=("Same runs and checks as `pfabric run --preset loss-stress`.",),
)
