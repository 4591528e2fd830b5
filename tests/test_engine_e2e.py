"""End to end through the compiled core: physics of a lone flow, conservation, determinism, load, errors.

Every test here runs `pfabric._core` for real (skipped when the extension is not built). Expected values
are derived in this file from the paper's set-up (DESIGN section 4), not read back from the core: a
store-and-forward model of an idle path for the ideal FCT, closed-form and numerically integrated means of
the size distributions for the offered load. Runs are small (a few hundred to 1500 flows, or 90k flows of
two to twenty packets) so that the whole file takes well under a minute of CPU.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

pytest.importorskip("pfabric._core", reason="needs the compiled core (pip install . or maturin develop)")

import pfabric
from pfabric import _native, api
from test_cli_errors import assert_usage_error
from test_cli_errors import pfabric as pfabric_cli

PS_PER_US = 1_000_000
PS_PER_S = 10**12
MSS = 1460
HEADER = 40
ACK_BYTES = HEADER
HOST_RATE_BPS = 10 * 10**9
STAR8 = {"kind": "star", "hosts": 8}


def write_trace(path: Path, rows: list[tuple[float, int, int, int]]) -> Path:
    path.write_text("start_s,src,dst,size_bytes\n" + "".join(f"{t},{s},{d},{b}\n" for t, s, d, b in rows))
    return path


def packets(size_bytes: np.ndarray) -> np.ndarray:
    return -(-np.asarray(size_bytes, dtype=np.int64) // MSS)  # ceil, in integers


# --- an idle path, modelled independently of the core -------------------------------------------------------

# (rate in Gbps, propagation delay in us) per link of a path with the paper's defaults: 0.2 us per link and
# 2.5 us more on each host access link (the host's stack).
LEAF_SPINE_PATH = [(10, 2.7), (40, 0.2), (40, 0.2), (10, 2.7)]  # host, leaf, spine, leaf, host
STAR_PATH = [(10, 2.7), (10, 2.7)]  # host, switch, host


def serialization_ps(wire_bytes: int, gbps: int) -> int:
    return wire_bytes * 8 * 1000 // gbps  # exact for the packet sizes and rates used here


def transit_ps(path: list[tuple[int, float]], wire_sizes: list[int], send_at: int = 0) -> int:
    """When the last of `wire_sizes`, sent back to back from `send_at`, reaches the end of an idle path."""
    arrivals = [send_at] * len(wire_sizes)
    for gbps, delay_us in path:
        free = 0
        for i, wire in enumerate(wire_sizes):
            free = max(arrivals[i], free) + serialization_ps(wire, gbps)
            arrivals[i] = free + round(delay_us * PS_PER_US)
    return arrivals[-1]


def data_wires(size_bytes: int) -> list[int]:
    full, rest = divmod(size_bytes, MSS)
    return [MSS + HEADER] * full + ([rest + HEADER] if rest else [])


def test_the_model_gives_the_papers_numbers():
    assert transit_ps(LEAF_SPINE_PATH, [MSS + HEADER]) == 8_800_000
    # DESIGN: unloaded RTT across the leaf-spine about 14.6 us (data packet out, ACK back).
    rtt = transit_ps(LEAF_SPINE_PATH, [MSS + HEADER]) + transit_ps(LEAF_SPINE_PATH[::-1], [ACK_BYTES])
    assert rtt == pytest.approx(14.6 * PS_PER_US, rel=0.01)


# --- 1. a lone flow -----------------------------------------------------------------------------------------


def run_lone_flow(
    tmp_path: Path, topology: dict, dst: int, size_bytes: int, scheme: str = "tcp", fct_end: str = "delivered"
) -> dict:
    """A lone flow; its FCT to the last byte at the receiver unless `fct_end` says otherwise."""
    trace = write_trace(tmp_path / "lone.csv", [(0.001, 0, dst, size_bytes)])
    result = pfabric.run(
        {
            "topology": topology,
            "workload": {"kind": "trace", "path": str(trace)},
            "scheme": {"name": scheme},
            "output": {"fct_end": fct_end},
        }
    )
    assert result.flows.num_rows == 1
    (flow,) = result.flows.to_pylist()
    assert flow["finished"] and (flow["src"], flow["dst"], flow["size_bytes"]) == (0, dst, size_bytes)
    assert flow["start_ps"] == 10**9  # 0.001 s, exactly
    assert result.stats["data_packets_dropped"] == 0 and flow["retransmissions"] == flow["timeouts"] == 0
    return flow


@pytest.mark.parametrize("fct_end", ["delivered", "acked"])
@pytest.mark.parametrize("scheme", ["tcp", "pfabric"])
@pytest.mark.parametrize("npkts", [1, 12])
@pytest.mark.parametrize(
    "topology, dst, path",
    [({}, 143, LEAF_SPINE_PATH), (STAR8, 7, STAR_PATH)],
    ids=["leaf-spine", "star8"],
)
def test_lone_flow_takes_exactly_its_ideal_time(tmp_path, topology, dst, path, npkts, scheme, fct_end):
    """Alone in the fabric, within the initial window (12 packets): no queueing, FCT == ideal FCT, exactly;
    measured to the sender's last ACK, both gain that ACK's trip back."""
    size = npkts * MSS
    flow = run_lone_flow(tmp_path, topology, dst, size, scheme, fct_end)
    ack_back = transit_ps(path[::-1], [ACK_BYTES]) if fct_end == "acked" else 0
    assert flow["ideal_fct_ps"] == transit_ps(path, data_wires(size)) + ack_back
    assert flow["finish_ps"] - flow["start_ps"] == flow["ideal_fct_ps"]
    assert flow["slowdown"] == 1.0


def test_one_packet_ideal_fct_measured_to_its_ack_is_the_papers_rtt(tmp_path):
    """The pFabric paper's 14.6 us RTT is a one-packet flow as its ns-2 scripts time it (to the last ACK)."""
    flow = run_lone_flow(tmp_path, {}, 143, MSS, fct_end="acked")
    assert flow["ideal_fct_ps"] == 14_680_000


def test_one_packet_ideal_fct_on_the_paper_fabric_is_8_8_us(tmp_path):
    assert run_lone_flow(tmp_path, {}, 143, MSS)["ideal_fct_ps"] == 8_800_000


def test_thirteenth_packet_waits_for_the_first_ack(tmp_path):
    """TCP's window is 12 packets; across the leaf-spine the RTT (14.68 us) exceeds 12 serializations
    (14.4 us), so the 13th packet leaves when the first ACK is back and arrives one lone-packet transit
    later."""
    flow = run_lone_flow(tmp_path, {}, 143, 13 * MSS)
    one = transit_ps(LEAF_SPINE_PATH, [MSS + HEADER])
    ack = transit_ps(LEAF_SPINE_PATH[::-1], [ACK_BYTES])
    assert flow["finish_ps"] - flow["start_ps"] == one + ack + one
    assert flow["ideal_fct_ps"] == transit_ps(LEAF_SPINE_PATH, data_wires(13 * MSS))
    assert flow["slowdown"] > 1.0


# --- 2. conservation, on the paper's fabric under load ------------------------------------------------------


@pytest.fixture(scope="module", params=["tcp", "pfabric"])
def websearch_07(request):
    """Default 144-host leaf-spine, web search at load 0.7, 1500 flows; the progress dicts it reported."""
    seen: list[dict] = []
    scenario = {"workload": {"load": 0.7, "flows": 1500}, "scheme": {"name": request.param}, "seed": 7}
    return pfabric.run(scenario, progress=seen.append), seen


def test_every_flow_finishes(websearch_07):
    result, _ = websearch_07
    stats, summary = result.stats, result.summary
    assert result.flows.num_rows == 1500
    assert stats["flows_started"] == stats["flows_finished"] == summary["flows_finished"] == 1500
    assert pc.all(result.flows.column("finished")).as_py()
    assert stats["cut_short"] == 0 and stats["hosts"] == 144 and not summary["warnings"]


def test_packets_are_conserved(websearch_07):
    result, _ = websearch_07
    stats, ports, flows = result.stats, result.ports, result.flows
    assert stats["data_packets_dropped"] > 0  # the ledger is exercised, not trivially balanced
    assert stats["data_packets_sent"] == stats["data_packets_delivered"] + stats["data_packets_dropped"]
    assert stats["control_packets_sent"] == (
        stats["control_packets_delivered"] + stats["control_packets_dropped"]
    )
    assert pc.sum(ports.column("drop_data_packets")).as_py() == stats["data_packets_dropped"]
    assert pc.sum(ports.column("drop_packets")).as_py() == (
        stats["data_packets_dropped"] + stats["control_packets_dropped"]
    )
    assert pc.sum(ports.column("tx_packets")).as_py() == stats["packet_hops"]
    # Every data packet sent is a first transmission or a counted retransmission; each packet arrived.
    npkts = packets(flows.column("size_bytes").to_numpy())
    retransmissions = flows.column("retransmissions").to_numpy().astype(np.int64)
    assert stats["data_packets_sent"] == npkts.sum() + retransmissions.sum()
    assert stats["data_packets_delivered"] >= npkts.sum()


def test_no_flow_beats_its_ideal(websearch_07):
    flows = websearch_07[0].flows
    fct = flows.column("finish_ps").to_numpy().astype(np.int64) - flows.column("start_ps").to_numpy()
    ideal = flows.column("ideal_fct_ps").to_numpy().astype(np.int64)
    assert (ideal > 0).all() and (fct >= ideal).all()
    assert pc.min(flows.column("slowdown")).as_py() >= 1.0


def test_offered_bytes_are_the_flows_wire_bytes(websearch_07):
    result, _ = websearch_07
    size = result.flows.column("size_bytes").to_numpy().astype(np.int64)
    assert (size % MSS == 0).all()  # sampled sizes are whole packets
    assert int((size + HEADER * packets(size)).sum()) == result.stats["offered_wire_bytes"]


def mean_wire_bytes(cdf) -> float:
    """Mean wire bytes per flow of a linear CDF, sizes rounded up to packets, by midpoint integration."""
    assert cdf.interpolation == "linear"
    u = (np.arange(2_000_000) + 0.5) / 2_000_000
    size = np.interp(u, cdf.cdf, cdf.size_bytes)
    return float(np.maximum(np.ceil(size / MSS), 1).mean() * (MSS + HEADER))


def test_arrival_rate_matches_the_websearch_load(websearch_07):
    """lambda = load * hosts * rate / (8 * mean wire bytes); 1500 gaps estimate it to 2.6% (1 sigma)."""
    result, _ = websearch_07
    mean_wire = mean_wire_bytes(result.scenario.workload.cdf_data)
    assert mean_wire == pytest.approx(1141.5 * (MSS + HEADER), rel=1e-3)  # the linear mean, not the step one
    expected = 0.7 * 144 * HOST_RATE_BPS / (8 * mean_wire)
    start = result.flows.column("start_ps").to_numpy()
    measured = (len(start) - 1) / ((start.max() - start.min()) / PS_PER_S)
    assert measured == pytest.approx(expected, rel=0.10)


# --- 3. determinism -----------------------------------------------------------------------------------------

DETERMINISM = {"workload": {"load": 0.7, "flows": 300}, "scheme": {"name": "pfabric"}}


def test_same_seed_same_bytes_other_seed_other_flows(tmp_path):
    """Leaf-spine with per-packet spraying and pFabric drops: every random stream is used."""
    paths = [pfabric.run({**DETERMINISM, "seed": 11}).write(tmp_path / f"run{i}") for i in (1, 2)]
    for name in ("flows.parquet", "ports.parquet"):
        assert paths[0][name].read_bytes() == paths[1][name].read_bytes()
    first = pq.read_table(paths[0]["flows.parquet"])
    assert pc.sum(first.column("retransmissions")).as_py() > 0  # drops happened, and replayed identically

    other = pfabric.run({**DETERMINISM, "seed": 12}).flows
    assert not other.equals(first)
    assert not np.array_equal(other.column("start_ps").to_numpy(), first.column("start_ps").to_numpy())
    assert not np.array_equal(other.column("size_bytes").to_numpy(), first.column("size_bytes").to_numpy())


def test_pfabric_run_threads_writes_the_same_bytes_on_any_thread_count(tmp_path, pfabric_env):
    """`pfabric run --threads N`: the same files for one thread (the sequential engine) and two (the partitioned
    engine), and without the flag."""
    (tmp_path / "s.toml").write_text(
        '[topology]\nkind = "fat-tree"\nk = 4\n[workload]\nload = 0.7\nflows = 200\n[scheme]\nname = "dctcp"\n'
    )
    outs = []
    for threads in ("1", "2", None):
        out = tmp_path / f"t{threads}"
        flag = ["--threads", threads] if threads else []
        result = pfabric_cli(pfabric_env, "run", str(tmp_path / "s.toml"), "-o", str(out), "-q", *flag)
        assert result.returncode == 0, result.stderr
        outs.append(out)
    for name in ("flows.parquet", "ports.parquet"):
        assert (outs[0] / name).read_bytes() == (outs[1] / name).read_bytes() == (outs[2] / name).read_bytes()
    stats = json.loads((outs[1] / "summary.json").read_text())["stats"]
    assert stats["partitions"] == 4 and stats["windows"] > 0 and stats["handovers"] > 0
    assert json.loads((outs[0] / "summary.json").read_text())["stats"]["partitions"] == 0
    assert not json.loads((outs[0] / "summary.json").read_text())["summary"]["warnings"]


def test_pfabric_run_threads_counts_as_run_threads_for_a_files_partition(tmp_path, pfabric_env):
    """A file's `run.partition` needs `run.threads`; `--threads N` gives it, as the file would have
    (regression: the file was checked before `--threads` applied, and refused for want of run.threads). Its
    results are the file's with `threads = 2` written in."""
    body = '[topology]\nkind = "fat-tree"\nk = 4\n[workload]\nflows = 100\n[run]\npartition = "racks"\n'
    (tmp_path / "s.toml").write_text(body)
    (tmp_path / "with_threads.toml").write_text(body + "threads = 2\n")
    by_flag = pfabric_cli(
        pfabric_env, "run", str(tmp_path / "s.toml"), "-o", str(tmp_path / "flag"), "-q", "--threads", "2"
    )
    assert by_flag.returncode == 0, by_flag.stderr
    in_file = pfabric_cli(
        pfabric_env, "run", str(tmp_path / "with_threads.toml"), "-o", str(tmp_path / "file"), "-q"
    )
    assert in_file.returncode == 0, in_file.stderr
    for name in ("flows.parquet", "ports.parquet"):
        assert (tmp_path / "flag" / name).read_bytes() == (tmp_path / "file" / name).read_bytes()
    stats = json.loads((tmp_path / "flag" / "summary.json").read_text())["stats"]
    assert stats["partitions"] > 4  # racks, not the fat-tree's default of pods
    # Without either, the file is still refused, in one line naming the field.
    bare = pfabric_cli(pfabric_env, "run", str(tmp_path / "s.toml"), "-o", str(tmp_path / "bare"), "-q")
    assert bare.returncode == 2 and "run.partition" in bare.stderr and "Traceback" not in bare.stderr


def test_run_threads_on_a_scenario_that_runs_sequentially_says_so(tmp_path, pfabric_env):
    """PDQ (like the ideal, sampling, arrival logs and NDP with hosts apart) runs on the sequential engine whatever
    run.threads says: the run warns, in the summary and on the terminal, and its results are the sequential
    engine's (regression: it said nothing, and a user who asked for threads could not tell)."""
    body = '[workload]\nflows = 30\n[scheme]\nname = "pdq"\n'
    (tmp_path / "s.toml").write_text(body)
    scenario, t2, seq = str(tmp_path / "s.toml"), tmp_path / "t2", tmp_path / "seq"
    asked = pfabric_cli(pfabric_env, "run", scenario, "-o", str(t2), "--threads", "2")
    assert asked.returncode == 0, asked.stderr
    assert "run.threads = 2 has no effect here" in " ".join((asked.stdout + asked.stderr).split())
    summary = json.loads((t2 / "summary.json").read_text())
    assert summary["stats"]["partitions"] == 0
    assert any("run.threads = 2 has no effect" in w for w in summary["summary"]["warnings"])
    plain = pfabric_cli(pfabric_env, "run", scenario, "-o", str(seq), "-q")
    assert plain.returncode == 0, plain.stderr
    assert (t2 / "flows.parquet").read_bytes() == (seq / "flows.parquet").read_bytes()
    assert not json.loads((seq / "summary.json").read_text())["summary"]["warnings"]
    # NDP returns headers to their senders from the switches at once, which hosts apart cannot carry.
    ndp = {"workload": {"flows": 30}, "scheme": {"name": "ndp"}}
    apart = pfabric.run({**ndp, "run": {"threads": 2, "partition": "hosts"}})
    assert apart.stats["partitions"] == 0 and any(
        "NDP with hosts apart" in w for w in apart.summary["warnings"]
    )
    # A scenario the partitioned engine runs gets no such warning: a sender-driven scheme, or a receiver-driven
    # one (NDP cut by racks where it is not told how).
    for name in ("dctcp", "phost", "homa", "ndp"):
        ran = pfabric.run({"workload": {"flows": 30}, "scheme": {"name": name}, "run": {"threads": 2}})
        assert ran.stats["partitions"] > 0, name
        assert not any("run.threads" in w for w in ran.summary["warnings"]), name
        assert ran.stats["flows_finished"] == 30, name


# --- 4. load calibration ------------------------------------------------------------------------------------


def test_offered_load_is_the_target_load(tmp_path):
    """A long Poisson run of small flows (2 to 20 packets, 11 on average, so ~90k flows cost under a second):
    measured load = offered wire bytes / (hosts x host rate x duration), within 2% of 0.5. The estimate's
    standard deviation is sqrt((1 + CV^2) / N), about 0.4% here, so 2% is about five sigma."""
    (tmp_path / "sizes.csv").write_text("size_bytes,cdf\n1460,0\n29200,1\n")  # 2..20 packets, equally likely
    hosts, load, duration_s = 16, 0.5, 0.15
    result = pfabric.run(
        {
            "topology": {"kind": "star", "hosts": hosts},
            "workload": {"load": load, "duration_s": duration_s, "cdf": str(tmp_path / "sizes.csv")},
            "scheme": {"name": "tcp"},
        }
    )
    stats, flows = result.stats, result.flows
    size = flows.column("size_bytes").to_numpy().astype(np.int64)
    assert int((size + HEADER * packets(size)).sum()) == stats["offered_wire_bytes"]

    mean_wire = 11 * (MSS + HEADER)  # packets uniform on 2..20
    assert mean_wire_bytes(result.scenario.workload.cdf_data) == pytest.approx(mean_wire, rel=1e-6)
    capacity_bytes = hosts * HOST_RATE_BPS / 8 * duration_s
    expected_flows = load * capacity_bytes / mean_wire
    assert flows.num_rows == pytest.approx(expected_flows, rel=0.02)
    assert stats["offered_wire_bytes"] / capacity_bytes == pytest.approx(load, rel=0.02)
    start = flows.column("start_ps").to_numpy()
    assert start.max() < duration_s * PS_PER_S
    assert stats["flows_finished"] == flows.num_rows and stats["hosts"] == hosts


# --- 5. bad input, through the core's path and the CLI ------------------------------------------------------

# name: (scenario TOML, extra files, the field the one-line message starts with, text it contains)
BAD_INPUT = {
    "load 1.5": ("[workload]\nload = 1.5\n", {}, "workload.load", "1.5 is not allowed"),
    "unknown topology kind": ('[topology]\nkind = "torus"\n', {}, "topology.kind", "'torus'"),
    "unknown scheme": ('[scheme]\nname = "bbr"\n', {}, "scheme.name", "'bbr' is not allowed"),
    "negative rate": (
        "[topology]\nhost_rate_gbps = -10\n",
        {},
        "topology.host_rate_gbps",
        "-10",
    ),
    "NaN delay": ("[topology]\nlink_delay_us = nan\n", {}, "topology.link_delay_us", "nan is not allowed"),
    "CDF unsorted": (
        '[workload]\ncdf = "sizes.csv"\n',
        {"sizes.csv": "size_bytes,cdf\n1000,0\n500,0.5\n2000,1\n"},
        "workload.cdf",
        "row 2: size_bytes=500",
    ),
    "trace host outside the topology": (
        '[workload]\nkind = "trace"\npath = "flows.csv"\n',
        {"flows.csv": "start_s,src,dst,size_bytes\n0,1,2,1000\n0.1,3,200,5000\n"},
        "workload.path",
        "dst=200",
    ),
    # Python and the core share the bounds [0.001, 1e6] Gbps.
    "rate below the minimum": (
        "[topology]\nhost_rate_gbps = 1e-9\n",
        {},
        "topology.host_rate_gbps",
        "0.001",
    ),
}
# Already checked through the CLI by test_cli_errors.py (which needs no core).
IN_TEST_CLI_ERRORS = {
    "load 1.5",
    "unknown topology kind",
    "unknown scheme",
    "trace host outside the topology",
}


def write_scenario(tmp_path: Path, text: str, files: dict[str, str]) -> Path:
    for name, content in files.items():
        (tmp_path / name).write_text(content)
    path = tmp_path / "bad.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("text, files, field, shown", BAD_INPUT.values(), ids=BAD_INPUT.keys())
def test_run_refuses_a_bad_scenario_in_one_line(tmp_path, text, files, field, shown):
    with pytest.raises(pfabric.ScenarioError) as info:
        pfabric.run(write_scenario(tmp_path, text, files))
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"{field}: ") and shown in message


@pytest.mark.parametrize(
    "text, files, field, shown",
    [v for k, v in BAD_INPUT.items() if k not in IN_TEST_CLI_ERRORS],
    ids=[k for k in BAD_INPUT if k not in IN_TEST_CLI_ERRORS],
)
def test_cli_refuses_a_bad_scenario_in_one_line(tmp_path, pfabric_env, text, files, field, shown):
    path = write_scenario(tmp_path, text, files)
    result = pfabric_cli(pfabric_env, "run", str(path), "-o", str(tmp_path / "out"), "-q")
    assert_usage_error(result, f"pfabric: error: {field}: ", shown)


def core_json(**changes) -> dict:
    """The core input of a small valid scenario, with sections updated as given (bypassing validation)."""
    data = pfabric.Scenario.from_dict({"topology": STAR8, "workload": {"flows": 10}}).to_core_dict()
    for section, values in changes.items():
        data[section] = {**data[section], **values}
    return data


ONE_FLOW_TO_HOST_8 = {"kind": "trace", "start_s": [0.0], "src": [0], "dst": [8], "size_bytes": [1000]}


CORE_REFUSES = {
    "load 1.5": (core_json(workload={"load": 1.5}), "workload.load: 1.5 is not allowed"),
    "unknown topology kind": (core_json(topology={"kind": "torus"}), "topology.kind: "),
    "unknown scheme": (core_json(scheme={"name": "bbr"}), "scheme.name: "),
    "negative rate": (core_json(topology={"host_rate_gbps": -10}), "topology.host_rate_gbps: -10.0 "),
    "negative delay": (core_json(topology={"link_delay_us": -1}), "topology.link_delay_us: -1.0 "),
    "CDF unsorted": (
        core_json(
            workload={"cdf": {"size_bytes": [1000, 500, 2000], "cdf": [0, 0.5, 1], "interpolation": "linear"}}
        ),
        "workload.cdf: ",
    ),
    "trace host outside": (
        {**core_json(), "workload": {**ONE_FLOW_TO_HOST_8, "deadline_s": None}},
        "workload.dst[0]: 8 is not allowed; expected a host index in [0, 8)",
    ),
}


@pytest.mark.parametrize("data, prefix", CORE_REFUSES.values(), ids=CORE_REFUSES.keys())
def test_the_core_rechecks_what_validation_refuses(data, prefix):
    """The core does not trust its input: JSON that skipped validation is refused with a one-line message
    naming the field, by `validate` and `run` alike; `pfabric.run`'s path turns it into a ScenarioError."""
    module = _native.core()
    payload = json.dumps(data)
    with pytest.raises(ValueError) as validated:
        module.validate(payload)
    with pytest.raises(pfabric.ScenarioError) as ran:
        api._run_core(module, payload, None)
    assert str(ran.value) == str(validated.value)
    assert "\n" not in str(ran.value) and str(ran.value).startswith(prefix)


def test_a_delay_too_long_to_represent_is_refused(tmp_path):
    trace = write_trace(tmp_path / "one.csv", [(0, 0, 1, MSS)])
    with pytest.raises(pfabric.ScenarioError, match=r"^topology\.link_delay_us: "):
        pfabric.run(
            {"topology": {**STAR8, "link_delay_us": 1e300}, "workload": {"kind": "trace", "path": str(trace)}}
        )


def test_a_start_time_too_late_to_represent_is_refused(tmp_path):
    trace = write_trace(tmp_path / "two.csv", [(0, 0, 1, MSS), (2e7, 1, 2, MSS)])
    with pytest.raises(pfabric.ScenarioError, match="start_s"):
        pfabric.run({"topology": STAR8, "workload": {"kind": "trace", "path": str(trace)}})


def test_cli_runs_a_scenario_end_to_end(tmp_path, pfabric_env):
    (tmp_path / "s.toml").write_text(
        'seed = 3\n[topology]\nkind = "star"\nhosts = 8\n[workload]\nflows = 40\nload = 0.5\n'
        '[scheme]\nname = "pfabric"\n'
    )
    result = pfabric_cli(pfabric_env, "run", str(tmp_path / "s.toml"), "-o", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "pfabric on star (8 hosts): poisson websearch at load 0.5, 40 flows, seed 3" in result.stdout
    assert "(0,100KB]" in result.stdout
    document = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert document["stats"]["flows_finished"] == document["summary"]["flows_total"] == 40
    assert pq.read_table(tmp_path / "out" / "flows.parquet").num_rows == 40


# --- 6. pFabric against TCP ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def websearch_06() -> dict[str, pfabric.RunResult]:
    scenario = {"workload": {"load": 0.6, "flows": 1500}, "seed": 5}
    return {name: pfabric.run({**scenario, "scheme": {"name": name}}) for name in ("tcp", "pfabric")}


def test_pfabric_beats_tcp_for_small_flows(websearch_06):
    small = {name: r.summary["bins"]["(0,100KB]"] for name, r in websearch_06.items()}
    for name, result in websearch_06.items():
        assert result.summary["flows_finished"] == result.summary["flows_total"] == 1500, name
        assert small[name]["unfinished"] == 0 and small[name]["finished"] > 500, name
    for column in ("start_ps", "src", "dst", "size_bytes"):  # the same arrivals for both schemes
        assert websearch_06["tcp"].flows.column(column).equals(websearch_06["pfabric"].flows.column(column))
    assert small["pfabric"]["mean_normalized_fct"] < 0.5 * small["tcp"]["mean_normalized_fct"]
    assert small["pfabric"]["p99_normalized_fct"] < small["tcp"]["p99_normalized_fct"]


# --- 7. progress --------------------------------------------------------------------------------------------


def test_progress_reports_to_the_end(websearch_07):
    """Over a run of ~18M events the core reports along the way, monotonically, and last reports the end."""
    _, seen = websearch_07
    assert len(seen) >= 2
    last = seen[-1]
    assert last["flows_total"] == last["flows_finished"] == last["flows_started"] == 1500
    assert last["done"] is True and not any(info["done"] for info in seen[:-1])
    for key in ("flows_finished", "flows_started", "sim_time_ps", "events"):
        values = [info[key] for info in seen]
        assert values == sorted(values), key


def test_progress_callback_on_a_short_run():
    seen = []
    result = pfabric.run({"topology": STAR8, "workload": {"flows": 30}}, progress=seen.append)
    assert seen and seen[-1]["flows_finished"] == seen[-1]["flows_total"] == 30
    assert seen[-1]["events"] == result.stats["events"]


def test_an_exception_in_the_callback_stops_the_run():
    class Stop(Exception):
        pass

    def stop(info):
        raise Stop(info["flows_finished"])

    with pytest.raises(Stop):
        pfabric.run({"topology": STAR8, "workload": {"flows": 30}}, progress=stop)


def test_an_explicit_arrival_rate_may_overload_and_the_summary_says_so():
    """A total arrival rate instead of a load (for set-ups like the CS244 one, which used a per-sender rate as
    the total): the load it offers is reported, and an overload is flagged rather than averaged away."""
    base = {"topology": {"kind": "star", "hosts": 8}, "scheme": {"name": "tcp"}}
    calm = pfabric.run({**base, "workload": {"arrival_rate_per_s": 2000, "flows": 200}})
    assert 0 < calm.stats["target_load"] < 1 and not calm.summary["warnings"]
    hot = pfabric.run(
        {
            **base,
            "workload": {"arrival_rate_per_s": 20000, "duration_s": 0.01},
            "run": {"max_sim_time_s": 0.02},
        }
    )
    assert hot.stats["target_load"] > 1
    assert any("overloaded" in w for w in hot.summary["warnings"])
    assert hot.summary["flows_unfinished"] > 0
    # The goodput of an overloaded run: every finished flow's bytes and part of the others', never more.
    size = hot.flows.column("size_bytes").to_numpy()
    finished = hot.flows.column("finished").to_numpy()
    assert size[finished].sum() < hot.stats["data_bytes_received"] < size.sum()
    assert calm.stats["data_bytes_received"] == (calm.flows.column("size_bytes").to_numpy().sum())


def test_the_invariants_catch_a_byte_counted_twice_or_missing():
    """Bytes conserved: the goodput lies between the finished flows' bytes and all flows' (pfabric.invariants,
    held to every run of the suite); one byte more than the flows hold, or one less than the finished ones
    need, is a violation."""
    from types import SimpleNamespace

    from pfabric import invariants

    result = pfabric.run({"topology": STAR8, "workload": {"flows": 30}})
    assert invariants.violations(result) == []
    total = int(result.flows.column("size_bytes").to_numpy().sum())
    for got in (total + 1, total - 1):
        doctored = SimpleNamespace(
            stats={**result.stats, "data_bytes_received": got},
            flows=result.flows,
            summary=result.summary,
            ports=result.ports,
            scenario=result.scenario,
        )
        assert any("new payload bytes" in v for v in invariants.violations(doctored)), got


def test_a_partitioned_run_stopped_by_its_event_budget_averages_its_queues_over_the_time_it_ran():
    """Regression: a partitioned run stopped by `run.max_events` ended at its last event, though its cut ports
    had been brought up to date through the end of its last window, later: one port's mean queue came out as
    1.5e14 bytes, its deepest 18,000. The invariants now hold every port's mean queue to [0, deepest]."""
    from pfabric import invariants

    scenario = {
        "seed": 20,
        "topology": {"kind": "leaf-spine", "leaves": 3, "hosts_per_leaf": 4, "spines": 2},
        "workload": {"kind": "poisson", "load": 0.879, "flows": 85},
        "scheme": {"name": "tcp"},
    }
    for threads in (1, 2):
        result = pfabric.run(
            {**scenario, "run": {"threads": threads, "partition": "hosts", "max_events": 15_296}}
        )
        assert result.stats["cut_short"], "the budget stops the run"
        assert invariants.violations(result) == [], threads
        mean = result.ports.column("mean_queue_bytes").to_numpy()
        assert (mean <= result.ports.column("max_queue_bytes").to_numpy()).all()
