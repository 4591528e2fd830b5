"""Deadline-constrained traffic (the pFabric paper's Figure 10 set-up): application throughput is the
fraction of deadline flows that finish by their deadline."""

from __future__ import annotations

import pytest

pytest.importorskip("pfabric._core")

import pfabric


def met_fraction(scheme: dict, mean_s: float) -> float:
    result = pfabric.run(
        {
            "seed": 4,
            "workload": {
                "load": 0.6,
                "flows": 1200,
                "deadlines": {"mean_s": mean_s, "max_size_bytes": 200_000},
            },
            "scheme": scheme,
        }
    )
    deadlines = result.summary["deadlines"]
    assert deadlines["flows"] > 400  # most web-search flows are under 200 KB
    # Every deadline honours the floor of 1.25 x the ideal FCT.
    flows = result.flows.filter(result.flows.column("deadline_ps").to_numpy() > 0)
    slack = flows.column("deadline_ps").to_numpy() - flows.column("start_ps").to_numpy()
    assert (slack >= 1.25 * flows.column("ideal_fct_ps").to_numpy() - 1).all()
    return deadlines["met_fraction"]


EDF = {"name": "pfabric", "priority": "deadline"}


def test_generous_deadlines_are_all_met():
    assert met_fraction(EDF, 0.1) == 1.0
    assert met_fraction({"name": "pfabric"}, 0.1) == 1.0


def test_with_tight_deadlines_pfabric_edf_meets_more_than_tcp_and_pdq():
    edf, tcp = met_fraction(EDF, 100e-6), met_fraction({"name": "tcp"}, 100e-6)
    pdq = met_fraction({"name": "pdq"}, 100e-6)
    assert edf > tcp + 0.05, (edf, tcp)
    assert edf > 0.9
    # PDQ's extra RTT to start a flow costs it the tightest deadlines (the paper's Figure 10).
    assert edf > pdq + 0.05, (edf, pdq)


def test_a_trace_mixes_flows_with_and_without_deadlines_and_keeps_its_row_ids(tmp_path):
    """Rows out of start order, some deadline cells empty: ids, rows and deadlines come back as the file."""
    rows = [
        (0.003, 0, 1, 3000, ""),
        (0.001, 2, 3, 1000, "0.5"),
        (0.002, 4, 5, 2000, ""),
        (0.0, 6, 7, 500, "1"),
    ]
    path = tmp_path / "flows.csv"
    path.write_text(
        "start_s,src,dst,size_bytes,deadline_s\n"
        + "".join(f"{a},{b},{c},{d},{e}\n" for a, b, c, d, e in rows)
    )
    result = pfabric.run(
        {"topology": {"kind": "star", "hosts": 8}, "workload": {"kind": "trace", "path": str(path)}}
    )
    flows = result.flows
    assert flows.column("flow_id").to_pylist() == [0, 1, 2, 3]
    assert flows.column("trace_row").to_pylist() == [1, 2, 3, 4]
    assert flows.column("size_bytes").to_pylist() == [r[3] for r in rows]
    assert flows.column("src").to_pylist() == [r[1] for r in rows]
    assert flows.column("start_s").to_pylist() == pytest.approx([r[0] for r in rows])
    deadline_ps = flows.column("deadline_ps").to_numpy().astype(float)  # 0 where none, else absolute
    start_ps = flows.column("start_ps").to_numpy().astype(float)
    assert (deadline_ps[[0, 2]] == 0).all()
    assert ((deadline_ps - start_ps)[[1, 3]] / 1e12).tolist() == pytest.approx([0.5, 1.0])
    assert flows.column("deadline_met").to_pylist() == [None, True, None, True]
    assert result.summary["deadlines"]["flows"] == 2
