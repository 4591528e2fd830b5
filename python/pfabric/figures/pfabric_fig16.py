"""pFabric Figure 16: the model's average normalized FCT with two priority queues vs the size threshold.

No simulation: `analysis.thresholds` (the paper's section 6.1 M/G/1 model, FCT_n(t)) for the web search
distribution at loads 10% to 80%, with the optimal threshold of each load marked. Paper (section 6.1): the
optimum moves from about 880 KB at 10% load to about 1740 KB at 80%. Our model gives 857 KB at 10% and
1,371 KB at 80%.

The model is checked against the paper's equation first (`analysis.thresholds`: the four terms of
FCT_n(t), each queue an M/G/1 FIFO by Pollaczek-Khintchine, the low queue drained at 1 - rho B_S(t)), and
the experiment behind the 80% check is run here, not asserted: (1) a sweep of the load from 80% to 95%
finds the load at which the same model puts the optimum at 1,740 KB; (2) every other reading we could give
the paper's set-up is evaluated at 80% load: the load counted on wire bytes (1500 per 1460 payload bytes)
instead of payload, sizes not rounded to packets, the CDF read as steps (as netbench and melren/pfabric
sample it), the two other published digitisations of the web search CDF (HPCC's byte CDF, Homa's
400-point ns-2 table), and the two textbook priority models. None of them reaches 1,740 KB at 80%; the
sweep says how far off the load axis would have to be.
"""

from __future__ import annotations

import itertools
from functools import cache
from pathlib import Path

import numpy as np

from ..analysis import thresholds as model
from ..plots import _pyplot
from ..presets import Check
from ..workloads import load_cdf
from .common import Done, save_figure
from .figure import Figure

LOADS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
SWEEP = tuple(round(x, 3) for x in np.arange(0.80, 0.9501, 0.005))  # the load-axis experiment
PUBLISHED = {"optimal_threshold_kb": {0.1: 880, 0.8: 1740}}
# The paper says "approximately 880-1740 KB": read as within 10% (our allowance for "approximately").
TOLERANCE = 0.10
WIRE_PER_PAYLOAD = 1500 / 1460  # a full packet's wire bytes per payload byte


@cache
def _sizes(name: str = "websearch", interpolation: str | None = None, packets: bool = True):
    cdf = load_cdf(name, interpolation=interpolation)
    return model.SizeDistribution.from_cdf(cdf, model.MSS_BYTES if packets else None)


def optimum(sizes, load: float, kind: str = "paper") -> float:
    """The two-queue optimal threshold (bytes): exact over every flow size when sizes are whole packets."""
    if kind == "paper" and not len(sizes.seg_prob):
        return float(sizes.atom_bytes[np.argmin(model.fct_n_two_queues(sizes, load, sizes.atom_bytes))])
    return float(model.optimal_thresholds(sizes, load, 2, model=kind)[0][0])


def _model():
    """Per load: (threshold grid in bytes, FCT_n over it, optimal threshold, FCT_n there)."""
    sizes = _sizes()
    grid = np.geomspace(model.MSS_BYTES, 29.2e6, 600)
    out = {}
    for load in LOADS:
        best, best_fct = model.optimal_thresholds(sizes, load, 2)
        out[load] = (grid, model.fct_curve(sizes, load, grid), float(best[0]), float(best_fct))
    return out


def sweep() -> dict[float, float]:
    """The experiment on the load axis: the model's optimal threshold (bytes) at loads 80% to 95%."""
    sizes = _sizes()
    return {load: optimum(sizes, load) for load in SWEEP}


def load_reaching(target_bytes: float, swept: dict[float, float]) -> float:
    """The load at which the swept optimum reaches `target_bytes` (linear between sweep points; nan if never)."""
    loads = sorted(swept)
    for a, b in itertools.pairwise(loads):
        lo, hi = swept[a], swept[b]
        if lo <= target_bytes <= hi:
            return a if hi == lo else a + (b - a) * (target_bytes - lo) / (hi - lo)
    return float("nan")


def readings(load: float = 0.8) -> dict[str, float]:
    """Other readings of the paper's set-up, each the optimal threshold (bytes) it gives at `load`."""
    return {
        "ours (payload load, whole packets)": optimum(_sizes(), load),
        "load counted on wire bytes": optimum(_sizes(), load * WIRE_PER_PAYLOAD),
        "sizes not rounded to packets": optimum(_sizes(packets=False), load),
        "CDF read as steps": optimum(_sizes(interpolation="step"), load),
        "HPCC byte CDF": optimum(_sizes("websearch_hpcc_bytes"), load),
        "Homa 400-point CDF": optimum(_sizes("websearch_homa_ns2_bytes"), load),
        "textbook preemptive priority": optimum(_sizes(), load, "preemptive"),
        "textbook non-preemptive priority": optimum(_sizes(), load, "nonpreemptive"),
    }


def plot(done: Done, out_dir: Path) -> list[Path]:
    plt = _pyplot()
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 4), gridspec_kw={"width_ratios": (1.6, 1)})
    cmap = plt.get_cmap("viridis")
    for i, (load, (grid, curve, best, best_fct)) in enumerate(_model().items()):
        color = cmap(i / (len(LOADS) - 1))
        ax.plot(grid / 1e3, curve, color=color, label=f"load {load:.0%}")
        ax.plot(
            [best / 1e3], [best_fct], "o", color="red", ms=5, label="optimal threshold" if i == 0 else None
        )
    for load, kb in PUBLISHED["optimal_threshold_kb"].items():
        fct = float(model.fct_curve(_sizes(), load, [kb * 1e3])[0])
        ax.plot(
            [kb],
            [fct],
            "*",
            ms=12,
            mfc="none",
            mec="black",
            label="paper's optimum (about)" if load == LOADS[0] else None,
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("threshold t (KB; flows up to t go to the high-priority queue)")
    ax.set_ylabel("FCT_n(t): model's mean normalized FCT")
    ax.set_title("Two priority queues, web search: FCT_n(t) (Figure 16)", fontsize="medium")
    ax.legend(fontsize="x-small", ncol=2)

    swept = sweep()
    figure_loads = {load: best for load, (_, _, best, _) in _model().items()}
    xs = sorted({**figure_loads, **swept})
    ys = [({**figure_loads, **swept})[x] / 1e3 for x in xs]
    bx.plot(xs, ys, "o-", color="tab:red", ms=3, label="model's optimum")
    published = PUBLISHED["optimal_threshold_kb"]
    bx.plot(
        list(published),
        list(published.values()),
        "*",
        ms=12,
        mfc="none",
        mec="black",
        label="paper (about)",
    )
    at = load_reaching(published[0.8] * 1e3, swept)
    if not np.isnan(at):
        bx.axhline(published[0.8], color="gray", lw=0.8, ls=":")
        bx.axvline(at, color="gray", lw=0.8, ls=":", label=f"model reaches {published[0.8]:,} KB at {at:.3f}")
    bx.set_xlabel("load")
    bx.set_ylabel("optimal threshold (KB)")
    bx.set_title("Experiment: the optimum vs load, to 95%", fontsize="medium")
    bx.grid(True, alpha=0.3)
    bx.legend(fontsize="x-small")
    return save_figure(fig, out_dir, "threshold_model")


def checks(done: Done) -> list[Check]:
    results = _model()
    optimum_at = {load: results[load][2] for load in LOADS}
    out = []
    for load, kb in PUBLISHED["optimal_threshold_kb"].items():
        ours = optimum_at[load] / 1e3
        explained = None
        if load == 0.8:
            swept = sweep()
            at = load_reaching(kb * 1e3, swept)
            other = readings(load)
            explained = (
                f"sweep of the same model over loads 0.80-0.95: the optimum reaches {kb:,} KB at load "
                f"{at:.3f} ({swept[0.9] / 1e3:,.0f} KB at 0.90, {swept[0.91] / 1e3:,.0f} KB at 0.91), so the "
                f"paper's 80% point sits where this model puts {at:.0%}; no other reading reaches it at 80%: "
                + ", ".join(f"{name} {value / 1e3:,.0f} KB" for name, value in other.items())
            )
        out.append(
            Check(
                f"optimal threshold at {load:.0%} load near the paper's (within {TOLERANCE:.0%}, our allowance "
                "for 'approximately')",
                f"{ours:,.0f} KB ({(ours / kb - 1) * 100:+.1f}%)",
                f"about {kb:,} KB (section 6.1)",
                abs(ours / kb - 1) <= TOLERANCE,
                explained,
            )
        )
    values = [optimum_at[load] for load in LOADS]
    out.append(
        Check(
            "the optimal threshold grows with the load",
            " -> ".join(f"{v / 1e3:,.0f}" for v in values) + " KB",
            "880 -> 1740 KB",
            all(b >= a for a, b in itertools.pairwise(values)),
        )
    )
    return out


def table(done: Done) -> list[dict]:
    sizes = _sizes()
    rows = [
        {
            "part": "figure",
            "load": load,
            "optimal_threshold_bytes": round(best),
            "fct_n_at_optimum": round(fct, 4),
            "fct_n_one_fifo": round(model.mg1_fifo_fct_n(sizes, load), 4),
        }
        for load, (_, _, best, fct) in _model().items()
    ]
    rows += [
        {"part": "load sweep", "load": load, "optimal_threshold_bytes": round(best)}
        for load, best in sweep().items()
    ]
    rows += [
        {"part": f"reading at 0.8: {name}", "load": 0.8, "optimal_threshold_bytes": round(best)}
        for name, best in readings().items()
    ]
    return rows


FIGURE = Figure(
    name="pfabric-fig16",
    paper="pFabric",
    title="Figure 16: two-queue threshold model",
    shows="the section 6.1 model's FCT_n(t) vs threshold t for web search at loads 10-80%, optimal thresholds "
    "marked; the optimum vs load to 95% (the experiment behind the 80% check)",
    schemes=(),
    plot=plot,
    checks=checks,
    table=table,
    published=PUBLISHED,
    simulated=False,
    notes=(
        "A model, not a simulation: quick and paper scale are the same.",
        "Sizes are rounded up to whole 1460-byte packets, as the simulator samples them.",
        "table.csv also holds the load sweep (0.80-0.95) and the other readings of the set-up at 80% load.",
    ),
)
