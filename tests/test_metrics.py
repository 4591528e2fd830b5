"""Size bins, normalized FCT, warm-up/cool-down and unfinished flows in the run summary."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from pfabric import metrics


def flows(size, start, fct, ideal, finished) -> pa.Table:
    finished = np.asarray(finished, dtype=bool)
    return pa.table(
        {
            "size_bytes": pa.array(np.asarray(size, dtype=np.uint64)),
            "start_s": pa.array(np.asarray(start, dtype=np.float64)),
            "fct_s": pa.array(np.asarray(fct, dtype=np.float64), mask=~finished),
            "ideal_fct_s": pa.array(np.asarray(ideal, dtype=np.float64)),
            "finished": pa.array(finished),
        }
    )


def test_size_bins_edges():
    sizes = np.array([1, 100_000, 100_001, 10_000_000, 10_000_001, 10**9])
    assert metrics.size_bin(sizes).tolist() == [0, 0, 1, 1, 2, 2]
    assert [label for label, _, _ in metrics.SIZE_BINS] == ["(0,100KB]", "(100KB,10MB]", "(10MB,inf)"]


def test_normalized_fct_is_nan_for_unfinished():
    table = flows([10, 20], [0, 1], [4.0, 0.0], [2.0, 1.0], [True, False])
    out = metrics.normalized_fct(table)
    assert out[0] == 2.0 and np.isnan(out[1])


def test_warmup_and_cooldown_leave_out_by_start_time():
    start = np.arange(11.0)  # arrival period 0..10
    warm, cool = metrics.left_out(start, 0.2, 0.1)
    assert np.flatnonzero(warm).tolist() == [0, 1]  # start < 2
    assert np.flatnonzero(cool).tolist() == [10]  # start > 9
    assert metrics.measured_mask(start, 0.0, 0.0).all()


def test_summary_counts_unfinished_and_warns():
    size = [1_000, 2_000, 200_000, 20_000_000]
    table = flows(size, [0, 1, 2, 3], [2.0, 3.0, 4.0, 0.0], [1.0, 1.0, 2.0, 5.0], [True, True, True, False])
    summary = metrics.summarize(table)
    assert summary["flows_total"] == 4
    assert (summary["flows_finished"], summary["flows_unfinished"]) == (3, 1)
    assert summary["mean_normalized_fct"] == pytest.approx((2 + 3 + 2) / 3)
    small = summary["bins"]["(0,100KB]"]
    assert small["flows"] == 2 and small["mean_normalized_fct"] == 2.5 and small["mean_fct_s"] == 2.5
    assert summary["p99_normalized_fct_small"] == pytest.approx(np.percentile([2.0, 3.0], 99))
    large = summary["bins"]["(10MB,inf)"]
    assert (large["finished"], large["unfinished"], large["mean_normalized_fct"]) == (0, 1, None)
    assert summary["unfinished_by_bin"] == {"(0,100KB]": 0, "(100KB,10MB]": 0, "(10MB,inf)": 1}
    assert len(summary["warnings"]) == 1 and "1 of 4 measured flows unfinished" in summary["warnings"][0]


def test_summary_reports_what_warmup_left_out():
    table = flows([1_000] * 10, np.arange(10.0), [2.0] * 10, [1.0] * 10, [True] * 10)
    summary = metrics.summarize(table, warmup_fraction=0.25, cooldown_fraction=0.1)
    assert summary["flows_left_out_warmup"] == 3  # start < 2.25
    assert summary["flows_left_out_cooldown"] == 1  # start > 8.1
    assert summary["flows_measured"] == 6 and summary["bins"]["(0,100KB]"]["flows"] == 6
    assert summary["warnings"] == []


def test_empty_table():
    summary = metrics.summarize(flows([], [], [], [], []))
    assert summary["flows_total"] == 0 and summary["mean_normalized_fct"] is None
    assert summary["warnings"]
