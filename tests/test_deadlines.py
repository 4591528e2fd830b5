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
