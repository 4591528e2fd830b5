"""NDP (issue "The receiver-driven schemes"): its limit on one bottleneck, and its parameters refused in one
line. The protocol's rules are unit-tested in the core (`transport/ndp.rs`, `queue/trimming.rs`,
`engine/ndp.rs`), its lone flow against the ideal FCT in `tests/lone_flow.rs`."""

from __future__ import annotations

import pytest
from pfabric import Scenario, ScenarioError

pytest.importorskip("pfabric._core")

from pfabric import api, invariants
from pfabric.analysis.queueing import ps_response_s
from pfabric.validate import _response_s, bottleneck_trace, ratios_by_size

# Our bound (the NDP paper gives no number for one bottleneck): a receiver pulls its senders in turn, one
# packet each, which is processor sharing of its link; but each flow's first window arrives unpulled (so the
# smallest flows do a little worse or better than their share, as it collides or not), and a pull that reaches
# a sender with nothing left to send is a packet time lost. Measured at load 0.7, 20,000 jobs: mean response
# 1.12 x M/G/1-PS's, size quartiles and the top 5% between 1.04 and 1.20 (TCP: 0.88 to 2.95).
MEAN_WITHIN_PS = 0.15
BIN_WITHIN_PS = 0.25


def test_ndp_on_one_bottleneck_approaches_processor_sharing(tmp_path):
    path, service, rate = bottleneck_trace(tmp_path, 20_000, 0.7)
    base = {"topology": {"kind": "star", "hosts": 200}, "workload": {"kind": "trace", "path": path}}
    result = api.run({**base, "scheme": {"name": "ndp"}})
    assert result.summary["flows_unfinished"] == 0
    invariants.check(result)
    response, ps = _response_s(result), ps_response_s(service, rate)
    ratios = ratios_by_size(service, response, ps)
    mean = response.mean() / ps.mean()
    assert 1 - MEAN_WITHIN_PS <= mean <= 1 + MEAN_WITHIN_PS, mean
    assert all(abs(r - 1) <= BIN_WITHIN_PS for r in ratios), ratios


def test_an_ndp_incast_is_trimmed_not_dropped_and_the_same_seed_gives_the_same_bytes():
    scenario = {
        "topology": {"kind": "star", "hosts": 41},
        "scheme": {"name": "ndp"},
        "workload": {"kind": "fan-in", "senders": 40, "flow_bytes": 100 * 1460},
    }
    one, two = api.run(scenario), api.run(scenario)
    assert one.stats["data_packets_trimmed"] > 0 and one.stats["control_packets_dropped"] == 0
    assert one.summary["flows_unfinished"] == 0
    invariants.check(one)
    assert one.flows.equals(two.flows)


@pytest.mark.parametrize(
    ("scheme", "field", "shown"),
    [
        ({"name": "ndp", "init_window_pkts": -1}, "scheme.init_window_pkts", "-1"),
        ({"name": "ndp", "rto_us": 0}, "scheme.rto_us", "0"),
        ({"name": "ndp", "data_pkts": 0}, "scheme.data_pkts", "0"),
        ({"name": "ndp", "header_queue_bytes": 0}, "scheme.header_queue_bytes", "0"),
        ({"name": "ndp", "header_ratio": -1}, "scheme.header_ratio", "-1"),
        ({"name": "tcp", "switch": "trimming"}, "scheme.switch", "trimming"),
        ({"name": "ndp", "levels": 8}, "scheme.levels", "8"),
    ],
)
def test_a_bad_ndp_parameter_is_refused_in_one_line(scheme, field, shown):
    with pytest.raises(ScenarioError) as info:
        api.run(Scenario.from_dict({"workload": {"load": 0.5, "flows": 10}, "scheme": scheme}))
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"{field}: ") and shown in message, message


def test_phost_and_homa_run_beside_ndp_in_its_incast_each_sending_one_bdp_first():
    """The NDP figure runs pHost and Homa on Figure 16's incasts, with the experiments that explain their checks.
    pHost's free tokens are one BDP of that fabric's 9,000-byte packets, as Homa derives its RTTbytes: with the
    default 12 (1,500-byte packets on the pFabric paper's fabric) a lone 450 KB flow ends 14% late, downgraded;
    with one BDP it ends on its ideal."""
    from pfabric.figures import ndp

    assert ndp.one_bdp_packets() == 8
    assert ndp.HOMA_AS_SIMULATED in ndp.BESIDE
    assert (
        ndp.beside_scenario(ndp.HOMA_AS_SIMULATED, 2).scheme.model_dump(exclude_none=True)["resend_us"] == 1e6
    )
    beside = [(labels, s) for labels, s in ndp.points(quick=True) if labels["figure"] == "16-beside"]
    assert {labels["scheme"] for labels, _ in beside} == set(ndp.BESIDE)
    lone = api.run(ndp.beside_scenario("pHost", 1))
    fct = lone.flows.column("fct_s").to_numpy()[0]
    ideal = lone.flows.column("ideal_fct_s").to_numpy()[0]
    assert fct / ideal - 1 < 0.001, (fct, ideal)


class _Column:
    def __init__(self, values):
        self.values = values

    def to_numpy(self):
        import numpy as np

        return np.array(self.values)


class _Flows:
    def __init__(self, columns):
        self.columns = columns

    def column(self, name):
        return _Column(self.columns[name])


class _Run:
    """What the NDP figure's incast checks read of a run: its flows' completion and ideal times, and counters."""

    def __init__(self, n, over, dropped=0, sent_again=0):
        from pfabric.figures import ndp

        ideal = 1e-3
        last = (1 + over) * (ideal + (n - 1) * ndp._flow_wire_s(ndp.FIG16_BYTES))
        self.flows = _Flows({"fct_s": [ideal] * (n - 1) + [last], "ideal_fct_s": [ideal] * n})
        per_flow = -(-ndp.FIG16_BYTES // ndp.PACKET["mss_bytes"])
        self.stats = {"data_packets_dropped": dropped, "data_packets_sent": n * per_flow + sent_again}


def _done(lines):
    return [
        ({"figure": "16-beside", "scheme": label, "senders": n}, _Run(n, *values))
        for label, runs in lines.items()
        for n, values in runs.items()
    ]


def test_the_incast_checks_beside_ndp_hold_or_are_explained_only_by_their_experiments():
    """pHost's and Homa's checks on NDP's incast: passed when the bound holds; otherwise "explained" only when
    the experiment run beside them shows the cause (pHost without free packets: nothing dropped and within the
    bound; Homa as its authors' simulator assumes the fabric: within 1%, nothing dropped), and failed when it does
    not."""
    from pfabric.figures import ndp

    bound = ndp.PHOST_HEADROOM + ndp.PHOST_ALLOWANCE
    assert ndp.PHOST_HEADROOM == pytest.approx(64 / 9064)
    held = ndp.phost_incast(_done({"pHost": {1: (0.0,), 11: (bound - 0.001, 5)}}))
    assert held.verdict == "passed"
    late = {"pHost": {1: (0.0,), 11: (0.028, 73)}}
    assert ndp.phost_incast(_done(late)).verdict == "failed"
    bare = {ndp.PHOST_NO_FREE: {1: (0.037,), 11: (0.010,)}}
    explained = ndp.phost_incast(_done({**late, **bare}))
    assert explained.verdict == "diverges: explained" and "11 flows dropped 73" in explained.explained
    still_dropping = {ndp.PHOST_NO_FREE: {1: (0.037,), 11: (0.010, 2)}}
    assert ndp.phost_incast(_done({**late, **still_dropping})).verdict == "failed"
    # Without free packets another incast ends over the bound: the experiment does not show the bound holds.
    three = {"pHost": {1: (0.0,), 11: (0.028, 73), 101: (0.009, 790)}}
    elsewhere_late = {ndp.PHOST_NO_FREE: {1: (0.037,), 11: (0.010,), 101: (0.030,)}}
    assert ndp.phost_incast(_done({**three, **elsewhere_late})).verdict == "failed"

    assert ndp.homa_incast(_done({"Homa": {1: (0.0,), 21: (0.005,)}})).verdict == "passed"
    homa = {"Homa": {1: (0.0,), 21: (0.29, 42, 55)}, ndp.HOMA_DEEP_PORTS: {1: (0.0,), 21: (0.028, 0, 34)}}
    assert ndp.homa_incast(_done(homa)).verdict == "failed"
    simulated = {ndp.HOMA_AS_SIMULATED: {1: (0.0,), 21: (-0.004,)}}
    explained = ndp.homa_incast(_done({**homa, **simulated}))
    assert explained.verdict == "diverges: explained"
    assert "21 flows: 42 dropped, 55 sent again" in explained.explained
    dropping = {ndp.HOMA_AS_SIMULATED: {1: (0.0,), 21: (-0.004, 3)}}
    assert ndp.homa_incast(_done({**homa, **dropping})).verdict == "failed"
    # Deep ports that still drop do not show the losses are the ports'; a late incast with neither drops nor
    # copies shows neither cause.
    deep_dropping = {**homa, ndp.HOMA_DEEP_PORTS: {1: (0.0,), 21: (0.028, 4, 34)}}
    assert ndp.homa_incast(_done({**deep_dropping, **simulated})).verdict == "failed"
    quietly_late = {**homa, "Homa": {1: (0.0,), 21: (0.29,)}}
    assert ndp.homa_incast(_done({**quietly_late, **simulated})).verdict == "failed"
    copies_only = {**homa, "Homa": {1: (0.0,), 11: (0.011, 0, 6)}}
    only = ndp.homa_incast(
        _done(
            {
                **copies_only,
                ndp.HOMA_DEEP_PORTS: {1: (0.0,), 11: (0.011, 0, 6)},
                ndp.HOMA_AS_SIMULATED: {1: (0.0,), 11: (0.0,)},
            }
        )
    )
    assert only.verdict == "diverges: explained" and "lost at its 1 MB port" not in only.explained, (
        only.explained
    )
