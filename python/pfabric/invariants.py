"""What every run must satisfy, whatever its scenario.

Checked after every run of the test suite (tests/conftest.py), by the property test over random scenarios
(tests/test_properties.py) and by `pfabric validate`. Each check reads only what a run hands back (the per-flow
and per-port tables and the core's counters), so it holds the engine to its own ledger:

- every finished flow took at least its ideal FCT (slowdown >= 1, exact: both are integer picoseconds);
- every flow that started has its row, finished or marked unfinished, and the summary counts them alike;
- data and control packets are conserved: each one sent was delivered or dropped, never both (sent ==
  delivered + dropped once the network drained; at most that in a run cut short, with packets still out);
- the ports' own counters add up to the run's: transmissions to packet-hops, drops to drops;
- a port's time-averaged queue lies between empty and its deepest;
- each finished flow had every one of its packets delivered at least once;
- bytes are conserved: the payload receivers took in new (`data_bytes_received`, copies left out) holds every
  finished flow's bytes and no more than every flow's.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def violations(result: Any) -> list[str]:
    """Every invariant `result` (a `RunResult`) breaks, one line each; empty when it keeps them all."""
    stats = result.stats
    flows = result.flows
    out: list[str] = []
    n = flows.num_rows
    if n != stats["flows_started"]:
        out.append(f"{n} flow rows for {stats['flows_started']:.0f} flows started")
    finished = flows.column("finished").to_numpy(zero_copy_only=False).astype(bool)
    if finished.sum() != stats["flows_finished"]:
        out.append(f"{finished.sum()} rows finished, the core counted {stats['flows_finished']:.0f}")
    summary = result.summary
    if (
        summary.get("flows_finished") != finished.sum()
        or summary.get("flows_unfinished") != n - finished.sum()
    ):
        out.append("the summary's finished/unfinished counts differ from the flow table's")
    start = flows.column("start_ps").to_numpy(zero_copy_only=False).astype(np.uint64)
    finish = flows.column("finish_ps").to_numpy(zero_copy_only=False)
    ideal = flows.column("ideal_fct_ps").to_numpy(zero_copy_only=False).astype(np.uint64)
    if (ideal == 0).any():
        out.append(f"{int((ideal == 0).sum())} flows with an ideal FCT of 0")
    if finished.any():
        fin = np.asarray(finish[finished], dtype=np.uint64)
        fct = fin - start[finished]
        below = fct < ideal[finished]
        if below.any():
            worst = float((fct[below] / ideal[finished][below]).min())
            ids = flows.column("flow_id").to_numpy()[finished][below][:5].tolist()
            out.append(
                f"{int(below.sum())} finished flows faster than their ideal (lowest slowdown {worst:.6f}, ids {ids})"
            )
    cut = bool(stats.get("cut_short"))
    for kind in ("data", "control"):
        sent, delivered, dropped = (stats[f"{kind}_packets_{x}"] for x in ("sent", "delivered", "dropped"))
        if (delivered + dropped != sent) if not cut else (delivered + dropped > sent):
            out.append(f"{kind} packets: {sent:.0f} sent, {delivered:.0f} delivered + {dropped:.0f} dropped")
    ports = result.ports
    if ports.num_rows:
        col = lambda name: int(ports.column(name).to_numpy().sum())
        if col("tx_packets") != stats["packet_hops"]:
            out.append(
                f"ports sent {col('tx_packets')} packets, the run counted {stats['packet_hops']:.0f} hops"
            )
        if col("drop_data_packets") != stats["data_packets_dropped"]:
            out.append(
                f"ports dropped {col('drop_data_packets')} data packets, the run {stats['data_packets_dropped']:.0f}"
            )
        all_dropped = stats["data_packets_dropped"] + stats["control_packets_dropped"]
        if col("drop_packets") != all_dropped:
            out.append(f"ports dropped {col('drop_packets')} packets, the run {all_dropped:.0f}")
        mean = ports.column("mean_queue_bytes").to_numpy(zero_copy_only=False).astype(float)
        deepest = ports.column("max_queue_bytes").to_numpy(zero_copy_only=False).astype(float)
        # (A relative margin for the average's rounding: it is a float over integer areas.)
        outside = ~((mean >= 0) & (mean <= deepest * (1 + 1e-12)))
        if outside.any():
            i = int(np.argmax(outside))
            out.append(
                f"{int(outside.sum())} ports with a mean queue outside [0, deepest] "
                f"(port {ports.column('port')[i]}: mean {mean[i]:.6g} bytes, deepest {deepest[i]:.0f})"
            )
    if stats["packet_hops"] > 0 and finished.any():
        sizes = flows.column("size_bytes").to_numpy().astype(np.int64)[finished]
        mss = result.scenario.packet.mss_bytes
        needed = int(np.maximum(1, -(-sizes // mss)).sum())
        # Data a receiver refused (it came before the handshake's final ACK) delivered nothing to the flow.
        taken = stats["data_packets_delivered"] - stats.get("data_packets_refused", 0)
        if taken < needed:
            out.append(f"finished flows need {needed} data packets, only {taken:.0f} delivered and taken")
    if "data_bytes_received" in stats:
        sizes = flows.column("size_bytes").to_numpy().astype(np.int64)
        lo, hi, got = int(sizes[finished].sum()), int(sizes.sum()), int(stats["data_bytes_received"])
        if not lo <= got <= hi:
            out.append(
                f"receivers took {got} new payload bytes, outside [{lo}, {hi}] (finished flows, all flows)"
            )
    return out


def check(result: Any) -> None:
    """Raise AssertionError listing every invariant `result` breaks."""
    broken = violations(result)
    if broken:
        raise AssertionError("run broke its invariants:\n  " + "\n  ".join(broken))
