"""The run summary: normalized FCT per size bin, with unfinished flows counted, never hidden.

Definitions (DESIGN section 3), one function each:
- `normalized_fct`: FCT / ideal FCT, the ideal being the flow alone in the idle fabric (computed by the core).
- `size_bin`: (0,100KB], (100KB,10MB], (10MB,inf) on the flow's size in bytes, KB = 1e3 and MB = 1e6 bytes.
- `measured_mask`: warm-up and cool-down leave out flows that start in the first / last fraction of the
  arrival period (first to last start time); the summary says how many.
- `deadlines`: the share of measured flows with a deadline that finished by it.
- `summarize`: statistics over the measured flows that finished, next to the count of those that did not,
  with a warning whenever the averages leave flows out (DESIGN section 5: finished-only averages hide
  overload).

Percentiles use numpy's default (linear interpolation between order statistics). Everything is vectorized:
a run of millions of flows is summarized in milliseconds.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = [
    "SIZE_BINS",
    "deadlines",
    "left_out",
    "measured_mask",
    "normalized_fct",
    "size_bin",
    "summarize",
]

KB = 1e3
MB = 1e6
# (label, sizes above, sizes up to and including); a flow of exactly 100 KB is small.
SIZE_BINS: tuple[tuple[str, float, float], ...] = (
    ("(0,100KB]", 0.0, 100 * KB),
    ("(100KB,10MB]", 100 * KB, 10 * MB),
    ("(10MB,inf)", 10 * MB, np.inf),
)
SMALL = SIZE_BINS[0][0]


def size_bin(size_bytes: np.ndarray) -> np.ndarray:
    """The index into `SIZE_BINS` of each flow size (int8)."""
    edges = np.array([upper for _, _, upper in SIZE_BINS[:-1]])
    return np.searchsorted(edges, np.asarray(size_bytes, dtype=np.float64), side="left").astype(np.int8)


def _floats(table: pa.Table, name: str) -> np.ndarray:
    """A column as float64 with nulls as NaN."""
    column = pc.cast(table.column(name), pa.float64())
    return pc.fill_null(column, np.nan).to_numpy()


def _finished(table: pa.Table) -> np.ndarray:
    return pc.fill_null(pc.cast(table.column("finished"), pa.bool_()), False).to_numpy(zero_copy_only=False)


def normalized_fct(table: pa.Table) -> np.ndarray:
    """FCT over ideal FCT per flow (a.k.a. slowdown); NaN for flows that did not finish."""
    fct = _floats(table, "fct_s")
    ideal = _floats(table, "ideal_fct_s")
    with np.errstate(divide="ignore", invalid="ignore"):
        out = fct / ideal
    out[~_finished(table)] = np.nan
    return out


def left_out(
    start_s: np.ndarray, warmup_fraction: float, cooldown_fraction: float
) -> tuple[np.ndarray, np.ndarray]:
    """Flows starting in the warm-up (first fraction of the arrival period) and in the cool-down (last)."""
    start_s = np.asarray(start_s, dtype=np.float64)
    if len(start_s) == 0:
        return np.zeros(0, dtype=bool), np.zeros(0, dtype=bool)
    first, last = start_s.min(), start_s.max()
    span = last - first
    warm = start_s < first + warmup_fraction * span if warmup_fraction > 0 else np.zeros(len(start_s), bool)
    cool = (
        start_s > last - cooldown_fraction * span if cooldown_fraction > 0 else np.zeros(len(start_s), bool)
    )
    return warm, cool & ~warm


def measured_mask(start_s: np.ndarray, warmup_fraction: float, cooldown_fraction: float) -> np.ndarray:
    """Which flows count in the statistics: those starting outside the warm-up and cool-down fractions."""
    warm, cool = left_out(start_s, warmup_fraction, cooldown_fraction)
    return ~(warm | cool)


def deadlines(table: pa.Table, measured: np.ndarray) -> dict | None:
    """Among measured flows with a deadline, how many finished by it (an unfinished flow missed it)."""
    if "deadline_met" not in table.column_names:
        return None
    column = table.column("deadline_met")
    has = pc.is_valid(column).to_numpy(zero_copy_only=False) & measured
    if not has.any():
        return None
    met = pc.fill_null(column, False).to_numpy(zero_copy_only=False) & has
    return {"flows": int(has.sum()), "met": int(met.sum()), "met_fraction": float(met.sum() / has.sum())}


def _mean(values: np.ndarray) -> float | None:
    return float(values.mean()) if len(values) else None


def _p99(values: np.ndarray) -> float | None:
    return float(np.percentile(values, 99)) if len(values) else None


def summarize(table: pa.Table, warmup_fraction: float = 0.0, cooldown_fraction: float = 0.0) -> dict:
    """The run summary of a per-flow table with columns size_bytes, start_s, fct_s, ideal_fct_s, finished.

    Counts `flows_*` cover the whole run; `bins` and the means cover the measured flows (warm-up and
    cool-down left out), averaging over those that finished and counting those that did not.
    """
    size = _floats(table, "size_bytes")
    start = _floats(table, "start_s")
    fct = _floats(table, "fct_s")
    finished = _finished(table)
    slowdown = normalized_fct(table)
    warm, cool = left_out(start, warmup_fraction, cooldown_fraction)
    measured = ~(warm | cool)
    bins = size_bin(size)

    done = measured & finished
    per_bin = {}
    for index, (label, _, _) in enumerate(SIZE_BINS):
        in_bin = measured & (bins == index)
        ok = in_bin & finished
        per_bin[label] = {
            "flows": int(in_bin.sum()),
            "finished": int(ok.sum()),
            "unfinished": int((in_bin & ~finished).sum()),
            "mean_normalized_fct": _mean(slowdown[ok]),
            "p99_normalized_fct": _p99(slowdown[ok]),
            "mean_fct_s": _mean(fct[ok]),
        }

    summary = {
        "flows_total": len(size),
        "flows_finished": int(finished.sum()),
        "flows_unfinished": int((~finished).sum()),
        "flows_measured": int(measured.sum()),
        "flows_left_out_warmup": int(warm.sum()),
        "flows_left_out_cooldown": int(cool.sum()),
        "warmup_fraction": warmup_fraction,
        "cooldown_fraction": cooldown_fraction,
        "mean_normalized_fct": _mean(slowdown[done]),
        "p99_normalized_fct_small": per_bin[SMALL]["p99_normalized_fct"],
        "unfinished_by_bin": {label: stats["unfinished"] for label, stats in per_bin.items()},
        "bins": per_bin,
        "deadlines": deadlines(table, measured),
    }
    summary["warnings"] = _warnings(summary)
    return summary


def _warnings(summary: dict) -> list[str]:
    warnings = []
    unfinished = sum(summary["unfinished_by_bin"].values())
    if summary["flows_measured"] == 0:
        warnings.append("no flows in the measured window: nothing to average")
    elif unfinished:
        where = ", ".join(f"{n} in {label}" for label, n in summary["unfinished_by_bin"].items() if n)
        warnings.append(
            f"{unfinished} of {summary['flows_measured']} measured flows unfinished ({where}): "
            "averages cover finished flows only"
        )
    return warnings
