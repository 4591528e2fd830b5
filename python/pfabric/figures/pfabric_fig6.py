"""pFabric Figure 6: incast. A 100 MB request striped across N senders; the request completion time.

Paper: pFabric 81.1 ms at 50 senders (1.4% over the best 80 ms, payload only); DCTCP near the best; TCP
collapses. Runs and checks are the `incast` preset (quick: pFabric only, 5/20/50 senders).
"""

from __future__ import annotations

from pathlib import Path

from ..presets import best_fan_in_finish_s, request_completion_s
from ._preset import preset_figure
from .common import Done, line_panels, paper_marks, series, sorted_xy, values_of

PRESET = "incast"
PUBLISHED = {"pfabric_rct_ms": {50: 81.1}, "best_ms": 80.0}
LABELS = {"pfabric": "pFabric", "dctcp": "DCTCP", "tcp": "TCP"}


def request_completion_ms(result) -> float:
    return request_completion_s(result) * 1e3


def plot(done: Done, out_dir: Path) -> list[Path]:
    lines = [
        (LABELS.get(scheme, scheme), *series(done, "senders", request_completion_ms, scheme=scheme))
        for scheme in values_of(done, "scheme")
    ]
    best = {(l["senders"], best_fan_in_finish_s(r) * 1e3) for l, r in done}
    lines.append(("best possible (with headers)", *sorted_xy(best)))
    panel = {
        "title": "incast: 100 MB request striped across N senders",
        "xlabel": "number of senders",
        "ylabel": "request completion time (ms)",
        "lines": lines,
        "marks": [paper_marks("paper: pFabric 81.1 ms", PUBLISHED["pfabric_rct_ms"])],
        "logy": any(s != "pfabric" for s in values_of(done, "scheme")),
    }
    return line_panels(out_dir, "request_completion", [panel])


FIGURE = preset_figure(
    PRESET,
    name="pfabric-fig6",
    title="Figure 6: incast",
    shows="request completion time vs number of senders for a 100 MB striped request",
    schemes=("pfabric", "dctcp", "tcp"),
    plot=plot,
    published=PUBLISHED,
    notes=(
        "Same runs and checks as `pfabric run --preset incast`; --quick runs pFabric only.",
        "The paper's 80 ms counts payload only; our best possible time counts 40 header bytes per packet.",
    ),
)
