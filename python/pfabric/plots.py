"""Plots, in the paper's layout, with units on every axis. matplotlib with the file-only Agg backend."""

from __future__ import annotations

from pathlib import Path

from .result import RunResult

__all__ = ["plot_fct_by_size", "plot_throughput"]


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig, path: Path) -> list[Path]:
    """Save as PNG and PDF next to each other; return both paths."""
    paths = [path.with_suffix(".png"), path.with_suffix(".pdf")]
    for p in paths:
        fig.savefig(p, dpi=150, bbox_inches="tight")
    return paths


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
