"""`pfabric validate`: one command that holds a build (yours, or a fork) to theory and to the papers.

Two parts, one table:

- **Theory** (`theory_checks`): a lone flow takes exactly its ideal FCT on several fabrics, rates and routings;
  Ideal on one bottleneck is M/G/1-SRPT per size bin (Schrage-Miller); pFabric on the same bottleneck stays
  near SRPT; PIAS on it approaches M/G/1-FB as queues are added; Poisson arrivals offer the target load; loaded runs of every scheme keep the invariants of
  `pfabric.invariants` and replay identically.
- **Papers** (`paper_checks`): every figure of `pfabric reproduce`, at quick or paper scale, through a results
  store (runs done before are reused), each check with its verdict.

A row's verdict is "passed", "diverges: explained" (a figure's divergence explained by an experiment the figure
runs) or "failed"; the command exits 1 if any row failed.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from . import api, invariants
from ._native import scheme_names
from .analysis.queueing import fb_response_s, ps_response_s, srpt_response_s
from .presets import Check
from .scenario import Scenario

MSS, HEADER = 1460, 40


@dataclass(frozen=True)
class Row:
    """One line of the table: which part, which figure (or theory topic), and the check."""

    part: str
    source: str
    check: Check


def _wire_service_s(size_bytes: np.ndarray, rate_bps: float) -> np.ndarray:
    size = size_bytes.astype(np.int64)
    return (size + HEADER * np.maximum(1, -(-size // MSS))) * 8 / rate_bps


# --- theory --------------------------------------------------------------------------------------------------

LONE_FABRICS: tuple[dict, ...] = (
    {"kind": "leaf-spine"},
    {"kind": "leaf-spine", "routing": "ecmp"},
    {"kind": "leaf-spine", "leaves": 2, "hosts_per_leaf": 4, "core_rate_gbps": 2.0, "routing": "adaptive"},
    {"kind": "fat-tree", "k": 4, "core_rate_gbps": 4.0, "routing": "adaptive"},
    {"kind": "fat-tree", "k": 4, "core_rate_gbps": 4.0, "routing": "ecmp"},
    {"kind": "fat-tree", "k": 4, "routing": "spray"},
    {"kind": "star", "hosts": 8},
    {"kind": "dumbbell", "hosts_per_side": 3, "bottleneck_rate_gbps": 3.0},
)
# NDP's first window goes at line rate, as its paper's fabrics are full bisection: into a link slower than the
# hosts' it overflows the 8-packet data queue and is trimmed, by design. Its lone flows run on the fabrics whose
# every link is at least the hosts' rate.
FULL_RATE_FABRICS = tuple(
    t for t in LONE_FABRICS if t.get("core_rate_gbps", 10) >= 10 and t.get("bottleneck_rate_gbps", 10) >= 10
)
BIG_WINDOW = {"name": "tcp", "init_cwnd_pkts": 100000, "max_cwnd_pkts": 100000, "queue_bytes": 10**9}


def _trace(folder: Path, name: str, rows: Iterable[tuple[float, int, int, int]]) -> str:
    path = folder / name
    path.write_text("start_s,src,dst,size_bytes\n" + "".join(f"{a!r},{b},{c},{d}\n" for a, b, c, d in rows))
    return str(path)


def lone_flow_check(
    folder: Path,
    scheme: dict = BIG_WINDOW,
    what: str = "a lone flow's FCT",
    fabrics: tuple[dict, ...] = LONE_FABRICS,
) -> Check:
    """Whole-packet flows alone in the fabric, far apart in time: each FCT equals its ideal exactly."""
    exact = total = 0
    worst = ""
    for topology in fabrics:
        hosts = Scenario.from_dict({"topology": topology}).topology.hosts
        sizes = (1, MSS, 12 * MSS, 100 * MSS)
        rows = [(0.01 * i, 0, hosts - 1, size) for i, size in enumerate(sizes)]
        result = api.run(
            {
                "topology": topology,
                "workload": {"kind": "trace", "path": _trace(folder, "lone.csv", rows)},
                "scheme": scheme,
            }
        )
        fct = result.flows.column("finish_ps").to_numpy() - result.flows.column("start_ps").to_numpy()
        ideal = result.flows.column("ideal_fct_ps").to_numpy()
        total += len(fct)
        exact += int((fct == ideal).sum())
        if (fct != ideal).any() and not worst:
            worst = f"; first miss on {topology}"
    return Check(
        f"{what} equals its ideal to the picosecond ({len(fabrics)} fabrics, rates and routings; 4 sizes each)",
        f"{exact} of {total} exact{worst}",
        "all exact",
        exact == total,
    )


def bottleneck_trace(folder: Path, jobs: int, load: float, seed: int = 1) -> tuple[str, np.ndarray, float]:
    """Poisson arrivals of exponential sizes (mean 50 KB) from many hosts into host 0 of a star: one
    bottleneck, the receiver's link. Returns the trace, each job's service time and the arrival rate."""
    rng = np.random.default_rng(seed)
    size = np.maximum(1, np.round(rng.exponential(50_000, jobs))).astype(np.int64)
    rate = load / _wire_service_s(size, 10e9).mean()
    start = np.cumsum(rng.exponential(1 / rate, jobs))
    src = rng.integers(1, 200, jobs)
    path = _trace(
        folder, f"bottleneck-{jobs}.csv", zip(start.tolist(), src.tolist(), [0] * jobs, size.tolist())
    )
    return path, _wire_service_s(size, 10e9), jobs / (start[-1] - start[0])


def _response_s(result) -> np.ndarray:
    """Time in the bottleneck's queue and service: FCT less the path's fixed latency."""
    f = result.flows
    work = _wire_service_s(f.column("size_bytes").to_numpy(), 10e9)
    return f.column("fct_s").to_numpy() - f.column("ideal_fct_s").to_numpy() + work


def ratios_by_size(service: np.ndarray, response: np.ndarray, predicted: np.ndarray) -> list[float]:
    """Mean response over the predicted mean in each size bin: the quartiles of the service times, then the
    largest 5% apart."""
    edges = np.quantile(service, [0, 0.25, 0.5, 0.75, 0.95, 1])
    ratios = []
    for lo, hi in itertools.pairwise(edges):
        in_bin = (service >= lo) & (service <= hi)
        ratios.append(float(response[in_bin].mean() / predicted[in_bin].mean()))
    return ratios


def srpt_checks(folder: Path, jobs: int) -> list[Check]:
    """Ideal per size quartile against Schrage-Miller; pFabric's mean against SRPT's."""
    path, service, rate = bottleneck_trace(folder, jobs, 0.7)
    base = {"topology": {"kind": "star", "hosts": 200}, "workload": {"kind": "trace", "path": path}}
    ideal = api.run({**base, "scheme": {"name": "ideal"}})
    predicted = srpt_response_s(service, rate)
    response = _response_s(ideal)
    ratios = ratios_by_size(service, response, predicted)
    # The sample's own variance: a few percent for quartiles of tens of thousands of jobs, more for the top 5%.
    tolerance = [0.03, 0.03, 0.03, 0.03, 0.08]
    ok = all(abs(r - 1) <= t for r, t in zip(ratios, tolerance, strict=True))
    out = [
        Check(
            f"Ideal on one bottleneck is M/G/1-SRPT (Schrage-Miller), per size bin, load 0.7, {jobs:,} jobs",
            "ratios " + ", ".join(f"{r:.3f}" for r in ratios),
            "1 within 3% (8% for the largest 5%)",
            ok,
        )
    ]
    pf = api.run({**base, "scheme": {"name": "pfabric"}})
    slowdown = lambda r: float(np.nanmean(r.flows.column("slowdown").to_numpy()))
    gap = slowdown(pf) / slowdown(ideal) - 1
    out.append(
        Check(
            "pFabric on the same bottleneck stays near SRPT: mean normalized FCT over Ideal's (= SRPT's)",
            f"{gap * 100:+.1f}%",
            "at most +17.8% (pFabric's largest gap to Ideal in the paper's Fig. 7)",
            0 <= gap <= 0.178,
        )
    )
    return out


def pias_fb_check(folder: Path, jobs: int, load: float = 0.6) -> Check:
    """PIAS on one bottleneck approaches least attained service (M/G/1-FB) as queues are added: web-search
    sizes into host 0 of a star, 2, 4 and 8 queues at the thresholds of the multi-level feedback model."""
    from .analysis import thresholds as model
    from .workloads import load_cdf

    cdf = load_cdf("websearch")
    sizes = model.SizeDistribution.from_cdf(cdf)
    rng = np.random.default_rng(1)
    size = rng.choice(sizes.atom_bytes, size=jobs, p=sizes.atom_prob / sizes.atom_prob.sum()).astype(np.int64)
    service = _wire_service_s(size, 10e9)
    rate = load / service.mean()
    start = np.cumsum(rng.exponential(1 / rate, jobs))
    rows = zip(start.tolist(), rng.integers(1, 200, jobs).tolist(), [0] * jobs, size.tolist())
    base = {
        "topology": {"kind": "star", "hosts": 200},
        "workload": {"kind": "trace", "path": _trace(folder, "pias-bottleneck.csv", rows)},
    }
    fb = float(np.mean(fb_response_s(service, jobs / (start[-1] - start[0])) / service))
    gaps = {}
    for queues in (2, 4, 8):
        chosen = [int(t) for t in model.optimal_thresholds(cdf, load, queues, model="demotion")[0]]
        run = api.run({**base, "scheme": {"name": "pias", "thresholds_bytes": chosen}})
        gaps[queues] = float(np.mean(_response_s(run) / service)) / fb - 1
    shown = ", ".join(f"{q} queues {g * 100:+.1f}%" for q, g in gaps.items())
    return Check(
        f"PIAS on one bottleneck approaches M/G/1-FB as queues are added: mean slowdown over FB's (web-search "
        f"sizes, load {load}, {jobs:,} jobs)",
        shown,
        "falls with every queue added; within 10% at 8 queues (our bound: the claim has no number)",
        gaps[2] > gaps[4] > gaps[8] and 0 <= gaps[8] <= 0.10,
    )


def ndp_ps_check(folder: Path, jobs: int) -> Check:
    """NDP on one bottleneck approaches processor sharing: its receiver pulls its senders in turn."""
    path, service, rate = bottleneck_trace(folder, jobs, 0.7)
    run = api.run(
        {
            "topology": {"kind": "star", "hosts": 200},
            "workload": {"kind": "trace", "path": path},
            "scheme": {"name": "ndp"},
        }
    )
    response, ps = _response_s(run), ps_response_s(service, rate)
    ratios = ratios_by_size(service, response, ps)
    mean = float(response.mean() / ps.mean())
    return Check(
        f"NDP on one bottleneck approaches M/G/1-PS: response over PS's, mean and per size bin (quartiles, top "
        f"5%), load 0.7, {jobs:,} jobs",
        f"mean {mean:.3f}; bins " + ", ".join(f"{r:.3f}" for r in ratios),
        "mean within 15%, each bin within 25% (our bound: the claim has no number)",
        abs(mean - 1) <= 0.15 and all(abs(r - 1) <= 0.25 for r in ratios),
    )


def load_check(folder: Path) -> Check:
    """Poisson arrivals of 2 to 20 packets on a 16-host star for 0.15 s offer load 0.5 within 2%."""
    cdf = folder / "sizes.csv"
    cdf.write_text("size_bytes,cdf\n1460,0\n29200,1\n")
    hosts, load, duration_s = 16, 0.5, 0.15
    result = api.run(
        {
            "topology": {"kind": "star", "hosts": hosts},
            "workload": {"load": load, "duration_s": duration_s, "cdf": str(cdf)},
            "scheme": {"name": "tcp"},
        }
    )
    measured = result.stats["offered_wire_bytes"] / (hosts * 10e9 / 8 * duration_s)
    return Check(
        "Poisson arrivals offer the target load (0.5 on a 16-host star, 0.15 s)",
        f"{measured:.4f}",
        "0.5 within 2% (five standard deviations of the estimate)",
        abs(measured / load - 1) <= 0.02,
    )


def invariant_checks(flows: int) -> list[Check]:
    """Loaded runs of every scheme on an oversubscribed fat-tree and the paper's fabric: invariants hold, and
    the same seed replays byte for byte."""
    broken: list[str] = []
    replays = 0
    runs = 0
    schemes = scheme_names()
    for scheme, topology in itertools.product(
        schemes, ({}, {"kind": "fat-tree", "k": 4, "core_rate_gbps": 4.0})
    ):
        scenario = {
            "topology": topology,
            "workload": {"load": 0.7, "flows": flows},
            "scheme": {"name": scheme},
        }
        first = api.run(scenario)
        runs += 1
        broken += [f"{scheme} {topology or 'leaf-spine'}: {v}" for v in invariants.violations(first)]
        replays += api.run(scenario).flows.equals(first.flows)
    return [
        Check(
            f"invariants over {runs} loaded runs ({len(schemes)} schemes x 2 fabrics): slowdown >= 1, "
            "packets and bytes conserved, every flow finished or reported",
            "all hold" if not broken else "; ".join(broken[:3]),
            "all hold",
            not broken,
        ),
        Check(
            "the same scenario and seed replay byte for byte",
            f"{replays} of {runs}",
            f"{runs} of {runs}",
            replays == runs,
        ),
    ]


def theory_checks(quick: bool, workdir: str | os.PathLike | None = None) -> list[Row]:
    """The theory part's rows. Its traces go in `workdir` (the caller's to remove), or in a folder of its own."""
    with contextlib.ExitStack() as stack:
        if workdir is None:
            workdir = stack.enter_context(tempfile.TemporaryDirectory(prefix="pfabric-validate-"))
        folder = Path(workdir)
        checks = [lone_flow_check(folder)]
        checks.append(lone_flow_check(folder, {"name": "homa"}, "a lone Homa message's FCT"))
        checks.append(
            lone_flow_check(
                folder, {"name": "ndp"}, "a lone NDP flow's FCT (full-rate fabrics)", FULL_RATE_FABRICS
            )
        )
        checks += srpt_checks(folder, 60_000)
        checks.append(pias_fb_check(folder, 20_000))
        checks.append(ndp_ps_check(folder, 20_000))
        checks.append(load_check(folder))
        checks += invariant_checks(300 if quick else 1500)
    return [Row("theory", "queueing and invariants", c) for c in checks]


class Background:
    """A call run in a process of its own, started now, whose result (or exception) `result()` hands back.

    A process, not a thread, and a spawned one: the papers' sweep forks its workers later, and a fork while
    another thread holds a lock (an import's, a Dask client's) leaves the forked process waiting on it for
    ever; a spawned process starts from nothing. It dies with the caller, and leaves Ctrl-C to the caller
    (who stops it), so an interrupt prints one line, not a traceback from each process.
    """

    def __init__(self, call: Callable[..., Any], *args: Any) -> None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self._pool = ProcessPoolExecutor(
            max_workers=1,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_background_worker,
            initargs=(os.getpid(),),
        )
        self._future = self._pool.submit(call, *args)

    def result(self) -> Any:
        from concurrent.futures.process import BrokenProcessPool

        from .errors import SweepError

        try:
            return self._future.result()
        except BrokenProcessPool as exc:
            raise SweepError(f"the theory checks' process died ({exc})") from None
        finally:
            self._pool.shutdown(wait=False, cancel_futures=True)

    def stop(self) -> None:
        """End the call now, unfinished (its process is terminated)."""
        from .sweep import stop_workers

        stop_workers(self._pool)


def _background_worker(parent_pid: int) -> None:
    import signal

    from .sweep import die_with_parent

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(parent_pid)


@dataclass(frozen=True)
class Ready:
    """A result at hand, with `Background`'s `result()`."""

    value: Any

    def result(self) -> Any:
        return self.value

    def stop(self) -> None:
        """Nothing runs: nothing to stop."""


# --- papers --------------------------------------------------------------------------------------------------


def paper_checks(
    quick: bool,
    store: str,
    out: str,
    jobs: int | None,
    names: Iterable[str] | None = None,
    on_figure: Callable[[str, float], Any] | None = None,
    on_runs: Callable[[int, float], Any] | None = None,
    executor: Any = None,
    force: bool = False,
) -> list[Row]:
    """Every runnable figure, reproduced (runs already in `store` are reused), its checks as rows.

    Every figure's runs go first, in one sweep that starts the longest runs first: run figure by figure, each
    figure's last run would hold up the next figure while the other cores idle. `on_runs(new, seconds)` is
    told how many runs that sweep made; `on_figure(name, seconds)` then times each figure's plots and checks.
    """
    from .figures import FIGURES
    from .reproduce import reproduce, run_figures
    from .store import Store

    figures = [FIGURES[name] for name in names or FIGURES if FIGURES[name].runnable]
    store = Store(store)
    started = time.perf_counter()
    new = run_figures(figures, quick, store, jobs=jobs, executor=executor, force=force)
    if on_runs is not None:
        on_runs(new, time.perf_counter() - started)
    rows = []
    for figure in figures:
        name = figure.name
        started = time.perf_counter()
        made = reproduce(figure, quick=quick, store=store, out=out, jobs=jobs)
        rows += [Row("papers", name, c) for c in made.checks]
        if on_figure is not None:
            on_figure(name, time.perf_counter() - started)
    return rows


def failed(rows: Iterable[Row]) -> list[Row]:
    return [r for r in rows if not r.check.settled]


_ROW = re.compile(r"^\| (theory|papers) \| ((?:[^|\\]|\\.)*?) \|")
_COUNTS = re.compile(r"\d+ passed, \d+ diverge with an explaining experiment, \d+ failed\.")


def merge_markdown(table: str, part: str) -> str:
    """`table` (a FIDELITY file made in parts) with the rows of `part` (another validate's Markdown) in place
    of its rows for the same figures or theory topic; rows of new figures go after the last row. The first
    count line ("N passed, M diverge ..., K failed.") is recounted over the whole table; the rest of the
    prose is the caller's to keep true."""

    def source(line: str) -> tuple[str, str] | None:
        m = _ROW.match(line)
        return (m.group(1), m.group(2)) if m else None

    new: dict[tuple[str, str], list[str]] = {}
    for line in part.splitlines():
        if (key := source(line)) is not None:
            new.setdefault(key, []).append(line)
    out: list[str] = []
    placed: set[tuple[str, str]] = set()
    for line in table.splitlines():
        key = source(line)
        if key in new:
            if key not in placed:
                out += new[key]
                placed.add(key)
            continue
        out.append(line)
    rows_at = [i for i, line in enumerate(out) if source(line) is not None]
    last = rows_at[-1] + 1 if rows_at else len(out)
    out[last:last] = [line for key, lines in new.items() if key not in placed for line in lines]
    verdicts = [line.rstrip(" |").rsplit("|", 1)[-1].strip() for line in out if source(line) is not None]
    counts = (
        f"{sum(v == 'passed' for v in verdicts)} passed, "
        f"{sum(v.startswith('diverges') for v in verdicts)} diverge with an explaining experiment, "
        f"{sum(v == 'failed' for v in verdicts)} failed."
    )
    return _COUNTS.sub(counts, "\n".join(out) + "\n", count=1)


def markdown(rows: list[Row], seconds: float, quick: bool, command: str) -> str:
    """The table as Markdown (FIDELITY.md): every check with ours, the reference and the verdict."""
    counts = {v: sum(r.check.verdict == v for r in rows) for v in ("passed", "diverges: explained", "failed")}
    lines = [
        "# Fidelity: every check against theory and the papers",
        "",
        (
            f"Made by `{command}` ({'quick' if quick else 'paper'} scale) in {seconds / 60:.1f} min: "
            f"{counts['passed']} passed, {counts['diverges: explained']} diverge with an explaining experiment, "
            f"{counts['failed']} failed."
        ),
        "",
        "| part | figure / topic | check | ours | reference | verdict |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    cell = lambda text: str(text).replace("|", "\\|").replace("\n", " ")
    for r in rows:
        c = r.check
        verdict = c.verdict + (f": {c.explained}" if c.explained else "")
        lines.append(
            f"| {r.part} | {cell(r.source)} | {cell(c.name)} | {cell(c.ours)} | {cell(c.paper)} | {cell(verdict)} |"
        )
    return "\n".join(lines) + "\n"
