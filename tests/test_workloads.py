"""The packaged CDFs load and keep their meaning; user CSVs and traces are read as documented."""

from __future__ import annotations

import numpy as np
import pytest
from pfabric import workloads
from pfabric.errors import ScenarioError
from pfabric.workloads import load_cdf, load_trace, packaged_cdfs


def test_every_packaged_file_is_known_and_valid():
    names = packaged_cdfs()
    assert names["websearch"] == ("websearch_pfabric_ns2.csv", "linear")
    assert names["datamining"] == ("datamining_pfabric_ns2.csv", "linear")
    assert len({file for file, _ in names.values()}) == 15  # 10, and Homa's W1-W5
    for name, (file, interpolation) in names.items():
        cdf = load_cdf(name)
        assert cdf.interpolation == ("step" if "discrete" in file else "linear")
        assert cdf.cdf[-1] == 1.0 and np.all(np.diff(cdf.size_bytes) >= 0)
        assert cdf.size_bytes.dtype == np.float64


def linear_mean(cdf) -> float:
    """Mean of a piecewise-linear CDF with a point mass at the first row (SOURCES.md's 'linear mean')."""
    mass = np.diff(cdf.cdf, prepend=0.0)
    mid = (cdf.size_bytes + np.concatenate([[cdf.size_bytes[0]], cdf.size_bytes[:-1]])) / 2
    return float((mass * mid).sum())


def test_packaged_numbers_match_their_provenance():
    # SOURCES.md: web search linear mean 1,665,831 B; data mining 7,470,236 B.
    assert linear_mean(load_cdf("websearch")) == pytest.approx(1_665_831, rel=1e-6)
    assert linear_mean(load_cdf("datamining")) == pytest.approx(7_470_236, rel=1e-6)
    step = load_cdf("websearch_netbench_lowerbound_discrete")
    assert float((np.diff(step.cdf, prepend=0.0) * step.size_bytes).sum()) == pytest.approx(987_600, rel=1e-6)


def test_interpolation_can_be_chosen(tmp_path):
    assert load_cdf("websearch", interpolation="step").interpolation == "step"
    path = tmp_path / "sizes.csv"
    path.write_text("size_bytes,cdf\n1000,0\n2000,1\n")
    assert load_cdf(str(path)).interpolation == "linear"


def test_cdf_within_tolerance_of_one_is_made_exact(tmp_path):
    path = tmp_path / "sizes.csv"
    path.write_text("size_bytes,cdf\n1000,0\n2000,0.9999999999\n")
    assert load_cdf(str(path)).cdf[-1] == 1.0


def test_default_field_name_in_errors(tmp_path):
    path = tmp_path / "sizes.csv"
    path.write_text("size_bytes,cdf\n1000,0\n2000,0.5\n")
    with pytest.raises(ScenarioError, match=r"^workload.cdf: row 2: cdf=0.5 is not allowed"):
        load_cdf(str(path))


def test_trace_keeps_the_file_order_and_sends_the_core_start_order(tmp_path):
    path = tmp_path / "flows.csv"
    path.write_text("start_s,src,dst,size_bytes\n0.3,0,1,10\n0.1,2,3,20\n0.1,4,5,30\n0.0,6,7,40\n")
    trace = load_trace(str(path), hosts=8)
    assert trace.start_s.tolist() == [0.3, 0.1, 0.1, 0.0]  # row order: entry i is row i + 1
    assert trace.size_bytes.tolist() == [10, 20, 30, 40]
    assert trace.order.tolist() == [3, 1, 2, 0]  # stable: equal starts keep the file's order
    core = trace.to_core()
    assert core["start_s"] == [0.0, 0.1, 0.1, 0.3] and core["size_bytes"] == [40, 20, 30, 10]
    assert trace.src.dtype == np.int64 and trace.deadline_s is None and core["deadline_s"] is None


@pytest.mark.parametrize("fast", [True, False], ids=["pyarrow reader", "row reader"])
def test_an_empty_deadline_cell_means_no_deadline(tmp_path, monkeypatch, fast):
    path = tmp_path / "flows.csv"
    blank = "" if fast else " "  # a cell of spaces is for the row reader, which strips cells
    path.write_text(
        f"start_s,src,dst,size_bytes,deadline_s\n0.2,0,1,10,0.01\n0.1,2,3,20,\n0.0,4,5,30,{blank}\n"
    )
    if fast:
        monkeypatch.setattr(workloads, "_csv_rows", None)  # the pyarrow reader alone reads this file
    else:
        monkeypatch.setattr(workloads, "_trace_columns_fast", lambda text: None)
    trace = load_trace(str(path), hosts=8)
    assert trace.deadline_s[0] == 0.01 and np.isnan(trace.deadline_s[1:]).all()
    assert trace.to_core()["deadline_s"] == [0.0, 0.0, 0.01]  # start order; 0 is the core's "none"


@pytest.mark.parametrize("cell", ["nan", "0", "-1"])
def test_a_written_deadline_must_be_a_positive_time(tmp_path, cell):
    path = tmp_path / "flows.csv"
    path.write_text(f"start_s,src,dst,size_bytes,deadline_s\n0,0,1,10,\n0,2,3,20,{cell}\n")
    with pytest.raises(
        ScenarioError, match=r"^workload.path: row 2: deadline_s=.* is not allowed; .*empty cell"
    ):
        load_trace(str(path), hosts=8)


def test_a_too_large_size_names_its_row(tmp_path):
    path = tmp_path / "flows.csv"
    path.write_text("start_s,src,dst,size_bytes\n0,0,1,10\n0,2,3,2e12\n")
    with pytest.raises(
        ScenarioError, match=r"^workload.path: row 2: size_bytes=2000000000000 is not allowed; .*\[1, 1e12\]"
    ):
        load_trace(str(path), hosts=8)


def test_trace_error_row_is_the_file_row(tmp_path):
    path = tmp_path / "flows.csv"
    path.write_text("start_s,src,dst,size_bytes\n0.3,0,1,10\n\n0.1,2,3,20\n0.1,4,9,30\n")
    with pytest.raises(ScenarioError, match=r"^workload.path: row 3: dst=9 is not allowed; .*\[0, 8\)$"):
        load_trace(str(path), hosts=8)


def test_large_trace_fast_path_matches_rows(tmp_path, monkeypatch):
    rng = np.random.default_rng(1)
    n = 50_000
    start = rng.random(n)
    src = rng.integers(0, 144, n)
    dst = (src + rng.integers(1, 144, n)) % 144
    size = rng.integers(1, 10**7, n)
    path = tmp_path / "flows.csv"
    rows = "\n".join(f"{float(a)!r},{b},{c},{d}" for a, b, c, d in zip(start, src, dst, size, strict=True))
    path.write_text("start_s,src,dst,size_bytes\n" + rows + "\n")
    monkeypatch.setattr(workloads, "_csv_rows", None)  # a well-formed file never needs the row-by-row reader
    trace = load_trace(str(path), hosts=144)
    assert np.array_equal(trace.start_s, start)
    assert np.array_equal(trace.dst, dst) and np.array_equal(trace.size_bytes, size)
    assert np.array_equal(trace.order, np.argsort(start, kind="stable"))


# Homa's W1-W5 (PlatformLab/HomaSimulation): discrete atoms, as its sampler draws them, whose step means match
# the means the authors' files state on their first line (W1: the sampler's exact mean with its Pareto tail; W5
# in packets of 1442 bytes).
HOMA_MEANS = {
    "homa_w1_facebook_keyvalue_discrete": 185.088,
    "homa_w2_google_search_rpc_discrete": 440.7907,
    "homa_w3_google_all_rpc_discrete": 1001.269,
    "homa_w4_facebook_hadoop_discrete": 194330.9,
    "homa_w5_websearch_discrete": 1744.67 * 1442,
}


@pytest.mark.parametrize("name, mean", HOMA_MEANS.items())
def test_homa_workloads_are_steps_with_their_authors_means(name, mean):
    cdf = load_cdf(name)
    assert cdf.interpolation == "step"
    atoms = np.diff(np.concatenate([[0.0], cdf.cdf]))
    assert (atoms >= 0).all() and cdf.cdf[-1] == 1.0
    assert float((cdf.size_bytes * atoms).sum()) == pytest.approx(mean, rel=1e-4)
