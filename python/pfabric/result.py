"""What a run hands back: the per-flow and per-port tables, the core's counters and the summary.

The core returns raw column buffers (`{"flows": {name: (dtype, bytes)}, "ports": ..., "stats": ...}`) so
that no row is ever a Python object; here they become Arrow tables without copying, and the flow table
gains the columns people analyse, in seconds: `start_s`, `finish_s`, `fct_s`, `ideal_fct_s`, `slowdown`
(null where a flow did not finish), and `deadline_met` (null for flows without a deadline). The core's
integer picosecond columns stay, exact.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from . import metrics
from .scenario import Scenario, Trace

__all__ = ["CORE_FLOW_COLUMNS", "RunResult", "columns_to_table"]

PS_PER_S = 1e12
# Flow columns the core must provide for the derived columns and the summary (others pass through).
CORE_FLOW_COLUMNS = ("size_bytes", "start_ps", "finish_ps", "ideal_fct_ps", "finished")


def columns_to_table(columns: dict[str, tuple[str, Any]]) -> pa.Table:
    """Arrow table from `{name: (numpy dtype string, raw bytes)}`; dtype "labels" carries (one byte per row,
    the distinct strings the bytes index), which becomes a string column."""
    arrays = {}
    for name, (dtype, data) in columns.items():
        if dtype == "labels":
            codes, names = data
            indices = pa.array(np.frombuffer(codes, dtype=np.uint8))
            arrays[name] = pa.DictionaryArray.from_arrays(indices, pa.array(list(names), pa.string())).cast(
                pa.string()
            )
        else:
            arrays[name] = pa.array(np.frombuffer(data, dtype=np.dtype(dtype)))
    return pa.table(arrays)


def _seconds(ps: np.ndarray) -> np.ndarray:
    return ps.astype(np.float64) / PS_PER_S


def with_derived_columns(flows: pa.Table) -> pa.Table:
    """The core's flow table plus the columns in seconds, and `finished` as a boolean."""
    missing = [name for name in CORE_FLOW_COLUMNS if name not in flows.column_names]
    if missing:
        raise RuntimeError(
            f"the core's flow table lacks {missing} (has {flows.column_names}); core and Python front end "
            "disagree on the column contract (see pfabric.result.CORE_FLOW_COLUMNS)"
        )
    finished = flows.column("finished").to_numpy().astype(bool)
    start_ps = flows.column("start_ps").to_numpy().astype(np.uint64)
    finish_ps = flows.column("finish_ps").to_numpy().astype(np.uint64)
    # Subtract in integers: exact, and never a wrapped value (unfinished rows are masked to 0 first).
    fct_ps = np.where(finished, finish_ps, start_ps) - start_ps
    unfinished = ~finished
    flows = flows.set_column(flows.column_names.index("finished"), "finished", pa.array(finished))
    derived = {
        "start_s": pa.array(_seconds(start_ps)),
        "finish_s": pa.array(_seconds(finish_ps), mask=unfinished),
        "fct_s": pa.array(_seconds(fct_ps), mask=unfinished),
        "ideal_fct_s": pa.array(_seconds(flows.column("ideal_fct_ps").to_numpy())),
    }
    if "deadline_ps" in flows.column_names:  # absolute time, 0 for a flow without a deadline
        deadline_ps = flows.column("deadline_ps").to_numpy().astype(np.uint64)
        met = finished & (finish_ps <= deadline_ps)
        derived["deadline_met"] = pa.array(met, mask=deadline_ps == 0)
    for name, array in derived.items():
        flows = flows.append_column(name, array)
    return flows.append_column("slowdown", pa.array(metrics.normalized_fct(flows), mask=unfinished))


def with_loss_rate(loss: pa.Table) -> pa.Table:
    """Add `loss_rate` = dropped / offered data packets (null where nothing was offered)."""
    if loss.num_columns == 0:
        return loss
    offered = loss.column("offered_packets").to_numpy().astype(np.float64)
    dropped = loss.column("dropped_packets").to_numpy().astype(np.float64)
    rate = np.divide(dropped, offered, out=np.zeros_like(offered), where=offered > 0)
    # The last bin is open: its upper edge comes from the core as the largest u64; show it as null.
    hi_index = loss.column_names.index("priority_hi_bytes")
    hi = loss.column(hi_index).to_numpy()
    loss = loss.set_column(hi_index, "priority_hi_bytes", pa.array(hi, mask=hi == np.iinfo(np.uint64).max))
    return loss.append_column("loss_rate", pa.array(rate, mask=offered == 0))


def with_rate(samples: pa.Table, interval_s: float | None) -> pa.Table:
    """Add `time_s` (end of each interval) and `throughput_gbps` over the interval."""
    if samples.num_columns == 0 or not interval_s:
        return samples
    time_s = _seconds(samples.column("time_ps").to_numpy())
    gbps = samples.column("delivered_bytes").to_numpy().astype(np.float64) * 8 / interval_s / 1e9
    return samples.append_column("time_s", pa.array(time_s)).append_column("throughput_gbps", pa.array(gbps))


def in_trace_rows(order: np.ndarray, flows: pa.Table, *others: pa.Table) -> tuple[pa.Table, ...]:
    """A trace run's tables with flow ids that follow the trace's rows.

    The core numbers a trace's flows in start order: its flow i is the trace's data row `order[i]`
    (0-based). Here `flow_id` becomes that row index, a `trace_row` column (counted from 1, as errors count
    rows) follows it, and the flow table is sorted by row, so it reads like the file even when the file's
    start times are not sorted. The `flow_id` of the other tables (throughput, arrivals) is mapped alike.
    """
    order = np.asarray(order, dtype=np.int64)
    core_ids = flows.column("flow_id").to_numpy().astype(np.int64)
    rows = order[core_ids]
    index = flows.column_names.index("flow_id")
    flows = flows.set_column(index, "flow_id", pa.array(rows.astype(np.uint64)))
    flows = flows.add_column(index + 1, "trace_row", pa.array((rows + 1).astype(np.uint64)))
    flows = flows.take(pa.array(np.argsort(rows, kind="stable")))
    mapped = []
    for table in others:
        if "flow_id" in table.column_names:
            ids = order[table.column("flow_id").to_numpy().astype(np.int64)]
            index = table.column_names.index("flow_id")
            table = table.set_column(index, "flow_id", pa.array(ids, type=table.schema.field("flow_id").type))
        mapped.append(table)
    return (flows, *mapped)


@dataclass
class RunResult:
    """One finished run: tables, counters, summary, and the scenario that produced them."""

    scenario: Scenario
    flows: pa.Table
    ports: pa.Table
    stats: dict = field(default_factory=dict)
    summary: dict = field(default_factory=dict)
    # Data-packet loss per port tier and priority-number bin (the pFabric paper's Figure 13).
    priority_loss: pa.Table = field(default_factory=pa.table)
    # Bytes delivered per tracked flow per sampling interval (empty unless output.sample_interval_s is set).
    throughput: pa.Table = field(default_factory=pa.table)
    # Every data packet reaching a tracked flow's receiver: time, index, rank (empty unless output.log_arrivals).
    arrivals: pa.Table = field(default_factory=pa.table)

    @classmethod
    def from_core(cls, raw: dict, scenario: Scenario) -> RunResult:
        """Build from what `pfabric._core.run` returns and compute the summary."""
        flows = with_derived_columns(columns_to_table(raw["flows"]))
        ports = columns_to_table(raw.get("ports") or {})
        priority_loss = with_loss_rate(columns_to_table(raw.get("priority_loss") or {}))
        throughput = with_rate(
            columns_to_table(raw.get("throughput") or {}), scenario.output.sample_interval_s
        )
        arrivals = columns_to_table(raw.get("arrivals") or {})
        if isinstance(scenario.workload, Trace):
            flows, throughput, arrivals = in_trace_rows(
                scenario.workload.trace_data.order, flows, throughput, arrivals
            )
        if arrivals.num_columns:
            seconds = _seconds(arrivals.column("time_ps").to_numpy())
            arrivals = arrivals.append_column("time_s", pa.array(seconds))
        out = scenario.output
        summary = metrics.summarize(flows, out.warmup_fraction, out.cooldown_fraction)
        stats = dict(raw.get("stats") or {})
        if (stats.get("target_load") or 0) >= 1:
            summary["warnings"].append(
                f"offered load {stats['target_load']:.2f} >= 1: the fabric is overloaded, queues grow without "
                "bound, and averages over the flows that finished understate what flows see"
            )
        if stats.get("out_of_event_budget"):
            budget = int(stats.get("event_budget") or 0)
            why = "run.max_events" if scenario.run.max_events else "the budget derived from its flows"
            summary["warnings"].append(
                f"stopped after {budget:,} events ({why}) before every flow finished: the run was not "
                "converging (timeouts much shorter than its round trips, say); flows not done are reported "
                "unfinished; set run.max_events higher to go on"
            )
        elif stats.get("cut_short"):
            limit = scenario.run.max_sim_time_s
            summary["warnings"].append(f"stopped at max_sim_time_s = {limit} s before every flow finished")
        if _asks_for_threads(scenario.run.threads) and not stats.get("partitions"):
            # The core falls back to the sequential engine where a scenario needs the whole fabric at one
            # instant (`parallel::partitionable`): say so, since the user asked for the other engine.
            summary["warnings"].append(
                f"run.threads = {scenario.run.threads} has no effect here: this scenario needs the whole fabric "
                "at one instant (the flow-level ideal, PDQ, throughput sampling or arrival logs) or runs NDP with "
                'hosts apart (run.partition = "hosts"), so it ran on the sequential engine (the same results, '
                "on one core)"
            )
        return cls(
            scenario=scenario,
            flows=flows,
            ports=ports,
            stats=stats,
            summary=summary,
            priority_loss=priority_loss,
            throughput=throughput,
            arrivals=arrivals,
        )

    def tables(self) -> dict[str, pa.Table]:
        """Every table of the run by name (the names of their Parquet files, less the suffix)."""
        return {
            "flows": self.flows,
            "ports": self.ports,
            "priority_loss": self.priority_loss,
            "throughput": self.throughput,
            "arrivals": self.arrivals,
        }

    def to_polars(self, table: str = "flows"):
        """A table (flows, ports, priority_loss, throughput) as a polars DataFrame (polars is optional)."""
        try:
            import polars as pl
        except ImportError:
            raise ImportError("RunResult.to_polars needs polars: pip install 'pfabric[polars]'") from None
        return pl.from_arrow(self.tables()[table])

    def summary_document(self) -> dict:
        """What summary.json holds: the summary, the core's counters, the scenario and its hash."""
        from . import __version__

        return _json_safe(
            {
                "pfabric_version": __version__,
                "scenario_hash": self.scenario.canonical_hash(),
                "summary": self.summary,
                "stats": self.stats,
                "scenario": self.scenario.model_dump(mode="json"),
            }
        )

    def write(self, out_dir: str | Path) -> dict[str, Path]:
        """Write each table as Parquet and summary.json (last), each atomically; return their paths.

        Each file appears whole or not at all (temp name in the same folder, then `os.replace`), and
        summary.json is written last, so its presence marks a complete output folder.
        """
        import pyarrow.parquet as pq

        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        paths = {}
        for name, table in self.tables().items():
            if table.num_columns == 0 or (name in ("throughput", "arrivals") and table.num_rows == 0):
                continue
            paths[f"{name}.parquet"] = out / f"{name}.parquet"
            _atomic(paths[f"{name}.parquet"], lambda tmp, t=table: pq.write_table(t, tmp, compression="zstd"))
        paths["summary.json"] = out / "summary.json"
        text = json.dumps(self.summary_document(), indent=2, allow_nan=False) + "\n"
        _atomic(paths["summary.json"], lambda tmp: tmp.write_text(text, encoding="utf-8"))
        return paths


def _asks_for_threads(threads: int | None) -> bool:
    """Whether `run.threads` asks for the partitioned engine: two threads or more (0: every core, where the
    machine has two or more). One thread runs the sequential engine, which gives the same results."""
    if threads == 0:
        return (os.cpu_count() or 1) >= 2
    return threads is not None and threads >= 2


def _atomic(path: Path, write) -> None:
    """Write `path` through `write(tmp)` to a temporary file beside it, then rename: readers never see a
    partial file."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _json_safe(value: Any) -> Any:
    """Plain JSON values: numpy scalars to Python, NaN and infinities to null."""
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if isinstance(value, (np.generic, np.bool_)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
