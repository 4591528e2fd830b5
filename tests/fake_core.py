"""A stand-in for `pfabric._core` with the same contract (python/pfabric/_core.pyi), for plumbing tests.

It does not simulate: every flow takes twice its ideal time, the last flow never finishes, and a scheme
override `queue_bytes = 1234567` is refused the way the core refuses a scenario (ValueError).
"""

from __future__ import annotations

import json

import numpy as np

calls: list[dict] = []


_TCP = {
    "queue_bytes": 225000,
    "init_cwnd_pkts": 12,
    "max_cwnd_pkts": 10000,
    "min_rto_us": 200.0,
    "init_rto_us": 200.0,
    "max_rto_us": 1000000.0,
    "dupack_threshold": 3,
}
_PFABRIC = {
    "queue_bytes": 36000,
    "init_cwnd_pkts": 12,
    "max_cwnd_pkts": 24,
    "rto_us": 45.0,
    "probe_after_timeouts": 5,
    "priority": "remaining-size",
    "priority_cap_bytes": None,
}
_DEFAULTS = {
    "tcp": _TCP,
    "dctcp": {**_TCP, "ecn_threshold_bytes": 22500, "dctcp_g": 0.0625},
    "pfabric": _PFABRIC,
    "pfabric-linerate": _PFABRIC,
}


def scheme_names() -> list[str]:
    return list(_DEFAULTS)


def scheme_defaults_json(name: str) -> str | None:
    return json.dumps(_DEFAULTS[name]) if name in _DEFAULTS else None


def _columns(**arrays: np.ndarray) -> dict:
    return {name: (array.dtype.str, array.tobytes()) for name, array in arrays.items()}


def run(scenario_json: str, progress=None) -> dict:
    scenario = json.loads(scenario_json)
    calls.append(scenario)
    if scenario["scheme"].get("queue_bytes") == 1_234_567:
        # A refusal only the core makes (Python's checks pass it): stands for any scenario the core refuses.
        raise ValueError("scheme.queue_bytes: 1234567 is not allowed; expected a refusal by the core")
    workload = scenario["workload"]
    if workload["kind"] == "trace":
        sizes = np.asarray(workload["size_bytes"], dtype=np.uint64)
        start_ps = (np.asarray(workload["start_s"]) * 1e12).astype(np.uint64)
    else:
        n = workload["flows"] or 10
        table = np.asarray(workload["cdf"]["size_bytes"])
        sizes = np.maximum(table[np.arange(n) % len(table)], 1).astype(np.uint64)
        start_ps = np.arange(n, dtype=np.uint64) * np.uint64(1_000_000)
    n = len(sizes)
    ideal_ps = (sizes * np.uint64(800)).astype(np.uint64)  # 10 Gbps: 800 ps per byte
    finished = np.ones(n, dtype=np.uint8)
    finished[-1] = 0
    finish_ps = np.where(finished == 1, start_ps + 2 * ideal_ps, np.iinfo(np.uint64).max).astype(np.uint64)
    if progress is not None:
        for done in (0, n // 2, n - 1):
            progress(
                {
                    "flows_finished": done,
                    "flows_started": n,
                    "flows_total": n,
                    "sim_time_ps": int(start_ps[done]),
                    "events": 10 * done,
                }
            )
    deadline_ps = np.zeros(n, dtype=np.uint64)
    if workload["kind"] == "trace" and workload["deadline_s"] is not None:
        relative = np.asarray(workload["deadline_s"], dtype=np.float64)  # 0: no deadline, as in the core
        deadline_ps = np.where(relative > 0, start_ps + (relative * 1e12).astype(np.uint64), 0).astype(
            np.uint64
        )
    return {
        "flows": _columns(
            flow_id=np.arange(n, dtype=np.uint64),
            size_bytes=sizes,
            start_ps=start_ps,
            finish_ps=finish_ps,
            ideal_fct_ps=ideal_ps,
            deadline_ps=deadline_ps,
            finished=finished,
        ),
        "ports": {
            **_columns(port_id=np.arange(3, dtype=np.uint32), drops=np.array([0, 5, 1], dtype=np.uint64)),
            "tier": ("labels", (bytes([0, 1, 2]), ["host", "leaf", "spine"])),
        },
        "stats": {"events": int(10 * n), "wall_s": 0.01, "cut_short": 0},
    }
