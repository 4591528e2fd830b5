"""Flow-size distributions and flow traces: the two inputs a workload reads from files.

The packaged CDFs (`data/workloads/`, provenance in its SOURCES.md) are known by name, and a user may give
the path of any CSV with the header `size_bytes,cdf`. How a CDF is read matters as much as its numbers
(DESIGN section 3 and 5: the same web-search table has a linear mean of 1.67 MB and a step mean of 2.37 MB),
so every `Cdf` carries its interpolation: `linear` (interpolate between rows; a repeated size is a point mass)
or `step` (each row is an atom; the netbench "discrete" files).

Both loaders check everything the core would otherwise trip over and raise a one-line `ScenarioError` that
names the field, the CSV row (counted from 1, the header not counted) and what is allowed. Sampling and the
mean size are the core's business; nothing here draws a flow.
"""

from __future__ import annotations

import csv
import functools
import io
import math
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from .errors import ScenarioError

# Longest time a scenario may name; the core has the same bound (simulated time is a u64 of picoseconds).
MAX_SECONDS = 1e6
# Largest flow a trace may hold (bytes): the core's bound (a terabyte is minutes of simulation already).
MAX_FLOW_BYTES = 1e12

__all__ = [
    "INTERPOLATIONS",
    "Cdf",
    "Trace",
    "load_cdf",
    "load_trace",
    "packaged_cdfs",
    "resolve_path",
]

INTERPOLATIONS = ("linear", "step")
CDF_HEADER = ("size_bytes", "cdf")
TRACE_REQUIRED = ("start_s", "src", "dst", "size_bytes")
TRACE_OPTIONAL = ("deadline_s",)
_EMPTY = "empty:"  # key prefix, in the parsed columns of a trace, of an optional column's empty-cell mask
_CDF_ONE_TOLERANCE = 1e-9
_DATA = "data/workloads"
# Short names for the two workloads of the pFabric paper; every packaged file is also known by its stem.
_ALIASES = {"websearch": "websearch_pfabric_ns2.csv", "datamining": "datamining_pfabric_ns2.csv"}


def _same_arrays(a, b) -> bool:
    """Dataclass equality for records of numpy arrays (the generated `==` would be ambiguous)."""
    if type(a) is not type(b):
        return NotImplemented
    return all(
        np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y
        for x, y in zip(vars(a).values(), vars(b).values(), strict=True)
    )


@dataclass(frozen=True, eq=False)
class Cdf:
    """An empirical flow-size distribution: breakpoints, cumulative probabilities and how to read them."""

    size_bytes: np.ndarray  # float64, non-decreasing
    cdf: np.ndarray  # float64, non-decreasing, ends at 1
    interpolation: str  # "linear" | "step"

    __eq__ = _same_arrays
    __hash__ = None

    def to_core(self) -> dict:
        """The `workload.cdf` object of the core JSON."""
        return {
            "size_bytes": self.size_bytes.tolist(),
            "cdf": self.cdf.tolist(),
            "interpolation": self.interpolation,
        }


@dataclass(frozen=True, eq=False)
class Trace:
    """Flows given one by one, in the file's row order: entry i is data row i + 1, and becomes flow id i.

    The rows need not be sorted by start time. The core takes its flows in start order (it numbers them in
    that order), so `to_core` sends them sorted by `order` and `RunResult` maps the core's ids back to rows.
    """

    start_s: np.ndarray  # float64
    src: np.ndarray  # int64
    dst: np.ndarray  # int64
    size_bytes: np.ndarray  # int64
    # float64, relative to start_s, NaN where the cell is empty (no deadline); None when there is no column
    deadline_s: np.ndarray | None

    __eq__ = _same_arrays
    __hash__ = None

    def __len__(self) -> int:
        return len(self.start_s)

    @property
    def order(self) -> np.ndarray:
        """Row indices in start order (stable: equal starts keep the file's order). The core's flow i is
        the trace's row `order[i]` (0-based)."""
        return np.argsort(self.start_s, kind="stable")

    def to_core(self) -> dict:
        """The array fields of a `trace` workload in the core JSON, in start order; a deadline of 0 is the
        core's "none"."""
        order = self.order
        deadline = None
        if self.deadline_s is not None:
            deadline = np.nan_to_num(self.deadline_s[order], nan=0.0).tolist()
        return {
            "start_s": self.start_s[order].tolist(),
            "src": self.src[order].tolist(),
            "dst": self.dst[order].tolist(),
            "size_bytes": self.size_bytes[order].tolist(),
            "deadline_s": deadline,
        }


@functools.cache
def packaged_cdfs() -> dict[str, tuple[str, str]]:
    """Every packaged CDF name -> (file name, interpolation): the two aliases, then each file by its stem.

    Cached: the package data do not change while Python runs. Do not mutate the result.
    """
    files = sorted(
        entry.name
        for entry in resources.files("pfabric").joinpath(_DATA).iterdir()
        if entry.name.endswith(".csv")
    )
    names = {alias: (file, _interpolation_of(file)) for alias, file in _ALIASES.items()}
    names.update({Path(file).stem: (file, _interpolation_of(file)) for file in files})
    return names


def _interpolation_of(file_name: str) -> str:
    """The netbench files list discrete atoms (their Java code returns the row's size), so they are steps."""
    return "step" if "discrete" in file_name else "linear"


def resolve_path(value: str, base_dir: str | Path | None) -> Path:
    """A user-given path, relative to the scenario file's folder when there is one (else to the cwd).

    `~` and `~user` are expanded; an unknown user (or no home folder) leaves the path as written, so that
    reading it fails as a missing file, not as a RuntimeError.
    """
    path = Path(value)
    try:
        path = path.expanduser()
    except RuntimeError:
        pass
    if not path.is_absolute() and base_dir is not None:
        path = Path(base_dir) / path
    return path.absolute()


def load_cdf(
    name_or_path: str,
    field: str = "workload.cdf",
    *,
    base_dir: str | Path | None = None,
    interpolation: str | None = None,
) -> Cdf:
    """Load a packaged CDF by name, or a user CSV by path, and check that it is a flow-size distribution.

    `interpolation` overrides the default (packaged files: as listed by `packaged_cdfs`; user files: linear).
    """
    packaged = packaged_cdfs()
    if name_or_path in packaged:
        file, default = packaged[name_or_path]
        text = resources.files("pfabric").joinpath(_DATA).joinpath(file).read_text(encoding="utf-8")
    else:
        names = ", ".join(packaged)
        allowed = (
            f"expected a packaged CDF name ({names}) or the path of a CSV file with header size_bytes,cdf"
        )
        text = _read_text(name_or_path, resolve_path(name_or_path, base_dir), field, allowed)
        default = "linear"
    rows = _csv_rows(text, CDF_HEADER, (), name_or_path, field)
    return _check_cdf(rows, interpolation or default, name_or_path, field)


def load_trace(
    path: str, hosts: int, field: str = "workload.path", *, base_dir: str | Path | None = None
) -> Trace:
    """Load a flow trace CSV `start_s,src,dst,size_bytes[,deadline_s]` for a fabric of `hosts` hosts.

    Columns are found by the header (any order). Sizes must be whole bytes; `deadline_s` is the time a flow
    has after its start, and an empty `deadline_s` cell means no deadline (so a trace may mix flows with and
    without). Rows may come in any order of start time; they are kept in the file's order (see `Trace`).
    """
    allowed = "expected the path of a CSV file with header start_s,src,dst,size_bytes[,deadline_s]"
    text = _read_text(path, resolve_path(path, base_dir), field, allowed)
    columns = _trace_columns_fast(text)
    if columns is None:  # a cell pyarrow could not parse: the slow reader names its row
        rows = _csv_rows(text, TRACE_REQUIRED, TRACE_OPTIONAL, path, field)
        columns = {name: _numbers(rows, name, field, empty_ok=name in TRACE_OPTIONAL) for name in rows.header}
        for name in TRACE_OPTIONAL:
            if name in rows.header:
                index = rows.header.index(name)
                columns[_EMPTY + name] = np.array([cells[index] == "" for cells in rows.values], dtype=bool)
    if len(columns["start_s"]) == 0:
        raise ScenarioError(field, path, "expected a trace with at least one flow (the file has no rows)")
    return _check_trace(columns, hosts, field)


# --- reading ----------------------------------------------------------------------------------------------


@dataclass
class _Rows:
    header: tuple[str, ...]
    values: list[list[str]]  # text cells, one list per data row, in header order
    numbers: list[int]  # the 1-based data-row number of each entry of `values`


def _read_text(value: str, path: Path, field: str, allowed: str) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        reason = f"no such file: {path}"
    except IsADirectoryError:
        reason = f"{path} is a directory"
    except PermissionError:
        reason = f"{path} is not readable"
    except UnicodeDecodeError:
        reason = f"{path} is not UTF-8 text"
    except OSError as exc:
        reason = f"cannot read {path}: {exc.strerror or exc}"
    except ValueError:  # a NUL in the path
        reason = f"{path} is not a valid path"
    raise ScenarioError(field, value, f"{allowed} ({reason})")


def _csv_rows(
    text: str, required: tuple[str, ...], optional: tuple[str, ...], source: str, field: str
) -> _Rows:
    """Split CSV text into a checked header and rows of cells; blank lines are skipped."""
    reader = csv.reader(io.StringIO(text))
    header: tuple[str, ...] | None = None
    values: list[list[str]] = []
    numbers: list[int] = []
    expected = ",".join(required) + "".join(f"[,{name}]" for name in optional)
    for cells in reader:
        cells = [cell.strip() for cell in cells]
        if not any(cells):
            continue
        if header is None:
            header = tuple(cells)
            _check_header(header, required, optional, expected, source, field)
            continue
        number = len(values) + 1
        if len(cells) != len(header):
            raise ScenarioError(
                field,
                ",".join(cells),
                f"expected {len(header)} values per row ({','.join(header)})",
                row=number,
            )
        values.append(cells)
        numbers.append(number)
    if header is None:
        raise ScenarioError(field, source, f"expected a CSV file with header {expected} (the file is empty)")
    return _Rows(header, values, numbers)


def _trace_columns_fast(text: str) -> dict[str, np.ndarray] | None:
    """Parse a well-formed trace with pyarrow (fast for millions of rows); None if anything looks off."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    first = next((line for line in text.splitlines() if line.strip()), "")
    header = tuple(cell.strip() for cell in first.split(","))
    if set(header) - set(TRACE_REQUIRED + TRACE_OPTIONAL) or len(set(header)) != len(header):
        return None
    if not set(TRACE_REQUIRED) <= set(header) or header != tuple(first.split(",")):
        return None
    try:
        table = pacsv.read_csv(
            io.BytesIO(text.encode("utf-8")),
            convert_options=pacsv.ConvertOptions(
                column_types={name: pa.float64() for name in header}, null_values=[""]
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    if any(table.column(name).null_count for name in TRACE_REQUIRED):
        return None
    # An empty optional cell (no deadline) is NaN; a written "nan" stays NaN too and fails the checks.
    columns = {name: table.column(name).to_numpy(zero_copy_only=False) for name in header}
    for name in TRACE_OPTIONAL:
        if name in columns and table.column(name).null_count:
            missing = table.column(name).is_null().to_numpy(zero_copy_only=False)
            columns[name] = np.where(missing, np.nan, columns[name])
            columns[_EMPTY + name] = missing
    return columns


def _check_header(header, required, optional, expected, source, field) -> None:
    allowed = set(required) | set(optional)
    unknown = [name for name in header if name not in allowed]
    missing = [name for name in required if name not in header]
    duplicated = len(set(header)) != len(header)
    if unknown or missing or duplicated:
        raise ScenarioError(
            field, source, f"expected the header {expected} (the file's header is {','.join(header)})"
        )


def _numbers(rows: _Rows, name: str, field: str, empty_ok: bool = False) -> np.ndarray:
    """One column as float64; a cell that is no number is reported by row (with `empty_ok`, an empty cell
    is NaN)."""
    index = rows.header.index(name)
    out = np.empty(len(rows.values), dtype=np.float64)
    for i, cells in enumerate(rows.values):
        if empty_ok and cells[index] == "":
            out[i] = np.nan
            continue
        try:
            out[i] = float(cells[index])
        except ValueError:
            raise ScenarioError(
                field, cells[index], "expected a number", row=rows.numbers[i], column=name
            ) from None
    return out


# --- checking ---------------------------------------------------------------------------------------------


def _check_cdf(rows: _Rows, interpolation: str, source: str, field: str) -> Cdf:
    if interpolation not in INTERPOLATIONS:
        raise ScenarioError(field, interpolation, f"expected an interpolation in {INTERPOLATIONS}")
    size = _numbers(rows, "size_bytes", field)
    cdf = _numbers(rows, "cdf", field)
    least = 1 if interpolation == "step" else 2
    if len(size) < least:
        raise ScenarioError(
            field,
            source,
            f"expected at least {least} rows for a {interpolation} CDF (the file has {len(size)})",
        )
    bad_size = ~np.isfinite(size) | (size < 0) | (size > MAX_FLOW_BYTES)  # the core's bound, as for traces
    _first_bad(size, bad_size, "size_bytes", f"expected a size in [0, {MAX_FLOW_BYTES:g}] bytes", field)
    _first_bad(
        cdf, ~np.isfinite(cdf) | (cdf < 0) | (cdf > 1), "cdf", "expected a probability in [0, 1]", field
    )
    _non_decreasing(size, "size_bytes", "sizes", field)
    _non_decreasing(cdf, "cdf", "cdf values", field)
    if abs(cdf[-1] - 1.0) > _CDF_ONE_TOLERANCE:
        raise ScenarioError(
            field, _shown(cdf[-1]), "expected the last row to have cdf 1", row=len(cdf), column="cdf"
        )
    at_zero = np.flatnonzero(size == 0)
    if len(at_zero) and cdf[at_zero[-1]] > 0:
        row = int(at_zero[-1]) + 1
        raise ScenarioError(
            field,
            _shown(cdf[at_zero[-1]]),
            "expected no probability at size 0 (a flow carries at least one byte): the cdf must be 0 there",
            row=row,
            column="cdf",
        )
    # Within tolerance of 1: make it exact, so that the core's inverse sampling never runs off the end.
    cdf = cdf.copy()
    cdf[-1] = 1.0
    return Cdf(size_bytes=size, cdf=cdf, interpolation=interpolation)


def _check_trace(columns: dict[str, np.ndarray], hosts: int, field: str) -> Trace:
    """Check every row (errors name the first bad row, counted from 1) and keep the file's row order."""
    start, src, dst, size = (columns[name] for name in TRACE_REQUIRED)
    deadline = columns.get("deadline_s")
    no_deadline = columns.get(_EMPTY + "deadline_s")
    bad_start = ~np.isfinite(start) | (start < 0) | (start > MAX_SECONDS)
    _first_bad(start, bad_start, "start_s", f"expected a time in [0, {MAX_SECONDS:g}] s", field)
    hosts_text = f"expected a host index in [0, {hosts})"
    for name, col in (("src", src), ("dst", dst)):
        bad = ~np.isfinite(col) | (col != np.round(col)) | (col < 0) | (col >= hosts)
        _first_bad(col, bad, name, hosts_text, field)
    _first_bad(dst, src == dst, "dst", "expected a destination other than the source (src == dst)", field)
    bad_size = ~np.isfinite(size) | (size <= 0) | (size != np.round(size)) | (size > MAX_FLOW_BYTES)
    _first_bad(size, bad_size, "size_bytes", "expected a whole number of bytes in [1, 1e12]", field)
    if deadline is not None:
        bad = ~np.isfinite(deadline) | (deadline <= 0) | (deadline > MAX_SECONDS)
        if no_deadline is not None:
            bad &= ~no_deadline
        _first_bad(
            deadline,
            bad,
            "deadline_s",
            f"expected a time in (0, {MAX_SECONDS:g}] s after start_s, or an empty cell for no deadline",
            field,
        )
    return Trace(
        start_s=start.astype(np.float64),
        src=src.astype(np.int64),
        dst=dst.astype(np.int64),
        size_bytes=size.astype(np.int64),
        deadline_s=None if deadline is None else deadline.astype(np.float64),
    )


def _first_bad(values: np.ndarray, bad: np.ndarray, column: str, allowed: str, field: str) -> None:
    """Raise for the first row where `bad` holds (vectorized check, row-level message)."""
    hits = np.flatnonzero(bad)
    if len(hits):
        i = int(hits[0])
        raise ScenarioError(field, _shown(values[i]), allowed, row=i + 1, column=column)


def _non_decreasing(values: np.ndarray, column: str, what: str, field: str) -> None:
    drops = np.flatnonzero(np.diff(values) < 0)
    if len(drops):
        i = int(drops[0]) + 1
        raise ScenarioError(
            field,
            _shown(values[i]),
            f"expected {what} in non-decreasing order (row {i} has {_shown(values[i - 1])!r})",
            row=i + 1,
            column=column,
        )


def _shown(x: float) -> float | int:
    """A number as a user wrote it: 200 rather than 200.0."""
    x = float(x)
    return int(x) if math.isfinite(x) and x == int(x) and abs(x) < 2**63 else x
