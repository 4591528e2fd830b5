"""Plots, in the paper's layout, with units on every axis. matplotlib with the file-only Agg backend.

Every figure is saved through `_save`, which does two things for all of them: a note set with `title_note`
(`pfabric reproduce --quick` sets "quick (N flows per run)") joins the figure's title, in the image and in
the files' Title metadata; and a legend that covers data is moved out of the axes (`fit_legends`).
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from .result import RunResult

__all__ = ["fit_legends", "plot_fct_by_size", "plot_throughput", "title_note"]

# A note every figure saved while it is set carries in its title (see `title_note`).
_TITLE_NOTE: contextvars.ContextVar[str | None] = contextvars.ContextVar("pfabric_title_note", default=None)
_NOTED = "_pfabric_title_noted"  # marks a figure whose title already has the note
_LEGEND_PAD_PT = 4.0  # between an axes' labels and a legend moved below it


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


@contextmanager
def title_note(note: str | None) -> Iterator[None]:
    """While the block runs, every figure saved here carries `note` in its title (None: no note)."""
    token = _TITLE_NOTE.set(note)
    try:
        yield
    finally:
        _TITLE_NOTE.reset(token)


def apply_title_note(fig) -> None:
    """Put the current `title_note` into the figure's title, once: after the figure's suptitle, else after
    the title of its only axes, else as a suptitle of its own. Call it before laying the figure out."""
    note = _TITLE_NOTE.get()
    if not note or getattr(fig, _NOTED, False):
        return
    setattr(fig, _NOTED, True)
    suptitle = fig.get_suptitle()
    axes = [ax for ax in fig.axes if ax.get_visible()]
    if suptitle:
        fig.suptitle(f"{suptitle}, {note}")
    elif len(axes) == 1:
        title = axes[0].get_title()
        axes[0].set_title(f"{title}\n{note}" if title else note)
    else:
        fig.suptitle(note)


def figure_title(fig) -> str:
    """The figure's title as shown: its suptitle, else the title of its first axes that has one."""
    if fig.get_suptitle():
        return fig.get_suptitle()
    return next((ax.get_title() for ax in fig.axes if ax.get_visible() and ax.get_title()), "")


def _save(fig, path: Path) -> list[Path]:
    """Save as PNG and PDF next to each other, title noted and legends off the data; return both paths."""
    apply_title_note(fig)
    fit_legends(fig)
    metadata = {"Title": figure_title(fig).replace("\n", ", ")}
    paths = [path.with_suffix(".png"), path.with_suffix(".pdf")]
    for p in paths:
        fig.savefig(p, dpi=150, bbox_inches="tight", metadata=metadata)
    return paths


# --- legends that never cover data ----------------------------------------------------------------------------


def fit_legends(fig, relayout: bool = False) -> None:
    """Move the legends that cover data (a line, a marker, a bar, a band) out of their axes.

    A legend that covers nothing stays (matplotlib's "best" place often is an empty corner). One that
    covers data moves below its axes, clear of their tick labels and axis label, in as many columns as the
    panel's width holds; when every panel's legend lists the same entries, they all become one legend under
    the whole figure. `relayout`: lay the figure out again after (`tight_layout`), for figures laid out
    that way.
    """
    legends = [(ax, ax.get_legend()) for ax in fig.axes if ax.get_visible() and ax.get_legend() is not None]
    if not legends:
        return
    fig.canvas.draw()  # a "best" legend takes its place when drawn
    renderer = fig.canvas.get_renderer()
    covers = [_covers_data(ax, legend, renderer) for ax, legend in legends]
    if not any(covers):
        return
    entries = [_entries(ax, legend) for ax, legend in legends]
    if len(legends) > 1 and len({tuple(names) for _, names, _ in entries}) == 1:
        for _, legend in legends:
            legend.remove()
        if relayout:
            fig.tight_layout()
        _legend_below_figure(fig, *entries[0], renderer)
        return
    for (ax, legend), entry, cover in zip(legends, entries, covers, strict=True):
        if cover:
            legend.remove()
            _legend_below_axes(ax, *entry, renderer)
    if relayout:
        fig.tight_layout()


def _entries(ax, legend) -> tuple[list, list[str], dict[str, Any]]:
    """A legend's handles, labels and look, to draw it again elsewhere."""
    names = [text.get_text() for text in legend.get_texts()]
    handles, labels = ax.get_legend_handles_labels()
    if labels != names:  # made from handles of its own: draw its own proxies again
        handles = list(legend.legend_handles)
    title = legend.get_title().get_text()
    options = {
        "prop": legend.prop,
        "markerscale": legend.markerscale,
        "numpoints": legend.numpoints,
        "scatterpoints": legend.scatterpoints,
        "frameon": legend.get_frame_on(),
        "title": title or None,
    }
    return handles, names, options


def _covers_data(ax, legend, renderer) -> bool:
    """Whether the legend's box covers any line, marker, bar or filled area drawn in `ax`."""
    from matplotlib.collections import PathCollection

    box = legend.get_window_extent(renderer)
    for line in ax.get_lines():
        if not line.get_visible():
            continue
        path = line.get_transform().transform_path(line.get_path())
        if line.get_linestyle() not in ("None", "none", "", " ") and path.intersects_bbox(box, filled=False):
            return True
        if line.get_marker() not in (None, "None", "none", "", " ") and _any_inside(
            path.vertices, box, line.get_markersize() * renderer.points_to_pixels(1.0) / 2
        ):
            return True
    for collection in ax.collections:
        if not collection.get_visible():
            continue
        if isinstance(collection, PathCollection):  # a scatter: markers at its offsets
            points = collection.get_offset_transform().transform(collection.get_offsets())
            if _any_inside(points, box, 0.0):
                return True
            continue
        transform = collection.get_transform()
        if any(transform.transform_path(p).intersects_bbox(box, filled=True) for p in collection.get_paths()):
            return True
    return any(
        patch.get_visible() and patch.get_window_extent(renderer).overlaps(box) for patch in ax.patches
    )


def _any_inside(points: np.ndarray, box, pad: float) -> bool:
    points = np.asarray(points, dtype=float).reshape(-1, 2)
    x, y = points[:, 0], points[:, 1]
    inside = (x >= box.x0 - pad) & (x <= box.x1 + pad) & (y >= box.y0 - pad) & (y <= box.y1 + pad)
    return bool(inside.any())


def _legend_below_axes(ax, handles, names, options, renderer) -> None:
    """A legend under `ax`, below its tick labels and axis label, as many columns as its width holds."""
    from matplotlib.transforms import offset_copy

    fig = ax.figure
    drop_px = max(ax.bbox.y0 - ax.get_tightbbox(renderer).y0, 0.0)
    drop_pt = drop_px * 72 / fig.dpi + _LEGEND_PAD_PT
    anchor = offset_copy(ax.transAxes, fig=fig, y=-drop_pt, units="points")

    def place(ncols: int):
        return ax.legend(
            _row_major(handles, ncols),
            _row_major(names, ncols),
            loc="upper center",
            bbox_to_anchor=(0.5, 0.0),
            bbox_transform=anchor,
            ncols=ncols,
            **options,
        )

    _widest_fit(place, len(names), ax.bbox.width, renderer)


def _legend_below_figure(fig, handles, names, options, renderer) -> None:
    """One legend under every panel of the figure, as many columns as the figure's width holds."""
    bottom_px = min(ax.get_tightbbox(renderer).y0 for ax in fig.axes if ax.get_visible())
    bottom = bottom_px / fig.bbox.height - _LEGEND_PAD_PT * fig.dpi / 72 / fig.bbox.height

    def place(ncols: int):
        return fig.legend(
            _row_major(handles, ncols),
            _row_major(names, ncols),
            loc="upper center",
            bbox_to_anchor=(0.5, bottom),
            ncols=ncols,
            **options,
        )

    _widest_fit(place, len(names), fig.bbox.width, renderer)


def _row_major(items: list, ncols: int) -> list:
    """Items reordered so that a legend of `ncols` columns (which matplotlib fills column by column, the
    longer columns first) reads row by row in the original order."""
    items = list(items)
    rows, longer = -(-len(items) // ncols), len(items) % ncols or ncols
    return [items[i * ncols + j] for j in range(ncols) for i in range(rows if j < longer else rows - 1)]


def _widest_fit(place, count: int, width_px: float, renderer) -> None:
    """Place a legend with as many columns as fit in `width_px` (one entry per column at most)."""
    for ncols in range(count, 0, -1):
        legend = place(ncols)
        if ncols == 1 or legend.get_window_extent(renderer).width <= width_px:
            return
        legend.remove()


def plot_fct_by_size(results: dict[str, RunResult], path: Path, title: str = "") -> list[Path]:
    """Mean normalized FCT per flow-size bin, and the p99 of the smallest bin, one bar per scheme."""
    plt = _pyplot()
    names = list(results)
    bins = list(next(iter(results.values())).summary["bins"])
    fig, (ax_mean, ax_p99) = plt.subplots(1, 2, figsize=(10, 3.6), gridspec_kw={"width_ratios": [3, 1]})
    width = 0.8 / len(names)
    for i, name in enumerate(names):
        stats = results[name].summary["bins"]
        means = [stats[b]["mean_normalized_fct"] or 0.0 for b in bins]
        ax_mean.bar([x + i * width for x in range(len(bins))], means, width, label=name)
        ax_p99.bar([i], [stats[bins[0]]["p99_normalized_fct"] or 0.0], 0.6, label=name)
    ax_mean.set_xticks([x + width * (len(names) - 1) / 2 for x in range(len(bins))], bins)
    ax_mean.set_xlabel("flow size")
    ax_mean.set_ylabel("mean normalized FCT (FCT / ideal)")
    ax_mean.axhline(1.0, color="grey", lw=0.8, ls=":")
    ax_mean.legend()
    ax_p99.set_xticks(range(len(names)), names)
    ax_p99.set_ylabel(f"p99 normalized FCT, {bins[0]}")
    if title:
        fig.suptitle(title)
    paths = _save(fig, path)
    plt.close(fig)
    return paths


def plot_throughput(result: RunResult, path: Path, title: str = "") -> list[Path]:
    """Each tracked flow's throughput over time (the paper's Figure 5a)."""
    plt, fig, ax = _throughput_axes(result)
    ax.legend(loc="upper right", fontsize="small")
    if title:
        ax.set_title(title)
    paths = _save(fig, path)
    plt.close(fig)
    return paths


def _throughput_axes(result: RunResult, first_flow: int = 0):
    """(pyplot, figure, axes) with each tracked flow's throughput over time, the flows numbered from
    `first_flow`, axes labelled, y up to 1.1 x the host link rate; the caller adds a legend and saves."""
    plt = _pyplot()
    tp = result.throughput
    fig, ax = plt.subplots(figsize=(7, 3.6))
    flows = tp.column("flow_id").to_numpy()
    times = tp.column("time_s").to_numpy() * 1e3
    gbps = tp.column("throughput_gbps").to_numpy()
    for flow in sorted(set(flows.tolist())):
        mask = flows == flow
        ax.plot(times[mask], gbps[mask], label=f"flow {flow + first_flow}")
    ax.set_xlabel("time (ms)")
    ax.set_ylabel("throughput (Gbps)")
    ax.set_ylim(0, result.scenario.topology.host_rate_gbps * 1.1)
    return plt, fig, ax
