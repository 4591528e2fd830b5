"""Fuzz: random scenarios and files through the API and the CLI give a result or one clear line, nothing else.

Hypothesis builds scenario dicts of every shape: a tiny valid scenario with a few fields set to random
values (wrong types, huge, negative, NaN, inf, strings where numbers go, unknown keys, deep nesting), or
plain junk; files named by them hold random CSV bytes, or the path is long, missing, a folder, a device,
full of odd characters. The properties:

- API (`pfabric.api.as_scenario`, then `to_core_json`, and `pfabric.run` for the tiny valid ones): no
  exception but `ScenarioError`, whose text is one line in our words (no pydantic phrase, list items as
  `field[i]`).
- CLI (`pfabric run FILE -o DIR`, in-process through `pfabric.cli.main`, much faster than a subprocess):
  status 0, or status 2 with exactly one line `pfabric: error: ...` on stderr, no traceback, and no empty
  output folder left behind.

PFABRIC_FUZZ_EXAMPLES sets the examples of each API test (default 1000, about 15 s in all: CI's share);
the CLI test gets a fifth as many. `make fuzz` runs 100000. PFABRIC_FUZZ_RANDOM=1 draws fresh examples
instead of the fixed (derandomized) ones.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.util
import io
import json
import math
import os
import re
import shutil
import signal
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pfabric
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from pfabric.api import as_scenario
from pfabric.cli import main
from pfabric.describe import field_docs, field_shape, section_models
from pfabric.scenario import Deadlines, Output, Run, Scenario, Scheme, scheme_names
from pfabric.workloads import packaged_cdfs

EXAMPLES = int(os.environ.get("PFABRIC_FUZZ_EXAMPLES", "1000"))
# Without the compiled core the fuzz validates only (a valid scenario would stop at CoreUnavailable).
HAVE_CORE = importlib.util.find_spec("pfabric._core") is not None
CLI_EXAMPLES = max(10, EXAMPLES // 5)
# A run the fuzz makes is tiny (a handful of hosts and flows) and capped at this many events; one that
# takes longer than LIMIT_S (validation or run) is a hang.
MAX_EVENTS = 100_000
LIMIT_S = 30
WORK = Path(tempfile.mkdtemp(prefix="pfabric-fuzz-"))
atexit.register(shutil.rmtree, WORK, ignore_errors=True)
pytestmark = pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")

SETTINGS = {
    "deadline": None,
    "suppress_health_check": list(HealthCheck),
    "derandomize": os.environ.get("PFABRIC_FUZZ_RANDOM") is None,
    "database": None,
}

FIELD_PATHS = [doc.path for doc in field_docs(Scenario)]
LIST_FIELDS = sorted({doc.path.split(".")[-1] for doc in field_docs(Scenario) if doc.type.startswith("list")})
PYDANTIC_WORDS = ("Input should", "Value error", "validation error", "pydantic", "For further information")
LIST_INDEX = re.compile(rf"\b({'|'.join(LIST_FIELDS)})\.\d")


# --- values -----------------------------------------------------------------------------------------------

NAMES = sorted(
    {
        *scheme_names(),
        *packaged_cdfs(),
        "leaf-spine",
        "star",
        "fat-tree",
        "dumbbell",
        "poisson",
        "trace",
        "fan-in",
        "spray",
        "ecmp",
        "adaptive",
        "optimal",
        "equal-split",
        "linear",
        "step",
        "srpt",
        "remaining-size",
        "deadline",
        "tcp",
        "constant-rate",
    }
)
SPECIAL_NUMBERS = [
    0,
    1,
    -1,
    2,
    3,
    4,
    7,
    2**31,
    2**53 + 1,
    2**63 - 1,
    2**63,
    2**64,
    10**30,
    10**400,
    -(2**63),
    0.0,
    -0.0,
    0.5,
    0.999999,
    1e-300,
    5e-324,
    1e300,
    1.7976931348623157e308,
    math.nan,
    math.inf,
    -math.inf,
]
numbers = st.one_of(
    st.integers(-3, 12),
    st.integers(),
    st.floats(-2, 2),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(SPECIAL_NUMBERS),
)
scalars = st.one_of(
    numbers,
    st.none(),
    st.booleans(),
    st.text(max_size=12),
    st.sampled_from(NAMES),
    st.sampled_from(["10", "0.5", "1e3", "nan", "true", "yes", " 3", "", "-1"]),
)
keys = st.one_of(st.sampled_from(sorted({p.split(".")[-1] for p in FIELD_PATHS})), st.text(max_size=8))
junk = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=10,
)


@dataclass(frozen=True)
class Deep:
    """A list or dict nested `depth` deep, made real by `realize` (so that hypothesis, which prints its
    examples recursively, sees a short value)."""

    depth: int
    kind: str

    def build(self) -> object:
        value: object = 1
        for _ in range(self.depth):  # a loop: a recursive builder would be the thing under test
            value = [value] if self.kind == "list" else {"kind": value}
        return value


deep = st.builds(Deep, st.integers(50, 20_000), st.sampled_from(["list", "dict"]))


# --- files ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FileSpec:
    """A path the test makes real: `kind` says what is there, `content` what a file holds."""

    kind: str
    content: bytes = b""


cells = st.one_of(
    st.integers(-2, 8).map(str),
    st.integers(0, 200_000).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(
        ["", "nan", "inf", "-inf", "1e400", "x", '"1"', "0x10", "1_000", " 1 ", "\u0661", "1e-400"]
    ),
    st.text(max_size=4),
)
HEADERS = [
    "start_s,src,dst,size_bytes",
    "start_s,src,dst,size_bytes,deadline_s",
    "src,dst,size_bytes,start_s",
    "start_s, src ,dst,size_bytes",
    "start_s,src,dst",
    "start_s,src,dst,size_bytes,size_bytes",
    "size_bytes,cdf",
    "size_bytes",
    "",
]


@st.composite
def csv_bytes(draw) -> bytes:
    """Random CSV: a plausible trace or CDF (mostly close to valid), random text, or random bytes."""
    mode = draw(st.sampled_from(["trace", "cdf", "rows", "text", "bytes"]))
    if mode == "bytes":
        return draw(st.binary(max_size=300))
    if mode == "text":
        return draw(st.text(max_size=300)).encode("utf-8", "surrogatepass")
    if mode == "trace":
        rows = draw(
            st.lists(
                st.tuples(
                    st.floats(0, 1e-3) | numbers,
                    st.integers(0, 3) | numbers,
                    st.integers(0, 3) | numbers,
                    st.integers(1, 100_000) | numbers,
                    st.none() | st.floats(1e-5, 1e-2) | numbers,
                ),
                max_size=8,
            )
        )
        lines = ["start_s,src,dst,size_bytes,deadline_s"]
        lines += [",".join("" if c is None else repr(c) for c in row) for row in rows]
    elif mode == "cdf":
        sizes = sorted(draw(st.lists(st.integers(0, 10**7) | numbers, min_size=1, max_size=6)), key=str)
        probabilities = draw(st.lists(st.floats(0, 1) | numbers, min_size=len(sizes), max_size=len(sizes)))
        if draw(st.booleans()):
            probabilities = [*sorted(p for p in probabilities if isinstance(p, float) and 0 <= p <= 1), 1.0]
            sizes = [*sorted(s for s in sizes if isinstance(s, int) and s >= 1), 10**6][: len(probabilities)]
        lines = ["size_bytes,cdf"] + [f"{s!r},{p!r}" for s, p in zip(sizes, probabilities, strict=False)]
    else:
        header = draw(st.sampled_from(HEADERS) | st.text(max_size=30))
        rows = draw(st.lists(st.lists(cells, max_size=6), max_size=6))
        lines = [header] + [",".join(row) for row in rows]
    text = draw(st.sampled_from(["\n", "\r\n", "\n\n"])).join(lines) + draw(st.sampled_from(["", "\n"]))
    prefix = draw(st.sampled_from(["", "", "\ufeff", '"']))
    return (prefix + text).encode("utf-8", "surrogatepass")


@st.composite
def valid_trace(draw) -> bytes:
    """A trace for a fabric of 2 hosts or more, valid but for the edges it may touch (big sizes, late
    starts, short deadlines, rows out of start order, empty deadline cells)."""
    rows = draw(
        st.lists(
            st.tuples(
                st.floats(0, 1e-3) | st.sampled_from([0.0, 1e-12, 1e6]),
                st.sampled_from([(0, 1), (1, 0)]),
                st.integers(1, 100_000) | st.sampled_from([1, 10**12]),
                st.none() | st.floats(1e-6, 1e-2) | st.sampled_from([1e-12, 1e6]),
            ),
            min_size=1,
            max_size=6,
        )
    )
    lines = ["start_s,src,dst,size_bytes,deadline_s"]
    lines += [f"{t!r},{a},{b},{size},{'' if d is None else repr(d)}" for t, (a, b), size, d in rows]
    return ("\n".join(lines) + "\n").encode()


@st.composite
def valid_cdf(draw) -> bytes:
    """A flow-size CDF that validates (linear or as steps), sizes from one byte up to the core's bound."""
    sizes = sorted(
        draw(st.lists(st.integers(1, 10**6) | st.sampled_from([1, 1460, 10**12]), min_size=2, max_size=5))
    )
    probabilities = sorted(draw(st.lists(st.floats(0, 1), min_size=len(sizes) - 1, max_size=len(sizes) - 1)))
    lines = ["size_bytes,cdf"] + [f"{s},{p!r}" for s, p in zip(sizes, [*probabilities, 1.0], strict=True)]
    return ("\n".join(lines) + "\n").encode()


files = st.one_of(
    st.builds(FileSpec, st.just("file"), valid_trace() | valid_cdf()),
    st.builds(FileSpec, st.just("file"), csv_bytes()),
    st.builds(FileSpec, st.just("relative"), csv_bytes()),
    st.sampled_from(
        [
            FileSpec(kind)
            for kind in ("missing", "dir", "long", "long-name", "tilde", "empty", "dev-null", "proc-mem")
        ]
    ),
    st.builds(
        FileSpec,
        st.just("odd"),
        st.sampled_from(["\x00", "\n", "\udc80", "\u202e", "*", "..", " "]).map(
            lambda s: s.encode("utf-8", "surrogatepass")
        ),
    ),
    st.builds(FileSpec, st.just("unreadable"), csv_bytes()),
)


class Files:
    """Makes FileSpecs real under WORK, reusing a few names so that a long fuzz does not fill the disk."""

    def __init__(self) -> None:
        self.count = 0
        (WORK / "folder").mkdir(exist_ok=True)

    def path(self, spec: FileSpec, cli: bool) -> str:
        self.count += 1
        name = WORK / f"f{self.count % 20}.csv"
        if spec.kind in ("file", "relative", "unreadable"):
            name.chmod(0o644) if name.exists() else None
            name.write_bytes(spec.content)
            if spec.kind == "unreadable":
                name.chmod(0)  # still readable by root: then it is just another file
            return os.path.relpath(name) if spec.kind == "relative" and not cli else str(name)
        odd = spec.content.decode("utf-8", "surrogatepass")
        if cli and "\x00" in odd:
            odd = "\n"  # a command line cannot hold a NUL; TOML writes a newline as \n
        return {
            "missing": str(WORK / "no-such-file.csv"),
            "dir": str(WORK / "folder"),
            "long": str(WORK / ("x" * 300) / "flows.csv"),
            "long-name": str(WORK / ("y" * 300)),
            "tilde": "~no-such-user-pfabric/flows.csv",
            "empty": "",
            "dev-null": os.devnull,
            "proc-mem": "/proc/self/mem",
            "odd": str(WORK / f"a{odd}b.csv"),
        }[spec.kind]


FILES = Files()


def realize(value: object, cli: bool = False) -> object:
    """`value` with every FileSpec in it replaced by a real path."""
    if isinstance(value, FileSpec):
        return FILES.path(value, cli)
    if isinstance(value, Deep):
        return value if cli else value.build()  # the CLI writes it as TOML text (see toml_value)
    if isinstance(value, dict):
        return {k: realize(v, cli) for k, v in value.items()}
    if isinstance(value, list):
        return [realize(v, cli) for v in value]
    return value


# --- scenarios --------------------------------------------------------------------------------------------


@st.composite
def tiny_scenarios(draw) -> dict:
    """A scenario that (before mutation) validates and runs in milliseconds."""
    kind = draw(st.sampled_from(["star", "leaf-spine", "fat-tree", "dumbbell"]))
    topology: dict = {"kind": kind}
    if kind == "star":
        topology["hosts"] = draw(st.integers(2, 6))
    elif kind == "leaf-spine":
        topology.update(leaves=draw(st.integers(1, 2)), hosts_per_leaf=2, spines=draw(st.integers(1, 2)))
    elif kind == "fat-tree":
        topology["k"] = 2
    else:
        topology["hosts_per_side"] = draw(st.integers(1, 2))
    work_kind = draw(st.sampled_from(["poisson", "trace", "fan-in"]))
    if work_kind == "poisson":
        workload: dict = {"flows": draw(st.integers(1, 5)), "load": draw(st.sampled_from([0.2, 0.6]))}
        workload["cdf"] = draw(st.sampled_from(["websearch", "datamining"]) | files)
    elif work_kind == "trace":
        workload = {"kind": "trace", "path": draw(files)}
    else:
        workload = {"kind": "fan-in", "senders": 1, "flow_bytes": draw(st.integers(1, 50_000))}
    scenario = {
        "seed": draw(st.integers(0, 99)),
        "topology": topology,
        "workload": workload,
        "scheme": {"name": draw(st.sampled_from(sorted(scheme_names())))},
        "run": {"max_events": MAX_EVENTS},
    }
    if scenario["scheme"]["name"] == "prio-queues" and work_kind != "poisson":
        scenario["scheme"]["thresholds_bytes"] = [10_000, 100_000]
    return scenario


def _field_infos() -> dict[str, object]:
    """Every scenario field path -> its FieldInfo (each kind of a section, and sections inside sections)."""
    found: dict[str, object] = {}

    def walk(model, prefix: str) -> None:
        for name, info in model.model_fields.items():
            path = f"{prefix}.{name}" if prefix else name
            models = section_models(info)
            if models:
                for sub in models.values():
                    walk(sub, path)
            else:
                found.setdefault(path, info)

    walk(Scenario, "")
    return found


def _near(bound: float) -> list:
    values = [bound, bound * 2, bound / 2, bound + 1, bound - 1, bound * (1 + 1e-12), bound * (1 - 1e-12)]
    return [v for v in values if math.isfinite(v)] + ([int(bound)] if abs(bound) < 2**70 else [])


def plausible(shape) -> st.SearchStrategy:
    """Values of the field's own type, in range and at its edges: the ones that pass the first checks and
    reach the later ones (and the core's)."""
    options = []
    if shape.choices:
        options.append(st.sampled_from(shape.choices))
    edges = [v for bound in shape.bounds.values() for v in _near(float(bound))]
    low = shape.bounds.get("gt", shape.bounds.get("ge"))
    high = shape.bounds.get("lt", shape.bounds.get("le"))
    for base in shape.bases:
        if base is bool:
            options.append(st.booleans())
        elif base is int:
            lo = int(low) if low is not None else -5
            options.append(
                st.integers(lo, max(lo, int(min(high, lo + 100))) if high is not None else lo + 100)
            )
            options.append(st.sampled_from([int(v) for v in edges] or [0]))
        elif base is float:
            options.append(st.floats(float(low or 0), float(min(high or 100.0, 1e6)), allow_nan=False))
            options.append(st.sampled_from(edges or [0.0]))
        elif base is str:
            options.append(st.sampled_from(NAMES) | files)
        elif base is list and shape.items is not None:
            items = plausible(shape.items)
            options.append(st.lists(items, max_size=5))
            options.append(st.lists(items, max_size=5).map(lambda v: sorted(v, key=repr)))
    return st.one_of(options) if options else scalars


PLAUSIBLE = {path: plausible(field_shape(info)) for path, info in _field_infos().items()}

field_values = st.one_of(
    scalars,
    numbers,
    junk,
    files,
    st.lists(numbers, max_size=5),
    st.lists(st.integers(1, 10**6), max_size=5),
    st.dictionaries(keys, scalars, max_size=3),
)


def fitting_paths(scenario: dict) -> list[str]:
    """The fields this scenario's kinds and scheme take (so that a change reaches the deeper checks and
    the core rather than stopping at an unknown key)."""
    paths = ["seed", *(f"output.{n}" for n in Output.model_fields), *(f"run.{n}" for n in Run.model_fields)]
    for section in ("topology", "workload"):
        kind = scenario[section].get("kind") if isinstance(scenario.get(section), dict) else None
        models = section_models(Scenario.model_fields[section])
        model = models.get(kind) if isinstance(kind, str) else None
        model = model or next(iter(models.values()))
        paths += [f"{section}.{n}" for n in model.model_fields if n != "kind"]
    if any(p == "workload.deadlines" for p in paths):
        paths += [f"workload.deadlines.{n}" for n in Deadlines.model_fields]
    name = scenario.get("scheme", {}).get("name") if isinstance(scenario.get("scheme"), dict) else None
    if isinstance(name, str) and name in scheme_names():
        paths += [f"scheme.{n}" for n in Scheme.override_keys(name)]
    return [p for p in paths if p in PLAUSIBLE]


@st.composite
def mutated(draw) -> dict:
    """A tiny scenario with 0 to 3 changes: a field (known or not) set to anything, or a key removed."""
    scenario = draw(tiny_scenarios())
    for _ in range(draw(st.integers(0, 3))):
        fitting = fitting_paths(scenario)
        path = draw(
            st.sampled_from(fitting)
            | st.sampled_from(FIELD_PATHS)
            | st.lists(keys, min_size=1, max_size=3).map(".".join)
        )
        *parents, leaf = path.split(".")
        target = scenario
        for key in parents:
            if not isinstance(target.get(key), dict):
                target[key] = {}
            target = target[key]
        if draw(st.integers(0, 9)) == 0:
            target.pop(leaf, None)
        elif path in PLAUSIBLE and draw(st.booleans()):
            target[leaf] = draw(PLAUSIBLE[path])
        else:
            target[leaf] = draw(field_values | deep) if draw(st.integers(0, 19)) == 0 else draw(field_values)
    return scenario


scenario_dicts = st.one_of(
    mutated(),
    mutated(),
    mutated(),
    st.dictionaries(keys, junk, max_size=5),
    st.dictionaries(
        st.sampled_from(["topology", "workload", "scheme", "output", "run", "seed"]), junk | deep
    ),
)


# --- the checks -------------------------------------------------------------------------------------------


class Hang(Exception):
    pass


@contextlib.contextmanager
def time_limit(seconds: int):
    """Fail an example that runs past `seconds` (Python code: the core, capped by MAX_EVENTS, cannot be
    interrupted, so the time is checked after it too)."""

    def alarm(*_):
        raise Hang(f"no answer in {seconds} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    start = time.monotonic()
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert time.monotonic() - start < seconds, f"took {time.monotonic() - start:.1f} s"


def check_message(message: str) -> None:
    """One line, in our words, list items as field[i]."""
    assert message and "\n" not in message and "\r" not in message, message
    assert "Traceback" not in message, message
    for words in PYDANTIC_WORDS:
        assert words not in message, message
    assert not LIST_INDEX.search(message), message


# Bytes a run may move: the core works out each flow's ideal FCT packet by packet on a multi-path fabric,
# outside the event budget (a terabyte flow takes a minute), so the fuzz keeps its flows small.
MAX_BYTES = 10**8


def tiny(scenario: Scenario) -> bool:
    """Whether a valid scenario is small enough to run here: few hosts and flows, few bytes, few events."""
    workload = scenario.workload
    if (
        not HAVE_CORE
        or scenario.hosts > 16
        or scenario.run.max_events is None
        or scenario.run.max_events > MAX_EVENTS
    ):
        return False
    if workload.kind == "poisson":
        largest = float(workload.cdf_data.size_bytes.max())
        return workload.flows is not None and workload.flows <= 20 and workload.flows * largest <= MAX_BYTES
    if workload.kind == "trace":
        return len(workload.trace_data) <= 20 and int(workload.trace_data.size_bytes.sum()) <= MAX_BYTES
    sizes = workload.sizes_bytes or [workload.flow_bytes or workload.total_bytes or 0]
    return workload.sender_count <= 8 and sum(sizes) * workload.sender_count <= MAX_BYTES


@settings(max_examples=EXAMPLES, **SETTINGS)
@given(scenario_dicts, st.integers(0, 3))
def test_api_gives_a_result_or_a_scenario_error(data, run_share):
    data = realize(data)
    with time_limit(LIMIT_S):
        try:
            scenario = as_scenario(data)
            scenario.to_core_json()
            event("valid")
            if run_share == 0 and tiny(scenario):
                pfabric.run(scenario)
                event("ran")
        except pfabric.ScenarioError as exc:
            event("refused")
            check_message(str(exc))


@settings(max_examples=EXAMPLES, **SETTINGS)
@given(st.one_of(junk, deep, files, st.binary(max_size=20)))
def test_api_takes_anything_as_a_scenario(value):
    value = realize(value)
    with time_limit(LIMIT_S):
        try:
            as_scenario(value).to_core_json()
        except pfabric.ScenarioError as exc:
            check_message(str(exc))


# --- through the command line -----------------------------------------------------------------------------


def toml_value(value: object) -> str | None:
    """`value` as inline TOML (None has no TOML form: the key is left out)."""
    if value is None:
        return None
    if isinstance(value, Deep):
        inner = "[" * value.depth if value.kind == "list" else "{kind = " * value.depth
        return inner + "1" + ("]" if value.kind == "list" else "}") * value.depth
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return (
            "nan"
            if math.isnan(value)
            else ("inf" if value > 0 else "-inf")
            if math.isinf(value)
            else repr(value)
        )
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        items = [toml_value(v) for v in value]
        return "[" + ", ".join(i for i in items if i is not None) + "]"
    if isinstance(value, dict):
        items = [(k, toml_value(v)) for k, v in value.items()]
        return "{" + ", ".join(f"{json.dumps(str(k))} = {v}" for k, v in items if v is not None) + "}"
    return json.dumps(str(value))


def toml_text(data: dict) -> str:
    """A scenario dict as TOML: scalars first, then one [table] per section (deeper tables inline)."""
    lines, tables = [], []
    for key, value in data.items():
        if isinstance(value, dict):
            tables.append((key, value))
        elif (text := toml_value(value)) is not None:
            lines.append(f"{json.dumps(str(key))} = {text}")
    for key, value in tables:
        lines.append(f"[{json.dumps(str(key))}]")
        for sub, item in value.items():
            if (text := toml_value(item)) is not None:
                lines.append(f"{json.dumps(str(sub))} = {text}")
    return "\n".join(lines) + "\n"


def run_cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(args)
    return status, out.getvalue(), err.getvalue()


def check_cli(status: int, err: str, out_dir: Path, made_by_the_run: bool) -> None:
    if status == 0:
        assert (out_dir / "summary.json").exists()
        return
    assert status == 2, err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("pfabric: error: "), err
    check_message(lines[0].removeprefix("pfabric: error: "))
    if made_by_the_run:
        assert not os.path.exists(out_dir), f"a failed run left {out_dir} behind"  # False on any OSError
    else:
        assert os.path.isdir(out_dir), f"a failed run removed {out_dir}, which was there before it"


scenario_files = st.one_of(
    scenario_dicts.map(lambda d: ("dict", d)),
    st.binary(max_size=200).map(lambda b: ("bytes", b)),
    st.text(max_size=200).map(lambda t: ("bytes", t.encode("utf-8", "surrogatepass"))),
    deep.map(lambda d: ("bytes", f"x = {toml_value(d)}\n".encode())),
    files.map(lambda spec: ("path", spec)),
)


OUT_DIRS = {
    "fresh": "out/run",  # made by the run: gone again if the run fails
    "existing": "out",  # there before: stays
    "under a file": "out/file/run",
    "long": f"out/{'o' * 300}/run",
}


@settings(max_examples=CLI_EXAMPLES, **SETTINGS)
@given(
    scenario_files,
    st.none() | st.integers(-3, 5) | st.sampled_from([2**63 - 1, 2**63, 10**30]),
    st.sampled_from(sorted(OUT_DIRS)),
)
def test_cli_run_gives_a_result_or_one_line(what, seed, out):
    kind, value = what
    shutil.rmtree(WORK / "out", ignore_errors=True)
    (WORK / "out").mkdir()
    (WORK / "out" / "file").write_text("")
    out_dir = WORK / OUT_DIRS[out]
    if kind == "path":
        path = FILES.path(value, cli=True)
    else:
        path = str(WORK / "scenario.toml")
        if kind == "dict":
            data = realize(value, cli=True)
            try:  # what would be run must be tiny: the CLI runs what validates
                if not tiny(as_scenario(data)):
                    event("valid, not tiny: not run")
                    return
            except pfabric.ScenarioError:
                pass
            Path(path).write_text(toml_text(data), encoding="utf-8", errors="surrogatepass")
        else:
            Path(path).write_bytes(value)
    with time_limit(LIMIT_S):
        seed_args = [] if seed is None else ["--seed", str(seed)]
        status, _, err = run_cli(["run", path, "-o", str(out_dir), "-q", *seed_args])
    event(f"status {status}")
    check_cli(status, err, out_dir, made_by_the_run=out != "existing")
