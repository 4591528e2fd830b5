"""A results store: one Parquet file per finished run, named by what determines the run's output.

Why: a sweep of hundreds of runs must survive a crash, a Ctrl-C or a SIGKILL, and a rerun must not redo
what is done. So each run is stored on its own, under a key that changes whenever its results could change:

    key = sha256(scenario.canonical_hash(), pfabric.__version__, pfabric._core.__version__)

(the canonical hash covers the content of any CDF or trace file the scenario names). Layout under `root`:

    runs/<key>.parquet            the per-flow table; the Parquet key-value metadata holds the scenario
                                  (canonical JSON), the summary and the core's counters (JSON), the versions
    runs/<key>.<table>.parquet    the run's other tables (ports, priority_loss, throughput, ...: every
                                  table of `RunResult.tables()` that has columns)

Every file is written under a temporary name in the same folder and renamed into place (`os.replace` is
atomic on POSIX), so a file is whole or absent. The side tables are written first and the flow table last:
the flow table's presence marks a complete run, and `has` looks at nothing else. A process killed mid-write
leaves only temporary files (`.<name>.<pid>.tmp`), which every listing ignores and a later `save` removes
once their writer is gone. Only process death is guarded against, not power loss (there is no fsync).

`connect()` opens DuckDB over the store: a `runs` view (one row per run, the scenario's key fields and every
summary number flattened into columns) and a `flows` view (every run's flow table with its `key`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from .result import RunResult, _json_safe
from .scenario import Scenario

__all__ = ["Store", "StoredRun", "code_versions", "run_key"]

_META = "pfabric."  # prefix of our keys in the Parquet key-value metadata
_KEY_RE = re.compile(r"^[0-9a-f]{64}$")
_TMP_RE = re.compile(r"^\..+\.(\d+)\.tmp$")


def code_versions() -> tuple[str, str]:
    """(front end version, core version): a run's results depend on both, so both enter its key."""
    from . import __version__, _native

    return __version__, str(getattr(_native.core(), "__version__", "unknown"))


def run_key(scenario: Scenario, versions: tuple[str, str] | None = None) -> str:
    """The store key of a scenario: sha256 over its canonical hash and the code versions (hex)."""
    front, core = versions or code_versions()
    text = f"{scenario.canonical_hash()}\0{front}\0{core}"
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class StoredRun:
    """A finished run in the store: its key, its flow-table file and its metadata (decoded JSON)."""

    key: str
    path: Path
    scenario: dict
    summary: dict
    stats: dict
    versions: dict

    @property
    def mtime_s(self) -> float:
        return self.path.stat().st_mtime


class Store:
    """The runs stored under `root` (created on the first save)."""

    def __init__(self, root: str | os.PathLike) -> None:
        self.root = Path(root)
        self.runs_dir = self.root / "runs"
        self._versions: tuple[str, str] | None = None

    def __repr__(self) -> str:
        return f"Store({str(self.root)!r})"

    # keys and paths

    @property
    def versions(self) -> tuple[str, str]:
        """The code versions this process keys runs with (looked up once: it imports the core)."""
        if self._versions is None:
            self._versions = code_versions()
        return self._versions

    def key(self, scenario: Scenario) -> str:
        return run_key(scenario, self.versions)

    def path(self, key: str, table: str = "flows") -> Path:
        """The file of one table of a run (the flow table is `<key>.parquet`)."""
        name = f"{key}.parquet" if table == "flows" else f"{key}.{table}.parquet"
        return self.runs_dir / name

    # reading

    def has(self, scenario: Scenario) -> bool:
        """Whether the scenario's run is complete in the store (its flow table is there)."""
        return self.has_key(self.key(scenario))

    def has_key(self, key: str) -> bool:
        return self.path(key).is_file()

    def load(self, scenario: Scenario) -> RunResult:
        """The stored run of `scenario` (KeyError if it is not stored)."""
        return self.load_key(self.key(scenario))

    def load_key(self, key: str) -> RunResult:
        """Rebuild a `RunResult` from a run's files: tables, summary, counters and the scenario itself."""
        path = self.path(key)
        if not path.is_file():
            raise KeyError(f"run {key} is not in the store {self.root}")
        flows = pq.read_table(path)
        meta = _decode(flows.schema.metadata)
        scenario = Scenario.from_dict(meta["scenario"])
        known = {f.name for f in dataclasses.fields(RunResult)}
        tables = {}
        for name in meta["tables"]:
            if name not in known:  # written by a newer version with a table this one does not know
                continue
            side = self.path(key, name)
            if not side.is_file():
                raise RuntimeError(f"{path}: the run's {name} table {side.name} is missing from the store")
            tables[name] = pq.read_table(side).replace_schema_metadata(None)
        return RunResult(
            scenario=scenario,
            flows=flows.replace_schema_metadata(None),
            stats=meta["stats"],
            summary=meta["summary"],
            **{name: tables.get(name, pa.table({})) for name in _side_tables(RunResult)},
        )

    def run_keys(self) -> list[str]:
        """Keys of every complete run, sorted."""
        if not self.runs_dir.is_dir():
            return []
        names = (p.name for p in self.runs_dir.iterdir())
        return sorted(name[:-8] for name in names if name.endswith(".parquet") and _KEY_RE.match(name[:-8]))

    def runs(self) -> list[StoredRun]:
        """Every complete run with its metadata (read from the Parquet footers only, not the tables)."""
        out = []
        for key in self.run_keys():
            path = self.path(key)
            meta = _decode(pq.read_schema(path).metadata)
            out.append(
                StoredRun(key, path, meta["scenario"], meta["summary"], meta["stats"], meta["versions"])
            )
        return out

    def __len__(self) -> int:
        return len(self.run_keys())

    # writing

    def save(self, result: RunResult) -> str:
        """Store a finished run atomically; return its key. Side tables first, the flow table last."""
        key = self.key(result.scenario)
        self.runs_dir.mkdir(parents=True, exist_ok=True)
        self._clean_orphans()
        written = []
        for name, table in result.tables().items():
            if name == "flows" or table.num_columns == 0:
                continue
            _atomic(self.path(key, name), lambda tmp, t=table: pq.write_table(t, tmp, compression="zstd"))
            written.append(name)
        front, core = self.versions
        meta = {
            "key": key,
            "scenario": json.loads(result.scenario.canonical_json()),
            "scenario_hash": result.scenario.canonical_hash(),
            "summary": _json_safe(result.summary),
            "stats": _json_safe(result.stats),
            "versions": {"pfabric": front, "core": core},
            "tables": written,
        }
        flows = result.flows.replace_schema_metadata(
            {**(result.flows.schema.metadata or {}), **_encode(meta)}
        )
        _atomic(self.path(key), lambda tmp: pq.write_table(flows, tmp, compression="zstd"))
        return key

    def _clean_orphans(self) -> None:
        """Remove temporary files whose writer process is gone (a killed sweep leaves them behind)."""
        for path in self.runs_dir.iterdir():
            match = _TMP_RE.match(path.name)
            if match and not _alive(int(match.group(1))):
                with contextlib.suppress(OSError):
                    path.unlink()

    # querying

    def connect(self):
        """A DuckDB connection with the views `runs` (one row per run) and `flows` (every flow, with `key`)."""
        try:
            import duckdb
        except ImportError:
            raise ImportError("querying the store needs duckdb: pip install duckdb") from None
        con = duckdb.connect()
        runs = self.runs()
        con.register("_runs_table", runs_table(runs))
        con.execute("CREATE VIEW runs AS SELECT * FROM _runs_table")
        if runs:
            files = ", ".join("'" + str(r.path).replace("'", "''") + "'" for r in runs)
            con.execute(
                "CREATE VIEW flows AS SELECT regexp_extract(filename, '([0-9a-f]{64})\\.parquet$', 1) AS key, "
                f"* EXCLUDE (filename) FROM read_parquet([{files}], filename = true, union_by_name = true)"
            )
        else:
            con.execute("CREATE VIEW flows AS SELECT NULL::VARCHAR AS key WHERE false")
        return con


# --- the `runs` view ---------------------------------------------------------------------------------------

# Short column names for the size bins (metrics.SIZE_BINS): small (0,100KB], medium (100KB,10MB], large.
BIN_NAMES = {"(0,100KB]": "small", "(100KB,10MB]": "medium", "(10MB,inf)": "large"}


def run_row(run: StoredRun) -> dict[str, Any]:
    """One row of the `runs` view: what the run was (key fields of the scenario) and every summary number.

    Bins are flattened as `<stat>_<bin>` (`mean_normalized_fct_small`, `p99_normalized_fct_large`, ...);
    the whole scenario stays available as JSON in `scenario` (DuckDB: `scenario->>'$.scheme.rto_us'`).
    """
    s, summary = run.scenario, run.summary
    workload, topology, scheme = s.get("workload", {}), s.get("topology", {}), s.get("scheme", {})
    row: dict[str, Any] = {
        "key": run.key,
        "scheme": scheme.get("name"),
        "scheme_params": json.dumps({k: v for k, v in scheme.items() if k != "name"}, sort_keys=True),
        "workload_kind": workload.get("kind"),
        "cdf": _cdf_name(workload.get("cdf")),
        "load": workload.get("load"),
        "flows": workload.get("flows"),
        "seed": s.get("seed"),
        "topology_kind": topology.get("kind"),
        "pfabric_version": run.versions.get("pfabric"),
        "core_version": run.versions.get("core"),
    }
    for name, value in summary.items():
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if number or (value is None and name != "deadlines"):
            row[name] = value
    for label, stats in (summary.get("bins") or {}).items():
        suffix = BIN_NAMES.get(label, label)
        for stat, value in stats.items():
            row[f"{stat}_{suffix}"] = value
    deadlines = summary.get("deadlines") or {}
    row["deadline_flows"] = deadlines.get("flows")
    row["deadlines_met_fraction"] = deadlines.get("met_fraction")
    for name in ("events", "data_packets_sent", "data_packets_dropped"):
        if name in run.stats:
            row[name] = run.stats[name]
    row["scenario"] = json.dumps(s, sort_keys=True)
    return row


def runs_table(runs: list[StoredRun]) -> pa.Table:
    """The `runs` view as an Arrow table (columns are the union over runs; a missing value is null)."""
    rows = [run_row(r) for r in runs]
    if not rows:
        return pa.table({"key": pa.array([], pa.string()), "scheme": pa.array([], pa.string())})
    columns = list(dict.fromkeys(name for row in rows for name in row))
    return pa.Table.from_pylist([{c: row.get(c) for c in columns} for row in rows])


def _cdf_name(cdf: str | None) -> str | None:
    """A packaged CDF by name, a user's CSV by its file name (the full path is in `scenario`)."""
    return None if cdf is None else Path(cdf).name


# --- helpers -----------------------------------------------------------------------------------------------


def _side_tables(cls: type) -> list[str]:
    """The table fields of a RunResult besides `flows` (ports, priority_loss, throughput, ...)."""
    return [f.name for f in dataclasses.fields(cls) if f.name != "flows" and f.type in ("pa.Table", pa.Table)]


def _encode(meta: dict) -> dict[bytes, bytes]:
    return {f"{_META}{k}".encode(): json.dumps(v, allow_nan=False).encode() for k, v in meta.items()}


def _decode(metadata: dict[bytes, bytes] | None) -> dict:
    out = {}
    for k, v in (metadata or {}).items():
        name = k.decode()
        if name.startswith(_META):
            out[name[len(_META) :]] = json.loads(v)
    if "scenario" not in out:
        raise RuntimeError("not a pfabric run file: its Parquet metadata has no pfabric.scenario")
    return out


def _atomic(path: Path, write: Callable[[Path], Any]) -> None:
    """Write through a temporary file in the same folder, then rename it into place."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def _alive(pid: int) -> bool:
    """Whether a process of that id exists (ours to signal or not)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
