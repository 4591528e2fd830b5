"""Schemes as parts: every host x switch pair either runs with every invariant or is refused in one line
naming both parts; a parameter neither part uses is refused; `pfabric schemes` lists the catalogue."""

from __future__ import annotations

import itertools
import json

import pytest

pytest.importorskip("pfabric._core")

from pfabric import api, invariants
from pfabric._native import scheme_catalogue
from pfabric.errors import ScenarioError
from pfabric.scenario import Scenario, scheme_parameters
from run_cli import pfabric

CATALOGUE = scheme_catalogue()
HOSTS = [h["name"] for h in CATALOGUE["hosts"]]
SWITCHES = [s["name"] for s in CATALOGUE["switches"]]


def pair_scheme(host: str, switch: str) -> dict:
    scheme = {"name": "tcp", "host": host, "switch": switch}
    accepted = scheme_parameters("tcp", host, switch)
    if switch == "prio-queues":
        scheme["thresholds_bytes"] = [20_000, 200_000]
    if host == "dctcp" and "ecn_threshold_bytes" in accepted:
        scheme["ecn_threshold_bytes"] = 20_000
    return scheme


@pytest.mark.parametrize(("host", "switch"), list(itertools.product(HOSTS, SWITCHES)))
def test_every_pair_runs_with_its_invariants_or_is_refused_in_one_line(host, switch):
    try:
        scheme = pair_scheme(host, switch)
    except ScenarioError as exc:
        message = str(exc)
        assert "\n" not in message and host in message and switch in message, message
        # PDQ's parts only together; DCTCP's hosts need marking ports; only NDP's hosts answer trimmed headers.
        pdq_apart = (host == "pdq") != (switch == "pdq")
        assert pdq_apart or host == "dctcp" or (switch == "trimming" and host != "ndp"), message
        return
    assert (host == "pdq") == (switch == "pdq")
    assert switch != "trimming" or host == "ndp"
    result = api.run(
        {
            "topology": {"kind": "leaf-spine", "leaves": 2, "hosts_per_leaf": 4},
            "workload": {"load": 0.6, "flows": 120},
            "scheme": scheme,
        }
    )
    assert invariants.violations(result) == [], scheme
    if host != "constant-rate":  # a paced source never resends what its switch dropped
        assert result.stats["flows_finished"] == 120, scheme


def test_a_parameter_neither_part_uses_is_refused_naming_the_pair():
    with pytest.raises(
        ScenarioError, match=r"scheme 'pfabric' with switch 'droptail' has no parameter 'priority'"
    ):
        Scenario.from_dict({"scheme": {"name": "pfabric", "switch": "droptail", "priority": "flow-size"}})
    with pytest.raises(ScenarioError, match=r"scheme 'aifo' has no parameter 'rto_us'"):
        Scenario.from_dict({"scheme": {"name": "aifo", "rto_us": 45}})
    # With pFabric's hosts the same parameter is theirs.
    Scenario.from_dict({"scheme": {"name": "aifo", "host": "pfabric", "rto_us": 45}})


def test_a_bundle_keeps_its_values_for_the_part_it_keeps():
    # PIAS's buffer and marking stay when its hosts are swapped for TCP ones; TCP's window follows the buffer.
    params = scheme_parameters("pias", "tcp", None)
    assert (params["queue_bytes"], params["ecn_threshold_bytes"], params["priority"]) == (
        360_000,
        97_500,
        "bytes-sent",
    )
    assert scheme_parameters("pfabric", None, "prio-queues")["queue_bytes"] == 225_000


def test_pfabric_hosts_over_priority_queues_choose_thresholds_by_flow_size():
    scenario = Scenario.from_dict(
        {"workload": {"load": 0.6, "flows": 10}, "scheme": {"name": "pfabric", "switch": "prio-queues"}}
    )
    assert len(scenario.to_core_dict()["scheme"]["thresholds_bytes"]) == 3  # 4 queues, section 6


def test_the_catalogue_command_lists_every_part(pfabric_env):
    text = pfabric(pfabric_env, "schemes", timeout=60)
    assert text.returncode == 0, text.stderr
    for name in [*HOSTS, *SWITCHES, "pias", "aifo"]:
        assert f"  {name}:" in text.stdout
    as_json = pfabric(pfabric_env, "schemes", "--json", timeout=60)
    assert json.loads(as_json.stdout) == CATALOGUE


def test_the_scenario_schema_types_every_parameter_of_the_registry():
    # The pydantic model keeps a typed field per parameter (types and bounds for messages before the core is
    # asked); which of them a scheme accepts, and their defaults, come from the registry. A part's new
    # parameter without its field here would be accepted untyped: this keeps the two in step.
    names = {p["name"] for part in CATALOGUE["hosts"] + CATALOGUE["switches"] for p in part["parameters"]}
    missing = names - set(Scenario.model_fields["scheme"].annotation.model_fields)
    assert not missing, missing


def test_figures_see_a_swapped_host_s_parameters():
    # Regression: `figures.common.available` read the bundle's own pair, so the testbed figures' constant-rate
    # hosts (their rate and jitter) looked unavailable and every run was skipped, then the plot raised.
    from pfabric.figures import _testbed
    from pfabric.figures.aifo_fig15 import FIGURE, HOSTS
    from pfabric.figures.common import available

    assert available({"name": "pifo", **HOSTS})
    assert not available({"name": "pifo", "host": "dctcp", "switch": "pfabric"})
    assert len(FIGURE.points(True)) >= len(_testbed.VARIANTS)


def test_the_authors_heap_pifo_runs_and_its_bad_settings_are_refused():
    # The AIFO authors' Java-heap PIFO: only `pifo` has `ties`, a heap needs room for one packet, and a run over it
    # keeps every invariant (the suite's runs are held to them).
    with pytest.raises(ScenarioError, match=r"scheme 'aifo' has no parameter 'ties'"):
        Scenario.from_dict({"scheme": {"name": "aifo", "ties": "heap"}})
    with pytest.raises(ScenarioError, match=r"scheme.ties"):
        Scenario.from_dict({"scheme": {"name": "pifo", "ties": "random"}})
    with pytest.raises(ScenarioError, match=r"scheme.capacity_pkts.*at least 2"):
        api.run({"scheme": {"name": "pifo", "ties": "heap", "capacity_pkts": 1}, "workload": {"flows": 10}})
    result = api.run(
        {
            "scheme": {
                "name": "pifo",
                "ties": "heap",
                "capacity_pkts": 8,
                "handshake": True,
                "recovery": "newreno",
            },
            "workload": {"load": 0.7, "flows": 300},
        }
    )
    assert result.stats["flows_finished"] == 300
    assert invariants.violations(result) == []
