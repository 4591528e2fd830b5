"""Every way a scenario can be wrong gives one `ScenarioError` line naming the field and the value.

No compiled core is needed: validation happens before the core is called.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from pfabric import Scenario, ScenarioError
from pfabric.scenario import FatTree, LeafSpine, Poisson, Star

ROOT = Path(__file__).resolve().parents[1]


def error_of(data) -> str:
    with pytest.raises(ScenarioError) as info:
        Scenario.from_dict(data) if isinstance(data, dict) else Scenario.model_validate(data)
    return str(info.value)


def check(message: str, field: str, shown: str) -> None:
    """The message is one line, starts with the field path and shows the value."""
    assert "\n" not in message
    assert "Traceback" not in message
    assert message.startswith(f"{field}: "), message
    assert shown in message, message


# (data, field path, how the value appears in the message)
BAD_VALUES = {
    "load 0": ({"workload": {"load": 0}}, "workload.load", "0 is not allowed"),
    "load 1": ({"workload": {"load": 1}}, "workload.load", "1 is not allowed"),
    "load 1.5": ({"workload": {"load": 1.5}}, "workload.load", "1.5 is not allowed"),
    "load -0.1": ({"workload": {"load": -0.1}}, "workload.load", "-0.1 is not allowed"),
    "load NaN": ({"workload": {"load": math.nan}}, "workload.load", "nan is not allowed"),
    "load inf": ({"workload": {"load": math.inf}}, "workload.load", "inf is not allowed"),
    "load as text": ({"workload": {"load": "0.5"}}, "workload.load", "'0.5' is not allowed"),
    "load as bool": ({"workload": {"load": True}}, "workload.load", "True is not allowed"),
    "unknown topology kind": ({"topology": {"kind": "ring"}}, "topology.kind", "'ring' is not allowed"),
    "topology kind not text": ({"topology": {"kind": 3}}, "topology.kind", "3 is not allowed"),
    "topology not a table": ({"topology": "leaf-spine"}, "topology", "'leaf-spine' is not allowed"),
    "unknown workload kind": ({"workload": {"kind": "incest"}}, "workload.kind", "'incest' is not allowed"),
    "unknown scheme": ({"scheme": {"name": "bogus"}}, "scheme.name", "'bogus' is not allowed"),
    "unknown scheme override": (
        {"scheme": {"name": "tcp", "queue_size": 5}},
        "scheme.queue_size",
        "5 is not allowed",
    ),
    "zero queue": ({"scheme": {"name": "tcp", "queue_bytes": 0}}, "scheme.queue_bytes", "0 is not allowed"),
    "negative minimum RTO": (
        {"scheme": {"name": "aifo", "min_rto_us": -1}},
        "scheme.min_rto_us",
        "-1 is not allowed",
    ),
    "dctcp g 0": ({"scheme": {"name": "dctcp", "dctcp_g": 0}}, "scheme.dctcp_g", "0 is not allowed"),
    "negative probe count": (
        {"scheme": {"name": "pfabric", "probe_after_timeouts": -1}},
        "scheme.probe_after_timeouts",
        "-1 is not allowed",
    ),
    "zero rate": ({"topology": {"host_rate_gbps": 0}}, "topology.host_rate_gbps", "0 is not allowed"),
    "negative rate": ({"topology": {"core_rate_gbps": -40}}, "topology.core_rate_gbps", "-40 is not allowed"),
    "NaN rate": ({"topology": {"host_rate_gbps": math.nan}}, "topology.host_rate_gbps", "nan is not allowed"),
    "inf rate": ({"topology": {"host_rate_gbps": math.inf}}, "topology.host_rate_gbps", "inf is not allowed"),
    "star zero rate": (
        {"topology": {"kind": "star", "host_rate_gbps": 0}},
        "topology.host_rate_gbps",
        "0 is not allowed",
    ),
    "dumbbell NaN bottleneck": (
        {"topology": {"kind": "dumbbell", "bottleneck_rate_gbps": math.nan}},
        "topology.bottleneck_rate_gbps",
        "nan is not allowed",
    ),
    "negative link delay": (
        {"topology": {"link_delay_us": -0.1}},
        "topology.link_delay_us",
        "-0.1 is not allowed",
    ),
    "negative host delay": (
        {"topology": {"host_delay_us": -1}},
        "topology.host_delay_us",
        "-1 is not allowed",
    ),
    "NaN delay": ({"topology": {"link_delay_us": math.nan}}, "topology.link_delay_us", "nan is not allowed"),
    "odd fat-tree k": ({"topology": {"kind": "fat-tree", "k": 3}}, "topology.k", "3 is not allowed"),
    "one-host star": ({"topology": {"kind": "star", "hosts": 1}}, "topology.hosts", "1 is not allowed"),
    "one-host leaf-spine": (
        {"topology": {"leaves": 1, "hosts_per_leaf": 1}},
        "topology.hosts_per_leaf",
        "1 is not allowed",
    ),
    "bad routing": ({"topology": {"routing": "random"}}, "topology.routing", "'random' is not allowed"),
    "zero flows": ({"workload": {"flows": 0}}, "workload.flows", "0 is not allowed"),
    "fractional flows": ({"workload": {"flows": 10.5}}, "workload.flows", "10.5 is not allowed"),
    "flows and duration": (
        {"workload": {"flows": 10, "duration_s": 0.01}},
        "workload.duration_s",
        "0.01 is not allowed",
    ),
    "neither flows nor duration": ({"workload": {"flows": None}}, "workload.flows", "None is not allowed"),
    "zero duration": ({"workload": {"duration_s": 0}}, "workload.duration_s", "0 is not allowed"),
    "unknown cdf name": ({"workload": {"cdf": "websarch"}}, "workload.cdf", "'websarch' is not allowed"),
    "bad interpolation": (
        {"workload": {"cdf_interpolation": "cubic"}},
        "workload.cdf_interpolation",
        "'cubic' is not allowed",
    ),
    "unknown top-level field": ({"bogus": 1}, "bogus", "1 is not allowed"),
    "unknown section field": ({"topology": {"leafs": 3}}, "topology.leafs", "3 is not allowed"),
    "field of another kind": (
        {"topology": {"kind": "star", "spines": 4}},
        "topology.spines",
        "4 is not allowed",
    ),
    "unknown output field": ({"output": {"warmup": 0.1}}, "output.warmup", "0.1 is not allowed"),
    "warm-up too long": (
        {"output": {"warmup_fraction": 0.5}},
        "output.warmup_fraction",
        "0.5 is not allowed",
    ),
    "negative cool-down": (
        {"output": {"cooldown_fraction": -0.1}},
        "output.cooldown_fraction",
        "-0.1 is not allowed",
    ),
    "zero sim time": ({"run": {"max_sim_time_s": 0}}, "run.max_sim_time_s", "0 is not allowed"),
    "negative seed": ({"seed": -1}, "seed", "-1 is not allowed"),
    "huge seed": ({"seed": 2**63}, "seed", f"{2**63} is not allowed"),
    "trace without path": ({"workload": {"kind": "trace"}}, "workload.path", "a value is required"),
    "missing trace file": (
        {"workload": {"kind": "trace", "path": "/nonexistent/flows.csv"}},
        "workload.path",
        "'/nonexistent/flows.csv' is not allowed",
    ),
}


@pytest.mark.parametrize("data, field, shown", BAD_VALUES.values(), ids=BAD_VALUES.keys())
def test_bad_value_is_one_line_naming_field_and_value(data, field, shown):
    check(error_of(data), field, shown)


def test_not_a_table_at_all():
    check(error_of(5), "scenario", "5 is not allowed")


def test_messages_say_what_is_allowed():
    assert error_of({"workload": {"load": 1.5}}).endswith("expected a number in (0, 1)")
    assert "'leaf-spine', 'star', 'fat-tree', 'dumbbell'" in error_of({"topology": {"kind": "ring"}})
    assert "'tcp', 'dctcp', 'pfabric', 'pfabric-linerate'" in error_of({"scheme": {"name": "bogus"}})
    assert "queue_bytes" in error_of({"scheme": {"queue_size": 5}})  # lists the allowed overrides
    assert "leaves" in error_of({"topology": {"leafs": 3}})  # lists the section's fields
    assert "websearch" in error_of({"workload": {"cdf": "websarch"}})  # lists the packaged names
    assert "even" in error_of({"topology": {"kind": "fat-tree", "k": 3}})


def test_scenario_error_is_a_value_error():
    assert issubclass(ScenarioError, ValueError)


def test_sections_built_directly_raise_scenario_errors():
    with pytest.raises(ScenarioError, match=r"^leaves: 0 is not allowed"):
        LeafSpine(leaves=0)
    with pytest.raises(ScenarioError, match=r"^load: 1.5 is not allowed"):
        Poisson(load=1.5)
    with pytest.raises(ScenarioError, match=r"^seed: -1 is not allowed"):
        Scenario(seed=-1)


# --- files the scenario points at -------------------------------------------------------------------------


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


CDF_FILES = {
    "unsorted sizes": ("size_bytes,cdf\n100,0\n50,0.5\n200,1\n", "row 2: size_bytes=50 is not allowed"),
    "non-monotone cdf": ("size_bytes,cdf\n100,0\n150,0.6\n200,0.5\n300,1\n", "row 3: cdf=0.5 is not allowed"),
    "cdf not ending at 1": ("size_bytes,cdf\n100,0\n200,0.9\n", "row 2: cdf=0.9 is not allowed"),
    "cdf above 1": ("size_bytes,cdf\n100,0\n200,1.2\n", "row 2: cdf=1.2 is not allowed"),
    "negative size": ("size_bytes,cdf\n-1,0\n200,1\n", "row 1: size_bytes=-1 is not allowed"),
    "NaN size": ("size_bytes,cdf\n100,0\nnan,1\n", "row 2: size_bytes=nan is not allowed"),
    "mass at size 0": ("size_bytes,cdf\n0,0.1\n200,1\n", "row 1: cdf=0.1 is not allowed"),
    "text in a cell": ("size_bytes,cdf\n100,0\nbig,1\n", "row 2: size_bytes='big' is not allowed"),
    "one row": ("size_bytes,cdf\n100,1\n", "is not allowed; expected at least 2 rows"),
    "wrong header": ("size,cdf\n100,0\n200,1\n", "expected the header size_bytes,cdf"),
    "empty file": ("", "the file is empty"),
    "short row": ("size_bytes,cdf\n100,0\n200\n", "row 2: '200' is not allowed"),
}


@pytest.mark.parametrize("text, shown", CDF_FILES.values(), ids=CDF_FILES.keys())
def test_bad_cdf_file(tmp_path, text, shown):
    path = write(tmp_path, "sizes.csv", text)
    check(error_of({"workload": {"cdf": path}}), "workload.cdf", shown)


def test_missing_cdf_file(tmp_path):
    missing = str(tmp_path / "nope.csv")
    message = error_of({"workload": {"cdf": missing}})
    check(message, "workload.cdf", f"{missing!r} is not allowed")
    assert "no such file" in message


def test_cdf_file_that_is_a_folder(tmp_path):
    check(error_of({"workload": {"cdf": str(tmp_path)}}), "workload.cdf", "is not allowed")


def test_a_one_row_step_cdf_is_a_fixed_size(tmp_path):
    path = write(tmp_path, "one.csv", "size_bytes,cdf\n1500,1\n")
    scenario = Scenario.from_dict({"workload": {"cdf": path, "cdf_interpolation": "step"}})
    assert scenario.workload.cdf_data.size_bytes.tolist() == [1500.0]


TRACE_FILES = {
    "host outside topology": (
        "start_s,src,dst,size_bytes\n0,1,2,1000\n0.5,3,200,100\n",
        "row 2: dst=200 is not allowed; expected a host index in [0, 144)",
    ),
    "negative host": ("start_s,src,dst,size_bytes\n0,-1,2,1000\n", "row 1: src=-1 is not allowed"),
    "fractional host": ("start_s,src,dst,size_bytes\n0,1.5,2,1000\n", "row 1: src=1.5 is not allowed"),
    "same source and destination": (
        "start_s,src,dst,size_bytes\n0,4,4,1000\n",
        "row 1: dst=4 is not allowed",
    ),
    "negative size": (
        "start_s,src,dst,size_bytes\n0,1,2,1000\n1,1,2,-5\n",
        "row 2: size_bytes=-5 is not allowed",
    ),
    "zero size": ("start_s,src,dst,size_bytes\n0,1,2,0\n", "row 1: size_bytes=0 is not allowed"),
    "NaN size": ("start_s,src,dst,size_bytes\n0,1,2,nan\n", "row 1: size_bytes=nan is not allowed"),
    "inf size": ("start_s,src,dst,size_bytes\n0,1,2,inf\n", "row 1: size_bytes=inf is not allowed"),
    "fractional size": ("start_s,src,dst,size_bytes\n0,1,2,10.5\n", "row 1: size_bytes=10.5 is not allowed"),
    "text size": ("start_s,src,dst,size_bytes\n0,1,2,big\n", "row 1: size_bytes='big' is not allowed"),
    "empty cell": ("start_s,src,dst,size_bytes\n0,1,,100\n", "row 1: dst='' is not allowed"),
    "negative start": ("start_s,src,dst,size_bytes\n-1,1,2,100\n", "row 1: start_s=-1 is not allowed"),
    "zero deadline": (
        "start_s,src,dst,size_bytes,deadline_s\n0,1,2,100,0.01\n0,1,2,100,0\n",
        "row 2: deadline_s=0 is not allowed",
    ),
    "no header": ("0,1,2,100\n", "expected the header start_s,src,dst,size_bytes"),
    "unknown column": ("start_s,src,dst,size_bytes,prio\n0,1,2,100,3\n", "the file's header is"),
    "no rows": ("start_s,src,dst,size_bytes\n", "at least one flow"),
}


@pytest.mark.parametrize("text, shown", TRACE_FILES.values(), ids=TRACE_FILES.keys())
def test_bad_trace_file(tmp_path, text, shown):
    path = write(tmp_path, "flows.csv", text)
    check(error_of({"workload": {"kind": "trace", "path": path}}), "workload.path", shown)


def test_trace_hosts_are_checked_against_the_chosen_topology(tmp_path):
    path = write(tmp_path, "flows.csv", "start_s,src,dst,size_bytes\n0,1,15,1000\n")
    check(
        error_of({"topology": {"kind": "star", "hosts": 8}, "workload": {"kind": "trace", "path": path}}),
        "workload.path",
        "row 1: dst=15 is not allowed; expected a host index in [0, 8)",
    )


# --- TOML files -------------------------------------------------------------------------------------------


def test_toml_syntax_error(tmp_path):
    path = write(tmp_path, "bad.toml", "seed = 1\n[topology\nkind = 'star'\n")
    with pytest.raises(ScenarioError) as info:
        Scenario.from_toml(path)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: invalid TOML")
    assert "line 2" in message


def test_missing_scenario_file(tmp_path):
    with pytest.raises(ScenarioError, match="no such scenario file"):
        Scenario.from_toml(tmp_path / "none.toml")


def test_toml_field_error_names_the_field(tmp_path):
    path = write(tmp_path, "bad.toml", "[workload]\nload = 1.5\n")
    with pytest.raises(
        ScenarioError, match=r"^workload.load: 1.5 is not allowed; expected a number in \(0, 1\)$"
    ):
        Scenario.from_toml(path)


def test_paths_in_a_toml_file_are_relative_to_it(tmp_path, monkeypatch):
    folder = tmp_path / "scenarios"
    folder.mkdir()
    write(folder, "flows.csv", "start_s,src,dst,size_bytes\n0,1,2,1000\n")
    write(folder, "sizes.csv", "size_bytes,cdf\n1000,0\n2000,1\n")
    write(folder, "trace.toml", '[workload]\nkind = "trace"\npath = "flows.csv"\n')
    write(folder, "poisson.toml", '[workload]\ncdf = "sizes.csv"\n')
    monkeypatch.chdir(tmp_path)
    assert Scenario.from_toml(folder / "trace.toml").workload.path == str(folder / "flows.csv")
    assert Scenario.from_toml(folder / "poisson.toml").workload.cdf == str(folder / "sizes.csv")


# --- what a valid scenario gives --------------------------------------------------------------------------


def test_defaults_are_the_paper_set_up():
    scenario = Scenario()
    assert scenario.topology == LeafSpine()
    assert scenario.hosts == 144
    assert (scenario.topology.host_rate_gbps, scenario.topology.core_rate_gbps) == (10.0, 40.0)
    assert (scenario.topology.link_delay_us, scenario.topology.host_delay_us) == (0.2, 2.5)
    assert scenario.workload.cdf == "websearch" and scenario.workload.load == 0.6
    assert Star().hosts == 145 and FatTree().hosts == 16


def test_a_section_without_kind_takes_the_default_kind():
    scenario = Scenario.from_dict({"topology": {"leaves": 2}, "workload": {"load": 0.3}})
    assert scenario.topology.kind == "leaf-spine" and scenario.topology.hosts == 32
    assert scenario.workload.kind == "poisson"


def test_duration_replaces_the_default_flow_count():
    workload = Scenario.from_dict({"workload": {"duration_s": 0.01}}).workload
    assert workload.flows is None and workload.duration_s == 0.01


def test_core_json_leaf_spine_poisson():
    core = json.loads(Scenario.from_dict({"scheme": {"name": "tcp"}}).to_core_json())
    assert core["seed"] == 1
    assert core["topology"] == {
        "kind": "leaf-spine",
        "leaves": 9,
        "hosts_per_leaf": 16,
        "spines": 4,
        "host_rate_gbps": 10.0,
        "core_rate_gbps": 40.0,
        "link_delay_us": 0.2,
        "host_delay_us": 2.5,
        "routing": "spray",
    }
    workload = core["workload"]
    assert {k: workload[k] for k in ("kind", "load", "flows", "duration_s")} == {
        "kind": "poisson",
        "load": 0.6,
        "flows": 1000,
        "duration_s": None,
    }
    assert workload["cdf"]["interpolation"] == "linear"
    assert workload["cdf"]["size_bytes"][:2] == [8760.0, 8760.0]
    assert workload["cdf"]["cdf"][-1] == 1.0
    assert core["scheme"] == {"name": "tcp"}
    assert core["run"] == {"max_sim_time_s": None, "max_events": None, "threads": None, "partition": None}
    assert set(core) == {"seed", "topology", "packet", "workload", "scheme", "run", "output"}
    assert core["packet"] == {"mss_bytes": 1460, "header_bytes": 40}
    assert core["output"] == {"track_flows": 0, "log_arrivals": False, "fct_end": "acked"}


def test_the_packet_section_sets_the_format_and_bad_values_are_refused_in_one_line():
    netbench = Scenario.from_dict({"packet": {"mss_bytes": 1380, "header_bytes": 120}})
    assert json.loads(netbench.to_core_json())["packet"] == {"mss_bytes": 1380, "header_bytes": 120}
    # The default format leaves the canonical text (and so every stored run's key) as it was.
    assert "packet" not in json.loads(Scenario.from_dict({}).canonical_json())
    assert netbench.canonical_hash() != Scenario.from_dict({}).canonical_hash()
    # A load counts the format's wire bytes: bigger headers and smaller packets, fewer flows a second.
    default_rate = Scenario.from_dict({}).workload.arrival_rate(144, 10.0)
    assert netbench.workload.arrival_rate(144, 10.0, netbench.packet) < 0.96 * default_rate
    for field, value in [("mss_bytes", 0), ("header_bytes", 0), ("mss_bytes", 10**9), ("header_bytes", 1.5)]:
        with pytest.raises(ScenarioError) as err:
            Scenario.from_dict({"packet": {field: value}})
        assert str(err.value).startswith(f"packet.{field}: {value}"), str(err.value)
        assert "\n" not in str(err.value)
    with pytest.raises(ScenarioError) as err:
        Scenario.from_dict({"packet": {"mtu": 1500}})
    assert str(err.value).startswith("packet.mtu"), str(err.value)


def test_core_json_other_topologies():
    star = json.loads(Scenario.from_dict({"topology": {"kind": "star"}}).to_core_json())["topology"]
    assert set(star) == {"kind", "hosts", "host_rate_gbps", "link_delay_us", "host_delay_us", "routing"}
    tree = json.loads(Scenario.from_dict({"topology": {"kind": "fat-tree"}}).to_core_json())["topology"]
    assert set(tree) == {
        "kind",
        "k",
        "host_rate_gbps",
        "core_rate_gbps",
        "link_delay_us",
        "host_delay_us",
        "routing",
    }
    bell = json.loads(Scenario.from_dict({"topology": {"kind": "dumbbell"}}).to_core_json())["topology"]
    assert set(bell) == {
        "kind",
        "hosts_per_side",
        "host_rate_gbps",
        "bottleneck_rate_gbps",
        "link_delay_us",
        "host_delay_us",
        "routing",
    }


def test_only_overrides_the_user_set_reach_the_core():
    scenario = Scenario.from_dict({"scheme": {"name": "dctcp", "queue_bytes": 225000, "dctcp_g": 0.0625}})
    assert json.loads(scenario.to_core_json())["scheme"] == {
        "name": "dctcp",
        "queue_bytes": 225000,
        "dctcp_g": 0.0625,
    }


def test_core_json_trace_is_sorted_by_start(tmp_path):
    path = write(
        tmp_path,
        "flows.csv",
        "start_s,src,dst,size_bytes,deadline_s\n0.2,1,2,1000,0.1\n0.1,3,4,100,0.01\n0.1,5,6,200,0.02\n",
    )
    workload = json.loads(Scenario.from_dict({"workload": {"kind": "trace", "path": path}}).to_core_json())[
        "workload"
    ]
    assert workload == {
        "kind": "trace",
        "start_s": [0.1, 0.1, 0.2],
        "src": [3, 5, 1],
        "dst": [4, 6, 2],
        "size_bytes": [100, 200, 1000],
        "deadline_s": [0.01, 0.02, 0.1],
    }


def test_trace_without_deadlines(tmp_path):
    path = write(tmp_path, "flows.csv", "src,dst,size_bytes,start_s\n1,2,1000,0\n")
    workload = json.loads(Scenario.from_dict({"workload": {"kind": "trace", "path": path}}).to_core_json())[
        "workload"
    ]
    assert workload["deadline_s"] is None and workload["size_bytes"] == [1000]


def test_canonical_hash(tmp_path):
    a = Scenario.from_dict({"workload": {"load": 0.5}})
    assert a.canonical_hash() == Scenario.from_dict({"workload": {"load": 0.5}}).canonical_hash()
    assert a.canonical_hash() != Scenario.from_dict({"workload": {"load": 0.6}}).canonical_hash()
    path = write(tmp_path, "sizes.csv", "size_bytes,cdf\n1000,0\n2000,1\n")
    before = Scenario.from_dict({"workload": {"cdf": path}}).canonical_hash()
    write(tmp_path, "sizes.csv", "size_bytes,cdf\n1000,0\n3000,1\n")
    assert Scenario.from_dict({"workload": {"cdf": path}}).canonical_hash() != before


def test_round_trip_through_a_dump():
    scenario = Scenario.from_dict({"topology": {"kind": "star", "hosts": 8}, "scheme": {"name": "tcp"}})
    assert Scenario.from_dict(scenario.model_dump()) == scenario
    assert scenario.with_values({"seed": 7}).seed == 7
    with pytest.raises(ScenarioError, match=r"^workload.load: 2 is not allowed"):
        scenario.with_values({"workload.load": 2})


@pytest.mark.parametrize("path", sorted((ROOT / "examples").glob("*.toml")), ids=lambda p: p.name)
def test_examples_are_valid(path):
    scenario = Scenario.from_toml(path)
    assert json.loads(scenario.to_core_json())["scheme"]["name"] == scenario.scheme.name


# --- every input is right or refused in one line (issue 12) -----------------------------------------------

PYDANTIC_WORDS = ("Input should", "Value error", "validation error", "pydantic")


def in_our_words(message: str) -> str:
    assert "\n" not in message
    for words in PYDANTIC_WORDS:
        assert words not in message, message
    return message


def test_prio_queues_thresholds_from_an_arrival_rate_use_the_load_it_offers():
    # Was a TypeError in the threshold model (the load is unset when arrival_rate_per_s is given).
    from pfabric.scenario import chosen_thresholds

    data = {
        "topology": {"kind": "star", "hosts": 8},
        "workload": {"arrival_rate_per_s": 2_000.0, "flows": 10},
        "scheme": {"name": "prio-queues"},
    }
    scenario = Scenario.from_dict(data)
    load = scenario.workload.offered_load(8, 10.0)
    assert 0.1 < load < 1  # web search's mean flow is 1.7 MB: 2,000 flows/s offer ~0.34 of 8 x 10 Gbps
    thresholds = json.loads(scenario.to_core_json())["scheme"]["thresholds_bytes"]
    assert thresholds == chosen_thresholds(scenario.workload, 4, "optimal", load)
    at_load = Scenario.from_dict({**data, "workload": {"load": load, "flows": 10}})
    assert json.loads(at_load.to_core_json())["scheme"]["thresholds_bytes"] == thresholds


def test_prio_queues_optimal_thresholds_refuse_an_overload_in_one_line():
    data = {
        "topology": {"kind": "star", "hosts": 4},
        "workload": {"arrival_rate_per_s": 1e6, "flows": 10},
        "scheme": {"name": "prio-queues"},
    }
    message = in_our_words(error_of(data))
    check(message, "scheme.thresholds_bytes", "a value is required")
    assert "load below 1" in message and "equal-split" in message
    data["scheme"]["thresholds_bytes"] = "equal-split"  # needs no load
    assert len(json.loads(Scenario.from_dict(data).to_core_json())["scheme"]["thresholds_bytes"]) == 3


def test_prio_queues_without_thresholds_needs_a_poisson_workload(tmp_path):
    path = write(tmp_path, "flows.csv", "start_s,src,dst,size_bytes\n0,1,2,1000\n")
    data = {"workload": {"kind": "trace", "path": path}, "scheme": {"name": "prio-queues"}}
    check(error_of(data), "scheme.thresholds_bytes", "a value is required; expected a list of sizes")


def test_thresholds_the_model_cannot_choose_are_a_scenario_error(tmp_path):
    # A CDF reaching a terabyte has more packet sizes than the threshold model takes: was a ValueError.
    path = write(tmp_path, "sizes.csv", "size_bytes,cdf\n1,0\n1000000000000,1\n")
    scenario = Scenario.from_dict({"workload": {"cdf": path}, "scheme": {"name": "prio-queues"}})
    with pytest.raises(ScenarioError) as info:
        scenario.to_core_json()
    check(in_our_words(str(info.value)), "scheme.thresholds_bytes", "'optimal' is not allowed")


def test_offered_load_is_the_cores():
    _core = pytest.importorskip("pfabric._core", reason="needs the compiled core")
    del _core
    import pfabric

    for cdf in ("websearch", "datamining", "websearch_netbench_lowerbound_discrete"):
        scenario = Scenario.from_dict(
            {
                "topology": {"kind": "star", "hosts": 4, "host_rate_gbps": 2.5},
                "workload": {"cdf": cdf, "arrival_rate_per_s": 20_000.0, "flows": 2},
                "run": {"max_events": 1000},
            }
        )
        result = pfabric.run(scenario)
        assert scenario.workload.offered_load(4, 2.5) == pytest.approx(result.stats["target_load"], rel=1e-12)


@pytest.mark.parametrize("field", ["cdf", "path"])
def test_a_path_component_over_255_bytes_is_one_line(tmp_path, field):
    # Was OSError [Errno 36] File name too long, raised by Path.is_file.
    long_path = str(tmp_path / ("x" * 300) / "flows.csv")
    workload = {"cdf": long_path} if field == "cdf" else {"kind": "trace", "path": long_path}
    message = in_our_words(error_of({"workload": workload}))
    check(message, f"workload.{field}", "is not allowed")
    assert "File name too long" in message and len(message) < 1000


def test_a_home_folder_that_does_not_exist_is_a_missing_file():
    # Path.expanduser raised RuntimeError for an unknown user.
    data = {"workload": {"kind": "trace", "path": "~no-such-user-pfabric/flows.csv"}}
    check(error_of(data), "workload.path", "no such file")


LIST_ITEMS = {
    "negative rank": (
        {"workload": {"kind": "fan-in", "sizes_bytes": [100, 200], "ranks": [-1, 2]}},
        "workload.ranks[0]",
        "-1 is not allowed; expected an integer >= 0",
    ),
    "text size": (
        {"workload": {"kind": "fan-in", "sizes_bytes": [100, "x"]}},
        "workload.sizes_bytes[1]",
        "'x' is not allowed; expected an integer > 0",
    ),
    "NaN start": (
        {"workload": {"kind": "fan-in", "sizes_bytes": [1, 2], "starts_s": [0, math.nan]}},
        "workload.starts_s[1]",
        "nan is not allowed; expected a number in [0, 1000000]",
    ),
    "zero threshold": (
        {"scheme": {"name": "prio-queues", "thresholds_bytes": [1000, 0]}},
        "scheme.thresholds_bytes[1]",
        "0 is not allowed; expected an integer > 0",
    ),
    "nested edge": (
        {"output": {"loss_priority_edges_bytes": [1, [2]]}},
        "output.loss_priority_edges_bytes[1]",
        "[2] is not allowed; expected an integer > 0",
    ),
    "thresholds neither list nor method": (
        {"scheme": {"name": "prio-queues", "thresholds_bytes": "best"}},
        "scheme.thresholds_bytes",
        "'best' is not allowed; expected a list of integers > 0, or one of 'optimal', 'equal-split'",
    ),
}


@pytest.mark.parametrize("data, field, shown", LIST_ITEMS.values(), ids=LIST_ITEMS.keys())
def test_list_items_are_named_field_i_in_our_words(data, field, shown):
    # Were `workload.ranks.0: ... expected a valid value (Input should be greater than or equal to 0)`.
    check(in_our_words(error_of(data)), field, shown)


def test_loss_edges_must_increase_strictly():
    # Said "expected a list".
    message = error_of({"output": {"loss_priority_edges_bytes": [5, 3]}})
    check(message, "output.loss_priority_edges_bytes", "[5, 3] is not allowed")
    assert message.endswith("expected sizes in strictly increasing order (5 then 3)")
    check(
        error_of({"output": {"loss_priority_edges_bytes": [5, 5]}}),
        "output.loss_priority_edges_bytes",
        "5 then 5",
    )


def test_a_kind_nested_too_deeply_to_show():
    # The discriminator wrote repr() of the value: RecursionError.
    value: object = "star"
    for _ in range(5000):
        value = {"kind": value}
    message = in_our_words(error_of({"topology": value}))
    check(message, "topology.kind", "nested too deeply to show")


def test_keys_that_are_not_strings():
    # A non-string key in a scheme raised TypeError; elsewhere pydantic's "Keys should be strings".
    check(in_our_words(error_of({5: 1})), "scenario", "5 is not allowed; expected a field name")
    check(error_of({"topology": {"kind": "star", 3: 4}}), "topology", "3 is not allowed")
    check(error_of({"scheme": {"name": "tcp", 3: 4}}), "scheme.3", "4 is not allowed")


def test_booleans_are_true_or_false_only():
    # "yes" was read as true.
    for value in ("yes", "true", 1):
        check(
            error_of({"output": {"log_arrivals": value}}),
            "output.log_arrivals",
            f"{value!r} is not allowed; expected true or false",
        )


@pytest.mark.parametrize(
    "workload, field",
    [({"arrival_rate_per_s": 1e-9, "flows": 5}, "arrival_rate_per_s"), ({"load": 1e-300}, "load")],
    ids=["tiny rate", "tiny load"],
)
def test_arrivals_past_the_end_of_time_are_refused(workload, field):
    # The core's clock (u64 picoseconds) ran out: a Rust panic (PanicException) out of pfabric.run.
    message = error_of({"topology": {"kind": "star", "hosts": 4}, "workload": workload})
    check(message, f"workload.{field}", "is not allowed; expected a")
    assert "flows arrive within 1e+06 s" in message


def test_cdf_sizes_are_bounded_as_in_the_core(tmp_path):
    path = write(tmp_path, "sizes.csv", "size_bytes,cdf\n0,0\n5e155,1\n")
    check(error_of({"workload": {"cdf": path}}), "workload.cdf", "row 2: size_bytes=5e+155 is not allowed")


def test_as_scenario_refuses_what_is_no_scenario():
    from pfabric.api import as_scenario

    for value in (5, None, [1], b"x.toml"):
        with pytest.raises(ScenarioError, match=r"^scenario: .* is not allowed; expected a Scenario, a dict"):
            as_scenario(value)


def test_a_scenario_path_with_a_nul_byte(tmp_path):
    with pytest.raises(ScenarioError, match=r"is not a valid path of a scenario file$"):
        Scenario.from_toml("a\0b.toml")
    with pytest.raises(ScenarioError, match="no such scenario file"):  # was caught as "not a valid path"
        Scenario.from_toml(tmp_path / "none.toml")


@pytest.mark.parametrize(
    "text", ["x = " + "[" * 5000 + "]" * 5000, "x = " + "{a = " * 5000 + "1" + "}" * 5000]
)
def test_toml_nested_too_deeply(tmp_path, text):
    # tomllib recursed into a RecursionError.
    path = write(tmp_path, "deep.toml", text + "\n")
    with pytest.raises(ScenarioError, match="nested too deeply"):
        Scenario.from_toml(path)


def test_long_values_and_control_characters_keep_the_line_readable():
    message = error_of({"workload": {"cdf": "a" * 100_000}})
    assert len(message) < 2000 and "..." in message
    message = error_of({"workload": {"kind": "trace", "path": "a\0b\x1bc"}})
    assert "\0" not in message and "\x1b" not in message and r"\x00" in message


def test_a_scheme_without_parameters_says_so():
    message = error_of({"scheme": {"name": "ideal", "rto_us": 4}})
    assert message.endswith("scheme 'ideal' has no parameter 'rto_us'; it takes none")


@pytest.mark.parametrize(
    "scenario, field, allowed",
    [
        ({"topology": {"kind": "fat-tree", "k": 66}}, "topology.k", "[2, 64]"),
        ({"topology": {"kind": "star", "hosts": 2**21}}, "topology.hosts", "[2, 1048576]"),
        ({"scheme": {"name": "tcp", "dupack_threshold": 1001}}, "scheme.dupack_threshold", "1000]"),
        ({"scheme": {"name": "tcp", "queue_bytes": 100}}, "scheme.queue_bytes", "[1500,"),
        ({"workload": {"flows": 2**33}}, "workload.flows", "4294967296]"),
    ],
)
def test_limits_the_core_enforces_are_checked_and_shown_here(scenario, field, allowed):
    """Each limit the core holds a value to is Python's too, so `pfabric fields` shows it and the message
    names it before the core is asked."""
    with pytest.raises(ScenarioError) as info:
        Scenario.from_dict(scenario)
    assert str(info.value).startswith(field) and allowed in str(info.value), str(info.value)


def test_a_scenarios_hash_ignores_how_it_runs():
    """Every thread count and partitioning gives the sequential engine's results: one store entry for all."""
    base = {"topology": {"kind": "fat-tree", "k": 4}, "workload": {"kind": "poisson", "flows": 10}}
    plain = Scenario.from_dict(base)
    one = Scenario.from_dict({**base, "run": {"threads": 1}})
    four = Scenario.from_dict({**base, "run": {"threads": 4}})
    racks = Scenario.from_dict({**base, "run": {"threads": 4, "partition": "racks"}})
    assert plain.canonical_hash() == one.canonical_hash() == four.canonical_hash() == racks.canonical_hash()
    assert '"threads"' not in racks.canonical_json() and "partition" not in racks.canonical_json()


@pytest.mark.parametrize(
    ("run", "field", "allowed"),
    [
        ({"partition": "racks"}, "run.partition", "set only with run.threads"),
        ({"threads": 2, "partition": "pods"}, "run.partition", "groups"),
        ({"threads": -1}, "run.threads", "[0, 4096]"),
        ({"threads": 1.5}, "run.threads", "integer"),
    ],
)
def test_bad_engine_options_are_refused_in_one_line(run, field, allowed):
    with pytest.raises(ScenarioError) as e:
        Scenario.from_dict({"run": run})
    assert e.value.field == field and allowed in str(e.value)
