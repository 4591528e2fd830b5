"""pFabric on the paper's fabric under load: what the paper's deep dive (section 5.4.3) reports."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pfabric._core")

import pfabric


@pytest.fixture(scope="module")
def loaded():
    """Web search at 80% load (the paper's Figure 13 set-up), kept small for the suite."""
    return pfabric.run({"seed": 2, "workload": {"load": 0.8, "flows": 2500}, "scheme": {"name": "pfabric"}})


def test_every_flow_finishes_and_small_flows_stay_near_ideal(loaded):
    assert loaded.summary["flows_unfinished"] == 0
    assert loaded.summary["bins"]["(0,100KB]"]["mean_normalized_fct"] < 1.5


def test_losses_are_at_the_edges_and_for_large_priority_numbers(loaded):
    """Figure 13: losses at the first and last hop, almost none in the core, growing with priority number."""
    loss = loaded.priority_loss
    tier = np.array(loss.column("tier").to_pylist())
    lo = loss.column("priority_lo_bytes").to_numpy()
    offered = loss.column("offered_packets").to_numpy()
    dropped = loss.column("dropped_packets").to_numpy()
    assert dropped.sum() > 0
    assert dropped[tier == "fabric"].sum() <= 0.01 * dropped.sum()
    for edge in ("host-nic", "to-host"):
        mine = tier == edge
        small = mine & (lo < 146_000)  # remaining size under 100 packets
        large = mine & (lo >= 4_380_000)  # over 3000 packets
        rate_small = dropped[small].sum() / offered[small].sum()
        rate_large = dropped[large].sum() / offered[large].sum()
        assert rate_large > 5 * rate_small, (edge, rate_small, rate_large)
    # The priority bins partition every data packet offered to every port, and every drop.
    assert dropped.sum() == loaded.stats["data_packets_dropped"]
    assert loss.column("priority_hi_bytes").null_count == 3  # one open last bin per tier
