"""The AIFO paper's schedulers (PIFO, SP-PIFO, AIFO, PIEO, AFQ) on the simulator: reordering, small-flow FCT
under SRPT ranks, and fairness under STFQ ranks."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pfabric._core")

import pfabric
from pfabric.figures._aifo import SCHEMES as AIFO_SCHEMES


def out_of_order(scheme: dict) -> int:
    """Reordered first transmissions, per-flow ECMP so that paths do not reorder (only the port can)."""
    result = pfabric.run(
        {
            "seed": 2,
            "topology": {"routing": "ecmp"},
            "workload": {"load": 0.7, "flows": 800},
            "scheme": scheme,
        }
    )
    assert result.summary["flows_unfinished"] == 0
    return int(np.sum(result.flows.column("out_of_order").to_numpy()))


def test_pifo_and_sppifo_reorder_a_flow_under_srpt_ranks_aifo_never_does():
    assert out_of_order({"name": "pifo"}) > 1000
    assert out_of_order({"name": "sp-pifo"}) > 1000
    assert out_of_order({"name": "aifo"}) == 0  # one FIFO per port: admission only, never reordering


@pytest.fixture(scope="module")
def small_flow_fct():
    """Mean normalized FCT of (0,100KB] flows, web search at 80% load on the leaf-spine, each scheme over the
    AIFO authors' hosts (their SRPT sender for the schedulers, their NewReno for TCP and DCTCP)."""
    out = {}
    for label, scheme in {
        "pifo": {"name": "pifo"},
        "sp-pifo": {"name": "sp-pifo"},
        "aifo": {"name": "aifo"},
        "tcp": AIFO_SCHEMES["TCP"],
        "dctcp": AIFO_SCHEMES["DCTCP"],
    }.items():
        result = pfabric.run({"seed": 3, "workload": {"load": 0.8, "flows": 1500}, "scheme": scheme})
        assert result.summary["flows_unfinished"] == 0, label
        out[label] = result.summary["bins"]["(0,100KB]"]["mean_normalized_fct"]
    return out


def test_small_flows_pifo_best_then_sppifo_and_aifo_below_dctcp_and_tcp(small_flow_fct):
    """The AIFO paper's ordering at high load (section 5.1: AIFO lower than DCTCP at high load, lower than TCP).
    AIFO's window sees every arrival, the idle port's included, so its margin to DCTCP in this short run is small
    (about 0.92x of DCTCP's, 0.53x of TCP's); Figure 7 at paper scale puts DCTCP at 2.0x AIFO at load 0.8."""
    fct = small_flow_fct
    assert fct["pifo"] <= fct["sp-pifo"] and fct["pifo"] <= fct["aifo"]
    for name in ("pifo", "sp-pifo"):
        assert fct[name] < 0.75 * fct["dctcp"], (name, fct)
        assert fct[name] < 0.5 * fct["tcp"], (name, fct)
    assert fct["aifo"] < fct["dctcp"] and fct["aifo"] < fct["tcp"], fct


def test_aifo_small_headroom_beats_large_headroom_for_small_flows():
    """AIFO section 5.1: smaller k serves small flows better. On the AIFO authors' set-up (their fabric, hosts,
    packets and 20-packet queue: `_aifo.points`) at load 0.7, where their data put k = 0.9 at 3.0x k = 0.1, k = 0.1
    is ahead by about 25% on every seed tried. (On the pFabric paper's leaf-spine, 0.2 us links and the bundle's
    defaults, the two lie within a seed's noise at load 0.8: k = 0.9 was ahead on 4 of 8 seeds, and after events
    at equal times were keyed by what they are, on 6 of 8; this test ran there on one seed until then.)"""
    from pfabric.figures import _aifo

    variants = {"k0.1": _aifo.aifo(), "k0.9": _aifo.aifo(headroom_k=0.9)}
    small = {}
    for labels, scenario in _aifo.points(True, variants, loads=(0.7,)):
        small[labels["scheme"]] = _aifo.small_mean_ms(pfabric.run(scenario))
    assert small["k0.1"] < 0.9 * small["k0.9"], small


def jain_index(scheme: dict) -> float:
    """Four equal long flows into one port: Jain's index of their throughputs while all four are active."""
    result = pfabric.run(
        {
            "topology": {"kind": "star", "hosts": 8},
            "workload": {"kind": "fan-in", "senders": 4, "flow_bytes": 5_000_000},
            "scheme": scheme,
            "output": {"sample_interval_s": 0.001, "track_flows": 4},
        }
    )
    first_finish = np.min(result.flows.column("fct_s").to_numpy())
    samples = result.throughput
    time = samples.column("time_s").to_numpy()
    flow = samples.column("flow_id").to_numpy()
    gbps = samples.column("throughput_gbps").to_numpy()
    window = (time > 0.002) & (time < first_finish - 0.001)
    per_flow = np.array([gbps[window & (flow == f)].mean() for f in range(4)])
    return float(per_flow.sum() ** 2 / (4 * (per_flow**2).sum()))


def test_stfq_ranks_share_a_port_fairly_on_pifo_and_afq():
    assert jain_index({"name": "pifo", "rank": "stfq"}) > 0.99
    assert jain_index({"name": "afq"}) > 0.99
    # The same port under SRPT ranks serves flows one after another: far from fair.
    assert jain_index({"name": "pifo"}) < 0.8


def test_fixed_rank_constant_rate_flows_preempt_in_rank_order_on_pifo():
    """The AIFO paper's Figure 15 set-up, scaled down: four constant-rate flows into one 1 Gbps port, each
    later one with a smaller (better) rank; PIFO gives the link to the newest, best-ranked flow. Flows that
    lose packets never complete (UDP-like), and the run still ends."""
    result = pfabric.run(
        {
            "topology": {"kind": "star", "hosts": 6, "host_rate_gbps": 1},
            "workload": {
                "kind": "fan-in",
                "sizes_bytes": [2_000_000] * 4,
                "starts_s": [0, 0.004, 0.008, 0.012],
                "ranks": [4000, 3000, 2000, 1000],
            },
            "scheme": {"name": "pifo", "host": "constant-rate"},
            "output": {"sample_interval_s": 0.001, "track_flows": 4},
        }
    )
    samples = result.throughput
    time = np.round(samples.column("time_s").to_numpy(), 6)
    flow = samples.column("flow_id").to_numpy()
    gbps = samples.column("throughput_gbps").to_numpy()
    for t, winner in ((0.003, 0), (0.007, 1), (0.011, 2), (0.015, 3)):
        now = time == t
        assert gbps[now & (flow == winner)].item() > 0.9, (t, winner)
        assert gbps[now & (flow != winner)].sum() < 0.05, (t, winner)
    assert result.summary["flows_unfinished"] >= 3  # the preempted ones lost packets for good
