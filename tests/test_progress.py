"""Progress reports: plain lines at an interval where stderr is no terminal, and an ETA that counts the drain.

No compiled core needed: the reports are fed by hand with a fake clock, or come from the fake core.
"""

from __future__ import annotations

import io

import pfabric
import pytest
from pfabric.progress import Expected, ProgressBar, RunEta, RunsBar, every_s, format_duration
from pfabric.scenario import Scenario
from pfabric.store import Store
from pfabric.sweep import run_sweep


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def info(started: int, finished: int, total: int | None, sim_ms: float, done: bool = False) -> dict:
    return {
        "flows_started": started,
        "flows_finished": finished,
        "flows_total": total,
        "sim_time_ps": int(sim_ms * 1e9),
        "events": 0,
        "done": done,
    }


def lines_of(stream: io.StringIO) -> list[str]:
    return stream.getvalue().splitlines()


def test_a_run_off_a_terminal_writes_a_line_every_interval():
    clock, out = Clock(), io.StringIO()
    with ProgressBar(mode="lines", interval_s=5, stream=out, clock=clock, ticker=False) as bar:
        for second in range(1, 23):  # a report every second for 22 s: lines at 1 (the first), 6, 11, 16, 21 s
            clock.now += 1
            bar(info(min(10 * second, 200), 9 * second, 200, sim_ms=second))
    lines = lines_of(out)
    assert len(lines) == 5 + 1, lines
    assert lines[0].startswith(
        "pfabric: simulating: flows 9/200 (10 started), 1.000 ms simulated, elapsed 0:00:01"
    )
    assert lines[1] == (
        # last start at 6 ms x 200 / 60 = 20 ms, then 0.6 ms in the fabric (Little's law), at 1 s per ms
        "pfabric: simulating: flows 54/200 (60 started), 6.000 ms simulated, elapsed 0:00:06, ETA 0:00:15"
    )
    assert [line.split("elapsed ")[1][:7] for line in lines[:5]] == [
        "0:00:01",
        "0:00:06",
        "0:00:11",
        "0:00:16",
        "0:00:21",
    ]
    assert lines[-1] == "pfabric: simulating: done: flows 198/200, 22.000 ms simulated, in 0:00:22"


def test_lines_stop_with_the_reports_and_say_when_a_run_stopped():
    clock, out = Clock(), io.StringIO()
    with (
        pytest.raises(KeyboardInterrupt),
        ProgressBar(mode="lines", stream=out, clock=clock, ticker=False) as bar,
    ):
        clock.now += 3
        bar(info(5, 2, 10, sim_ms=1))
        raise KeyboardInterrupt
    assert lines_of(out)[-1].startswith("pfabric: simulating: stopped after 0:00:03: flows 2/10")


def test_a_run_refused_before_its_first_report_writes_nothing():
    out = io.StringIO()
    with pytest.raises(ValueError), ProgressBar(mode="lines", stream=out, ticker=False):
        raise ValueError("scheme.queue_bytes: 1 is not allowed")  # the one line the CLI prints
    assert out.getvalue() == ""


def test_a_sweep_off_a_terminal_logs_runs_done_flows_and_an_eta():
    clock, out = Clock(), io.StringIO()
    with RunsBar(3, stored=1, mode="lines", interval_s=5, stream=out, clock=clock, ticker=False) as bar:
        with bar.run("a", "load=0.2") as report:
            clock.now += 2
            report(info(50, 40, 100, sim_ms=2))
            clock.now += 3
            report(info(100, 98, 100, sim_ms=4))
        bar.advance()
        clock.now += 4
        bar.tick()  # nothing due: 4 s since the last line
        clock.now += 1
        bar.tick()
        bar.advance()
        bar.advance()
    lines = lines_of(out)
    assert lines[0] == "pfabric: runs: 3 to run (1 already stored)"
    assert lines[1].startswith(
        "pfabric: runs 0/3 | load=0.2: flows 98/100, 4.000 ms simulated | elapsed 0:00:05"
    )
    assert lines[2].startswith("pfabric: runs 1/3 | elapsed 0:00:10, ETA 0:00:20")  # 1 run in 10 s, 2 to go
    assert lines[3] == "pfabric: runs: 3/3 done in 0:00:10"
    assert len(lines) == 4


def test_the_ticker_thread_writes_while_no_report_comes():
    out = io.StringIO()
    with RunsBar(1, mode="lines", interval_s=0.05, stream=out) as bar:
        import time

        time.sleep(0.3)
        bar.advance()
    assert len(lines_of(out)) >= 4  # start, a few ticks, end


def test_the_interval_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("PFABRIC_PROGRESS_EVERY_S", "30")
    assert every_s() == 30
    for bad in ("0", "-1", "soon", "nan"):
        monkeypatch.setenv("PFABRIC_PROGRESS_EVERY_S", bad)
        assert every_s() == 5


def drive(eta: RunEta, clock: Clock, reports: list[tuple[float, dict]]) -> None:
    for wall_s, report in reports:
        clock.now = 1000.0 + wall_s
        eta.update(report)


def test_eta_counts_the_drain_of_the_last_flows():
    """100 flows arrive over 10 ms of simulated time (1 wall second per simulated ms); then the last one
    drains for 40 ms more. Counting flows would say ~1% is left (a second or less); the drain is most."""
    clock = Clock()
    eta = RunEta(Expected(drain_s=0.005), clock)
    drive(eta, clock, [(t, info(10 * t, 9 * t, 100, sim_ms=t)) for t in range(1, 11)])
    # Arrivals done at 10 ms: the end is expected after the drain (here the largest flow's 5 ms alone, as
    # Little's law gives less: 10 flows in flight at 10 flows per ms is 1 ms), at 1 s per simulated ms.
    assert eta.end_sim_s() == pytest.approx(0.015)
    assert eta.eta_s() == pytest.approx(5.0)
    # The drain: 99 of 100 finished, the simulated cost falls to 0.1 s per ms.
    drive(eta, clock, [(10 + 0.1 * t, info(100, 99, 100, sim_ms=10 + t)) for t in range(1, 31)])
    assert eta.sim_s == pytest.approx(0.040)
    # Past the expected end: the drain (30 ms so far) is expected to last as long again, at 0.1 s per ms.
    assert eta.end_sim_s() == pytest.approx(0.070)
    assert eta.eta_s() == pytest.approx(3.0)
    assert eta.flows_finished / eta.flows_total == 0.99  # what a count of flows would have gone by
    drive(eta, clock, [(14, info(100, 100, 100, sim_ms=55, done=True))])
    assert eta.eta_s() == 0


def test_eta_in_the_arrival_phase_extrapolates_the_last_start():
    clock = Clock()
    eta = RunEta(None, clock)
    drive(eta, clock, [(2, info(20, 15, 100, sim_ms=2))])
    # The last of 100 starts at 10 ms; Little's law: 5 in flight at 10 per ms -> 0.5 ms in the fabric.
    assert eta.end_sim_s() == pytest.approx(0.0105)
    assert eta.eta_s() == pytest.approx(8.5)
    assert format_duration(eta.eta_s()) == "0:00:08" and format_duration(None) == "?"


def test_eta_is_capped_by_the_stop_time():
    clock = Clock()
    eta = RunEta(Expected(drain_s=1.0, stop_s=0.02), clock)
    drive(eta, clock, [(1, info(50, 40, 100, sim_ms=10))])
    assert eta.end_sim_s() == pytest.approx(0.02)


def test_expectations_of_workloads(tmp_path):
    trace = tmp_path / "flows.csv"
    trace.write_text("start_s,src,dst,size_bytes\n0.002,0,1,1250000\n0.001,1,2,125\n")
    expected = Expected.of(Scenario.from_dict({"workload": {"kind": "trace", "path": str(trace)}}))
    assert expected.last_start_s == 0.002
    assert expected.end_at_least_s == pytest.approx(0.003)  # 1.25 MB at 10 Gbps: 1 ms
    fan_in = Expected.of(
        Scenario.from_dict({"workload": {"kind": "fan-in", "senders": 4, "flow_bytes": 1_250_000}})
    )
    assert fan_in.end_at_least_s == pytest.approx(0.004)  # 4 x 1 ms through one receiver link
    poisson = Expected.of(Scenario.from_dict({"workload": {"flows": 1000}, "run": {"max_sim_time_s": 2}}))
    # web search's largest of 1,000 draws, alone at 10 Gbps: near its 29.2 MB top
    assert 0.02 < poisson.drain_s < 29.2e6 * 8 / 10e9 and poisson.stop_s == 2
    assert Expected.of(Scenario.from_dict({"workload": {"duration_s": 0.5}})).last_start_s == 0.5


def test_a_sweep_logs_plain_lines_when_stderr_is_a_file(fake_core, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PFABRIC_PROGRESS", "lines")
    base = {"topology": {"kind": "star", "hosts": 8}, "scheme": {"name": "tcp"}}
    points = [({"flows": n}, Scenario.from_dict({**base, "workload": {"flows": n}})) for n in (10, 20)]
    run_sweep(points, Store(tmp_path / "store"), jobs=1, progress=True)
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "pfabric: runs: 2 to run" and err[-1].startswith("pfabric: runs: 2/2 done in ")
    pfabric.run({**base, "workload": {"flows": 10}}, progress=True)
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("pfabric: simulating: flows ") and err[-1].startswith(
        "pfabric: simulating: done: flows 9/10"
    )
