"""What every saved figure gets: the quick note in its title, and legends that cover no data."""

from __future__ import annotations

import numpy as np
import pytest
from pfabric.figures import Figure
from pfabric.figures.common import line_panels, mean_nfct
from pfabric.plots import _covers_data, _pyplot, fit_legends, title_note
from pfabric.reproduce import quick_note, reproduce
from pfabric.scenario import Scenario
from PIL import Image

pytest.importorskip("matplotlib")


def covering(fig) -> list[bool]:
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legends = [(ax, ax.get_legend()) for ax in fig.axes if ax.get_legend() is not None]
    return [_covers_data(ax, legend, renderer) for ax, legend in legends] + [
        any(_covers_data(ax, legend, renderer) for ax in fig.axes) for legend in fig.legends
    ]


def test_a_quick_figure_says_so_in_its_title(fake_core, tmp_path):
    def points(quick: bool):
        base = {"topology": {"kind": "star", "hosts": 8}, "scheme": {"name": "tcp"}}
        return [
            ({"load": n / 100, "scheme": "TCP"}, Scenario.from_dict({**base, "workload": {"flows": n}}))
            for n in ((20, 30) if quick else (200, 300))
        ]

    def plot(done, out_dir):
        xs = [labels["load"] for labels, _ in done]
        panel = {"title": "(a)", "lines": [("TCP", xs, [mean_nfct(r) for _, r in done])]}
        return line_panels(out_dir, "lines", [panel], "A figure")

    figure = Figure(name="fake", paper="none", title="fake", shows="lines", points=points, plot=plot)
    made = reproduce(figure, quick=True, store=tmp_path / "store", out=tmp_path / "out", jobs=1)
    png = made.out_dir / "lines.png"
    assert Image.open(png).text["Title"] == "A figure, quick (20-30 flows per run)"
    assert b"quick \\(20-30 flows per run\\)" in (made.out_dir / "lines.pdf").read_bytes()  # PDF escapes ()
    full = reproduce(figure, quick=False, store=tmp_path / "store", out=tmp_path / "full", jobs=1)
    assert Image.open(full.out_dir / "lines.png").text["Title"] == "A figure"


def test_the_quick_note_counts_flows_per_run(fake_core):
    class Result:
        def __init__(self, n: int) -> None:
            self.flows = type("Flows", (), {"num_rows": n})()

    assert quick_note([({}, Result(2000)), ({}, Result(2000))]) == "quick (2,000 flows per run)"
    assert quick_note([({}, Result(2000)), ({}, Result(1000))]) == "quick (1,000-2,000 flows per run)"
    assert quick_note([]) == "quick"


def test_the_note_goes_into_a_single_panels_title(tmp_path):
    from pfabric.figures.common import save_figure

    fig, ax = _pyplot().subplots()
    ax.plot([0, 1], [0, 1])
    ax.set_title("throughput")
    with title_note("quick (5 flows per run)"):
        (png, _) = save_figure(fig, tmp_path, "one")
    assert Image.open(png).text["Title"] == "throughput, quick (5 flows per run)"


def test_a_legend_over_data_moves_below_the_axes_and_one_in_an_empty_corner_stays():
    plt = _pyplot()
    fig, (crowded, sparse) = plt.subplots(1, 2)
    xs = np.linspace(0, 1, 50)
    for k in range(6):  # lines everywhere: no corner is free
        crowded.plot(xs, (xs + k / 6) % 1, label=f"line {k}")
    crowded.legend(loc="upper left")
    sparse.plot(xs, xs, label="diagonal")
    sparse.plot(xs, xs * 0.9, label="below it")
    sparse.legend(loc="upper left")  # the upper left corner is empty
    before = sparse.get_legend()
    assert covering(fig) == [True, False]
    fit_legends(fig, relayout=True)
    assert sparse.get_legend() is before
    assert covering(fig) == [False, False]
    moved = crowded.get_legend()
    box = moved.get_window_extent(fig.canvas.get_renderer())
    assert box.y1 < crowded.get_window_extent().y0  # under the axes
    assert moved._ncols > 1  # spread across the panel's width
    assert [t.get_text() for t in moved.get_texts()] == [f"line {k}" for k in (0, 2, 4, 1, 3, 5)]  # by rows
    plt.close(fig)


def test_panels_with_the_same_legend_share_one_under_the_figure():
    plt = _pyplot()
    fig, axes = plt.subplots(1, 2)
    xs = np.linspace(0, 1, 50)
    for ax in axes:
        for k in range(4):
            ax.plot(xs, (xs + k / 4) % 1, label=f"scheme {k}")
        ax.fill_between(xs, 0, 1, alpha=0.1, label="band")
        ax.legend()
    fit_legends(fig, relayout=True)
    assert all(ax.get_legend() is None for ax in axes)
    (legend,) = fig.legends
    assert len(legend.get_texts()) == 5
    box = legend.get_window_extent(fig.canvas.get_renderer())
    assert box.y1 < min(ax.get_window_extent().y0 for ax in axes)
    plt.close(fig)
