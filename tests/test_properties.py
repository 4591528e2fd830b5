"""Properties of every run over random valid scenarios (hypothesis): any fabric kind and size, tier rates,
delays and routing, every scheme, Poisson / trace / fan-in workloads, small flow counts.

Each run is held to `pfabric.invariants` (slowdown >= 1 to the picosecond, packets conserved and never both
delivered and dropped, every flow finished or reported unfinished, the ports' counters adding up to the
run's), and the same scenario and seed run twice give identical tables. A failure shrinks to a minimal
scenario. CI runs a small share (PFABRIC_PROPERTY_EXAMPLES, default 40); `make fuzz` runs thousands.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pfabric
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from pfabric import invariants
from pfabric.errors import ScenarioError
from pfabric.scenario import Scenario, scheme_names, scheme_parameters

EXAMPLES = int(os.environ.get("PFABRIC_PROPERTY_EXAMPLES", "40"))
TRACE_DIR = Path(tempfile.mkdtemp(prefix="pfabric-properties-"))

rates = st.sampled_from([1.0, 2.5, 4.0, 10.0, 25.0, 40.0, 100.0])


@st.composite
def topologies(draw) -> dict:
    kind = draw(st.sampled_from(["star", "leaf-spine", "fat-tree", "dumbbell"]))
    topo: dict = {
        "kind": kind,
        "host_rate_gbps": draw(rates),
        "link_delay_us": draw(st.sampled_from([0.0, 0.2, 1.0, 5.0])),
        "host_delay_us": draw(st.sampled_from([0.0, 2.5, 10.0])),
        "routing": draw(st.sampled_from(["spray", "ecmp", "adaptive"])),
    }
    if kind == "star":
        topo["hosts"] = draw(st.integers(2, 8))
    elif kind == "leaf-spine":
        topo["leaves"] = draw(st.integers(1, 3))
        topo["hosts_per_leaf"] = draw(st.integers(2 if topo["leaves"] == 1 else 1, 4))
        topo["spines"] = draw(st.integers(1, 3))
        topo["core_rate_gbps"] = draw(rates)
    elif kind == "fat-tree":
        topo["k"] = draw(st.sampled_from([2, 4]))
        topo["core_rate_gbps"] = draw(rates)
    else:
        topo["hosts_per_side"] = draw(st.integers(1, 3))
        topo["bottleneck_rate_gbps"] = draw(rates)
    return topo


def host_count(topo: dict) -> int:
    return Scenario.from_dict({"topology": topo}).topology.hosts


SMALL_CDF = str(TRACE_DIR / "small_cdf.csv")
Path(SMALL_CDF).write_text("size_bytes,cdf\n1,0\n1460,0.5\n14600,0.8\n150000,1\n")


@st.composite
def workloads(draw, hosts: int) -> dict:
    kind = draw(st.sampled_from(["poisson", "trace", "fan-in"]))
    if kind == "poisson":
        big = draw(st.booleans())
        work: dict = {
            "kind": "poisson",
            "load": draw(st.sampled_from([0.1, 0.5, 0.8, 0.95])),
            "flows": draw(st.integers(1, 4 if big else 25)),
            "cdf": draw(st.sampled_from(["websearch", "datamining"])) if big else SMALL_CDF,
        }
        if draw(st.booleans()):
            work["deadlines"] = {"mean_s": draw(st.sampled_from([1e-4, 1e-3]))}
        return work
    if kind == "fan-in":
        return {
            "kind": "fan-in",
            "senders": draw(st.integers(1, hosts - 1)),
            "flow_bytes": draw(st.integers(1, 200_000)),
            "receiver": draw(st.integers(0, hosts - 1)),
        }
    rows = draw(
        st.lists(
            st.tuples(
                st.floats(0, 2e-4, allow_nan=False),
                st.integers(0, hosts - 1),
                st.integers(1, hosts - 1),
                st.integers(1, 100_000),
                st.one_of(st.none(), st.floats(1e-5, 1e-3, allow_nan=False)),
            ),
            min_size=1,
            max_size=10,
        )
    )
    lines = ["start_s,src,dst,size_bytes,deadline_s"]
    for start, src, offset, size, deadline in rows:
        dst = (src + offset) % hosts
        lines.append(f"{start!r},{src},{dst},{size},{'' if deadline is None else repr(deadline)}")
    path = TRACE_DIR / f"trace-{abs(hash(tuple(lines)))}.csv"
    path.write_text("\n".join(lines) + "\n")
    return {"kind": "trace", "path": str(path)}


# Parts a scheme may swap in (`pfabric schemes`): PDQ's host and port only run together, so they are left to
# the pdq bundle.
HOSTS = ("tcp", "dctcp", "pfabric", "pfabric-linerate", "constant-rate", "phost", "homa", "ndp")
SWITCHES = (
    "droptail",
    "pfabric",
    "prio-queues",
    "pifo",
    "sp-pifo",
    "aifo",
    "pieo",
    "afq",
    "strict-priority",
    "trimming",
)


@st.composite
def schemes(draw, work: dict) -> dict:
    """A bundle, maybe with its host and/or switch swapped, and some of the pair's own options."""
    scheme: dict = {"name": draw(st.sampled_from(sorted(scheme_names())))}
    if scheme["name"] not in ("ideal", "pdq"):
        if draw(st.booleans()):
            scheme["host"] = draw(st.sampled_from(HOSTS))
        if draw(st.booleans()):
            scheme["switch"] = draw(st.sampled_from(SWITCHES))
    accepted = None
    for drop in (None, "switch", "host"):
        # A pair that cannot run (DCTCP hosts over ports that never mark): its refusal is tested elsewhere; the
        # swapped switch goes first, then the swapped host.
        if drop:
            scheme.pop(drop, None)
        try:
            accepted = scheme_parameters(scheme["name"], scheme.get("host"), scheme.get("switch")) or {}
            break
        except ScenarioError:
            continue
    assert accepted is not None, scheme
    if "handshake" in accepted and draw(st.booleans()):
        scheme["handshake"] = True
    if "recovery" in accepted and draw(st.booleans()):
        scheme["recovery"] = "newreno"
    if accepted.get("host") == "dctcp" and accepted.get("ecn_threshold_bytes") is None:
        scheme["ecn_threshold_bytes"] = 30_000  # DCTCP hosts need marking ports (refusal tested elsewhere)
    elif "ecn_threshold_bytes" in accepted and draw(st.booleans()):
        scheme["ecn_threshold_bytes"] = draw(st.sampled_from([3_000, 30_000]))
    if "sender_jitter" in accepted and draw(st.booleans()):
        scheme["sender_jitter"] = 0.1
    if accepted.get("switch") == "prio-queues" and work["kind"] != "poisson":
        scheme["thresholds_bytes"] = [10_000, 100_000, 1_000_000]
    return scheme


@st.composite
def scenarios(draw) -> dict:
    topo = draw(topologies())
    hosts = host_count(topo)
    work = draw(workloads(hosts))
    scheme = draw(schemes(work))
    out = {"seed": draw(st.integers(0, 2**31)), "topology": topo, "workload": work, "scheme": scheme}
    # Any packet format: the default, the AIFO authors' netbench packets, a small and a jumbo one.
    packet = draw(st.sampled_from([None, (1380, 120), (500, 20), (9000, 40), (64, 1)]))
    if packet is not None:
        out["packet"] = {"mss_bytes": packet[0], "header_bytes": packet[1]}
    return out


@pytest.mark.slow
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=os.environ.get("PFABRIC_PROPERTY_RANDOM") is None,
)
@given(scenarios())
def test_every_run_keeps_its_invariants_and_replays_identically(scenario):
    if scenario["workload"]["kind"] == "trace":
        note("trace:\n" + Path(scenario["workload"]["path"]).read_text())
    first = pfabric.run(scenario)
    invariants.check(first)
    again = pfabric.run(scenario)
    assert first.flows.equals(again.flows), "same scenario and seed, different flows"
    assert first.ports.equals(again.ports), "same scenario and seed, different ports"
    assert {k: v for k, v in first.stats.items() if k != "wall_s"} == {
        k: v for k, v in again.stats.items() if k != "wall_s"
    }


@pytest.mark.slow
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=os.environ.get("PFABRIC_PROPERTY_RANDOM") is None,
)
@given(
    scenarios(),
    st.sampled_from(["groups", "racks", "hosts", "nodes"]),
    st.integers(3, 4),
    st.one_of(st.none(), st.integers(1_000, 50_000)),
)
def test_a_partitioned_run_keeps_its_invariants_on_any_thread_count(scenario, partition, threads, budget):
    """The partitioned engine (run.threads): every invariant holds, and two threads and `threads` threads give
    identical tables, whatever the fabric, scheme and workload, with packets handed over between partitions
    at every cut (partition = "nodes" cuts every link), stopped by an event budget or not; and so does one
    thread, the sequential engine, unless the budget stopped the run."""
    if scenario["workload"]["kind"] == "trace":
        note("trace:\n" + Path(scenario["workload"]["path"]).read_text())
    run = {"partition": partition, "max_events": budget}
    two = pfabric.run({**scenario, "run": {**run, "threads": 2}})
    invariants.check(two)
    many = pfabric.run({**scenario, "run": {**run, "threads": threads}})
    assert two.flows.equals(many.flows), f"2 and {threads} threads, different flows"
    assert two.ports.equals(many.ports), f"2 and {threads} threads, different ports"
    assert {k: v for k, v in two.stats.items() if k != "wall_s"} == {
        k: v for k, v in many.stats.items() if k != "wall_s"
    }
    if two.stats["out_of_event_budget"]:
        return  # stopped between windows: not where the sequential engine stops
    # One thread runs the sequential engine: the same results, but for how the run was made.
    one = pfabric.run({**scenario, "run": {"max_events": budget, "threads": 1}})
    how = ("wall_s", "partitions", "windows", "handovers")
    assert one.stats["partitions"] == 0
    assert two.flows.equals(one.flows), "partitioned and sequential, different flows"
    assert two.ports.equals(one.ports), "partitioned and sequential, different ports"
    assert {k: v for k, v in two.stats.items() if k not in how} == {
        k: v for k, v in one.stats.items() if k not in how
    }
