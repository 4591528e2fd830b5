"""Ideal (the paper's Algorithm 1) against queueing theory.

All flows go to one host on a star, from many sources: only the receiver's link constrains the schedule, so
Ideal is a single-server preemptive SRPT queue with Poisson arrivals, and the mean response time of a job of
size x is the Schrage-Miller formula

    E[T(x)] = lambda/2 (int_0^x t^2 dF(t) + x^2 (1 - F(x))) / (1 - rho(x))^2 + int_0^x dt / (1 - rho(t)),
    rho(x) = lambda int_0^x t dF(t).

We evaluate it on the sample's own service-time distribution and compare per size bin.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pfabric._core")

import itertools

import pfabric
from pfabric.analysis.queueing import srpt_response_s

RATE_BPS = 10e9


def service_s(size_bytes: np.ndarray) -> np.ndarray:
    """Transmission time of a flow's wire bytes (1460-byte packets, 40 header bytes each) at 10 Gbps."""
    size = size_bytes.astype(np.int64)
    return (size + 40 * -(-size // 1460)) * 8 / RATE_BPS


def test_ideal_on_one_bottleneck_is_srpt(tmp_path):
    rng = np.random.default_rng(1)
    n, load = 60_000, 0.7
    size = np.maximum(1, np.round(rng.exponential(50_000, n))).astype(np.int64)
    rate = load / service_s(size).mean()
    start = np.cumsum(rng.exponential(1 / rate, n))
    src = rng.integers(1, 200, n)
    trace = tmp_path / "flows.csv"
    rows = "".join(f"{float(a)!r},{b},0,{c}\n" for a, b, c in zip(start, src, size, strict=True))
    trace.write_text("start_s,src,dst,size_bytes\n" + rows)

    result = pfabric.run(
        {
            "topology": {"kind": "star", "hosts": 200},
            "workload": {"kind": "trace", "path": str(trace)},
            "scheme": {"name": "ideal"},
        }
    )
    flows = result.flows
    assert result.summary["flows_unfinished"] == 0
    work = service_s(flows.column("size_bytes").to_numpy())
    # FCT = response in the queue + the path's fixed latency (ideal FCT - transmission time).
    response = flows.column("fct_s").to_numpy() - flows.column("ideal_fct_s").to_numpy() + work
    predicted = srpt_response_s(work, n / (start[-1] - start[0]))

    edges = np.quantile(work, [0, 0.25, 0.5, 0.75, 0.95, 1])
    for i, (lo, hi) in enumerate(itertools.pairwise(edges)):
        in_bin = (work >= lo) & (work <= hi)
        ratio = response[in_bin].mean() / predicted[in_bin].mean()
        tolerance = 0.03 if i < 4 else 0.08  # the largest jobs see the most variance
        assert abs(ratio - 1) < tolerance, (i, ratio)
