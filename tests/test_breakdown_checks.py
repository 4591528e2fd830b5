"""pFabric Figs. 8-9's PDQ check on made-up flows: one-packet flows, at least 2 at every load."""

from __future__ import annotations

from types import SimpleNamespace

import pyarrow as pa
import pytest
from pfabric.figures import _breakdown

US = 1e-6


def _result(sizes: list[int], ideal_us: list[float], extra_us: float) -> SimpleNamespace:
    ideal = [i * US for i in ideal_us]
    fct = [i + extra_us * US for i in ideal]
    flows = pa.table(
        {
            "size_bytes": sizes,
            "ideal_fct_s": ideal,
            "fct_s": fct,
            "slowdown": [f / i for f, i in zip(fct, ideal, strict=True)],
            "finished": [True] * len(ideal),
        }
    )
    return SimpleNamespace(flows=flows)


def _done(sizes: list[int], loaded_extra_us: float, full_syn_extra_us: float | None = None) -> list:
    """Lone flows costing 11.76 us each, and runs at two loads whose flows (ideal 14.7, 16, 60 us) each wait
    `loaded_extra_us` more than their ideal; with `full_syn_extra_us`, the full-packet-SYN experiment too (lone
    flows costing 14.68 us, the same loads waiting that much more)."""
    done = [(_breakdown.START_COST, _result([1_460, 2_920], [14.7, 16.0], 11.76))]
    for load in (0.1, 0.5):
        run = _result(sizes, [14.7, 16.0, 60.0], loaded_extra_us)
        done.append(({"workload": "data mining", "load": load, "scheme": "PDQ"}, run))
    if full_syn_extra_us is not None:
        done.append((_breakdown.START_COST_FULL_SYN, _result([1_460, 2_920], [14.7, 16.0], 14.68)))
        for load in (0.1, 0.5):
            run = _result(sizes, [14.7, 16.0, 60.0], full_syn_extra_us)
            done.append(({"workload": "data mining", "load": load, "scheme": _breakdown.FULL_SYN}, run))
    return done


@pytest.mark.parametrize(
    "loaded_extra_us, verdict",
    [(15.0, "passed"), (11.76, "failed")],
)
def test_pdq_very_small_is_one_packet_flows_at_least_doubled(loaded_extra_us, verdict):
    check = _breakdown.pdq_very_small("data mining", _done([1_000, 2_920, 90_000], loaded_extra_us))
    assert check is not None and check.verdict == verdict, check
    assert "start cost 11.76 us (0.81 of the 14.6 us RTT" in check.ours
    assert "(1-1 flows per run)" in check.ours


@pytest.mark.parametrize("full_syn_extra_us, verdict", [(15.0, "diverges: explained"), (13.0, "failed")])
def test_pdq_very_small_explained_only_if_a_full_rtt_start_reaches_two(full_syn_extra_us, verdict):
    check = _breakdown.pdq_very_small("data mining", _done([1_000, 2_920, 90_000], 11.76, full_syn_extra_us))
    assert check.verdict == verdict, check
    if check.explained:
        assert "costs 14.68 us" in check.explained and "0.1: 2.02, 0.5: 2.02" in check.explained


def test_pdq_very_small_needs_one_packet_flows():
    """Web search's smallest flows are 6 packets: nothing to check."""
    assert _breakdown.pdq_very_small("data mining", _done([8_760, 20_000, 90_000], 15.0)) is None


def test_start_cost_point_is_lone_pdq_flows_apart_in_time():
    labels, scenario = _breakdown.start_cost_point()
    assert labels == _breakdown.START_COST and "scheme" not in labels and "workload" not in labels
    assert scenario.scheme.name == "pdq"
    workload = scenario.workload
    assert list(workload.sizes_bytes) == list(_breakdown.START_COST_SIZES)
    assert all(b - a >= 1e-3 for a, b in zip(workload.starts_s, workload.starts_s[1:], strict=False))
