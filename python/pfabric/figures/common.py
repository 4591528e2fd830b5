"""What the figure modules share: the paper's schemes and workloads by name, FCT-vs-load sweeps, metrics of
a run, and the plotting of lines with the paper's values as reference marks.

Why here: the FCT figures (pFabric 7, 8, 9, 14, 17; AIFO 7, 14) differ only in which schemes, workloads and
metrics they show. Building their scenarios in one place also makes equal runs equal scenarios, so the
store shares them between figures (fig. 8 reuses fig. 7's runs without running anything).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .._native import scheme_names, scheme_parameters
from ..errors import ScenarioError
from ..metrics import SIZE_BINS, normalized_fct
from ..plots import _pyplot, _save, apply_title_note, fit_legends
from ..presets import Check, _fan_in, best_fan_in_finish_s, request_completion_s
from ..result import RunResult
from ..scenario import Scenario

Done = list[tuple[dict[str, Any], RunResult]]

# TCP's and DCTCP's largest window: the switch buffer less one packet (225 KB = 150 packets of 1500 bytes), as
# the authors' ns-2 scripts set it (`Agent/TCP set maxcwnd_ [expr $queueSize - 1]` in spine_empirical.tcl,
# kept by every pFabric-derived script, e.g. HKUST-SING/PIAS-NS2). Without it a lone large TCP flow overruns
# its own NIC's 150-packet buffer, times out spuriously (RTT with a full buffer ~195 us against a 200 us
# minimum RTO) and, at low data-mining load, leaves a few 1-packet flows behind 6-7 back-to-back timeouts
# (12.8-25.4 ms, a normalized FCT of 1,000-2,500 each): the quick data-mining TCP mean fell with load
# (6.64, 6.23, 2.69 at 0.2/0.5/0.8), 4.7 of the 6.64 from 2 of 1,000 flows. With the cap: 2.34 -> 2.78.
TCP_MAX_CWND_PKTS = 149

# The paper's scheme labels and how each runs here (unset parameters keep the paper's values, DESIGN §4).
# "pFabric" is written exactly as fig. 7 writes it, so that every figure using it shares its runs.
SCHEMES: dict[str, dict[str, Any]] = {
    "TCP": {"name": "tcp", "max_cwnd_pkts": TCP_MAX_CWND_PKTS},
    "DCTCP": {"name": "dctcp", "max_cwnd_pkts": TCP_MAX_CWND_PKTS},
    "pFabric": {"name": "pfabric"},
    "PDQ": {"name": "pdq"},
    "Ideal": {"name": "ideal"},
    "pFabric-EDF": {"name": "pfabric", "priority": "deadline"},
    "pFabric-BytesSent": {"name": "pfabric", "priority": "bytes-sent"},
    "pFabric-FlowSize": {"name": "pfabric", "priority": "flow-size"},
    # The schemes that followed pFabric, with their own papers' parameters (`pfabric schemes`).
    "PIAS": {"name": "pias"},
    # PIAS's own DCTCP baseline: its authors' scripts run DCTCP as PIAS with one queue (`prio_num_arr=[1]` in
    # HKUST-SING/PIAS-NS2 scripts/run_lldct_dctcp.py), so it keeps PIAS's hosts (70-packet initial window, 2 ms
    # minimum RTO), buffer and per-port ECN marking: the pias bundle over a drop-tail FIFO.
    "DCTCP (PIAS set-up)": {"name": "pias", "switch": "droptail"},
    "pHost": {"name": "phost"},
    "Homa": {"name": "homa"},
    "NDP": {"name": "ndp"},
}
# Line styles per label, stable across figures.
STYLE: dict[str, dict[str, Any]] = {
    "TCP": {"color": "tab:blue", "marker": "s"},
    "DCTCP": {"color": "tab:green", "marker": "^"},
    "pFabric": {"color": "tab:red", "marker": "o"},
    "pFabric-RemainingFlowSize": {"color": "tab:red", "marker": "o"},
    "Ideal": {"color": "black", "marker": "x", "linestyle": "--"},
    "PDQ": {"color": "tab:purple", "marker": "d"},
    "pFabric-EDF": {"color": "tab:orange", "marker": "v"},
    "pFabric-BytesSent": {"color": "tab:brown", "marker": "v"},
    "pFabric-FlowSize": {"color": "tab:pink", "marker": "^"},
    "TCP-DropTail": {"color": "tab:blue", "marker": "s"},
    "pFabric-10G-constants": {"color": "tab:orange", "marker": "o", "linestyle": ":"},
    "PRIO-linear": {"color": "tab:olive", "marker": "P"},
    "PRIO-log": {"color": "tab:cyan", "marker": "X"},
    "PIAS": {"color": "tab:gray", "marker": "D"},
    "DCTCP (PIAS set-up)": {"color": "tab:green", "marker": "^", "linestyle": ":"},
    "pHost": {"color": "tab:pink", "marker": "*"},
    "Homa": {"color": "goldenrod", "marker": "h"},
    "NDP": {"color": "teal", "marker": "p"},
}

WORKLOADS = {"web search": "websearch", "data mining": "datamining"}
LOADS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
LOADS_QUICK = (0.2, 0.5, 0.8)
# Flows per run. Paper scale is sized to finish fig. 7 (2 workloads x 8 loads x 3 packet-level schemes) in
# well under an hour on 2 cores (measured: 20k web-search flows ~20-25 s of CPU per run, 20k data-mining
# flows ~65-90 s); quick keeps the shape in seconds per run.
FLOWS = {"websearch": 20_000, "datamining": 20_000}
FLOWS_QUICK = {"websearch": 2_000, "datamining": 1_000}
BDP_BYTES = 18_000  # the paper's bandwidth-delay product (10 Gbps x 14.6 us, rounded as the paper does)
RTT_US = 14.6

SMALL, MEDIUM, LARGE = (label for label, _, _ in SIZE_BINS)


def available(scheme: dict[str, Any]) -> bool:
    """Whether the core runs `scheme` with these parameters. Figures skip what it lacks (never a stand-in)
    and say so (`Figure.missing`); without the compiled core every known name passes."""
    name = scheme["name"]
    if name not in scheme_names():
        return False
    try:
        accepted = scheme_parameters(name, scheme.get("host"), scheme.get("switch"))
    except ScenarioError:
        return False  # a pair of parts that cannot run together
    return accepted is None or all(key in accepted for key in scheme if key != "name")


def flows_for(cdf: str, quick: bool) -> int:
    return (FLOWS_QUICK if quick else FLOWS)[cdf]


def poisson(cdf: str, load: float, flows: int, scheme: dict, seed: int = 1, **workload: Any) -> Scenario:
    """The paper's fabric (every topology default) under a Poisson workload."""
    return Scenario.from_dict(
        {
            "seed": seed,
            "workload": {"kind": "poisson", "cdf": cdf, "load": load, "flows": flows, **workload},
            "scheme": dict(scheme),
        }
    )


def fct_points(
    quick: bool,
    schemes: Iterable[str],
    workloads: Iterable[str] = WORKLOADS,
    loads: Sequence[float] | None = None,
) -> list[tuple[dict, Scenario]]:
    """Every (workload, load, scheme) of an FCT-vs-load figure, labelled with the paper's names."""
    loads = loads or (LOADS_QUICK if quick else LOADS)
    return [
        (
            {"workload": name, "load": load, "scheme": label},
            poisson(WORKLOADS[name], load, flows_for(WORKLOADS[name], quick), SCHEMES[label]),
        )
        for name in workloads
        for load in loads
        for label in schemes
        if available(SCHEMES[label])
    ]


# --- metrics of a run ---------------------------------------------------------------------------------------


def mean_nfct(result: RunResult) -> float:
    """Mean normalized FCT over all measured flows that finished (NaN if none)."""
    value = result.summary.get("mean_normalized_fct")
    return float("nan") if value is None else float(value)


def bin_stat(result: RunResult, label: str, stat: str = "mean_normalized_fct") -> float:
    """A statistic of one size bin from the run's summary (NaN where the bin is empty)."""
    value = result.summary["bins"][label][stat]
    return float("nan") if value is None else float(value)


def flows_stat(
    result: RunResult,
    select: Callable[[Any], np.ndarray] | None = None,
    stat: str = "mean",
    column: str = "slowdown",
) -> float:
    """Mean or p99 of a flow column over the finished flows that `select(flows)` keeps (NaN if none).

    For what the summary's fixed bins do not cover: AIFO's `< 100 KB` / `>= 1 MB`, flows without deadlines.
    """
    flows = result.flows
    finished = flows.column("finished").to_numpy(zero_copy_only=False)
    mask = finished if select is None else finished & select(flows)
    if column == "slowdown":
        values = normalized_fct(flows)[mask]
    else:
        values = flows.column(column).to_numpy(zero_copy_only=False).astype(float)[mask]
    if len(values) == 0:
        return float("nan")
    return float(np.mean(values)) if stat == "mean" else float(np.percentile(values, 99))


def sizes(flows) -> np.ndarray:
    return flows.column("size_bytes").to_numpy().astype(float)


def unfinished(result: RunResult) -> int:
    return int(result.summary.get("flows_unfinished", 0))


def fct_table(done: Done) -> list[dict]:
    """table.csv of an FCT figure: one `fct_row` per run."""
    return [fct_row(labels, result) for labels, result in done]


def fct_row(labels: dict, result: RunResult) -> dict[str, Any]:
    """A table row for an FCT run: its labels, the overall mean and each bin's mean and p99."""
    row = dict(labels)
    row["mean_normalized_fct"] = _round(mean_nfct(result))
    for label, short in ((SMALL, "small"), (MEDIUM, "medium"), (LARGE, "large")):
        row[f"{short}_mean"] = _round(bin_stat(result, label))
        row[f"{short}_p99"] = _round(bin_stat(result, label, "p99_normalized_fct"))
    row["flows"] = result.summary.get("flows_total")
    row["unfinished"] = unfinished(result)
    return row


def _round(value: float, digits: int = 4) -> float | None:
    return None if math.isnan(value) else round(value, digits)  # NaN -> None (empty in CSV)


# --- selecting from a sweep ---------------------------------------------------------------------------------


def select(done: Done, **labels: Any) -> Done:
    """The runs whose labels include every given `label=value`."""
    return [(l, r) for l, r in done if all(l.get(k) == v for k, v in labels.items())]


def series(done: Done, x: str, metric: Callable[[RunResult], float], **labels: Any) -> tuple[list, list]:
    """(xs, ys) over the runs matching `labels`, sorted by the label `x`."""
    return sorted_xy((l[x], metric(r)) for l, r in select(done, **labels))


def sorted_xy(pairs: Iterable[tuple]) -> tuple[list, list]:
    """(xs, ys) of (x, y) pairs, sorted by x."""
    ordered = sorted(pairs)
    return [p[0] for p in ordered], [p[1] for p in ordered]


def values_of(done: Done, key: str) -> list:
    """The distinct values of a label, in first-seen order."""
    return list(dict.fromkeys(l[key] for l, _ in done if key in l))


# --- checks -------------------------------------------------------------------------------------------------


def pct(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value * 100:.1f}%"


def always_below(
    done: Done, metric: Callable[[RunResult], float], better: str, others: Sequence[str], what: str, **labels
) -> Check:
    """Check: scheme `better` has a lower `metric` than every one of `others` at every load."""
    xs, ours = series(done, "load", metric, scheme=better, **labels)
    worst = []
    for other in others:
        _, theirs = series(done, "load", metric, scheme=other, **labels)
        worst.append(min((t / o if o else float("inf")) for o, t in zip(ours, theirs, strict=True)))
    ratio = min(worst) if worst else float("nan")
    where = ", ".join(str(v) for v in labels.values())
    return Check(
        f"{where}: {better} has the lowest {what} at every load (vs {', '.join(others)})",
        f"others / {better} >= {ratio:.2f} at {len(xs)} loads",
        "lowest at every load",
        bool(xs) and ratio > 1.0,
    )


# --- plotting -----------------------------------------------------------------------------------------------


def line_panels(
    out_dir: Path,
    stem: str,
    panels: Sequence[dict[str, Any]],
    title: str = "",
    ncols: int | None = None,
) -> list[Path]:
    """One row of panels, each a set of lines; saved as `<stem>.png` and `<stem>.pdf`.

    A panel is `{"title", "xlabel", "ylabel", "lines": [(label, xs, ys)], "marks": [(label, xs, ys)],
    "band": (label, xs, lo, hi), "ylim", "logy", "logx", "xticks"}`; marks are the paper's published values,
    drawn as hollow black stars so they read as references, not as runs.
    """
    plt = _pyplot()
    ncols = ncols or len(panels)
    nrows = -(-len(panels) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.2 * ncols, 3.4 * nrows), squeeze=False)
    for ax, panel in zip(axes.flat, panels, strict=False):
        for label, xs, ys in panel.get("lines", []):
            style = {"marker": "o", **STYLE.get(label, {})}
            ax.plot(xs, ys, label=label, markersize=4, **style)
        if panel.get("band"):
            label, xs, lo, hi = panel["band"]
            ax.fill_between(xs, lo, hi, color="tab:red", alpha=0.12, label=label)
        for label, xs, ys in panel.get("marks", []):
            ax.plot(
                xs,
                ys,
                linestyle="none",
                marker="*",
                markersize=11,
                markerfacecolor="none",
                markeredgecolor="black",
                label=label,
            )
        ax.set_title(panel.get("title", ""), fontsize="medium")
        ax.set_xlabel(panel.get("xlabel", ""))
        ax.set_ylabel(panel.get("ylabel", ""))
        if panel.get("logy"):
            ax.set_yscale("log")
        if panel.get("logx"):
            ax.set_xscale("log")
        if panel.get("ylim"):
            ax.set_ylim(*panel["ylim"])
        if panel.get("xticks") is not None:
            ax.set_xticks(panel["xticks"])
        ax.grid(True, alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize="x-small")
    for ax in list(axes.flat)[len(panels) :]:
        ax.set_visible(False)
    if title:
        fig.suptitle(title)
    return save_figure(fig, out_dir, stem)


def paper_marks(label: str, published: dict) -> tuple[str, list, list]:
    """A panel's `marks` entry for the paper's values, from a published `{x: y}`."""
    return (label, list(published), list(published.values()))


def run_panels(
    done: Done, out_dir: Path, stem: str, title: str, ylabel: str, draw: Callable, width: float = 3.6
) -> list[Path]:
    """One panel per run side by side, titled by its scheme label, sharing the y axis; `draw(ax, result)`
    fills a panel. Saved as `<stem>.png` and `<stem>.pdf`."""
    plt = _pyplot()
    fig, axes = plt.subplots(1, len(done), figsize=(width * len(done), 3.4), squeeze=False, sharey=True)
    for ax, (labels, result) in zip(axes[0], done, strict=True):
        draw(ax, result)
        ax.set_title(labels["scheme"], fontsize="medium")
    axes[0][0].set_ylabel(ylabel)
    fig.suptitle(title)
    return save_figure(fig, out_dir, stem)


def save_figure(fig, out_dir: Path, stem: str, tight: bool = True) -> list[Path]:
    """Lay the figure out (unless `tight=False`), save it as `<stem>.png` and `<stem>.pdf` in `out_dir`,
    close it, and return both paths. The title takes the current `plots.title_note` (quick runs say so)
    and legends that would cover data move out of the axes (`plots.fit_legends`)."""
    apply_title_note(fig)
    if tight:
        fig.tight_layout()
    fit_legends(fig, relayout=tight)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = _save(fig, out_dir / stem)
    _pyplot().close(fig)
    return paths


def scheme_lines(
    done: Done,
    metric: Callable[[RunResult], float],
    schemes: Sequence[str],
    *,
    legend: dict[str, str] | None = None,
    **labels,
) -> list:
    """One line per scheme label that ran, over load, for the runs matching `labels`; `legend` renames some."""
    lines = []
    for scheme in schemes:
        xs, ys = series(done, "load", metric, scheme=scheme, **labels)
        if xs:
            lines.append(((legend or {}).get(scheme, scheme), xs, ys))
    return lines


NFCT = "normalized FCT (FCT / ideal FCT)"
LOAD = "load (fraction of host link capacity)"


# --- run length ---------------------------------------------------------------------------------------------

# At 80% load the backlog of large web-search flows builds for a long time: the Ideal scheduler's mean
# normalized FCT is 1.22 with 2,000 flows, 1.40 with 20,000 and 1.51 with 100,000 (its (10MB,inf) mean 2.2, 5.0,
# 8.2). What a run measures there depends on how many flows it has, and the paper does not say how many its
# runs had. Figures 8, 13 and 17 add longer runs of web search at that load (these flows per run, beyond
# Figure 7's) and read the longest; the sweep shows how their numbers move with the length.
RUN_LENGTH_LOAD = 0.8
RUN_LENGTHS = {True: (5_000, 20_000), False: (40_000, 100_000)}


def run_length_points(
    quick: bool, schemes: Iterable[str] | dict[str, dict[str, Any]]
) -> list[tuple[dict, Scenario]]:
    """Web search at load 0.8 with more flows per run than Figure 7's, one run per scheme and length.

    `schemes`: labels of `SCHEMES`, or a mapping of labels to schemes. Labelled `{"sweep": "run length",
    "scheme", "load", "flows"}` (no `workload` label, so that a figure's per-workload lines leave them out);
    the scenarios are the figures' own but for the flow count, so the 20,000-flow runs are their paper-scale
    runs, shared through the store.
    """
    if isinstance(schemes, dict):
        chosen = schemes
    else:
        chosen = {label: SCHEMES[label] for label in schemes if available(SCHEMES[label])}
    return [
        (
            {"sweep": "run length", "scheme": label, "load": RUN_LENGTH_LOAD, "flows": n},
            poisson("websearch", RUN_LENGTH_LOAD, n, scheme),
        )
        for n in RUN_LENGTHS[quick]
        for label, scheme in chosen.items()
    ]


def by_run_length(done: Done, metric: Callable[[RunResult], float], scheme: str) -> dict[int, float]:
    """`metric` of `scheme`'s web-search runs at load 0.8, by flows per run: Figure 7's run and the sweep's."""
    out = {}
    for labels, result in done:
        if labels.get("scheme") != scheme or labels.get("load") != RUN_LENGTH_LOAD:
            continue
        if labels.get("sweep") == "run length" or labels.get("workload") == "web search":
            out[int(result.summary["flows_total"])] = metric(result)
    return dict(sorted(out.items()))


# The pFabric paper's incast (its Fig. 6): one request of 100 MB striped over N senders to one host, at once,
# on its fabric. pHost's, Homa's and NDP's figures run it.
PFABRIC_INCAST_SENDERS = (5, 20, 50)
PFABRIC_INCAST_BYTES = 100_000_000


def pfabric_incast_scenario(scheme: str, senders: int) -> Scenario:
    """The pFabric paper's incast over `senders` senders, for host scheme `scheme`."""
    return Scenario.from_dict(_fan_in(senders, scheme={"name": scheme}, total_bytes=PFABRIC_INCAST_BYTES))


def over_best(result: RunResult) -> float:
    """How far a fan-in's request completion is above the best possible (0.01: 1% over)."""
    return request_completion_s(result) / best_fan_in_finish_s(result) - 1
