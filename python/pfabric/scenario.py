"""A scenario: one simulation run, typed and validated before the core sees it.

A scenario has the sections of DESIGN section 7: `topology`, `workload`, `scheme`, `output`, `run`, plus
`seed`. Every field has a default, the pFabric paper's set-up (DESIGN section 4), so a useful scenario is a
few lines of TOML. Units are in the names (`_gbps`, `_us`, `_s`, `_bytes`, `_pkts`).

Everything a user can get wrong is caught here and reported as a one-line `ScenarioError` naming the field,
the value and what is allowed, so that the core can assume well-formed input; files a scenario points at
(a CDF, a trace) are read and checked at validation time too. The core still re-checks what it relies on,
and whatever it rejects comes back as a `ScenarioError` through `pfabric.run`.

`to_core_json()` is the only thing the core reads: plain numbers and arrays, no paths, so that the core
never opens a file a user chose (DESIGN section 1).
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import math
import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    PrivateAttr,
    Tag,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_serializer,
    model_validator,
)

from . import workloads
from ._native import scheme_defaults, scheme_names, scheme_parameters
from ._translate import translate
from .errors import MISSING, ScenarioError

__all__ = [
    "Deadlines",
    "Dumbbell",
    "FanIn",
    "FatTree",
    "LeafSpine",
    "Output",
    "Poisson",
    "Run",
    "Scenario",
    "Scheme",
    "Star",
    "Topology",
    "Trace",
    "Workload",
]


# --- value types ------------------------------------------------------------------------------------------


def _number_only(value: Any) -> Any:
    """Refuse what pydantic's lax mode would coerce into a number: `true` or the string "10"."""
    if isinstance(value, (bool, str)):
        raise ValueError("not a number")  # noqa: TRY004 - pydantic reports ValueError, not TypeError
    return value


_Number = BeforeValidator(_number_only)
PositiveInt = Annotated[int, _Number, Field(gt=0)]
# Bounds shared with the core (config.rs): simulated time is a u64 of picoseconds, so a scenario names no
# time beyond MAX_SECONDS, and rates stay within [0.001, 1e6] Gbps.
MAX_SECONDS = workloads.MAX_SECONDS
Rate = Annotated[float, _Number, Field(ge=1e-3, le=1e6)]
# A link's delay (us): at most a second, 5,000 times a datacenter's round trip (longer ones made runs of
# timeouts that never ended).
Delay = Annotated[float, _Number, Field(ge=0, le=1e6)]
PositiveFloat = Annotated[float, _Number, Field(gt=0)]
NonNegativeFloat = Annotated[float, _Number, Field(ge=0)]
Seconds = Annotated[float, _Number, Field(gt=0, le=MAX_SECONDS)]
Fraction = Annotated[float, _Number, Field(ge=0, lt=0.5)]
Routing = Literal["spray", "ecmp", "adaptive"]
# true or false only: pydantic's lax mode would read "yes", "off" or 1 as a boolean.
StrictBool = Annotated[bool, Field(strict=True)]


class _Section(BaseModel):
    """Shared behaviour: unknown keys are errors, floats are finite, and errors are `ScenarioError`s."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    def __init__(self, /, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise translate(exc, type(self)) from None

    # Tell pydantic this is not a custom __init__: nested sections are then validated by pydantic-core
    # directly (with the validation context, e.g. the scenario file's folder) instead of through this call.
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]

    @classmethod
    def model_validate(cls, obj: Any, **kwargs: Any):
        try:
            return super().model_validate(obj, **kwargs)
        except ValidationError as exc:
            raise translate(exc, cls) from None

    @classmethod
    def model_validate_json(cls, json_data: Any, **kwargs: Any):
        try:
            return super().model_validate_json(json_data, **kwargs)
        except ValidationError as exc:
            raise translate(exc, cls) from None

    @classmethod
    def allowed_for(cls, name: str) -> str | None:
        """What a field accepts, in words, where its type alone does not say it (see `describe`)."""
        return None


def _base_dir(info: ValidationInfo) -> str | None:
    """Relative paths in a scenario file are relative to that file (`from_toml` passes its folder)."""
    return (info.context or {}).get("base_dir")


def _user_file(value: str, info: ValidationInfo) -> tuple[Path, str | None]:
    """The absolute path of a file a scenario names, and why it cannot be read (None if it is a file).

    Any OSError of the file system (a name over 255 bytes, a loop of links) is a reason, never an escape.
    """
    path = Path(value)
    try:
        path = workloads.resolve_path(value, _base_dir(info))
        if path.is_file():
            return path, None
        return path, f"{'no such file' if not path.exists() else 'not a file'}: {path}"
    except OSError as exc:
        return path, f"cannot read it: {exc.strerror or exc}"


# Field definitions shared by the topologies (one wording for one meaning).
def _host_rate() -> Any:
    return Field(10.0, description="Rate of each host's access link, both directions (paper: 10 Gbps).")


def _link_delay() -> Any:
    return Field(0.2, description="Propagation delay of every link (paper: 0.2 us).")


def _host_delay() -> Any:
    return Field(
        2.5,
        description="Extra delay each time a packet crosses a host's access link, standing for the host's "
        "stack (paper: 2.5 us; with 0.2 us links the unloaded RTT across a leaf-spine is 14.6 us).",
    )


def _routing() -> Any:
    return Field(
        "spray",
        description="How packets pick among equal-cost paths: spray = per packet at random (paper), "
        "ecmp = one path per flow by hash, adaptive = per packet to the port that frees first (as DRILL). "
        "A flow's ideal FCT is the flow alone in the idle fabric routed the same way; sprayed, it is the best "
        "any per-packet choice of paths gives it (what adaptive gives a lone flow).",
    )


# --- topology ---------------------------------------------------------------------------------------------


class LeafSpine(_Section):
    """Two-tier leaf-spine fabric: every leaf connects to every spine (the paper's 144-host fabric)."""

    kind: Literal["leaf-spine"] = Field("leaf-spine", description="A two-tier leaf-spine fabric.")
    leaves: PositiveInt = Field(9, le=4096, description="Number of leaf (top-of-rack) switches.")
    hosts_per_leaf: PositiveInt = Field(16, le=4096, description="Hosts attached to each leaf.")
    spines: PositiveInt = Field(4, le=4096, description="Number of spine switches; each links to every leaf.")
    host_rate_gbps: Rate = _host_rate()
    core_rate_gbps: Rate = Field(40.0, description="Rate of each leaf-spine link (paper: 40 Gbps).")
    link_delay_us: Delay = _link_delay()
    host_delay_us: Delay = _host_delay()
    routing: Routing = _routing()

    @property
    def hosts(self) -> int:
        return self.leaves * self.hosts_per_leaf

    @model_validator(mode="after")
    def _two_hosts(self) -> LeafSpine:
        if self.hosts < 2:
            raise ScenarioError(
                "hosts_per_leaf",
                self.hosts_per_leaf,
                "expected leaves x hosts_per_leaf >= 2 (a fabric of 2+ hosts)",
            )
        return self


class Star(_Section):
    """One switch with every host attached to it: no path diversity, the simplest fabric."""

    kind: Literal["star"] = Field("star", description="All hosts on one switch.")
    hosts: Annotated[int, _Number] = Field(
        145, ge=2, le=2**20, description="Number of hosts attached to the switch."
    )
    host_rate_gbps: Rate = _host_rate()
    link_delay_us: Delay = _link_delay()
    host_delay_us: Delay = _host_delay()
    routing: Routing = _routing()


class FatTree(_Section):
    """Three-tier k-ary fat tree: k pods of k/2 edge and k/2 aggregation switches, (k/2)^2 cores."""

    kind: Literal["fat-tree"] = Field("fat-tree", description="A k-ary fat tree (k^3/4 hosts).")
    k: Annotated[int, _Number] = Field(
        4, ge=2, le=64, description="Switch radix: k pods, k/2 hosts per edge switch, k^3/4 hosts in all."
    )
    host_rate_gbps: Rate = _host_rate()
    core_rate_gbps: Rate = Field(40.0, description="Rate of every switch-to-switch link.")
    link_delay_us: Delay = _link_delay()
    host_delay_us: Delay = _host_delay()
    routing: Routing = _routing()

    @classmethod
    def allowed_for(cls, name: str) -> str | None:
        return "expected an even integer in [2, 64]" if name == "k" else None

    @field_validator("k")
    @classmethod
    def _k_even(cls, value: int) -> int:
        if value % 2:
            raise ValueError("k must be even")
        return value

    @property
    def hosts(self) -> int:
        return self.k**3 // 4


class Dumbbell(_Section):
    """Two switches joined by one bottleneck link, hosts on each side: the classic congestion test bed."""

    kind: Literal["dumbbell"] = Field("dumbbell", description="Two switches joined by one bottleneck link.")
    hosts_per_side: PositiveInt = Field(
        8, le=2**19, description="Hosts attached to each of the two switches."
    )
    host_rate_gbps: Rate = _host_rate()
    bottleneck_rate_gbps: Rate = Field(10.0, description="Rate of the link between the two switches.")
    link_delay_us: Delay = _link_delay()
    host_delay_us: Delay = _host_delay()
    routing: Routing = _routing()

    @property
    def hosts(self) -> int:
        return 2 * self.hosts_per_side


def _kind_or(default: str):
    """Discriminator that lets a section leave out `kind` (it then takes the section's default kind)."""

    def pick(value: Any) -> Any:
        if isinstance(value, dict):
            kind = value.get("kind", default)
            # Not a string: a tag no model has (the message shows the value itself, see _translate).
            return kind if isinstance(kind, str) else f"<{type(kind).__name__}>"
        return getattr(value, "kind", None)

    return pick


Topology = Annotated[
    Annotated[LeafSpine, Tag("leaf-spine")]
    | Annotated[Star, Tag("star")]
    | Annotated[FatTree, Tag("fat-tree")]
    | Annotated[Dumbbell, Tag("dumbbell")],
    Discriminator(_kind_or("leaf-spine")),
]


# --- workload ---------------------------------------------------------------------------------------------


class Deadlines(_Section):
    """Deadlines for some flows of a Poisson workload (the pFabric paper's deadline experiments).

    A chosen flow's deadline is its start plus an exponential time of mean `mean_s`, but never less than
    `min_factor` x its ideal FCT. What a scheme does with a flow past its deadline: every scheme here keeps
    sending it to completion (none terminates it), and the flow counts as having missed; pFabric-EDF keeps its
    earliest-deadline priority, so a late flow stays ahead of flows with later deadlines.
    """

    mean_s: Seconds = Field(description="Mean of the exponential time a flow gets after its start.")
    min_factor: Annotated[float, _Number] = Field(
        1.25, ge=0, description="A deadline is at least this x the flow's ideal FCT (paper: 1.25)."
    )
    max_size_bytes: PositiveInt | None = Field(
        None, description="Only flows up to this size get deadlines (unset: every size)."
    )
    fraction: Annotated[float, _Number] = Field(
        1.0, gt=0, le=1, description="Of the eligible flows, this fraction (at random) gets a deadline."
    )


class Poisson(_Section):
    """Flows arrive as a Poisson process at a given load, sizes drawn from an empirical CDF.

    The load is defined once, in the core (DESIGN section 3): a fraction of host access-link capacity in
    wire bytes, sources and destinations drawn uniformly with source != destination.
    """

    kind: Literal["poisson"] = Field("poisson", description="Poisson arrivals at a load.")
    cdf: str = Field(
        "websearch",
        description="Flow-size distribution: a packaged name or the path of a CSV with header size_bytes,cdf "
        "(relative to the scenario file).",
    )
    cdf_interpolation: Literal["linear", "step"] | None = Field(
        None,
        description="How to read the CDF: linear (interpolate between rows) or step (each row an atom). "
        "Unset: step for the netbench *_discrete files, linear otherwise.",
    )
    load: Annotated[float, _Number] | None = Field(
        0.6, gt=0, lt=1, description="Offered load: fraction of host access-link capacity, in wire bytes."
    )
    arrival_rate_per_s: PositiveFloat | None = Field(
        None,
        description="A total flow arrival rate instead of a load (unsets load). Its load may reach or pass 1, "
        "as in set-ups that used a per-sender rate as the total; the summary then warns of overload.",
    )
    flows: PositiveInt | None = Field(
        1000,
        le=2**32,
        description="Number of flows to generate (set either flows or duration_s, not both; flow ids are 32 bits).",
    )
    duration_s: Seconds | None = Field(
        None, description="Generate arrivals for this long instead of a flow count (unsets flows)."
    )
    deadlines: Deadlines | None = Field(None, description="Give some flows deadlines (unset: none).")

    _cdf: workloads.Cdf = PrivateAttr()

    @classmethod
    def allowed_for(cls, name: str) -> str | None:
        if name == "load":
            return "expected a number in (0, 1)"
        if name == "cdf":
            names = ", ".join(workloads.packaged_cdfs())
            return f"expected a packaged CDF name ({names}) or the path of a CSV with header size_bytes,cdf"
        return None

    @model_validator(mode="before")
    @classmethod
    def _duration_replaces_flows(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("duration_s") is not None and "flows" not in data:
            data = {**data, "flows": None}
        if isinstance(data, dict) and data.get("arrival_rate_per_s") is not None and "load" not in data:
            data = {**data, "load": None}
        return data

    @field_validator("cdf")
    @classmethod
    def _absolute_cdf_path(cls, value: str, info: ValidationInfo) -> str:
        if value in workloads.packaged_cdfs():
            return value
        path, problem = _user_file(value, info)
        if problem is not None:
            raise ScenarioError("", value, f"{cls.allowed_for('cdf')} ({problem})")
        return str(path)

    @model_validator(mode="after")
    def _one_size_and_readable_cdf(self) -> Poisson:
        if (self.load is None) == (self.arrival_rate_per_s is None):
            raise ScenarioError("load", self.load, "expected a load in (0, 1), or arrival_rate_per_s instead")
        if self.flows is None and self.duration_s is None:
            raise ScenarioError("flows", None, "expected a flow count, or set duration_s instead")
        if self.flows is not None and self.duration_s is not None:
            raise ScenarioError(
                "duration_s",
                self.duration_s,
                f"expected flows or duration_s, not both (flows is {self.flows})",
            )
        self._cdf = workloads.load_cdf(self.cdf, "cdf", interpolation=self.cdf_interpolation)
        return self

    @property
    def cdf_data(self) -> workloads.Cdf:
        """The checked distribution, loaded once at validation."""
        return self._cdf

    def arrival_rate(self, hosts: int, host_rate_gbps: float, packet: Packet | None = None) -> float:
        """Flows per second over the whole fabric: `arrival_rate_per_s`, or the rate that offers `load` (in
        wire bytes of `packet`, the default packet unless given)."""
        if self.arrival_rate_per_s is not None:
            return self.arrival_rate_per_s
        return self.load * hosts * host_rate_gbps * 1e9 / (8 * mean_wire_bytes(self._cdf, packet))

    def offered_load(self, hosts: int, host_rate_gbps: float, packet: Packet | None = None) -> float:
        """The load: `load`, or what `arrival_rate_per_s` offers (the core's formula, config.rs: rate x mean
        wire bytes x 8 / (hosts x host rate)); it may reach or pass 1."""
        if self.load is not None:
            return self.load
        wire = mean_wire_bytes(self._cdf, packet)
        return self.arrival_rate_per_s * 8 * wire / (hosts * host_rate_gbps * 1e9)

    def to_core(self) -> dict:
        rate = (
            {"load": self.load} if self.load is not None else {"arrival_rate_per_s": self.arrival_rate_per_s}
        )
        return {
            "kind": "poisson",
            **rate,
            "flows": self.flows,
            "duration_s": self.duration_s,
            "cdf": self._cdf.to_core(),
            **({"deadlines": self.deadlines.model_dump(mode="json")} if self.deadlines else {}),
        }


class Trace(_Section):
    """Flows replayed from a CSV file `start_s,src,dst,size_bytes[,deadline_s]` (header required).

    Flow ids follow the file: the flow of data row N (counted from 1, the header not counted) has flow id
    N - 1 and trace_row N in flows.parquet, whose rows keep the file's order even when the start times are
    not sorted (the core replays the flows in start order either way).
    """

    kind: Literal["trace"] = Field("trace", description="Flows replayed from a CSV file.")
    path: str = Field(
        description="CSV with header start_s,src,dst,size_bytes[,deadline_s] (relative to the scenario file); "
        "hosts are indices in [0, hosts), deadline_s counts from start_s and an empty deadline_s cell means no "
        "deadline. Rows may come in any start order; data row N (from 1) is flow id N - 1 (trace_row N).",
        json_schema_extra={
            "allowed": "expected the path of a CSV file with header start_s,src,dst,size_bytes"
        },
    )

    _flows: workloads.Trace | None = PrivateAttr(default=None)

    @field_validator("path")
    @classmethod
    def _absolute_path(cls, value: str, info: ValidationInfo) -> str:
        path, problem = _user_file(value, info)
        if problem is not None:
            raise ScenarioError("", value, f"expected the path of a CSV flow trace ({problem})")
        return str(path)

    def read(self, hosts: int) -> workloads.Trace:
        """Read and check the trace against a fabric of `hosts` hosts (the scenario does this once)."""
        self._flows = workloads.load_trace(self.path, hosts, "path")
        return self._flows

    @property
    def trace_data(self) -> workloads.Trace:
        """The checked flows, in the file's row order (loaded once at validation)."""
        if self._flows is None:
            raise RuntimeError("trace not loaded: validate it through a Scenario")
        return self._flows

    def to_core(self) -> dict:
        return {"kind": "trace", **self.trace_data.to_core()}


class FanIn(_Section):
    """Many senders, one receiver, all starting at once: incast, and the paper's stress tests.

    The senders are distinct hosts other than the receiver, drawn at random from the scenario's seed. Give
    each flow's size (`flow_bytes`: seamless switching, loss under stress) or the total striped across the
    senders (`total_bytes`: incast, a request for a file held by `senders` servers).
    """

    kind: Literal["fan-in"] = Field("fan-in", description="N senders to one receiver at once.")
    receiver: Annotated[int, _Number] = Field(0, ge=0, description="Host index of the receiver.")
    senders: PositiveInt = Field(5, description="Number of senders (distinct hosts, drawn at random).")
    flow_bytes: PositiveInt | None = Field(None, description="Bytes each sender sends.")
    total_bytes: PositiveInt | None = Field(
        None, description="Bytes of one request striped evenly across the senders (instead of flow_bytes)."
    )
    sizes_bytes: list[PositiveInt] | None = Field(
        None, description="One size per sender (instead of senders and flow_bytes), e.g. [100e6, 50e6, 10e6]."
    )
    start_s: Annotated[float, _Number] = Field(
        0.0, ge=0, le=MAX_SECONDS, description="When every flow starts."
    )
    starts_s: list[Annotated[float, _Number, Field(ge=0, le=MAX_SECONDS)]] | None = Field(
        None, description="One start time per sender (with sizes_bytes), instead of start_s."
    )
    ranks: list[Annotated[int, _Number, Field(ge=0)]] | None = Field(
        None,
        description="One fixed rank per sender (with sizes_bytes): the flow's packets carry it whatever the "
        "scheme would stamp (the AIFO paper's fixed-rank flows).",
    )

    @model_validator(mode="after")
    def _one_size(self) -> FanIn:
        given = [
            name for name in ("flow_bytes", "total_bytes", "sizes_bytes") if getattr(self, name) is not None
        ]
        if len(given) != 1:
            raise ScenarioError(
                "flow_bytes", self.flow_bytes, "expected exactly one of flow_bytes, total_bytes, sizes_bytes"
            )
        if self.sizes_bytes is not None and not self.sizes_bytes:
            raise ScenarioError("sizes_bytes", self.sizes_bytes, "expected at least one size")
        for name in ("starts_s", "ranks"):
            values = getattr(self, name)
            if values is not None and (self.sizes_bytes is None or len(values) != len(self.sizes_bytes)):
                raise ScenarioError(name, values, "expected one value per entry of sizes_bytes")
        return self

    @property
    def sender_count(self) -> int:
        return len(self.sizes_bytes) if self.sizes_bytes is not None else self.senders

    def check_hosts(self, hosts: int) -> None:
        if self.receiver >= hosts:
            raise ScenarioError("receiver", self.receiver, f"expected a host index in [0, {hosts})")
        if self.sender_count > hosts - 1:
            raise ScenarioError("senders", self.sender_count, f"expected at most {hosts - 1} senders")

    def to_core(self) -> dict:
        data = self.model_dump(mode="json", exclude_none=True)
        if self.sizes_bytes is not None:
            data.pop("senders")
        return {**data, "kind": "fan-in"}


Workload = Annotated[
    Annotated[Poisson, Tag("poisson")] | Annotated[Trace, Tag("trace")] | Annotated[FanIn, Tag("fan-in")],
    Discriminator(_kind_or("poisson")),
]


# --- scheme, output, run ----------------------------------------------------------------------------------


class Scheme(_Section):
    """The transport and switch discipline under test; an override left unset keeps the paper's value.

    Overrides left unset are not sent: the core applies the scheme's paper default (DESIGN section 4), so
    the defaults live in one place. Which overrides a scheme accepts is the core's to say
    (`scheme_defaults`); without the compiled core every typed field below is accepted here and the core
    checks the rest when it runs.
    """

    model_config = ConfigDict(extra="allow", frozen=True, allow_inf_nan=False)

    name: str = Field("tcp", description="Scheme to simulate.")
    queue_bytes: Annotated[int, _Number] | None = Field(
        None,
        ge=1500,
        le=2**40,
        description="Buffer per switch and NIC port, bytes (at least one full packet).",
    )
    init_cwnd_pkts: PositiveInt | None = Field(None, description="Initial congestion window, packets.")
    max_cwnd_pkts: PositiveInt | None = Field(None, description="Largest congestion window, packets.")
    init_ssthresh_pkts: PositiveInt | None = Field(
        None,
        description="TCP/DCTCP: slow start's threshold before the first loss, packets (unset: none; the AIFO "
        "authors' netbench sockets: 30).",
    )
    min_rto_us: NonNegativeFloat | None = Field(
        None, description="TCP/DCTCP: lower bound of the timeout (0: none, as in the AIFO authors' code)."
    )
    init_rto_us: PositiveFloat | None = Field(None, description="TCP/DCTCP: timeout before any RTT sample.")
    max_rto_us: PositiveFloat | None = Field(
        None, description="TCP/DCTCP: upper bound of the backed-off timeout."
    )
    dupack_threshold: PositiveInt | None = Field(
        None, le=1000, description="TCP/DCTCP: duplicate ACKs that trigger fast retransmit."
    )
    ecn_threshold_bytes: PositiveInt | None = Field(
        None,
        description="DCTCP: switches mark ECN above this queue length; pifo..afq: mark an arrival finding at "
        "least this many bytes queued (unset: no marking).",
    )
    dctcp_g: Annotated[float, _Number] | None = Field(
        None, gt=0, le=1, description="DCTCP: gain of the moving average of the marked fraction."
    )
    rto_us: PositiveFloat | None = Field(
        None,
        description="pFabric: fixed retransmission timeout, no backoff. ndp: silence after which a sender with "
        "unanswered packets sends them again, the backstop for lost headers, us (default 1000).",
    )
    probe_after_timeouts: Annotated[int, _Number] | None = Field(
        None, ge=0, description="pFabric: consecutive timeouts before probe mode."
    )
    priority: Literal["remaining-size", "flow-size", "bytes-sent", "deadline", "remaining-unsent"] | None = (
        Field(
            None,
            description="pFabric: what a packet's priority number is; pifo..pieo: the rank hosts stamp "
            "(default remaining-unsent, as the AIFO authors' senders do).",
        )
    )
    priority_cap_bytes: PositiveInt | None = Field(
        None, description="pFabric: priority numbers above this are capped (unset: no cap)."
    )
    reserved_bytes: Annotated[int, _Number] | None = Field(
        None,
        ge=0,
        description="prio-queues, pias: buffer reserved for each queue, bytes (paper: 15 KB; pias 0).",
    )
    thresholds_bytes: list[PositiveInt] | Literal["optimal", "equal-split"] | None = Field(
        None,
        description="prio-queues: flow-size thresholds between the queues, increasing (n thresholds = n + 1 "
        "queues; flows up to the first go to the highest-priority queue); pias: demotion thresholds (a flow's "
        "first t_1 bytes go to the top queue, its bytes up to t_2 to the next, ...); or how to choose them "
        "from a Poisson workload's CDF and load: optimal (the default: the section 6 model for prio-queues, "
        "the multi-level feedback model for pias) or equal-split.",
    )
    queues: Annotated[int, _Number] | None = Field(
        None,
        ge=1,
        le=64,
        description="prio-queues, pias: how many queues when thresholds are chosen (default 4; pias 8); "
        "sp-pifo, afq: "
        "number of FIFO queues (default 8).",
    )
    rank: Literal["srpt", "stfq", "fifo"] | None = Field(
        None,
        description="pifo, sp-pifo, aifo, pieo: the rank a port gives a packet: srpt (the host's stamp, the "
        "remaining size), stfq (start-time fair queueing at the port) or fifo (arrival order).",
    )
    capacity_pkts: PositiveInt | None = Field(
        None, description="pifo, pieo (default 80), aifo (default 20): queue capacity in packets."
    )
    ties: Literal["arrival", "heap"] | None = Field(
        None,
        description="pifo: the order among equal ranks: arrival (an exact PIFO, the default) or heap (the AIFO "
        "authors' Java heap: the order its sifts give, and at most capacity_pkts - 1 packets kept).",
    )
    queue_pkts: PositiveInt | None = Field(
        None, description="sp-pifo, afq: capacity of each FIFO queue in packets (default 10)."
    )
    window: PositiveInt | None = Field(
        None, description="aifo: sliding window of sampled ranks (default 20)."
    )
    sample_every: PositiveInt | None = Field(
        None, description="aifo: one rank sampled every this many arrivals, dropped ones too (default 15)."
    )
    headroom_k: Annotated[float, _Number] | None = Field(
        None, ge=0, lt=1, description="aifo: headroom k (default 0.1)."
    )
    bytes_per_round: PositiveInt | None = Field(
        None, description="afq: bytes each flow may send per round (default 1500)."
    )
    host: str | None = Field(
        None,
        description="The host transport, swapping the bundle's (`pfabric schemes` lists them): tcp, dctcp, "
        "pfabric, pfabric-linerate, pdq, constant-rate. Its parameters come with it.",
    )
    switch: str | None = Field(
        None,
        description="The switch discipline of every port, swapping the bundle's (`pfabric schemes` lists them): "
        "droptail, pfabric, prio-queues, pdq, pifo, sp-pifo, aifo, pieo, afq. Its parameters come with it.",
    )
    sender_jitter: Annotated[float, _Number] | None = Field(
        None,
        ge=0,
        lt=1,
        description="pifo..afq with constant-rate hosts: each gap between packets is the mean gap x (1 + u x "
        "jitter), u uniform in [-1, 1), seeded (default 0: perfectly paced).",
    )
    handshake: StrictBool | None = Field(
        None,
        description="tcp, dctcp, prio-queues, pifo..afq: open each flow with the AIFO authors' three-way "
        "handshake: a SYN, its answer, then a final ACK ahead of the data; the receiver takes data only once "
        "that ACK is in (default false, as the pFabric paper's hosts).",
    )
    recovery: Literal["sack", "newreno"] | None = Field(
        None,
        description="tcp, dctcp, prio-queues, pias, pifo..afq: loss recovery of TCP-like hosts: sack (RFC 6675, "
        "the default) or newreno (the AIFO authors' netbench sockets: the window ends at the first "
        "unacknowledged packet plus cwnd, only the third duplicate ACK and partial ACKs resend, a duplicate "
        "counts only against the last new ACK, the timer restarts on every packet sent).",
    )
    sender_rate_gbps: PositiveFloat | None = Field(
        None, description="pifo..afq with constant-rate hosts: their rate (unset: the host link rate)."
    )
    probe_interval_us: PositiveFloat | None = Field(
        None, description="pdq: how often a paused flow probes (paper: 15 us)."
    )
    early_start_k: Annotated[float, _Number] | None = Field(
        None, ge=0, description="pdq: Early Start horizon in RTTs (paper: K = 2)."
    )
    rtt_us: PositiveFloat | None = Field(
        None, description="pdq: the fabric's base RTT for Early Start (paper fabric: 14.6 us)."
    )
    early_termination: StrictBool | None = Field(
        None, description="pdq: deadline flows that cannot make it quit (default true)."
    )
    free_tokens: Annotated[int, _Number] | None = Field(
        None,
        ge=0,
        le=2**20,
        description="phost: tokens a flow holds from the start, the packets it sends without a grant (default 12, one BDP).",
    )
    token_expiry_mtus: PositiveFloat | None = Field(
        None,
        description="phost: how long a token may be spent after it reaches the sender, MTU wire times (1.5).",
    )
    token_window: Annotated[int, _Number] | None = Field(
        None,
        ge=1,
        le=2**20,
        description="phost: how far a flow's tokens may run ahead of those its data echo before it is downgraded "
        "(default 16, a little over the token loop).",
    )
    downgrade_mtus: Annotated[float, _Number] | None = Field(
        None, ge=0, description="phost: how long a downgraded flow waits for each token, MTU wire times (25)."
    )
    resend_mtus: PositiveFloat | None = Field(
        None,
        description="phost: after a flow's last token, when the receiver grants its missing packets again, MTU "
        "wire times (9).",
    )
    short_data_pkts: Annotated[int, _Number] | None = Field(
        None,
        ge=0,
        le=2**30,
        description="phost: flows of at most this many packets send their data one priority level above the "
        "longer flows' (the authors' simulator's optional third level; default 0: one data level).",
    )
    rtt_pkts: Annotated[int, _Number] | None = Field(
        None,
        ge=0,
        le=2**20,
        description="homa: packets a message sends before any grant, RTTbytes (default 0: those that leave while "
        "a full packet crosses the longest path and a grant comes back; 13 on the pFabric paper's fabric).",
    )
    levels: Annotated[int, _Number] | None = Field(
        None, ge=2, le=64, description="homa, strict-priority: priority levels at every port (default 8)."
    )
    sched_levels: Annotated[int, _Number] | None = Field(
        None,
        ge=0,
        le=63,
        description="homa: levels for scheduled packets (default 0: the scheduled bytes' share of the levels, at "
        "least one each way).",
    )
    overcommit: Annotated[int, _Number] | None = Field(
        None,
        ge=0,
        le=2**20,
        description="homa: messages a receiver grants at once, the degree of overcommitment (default 0: one per "
        "scheduled level).",
    )
    resend_us: PositiveFloat | None = Field(
        None,
        description="homa: silence after which a receiver asks for a missing packet again (RESEND), us; a sender "
        "resends a message's first packet after ten times that (default 1000).",
    )
    free_for_long_flows: StrictBool | None = Field(
        None,
        description="phost: whether flows longer than free_tokens packets also send their first free_tokens "
        "packets without a grant (default true, the paper's rule: every flow's first BDP); false: only the flows "
        "that fit in them do, the longer ones waiting for their first token (the authors' simulator).",
    )
    syn_bytes: Annotated[int, _Number] | None = Field(
        None,
        ge=40,
        le=1500,
        description="pdq: wire bytes of the SYN that opens a flow (default 40, header only: its round trip is "
        "PDQ's extra start, 11.76 us across the paper's leaf-spine; 1500 makes it one full RTT, 14.68 us).",
    )

    init_window_pkts: Annotated[int, _Number] | None = Field(
        None,
        ge=0,
        le=2**20,
        description="ndp: packets a flow sends before any pull, its first window (default 0: those that leave "
        "while a full packet crosses the longest path and its ACK comes back; 13 on the pFabric paper's fabric).",
    )
    data_pkts: Annotated[int, _Number] | None = Field(
        None, ge=1, le=2**24, description="trimming (ndp): the data queue of every port, packets (default 8)."
    )
    header_queue_bytes: Annotated[int, _Number] | None = Field(
        None,
        ge=1,
        le=2**40,
        description="trimming (ndp): the header queue of every port, bytes (default 72000: the authors' port, 8 "
        "of their 9000-byte packets).",
    )
    header_ratio: Annotated[int, _Number] | None = Field(
        None,
        ge=0,
        le=2**20,
        description="trimming (ndp): headers served per data packet while both queues wait (default 10; 0: "
        "strict priority).",
    )

    @classmethod
    def allowed_for(cls, name: str) -> str | None:
        if name == "name":
            return "expected one of " + ", ".join(repr(n) for n in scheme_names())
        return None

    @classmethod
    def default_for(cls, name: str) -> str | None:
        """The paper values the core applies, per scheme, for the field reference."""
        if name == "name":
            return None
        values: dict[str, list[str]] = {}
        for scheme in scheme_names():
            defaults = scheme_defaults(scheme)
            if defaults is None:
                return "the scheme's paper value"
            if name in defaults:
                value = "unset" if defaults[name] is None else json.dumps(defaults[name])
                values.setdefault(value, []).append(scheme)
        if not values:
            return "n/a"
        if len(values) == 1 and sum(map(len, values.values())) == len(scheme_names()):
            return next(iter(values))
        return "; ".join(f"{'/'.join(schemes)} {value}" for value, schemes in values.items())

    @classmethod
    def override_keys(cls, name: str, host: str | None = None, switch: str | None = None) -> tuple[str, ...]:
        """The overrides scheme `name` accepts with `host` and `switch` swapped in: the core's list, or every
        typed field without the core. A pair that cannot run is a one-line `ScenarioError`."""
        defaults = scheme_parameters(name, host, switch)
        if defaults is not None:
            # Parameters resolved here before the core sees them (see Scenario._core_scheme).
            front_end_only = ("queues",) if defaults.get("switch") == "prio-queues" else ()
            return tuple(defaults) + front_end_only
        return tuple(field for field in cls.model_fields if field != "name")

    @field_validator("name")
    @classmethod
    def _known_name(cls, value: str) -> str:
        if value not in scheme_names():
            raise ValueError("unknown scheme")
        return value

    @model_validator(mode="before")
    @classmethod
    def _known_overrides(cls, data: Any) -> Any:
        """Check keys before values, on what the user wrote, so the message shows their value."""
        name = data.get("name", cls.model_fields["name"].default) if isinstance(data, dict) else None
        if not isinstance(name, str) or name not in scheme_names():
            return data  # the name's own check reports it
        host, switch = data.get("host"), data.get("switch")
        if not all(part is None or isinstance(part, str) for part in (host, switch)):
            return data  # the fields' own checks report it
        allowed = cls.override_keys(name, host, switch)
        parts = f"scheme {name!r}" + "".join(
            f" with {key} {value!r}" for key, value in (("host", host), ("switch", switch)) if value
        )
        for key, value in data.items():
            if key != "name" and key not in allowed and value is not None:
                params = f"its parameters are: {', '.join(allowed)}" if allowed else "it takes none"
                raise ScenarioError(key, value, f"{parts} has no parameter {key!r}; {params}")
        return data

    @model_serializer(mode="wrap")
    def _set_only(self, handler):
        """Dump only what the user set: an unset override means the core's paper default."""
        return {key: value for key, value in handler(self).items() if value is not None}


class Output(_Section):
    """What the summary statistics cover (the per-flow table always has every flow)."""

    warmup_fraction: Fraction = Field(
        0.0,
        description="Leave out of the statistics the flows that start in this first fraction of arrivals.",
    )
    cooldown_fraction: Fraction = Field(
        0.0, description="Leave out of the statistics the flows that start in this last fraction of arrivals."
    )
    loss_priority_edges_bytes: list[PositiveInt] | None = Field(
        None,
        description="Upper edges of the priority-number bins of the loss table (priority_loss.parquet). "
        "Unset: the paper's Figure 13 bins, 10/100/1K/3K/6K/10K/20K packets of 1460 bytes.",
    )
    sample_interval_s: Seconds | None = Field(
        None, description="Record the throughput of tracked flows every this often (throughput.parquet)."
    )
    track_flows: Annotated[int, _Number] = Field(
        0,
        ge=0,
        le=2**20,
        description="Track the throughput of the flows with ids below this (with a trace: the first this many "
        "flows to start, whose ids are their rows).",
    )
    log_arrivals: StrictBool = Field(
        False,
        description="Log every data packet reaching a tracked flow's receiver: time, index, rank "
        "(arrivals.parquet; the AIFO paper's rank logs).",
    )
    fct_end: Literal["acked", "delivered"] = Field(
        "acked",
        description="The moment a flow completes: acked = the sender holds the ACK of its last byte, as both "
        "papers' simulators measure (the pFabric authors' ns-2 scripts log a flow on its last ACK; netbench, "
        "the AIFO paper's, at the sender's confirmFlow), so a 1-packet flow's ideal is the fabric's RTT (14.6 "
        "us); delivered = the receiver holds every byte (one way). Its ideal FCT is measured the same way.",
    )

    @field_validator("loss_priority_edges_bytes")
    @classmethod
    def _increasing(cls, value: list[int] | None) -> list[int] | None:
        if value is not None:
            for a, b in itertools.pairwise(value):
                if b <= a:
                    raise ScenarioError(
                        "", value, f"expected sizes in strictly increasing order ({a} then {b})"
                    )
        return value

    def to_core(self) -> dict:
        """The measurement settings the core needs (the fractions are applied here, in the summary)."""
        return self.model_dump(
            mode="json",
            include={
                "loss_priority_edges_bytes",
                "sample_interval_s",
                "track_flows",
                "log_arrivals",
                "fct_end",
            },
            exclude_none=True,
        )


class Run(_Section):
    """Limits of the simulation itself."""

    max_sim_time_s: Seconds | None = Field(
        None,
        description="Stop at this simulated time; flows not done are reported unfinished. "
        "Unset: run until every flow finishes.",
    )
    max_events: Annotated[int, _Number] | None = Field(
        None,
        ge=1,
        lt=2**63,
        description="Stop after this many events; flows not done are reported unfinished. Unset: a budget "
        "derived from the flows, 1e6 events plus 64 x the events each flow needs unimpeded (every packet and "
        "its ACK once along the longest path), so that no scenario runs on without bound.",
    )
    threads: Annotated[int, _Number] | None = Field(
        None,
        ge=0,
        le=4096,
        description="Run the partitioned engine on this many threads (0: every core). The fabric is cut into "
        "partitions fixed by the topology (run.partition) and run side by side in windows of the least delay "
        "of a cut link; every thread count and every partitioning gives the sequential engine's results to the "
        "byte (but for a run stopped by its event budget, which stops between windows). Unset or 1: the "
        "sequential engine. "
        "Scenarios that need the whole fabric at one instant (ideal, pdq, throughput sampling, arrival logs), and "
        'ndp with hosts apart (run.partition = "hosts": its switches return a header to its sender at once), '
        "run sequentially whatever this says (stats: partitions = 0; the summary warns).",
    )
    partition: Literal["groups", "racks", "hosts", "nodes"] | None = Field(
        None,
        description="How the partitioned engine cuts the fabric: groups (racks joined through switches that "
        "reach some but not all of them: a fat-tree's pods, a leaf-spine's racks), racks, hosts (the "
        "switches together, each rack's hosts apart with the switch ports down to them: only host links are "
        "cut, whose delay bounds the windows), or nodes (every node on its own, every link cut: for tests, "
        "fabrics of at most 1024 nodes). Unset: groups on a fat-tree, hosts on other fabrics (what measured fastest), racks for ndp "
        "there. Used with "
        "run.threads only.",
    )

    @model_validator(mode="after")
    def _partition_needs_threads(self) -> Run:
        if self.partition is not None and self.threads is None:
            raise ScenarioError(
                "partition",
                self.partition,
                "set only with run.threads (the sequential engine does not partition the fabric)",
            )
        return self


# The core's default packet (net/packet.rs): payload bytes of a full packet, header bytes of every packet.
MSS_BYTES, HEADER_BYTES = 1460, 40
# The largest the core accepts (config.rs MAX_MSS_BYTES, MAX_HEADER_BYTES).
MAX_MSS_BYTES, MAX_HEADER_BYTES = 65_536, 4_096


class Packet(_Section):
    """How flows become packets on the wire, for every host and switch of the run."""

    mss_bytes: Annotated[int, _Number] = Field(
        MSS_BYTES,
        ge=1,
        le=MAX_MSS_BYTES,
        description="Payload bytes of a full packet; a flow's last packet may carry less, and a Poisson "
        "workload's sizes are rounded up to whole packets (default 1460, TCP/IP in Ethernet's 1500-byte MTU; "
        "the AIFO authors' netbench: 1380).",
    )
    header_bytes: Annotated[int, _Number] = Field(
        HEADER_BYTES,
        ge=1,
        le=MAX_HEADER_BYTES,
        description="Header bytes of every packet; ACKs, SYNs, probes and tokens are headers alone (default 40, "
        "IP and TCP; the AIFO authors' netbench: 120, 60 of TCP and 60 of IP).",
    )


def mean_wire_bytes(cdf: workloads.Cdf, packet: Packet | None = None) -> float:
    """Mean bytes on the wire per flow, exactly as the core has it (workload/cdf.rs `mean_wire_bytes`): the
    mean of max(1, ceil(size / MSS)) packets under the CDF's interpolation, times MSS + header (the default
    packet unless `packet` is given)."""
    packet = packet or Packet()
    m = float(packet.mss_bytes)

    def integral(x: float) -> float:  # of max(1, ceil(y / m)) dy over [0, x]
        n = math.floor(x / m)
        return m * n * (n + 1) / 2 + (n + 1) * (x - n * m)

    def packets_at(x: float) -> float:
        return max(1.0, math.ceil(x / m))

    sizes, cdf_values = cdf.size_bytes.tolist(), cdf.cdf.tolist()
    mean, previous = 0.0, 0.0
    for i, (size, value) in enumerate(zip(sizes, cdf_values, strict=True)):
        mass = value - previous
        if mass > 0:
            if cdf.interpolation == "step" or i == 0 or size == sizes[i - 1]:
                mean += mass * packets_at(size)
            else:
                a = sizes[i - 1]
                mean += mass * (integral(size) - integral(a)) / (size - a)
        previous = value
    return mean * (packet.mss_bytes + packet.header_bytes)


# The front end chooses the thresholds of `prio-queues` ports: by the section 6 model for hosts that stamp the
# flow size (4 queues by default, as section 6), by the multi-level feedback model for hosts that stamp the
# bytes sent (PIAS: 8 queues, as its switches). Bundles whose parts the core cannot be asked about (no core
# built) fall back to their names.
THRESHOLD_MODELS = {"flow-size": (4, "paper"), "bytes-sent": (8, "demotion")}
_THRESHOLD_FALLBACK = {"prio-queues": "flow-size", "pias": "bytes-sent"}


def threshold_stamp(scheme: Scheme) -> str | None:
    """The stamp whose thresholds the front end must choose for `scheme` (a `THRESHOLD_MODELS` key), or None
    when its ports take no thresholds."""
    parts = scheme_parameters(scheme.name, scheme.host, scheme.switch)
    if parts is None:
        return _THRESHOLD_FALLBACK.get(scheme.name)
    if parts.get("switch") != "prio-queues":
        return None
    stamp = scheme.priority or parts.get("priority") or "flow-size"
    return "bytes-sent" if stamp == "bytes-sent" else "flow-size"


def chosen_thresholds(
    workload: Poisson, queues: int, method: str, load: float | None = None, model: str = "paper"
) -> list[int]:
    """Thresholds (bytes) for `queues` queues from the workload's CDF and `load` (default: the workload's):
    the optimum of `model` (the section 6 model by flow size, or "demotion", PIAS's queues by bytes sent;
    `analysis.thresholds`) or the equal split of flows. Cached: a sweep asks for the same ones many times. A
    distribution the model cannot take is a `ScenarioError` on `scheme.thresholds_bytes`."""
    cdf = workload.cdf_data
    key = (cdf.interpolation, tuple(cdf.size_bytes.tolist()), tuple(cdf.cdf.tolist()))
    try:
        return list(_thresholds_cached(key, workload.load if load is None else load, queues, method, model))
    except ValueError as exc:
        raise ScenarioError(
            "scheme.thresholds_bytes",
            method,
            f"expected a list of sizes: the model cannot choose thresholds for this workload ({exc})",
        ) from None


@functools.lru_cache(maxsize=256)
def _thresholds_cached(key: tuple, load: float, queues: int, method: str, model: str) -> tuple[int, ...]:
    from .analysis import thresholds

    interpolation, sizes, probabilities = key
    cdf = workloads.Cdf(np.array(sizes), np.array(probabilities), interpolation)
    if method == "optimal":
        values, _ = thresholds.optimal_thresholds(cdf, load, queues, model=model)
    else:
        values = thresholds.equal_split_thresholds(cdf, queues)
    # Equal split may repeat a threshold (an atom it cannot split): keep each once, increasing.
    return tuple(sorted({max(1, int(np.rint(v))) for v in values}))


# --- scenario ---------------------------------------------------------------------------------------------


def read_toml(path: Path, what: str) -> dict[str, Any]:
    """A TOML file as plain data. A missing file, a folder or invalid TOML is a one-line `ScenarioError` that
    calls the file a `what` ("scenario", "sweep"); other read errors (unreadable, not UTF-8) are left to the
    caller to word."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ScenarioError.plain(str(path), f"no such {what} file") from None
    except IsADirectoryError:
        raise ScenarioError.plain(str(path), f"is a directory, expected a {what} TOML file") from None
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError.plain(str(path), f"invalid TOML: {exc}") from None
    except RecursionError:  # tomllib parses nested arrays and tables recursively
        raise ScenarioError.plain(
            str(path), f"invalid {what} file: arrays or tables nested too deeply"
        ) from None


class Scenario(_Section):
    """One simulation run. Build it with `from_toml`, `from_dict` or `model_validate`."""

    seed: Annotated[int, _Number] = Field(
        1, ge=0, lt=2**63, description="Seed of every random stream: same scenario and seed, same results."
    )
    topology: Topology = Field(default_factory=LeafSpine, description="The fabric.")
    packet: Packet = Field(default_factory=Packet, description="How flows become packets on the wire.")
    workload: Workload = Field(default_factory=Poisson, description="Where flows come from.")
    scheme: Scheme = Field(default_factory=Scheme, description="Transport and switch discipline.")
    output: Output = Field(default_factory=Output, description="What the statistics cover.")
    run: Run = Field(default_factory=Run, description="Simulation limits.")

    @classmethod
    def allowed_for(cls, name: str) -> str | None:
        return "expected an integer in [0, 2**63)" if name == "seed" else None

    @model_validator(mode="after")
    def _workload_fits_topology(self) -> Scenario:
        try:
            if isinstance(self.workload, Trace):
                self.workload.read(self.topology.hosts)
            elif isinstance(self.workload, FanIn):
                self.workload.check_hosts(self.topology.hosts)
        except ScenarioError as exc:
            raise exc.at("workload") from None
        return self

    @model_validator(mode="after")
    def _arrivals_fit_in_time(self) -> Scenario:
        """A Poisson workload's flows must arrive within the time a run can simulate: a tiny load or rate
        would put them past it (where the core's clock, picoseconds in a u64, runs out)."""
        workload = self.workload
        if not isinstance(workload, Poisson) or workload.flows is None:
            return self
        rate = workload.arrival_rate(self.hosts, self.topology.host_rate_gbps, self.packet)
        if not workload.flows / MAX_SECONDS <= rate:  # NaN-safe
            name, what = ("load", "a load") if workload.load is not None else ("arrival_rate_per_s", "a rate")
            raise ScenarioError(
                f"workload.{name}",
                getattr(workload, name),
                f"expected {what} at which the {workload.flows} flows arrive within {MAX_SECONDS:g} s (the "
                f"longest a run simulates): it gives {rate:.3g} flows/s, at least "
                f"{workload.flows / MAX_SECONDS:.3g} are needed",
            )
        return self

    @model_validator(mode="after")
    def _thresholds_can_be_chosen(self) -> Scenario:
        """prio-queues and pias without a list of thresholds choose them from a Poisson workload's CDF and
        load."""
        scheme = self.scheme
        if threshold_stamp(scheme) is None or isinstance(scheme.thresholds_bytes, list):
            return self
        shown = MISSING if scheme.thresholds_bytes is None else scheme.thresholds_bytes
        if not isinstance(self.workload, Poisson):
            raise ScenarioError(
                "scheme.thresholds_bytes",
                shown,
                "expected a list of sizes: thresholds are chosen from a Poisson workload's CDF and load, "
                f"and this workload is {self.workload.kind}",
            )
        load = self.workload.offered_load(self.hosts, self.topology.host_rate_gbps, self.packet)
        if (scheme.thresholds_bytes or "optimal") == "optimal" and not load < 1:
            raise ScenarioError(
                "scheme.thresholds_bytes",
                shown,
                f"expected a list of sizes, or 'equal-split': the optimal thresholds need a load below 1, "
                f"and workload.arrival_rate_per_s offers {load:.3g}",
            )
        return self

    # construction

    @classmethod
    def from_dict(cls, data: dict, base_dir: str | Path | None = None) -> Scenario:
        """A scenario from plain data (as parsed TOML); relative paths are taken from `base_dir` or the cwd."""
        return cls.model_validate(data, context={"base_dir": None if base_dir is None else str(base_dir)})

    @classmethod
    def from_toml(cls, path: str | Path, values: dict[str, Any] | None = None) -> Scenario:
        """A scenario from a TOML file; paths inside it are relative to the file's folder. `values` replaces
        dotted fields before the scenario is checked (what the command line sets, such as `run.threads`,
        counts as if the file had said it: a file's `run.partition` is allowed with `--threads N`)."""
        path = Path(path)
        try:
            data = read_toml(path, "scenario")
        except ScenarioError:
            raise
        except UnicodeDecodeError:
            raise ScenarioError.plain(str(path), "is not UTF-8 text, expected a scenario TOML file") from None
        except OSError as exc:
            raise ScenarioError.plain(
                str(path), f"cannot read the scenario file ({exc.strerror or exc})"
            ) from None
        except ValueError:  # a NUL in the path
            raise ScenarioError.plain(repr(str(path)), "is not a valid path of a scenario file") from None
        return cls.from_dict(_replaced(data, values or {}), base_dir=path.absolute().parent)

    def with_values(self, values: dict[str, Any]) -> Scenario:
        """A validated copy with dotted fields replaced, e.g. `{"workload.load": 0.8}` (for sweeps and --seed)."""
        return type(self).from_dict(_replaced(self.model_dump(mode="python"), values))

    # what leaves Python

    def to_core_dict(self) -> dict:
        """The core's input as plain data: units converted, files read, only user-set scheme overrides."""
        return {
            "seed": self.seed,
            "topology": self.topology.model_dump(mode="json"),
            "packet": self.packet.model_dump(mode="json"),
            "workload": self.workload.to_core(),
            "scheme": self._core_scheme(),
            "run": self.run.model_dump(mode="json"),
            "output": self.output.to_core(),
        }

    def _core_scheme(self) -> dict:
        """The scheme as the core takes it: prio-queues and pias thresholds resolved to a list of bytes."""
        scheme = self.scheme.model_dump(mode="json")
        stamp = threshold_stamp(self.scheme)
        if stamp is None:
            return scheme
        chosen = scheme.get("thresholds_bytes", "optimal")
        queues, model = THRESHOLD_MODELS[stamp]
        queues = scheme.pop("queues", None) or queues
        if not isinstance(chosen, list):
            # Validation (`_thresholds_can_be_chosen`) made sure of a Poisson workload and, for the
            # optimum, a load below 1. With arrival_rate_per_s the load is the one that rate offers
            # (computed, as the core does, rather than refused).
            load = self.workload.offered_load(self.hosts, self.topology.host_rate_gbps, self.packet)
            scheme["thresholds_bytes"] = chosen_thresholds(self.workload, queues, chosen, load, model)
        return scheme

    def to_core_json(self) -> str:
        """The JSON string `pfabric._core.run` consumes."""
        return json.dumps(self.to_core_dict(), allow_nan=False, separators=(",", ":"))

    def canonical_json(self) -> str:
        """The scenario as canonical JSON (sorted keys, no spaces): equal scenarios give equal text.

        How the run is made is not part of it: every thread count and partitioning gives the sequential
        engine's results. The packet format is, when it is not the default.
        """
        data = self.model_dump(mode="json")
        if self.packet == Packet():
            del data["packet"]
        run = data["run"]
        run.pop("threads"), run.pop("partition")
        return json.dumps(data, sort_keys=True, separators=(",", ":"), allow_nan=False)

    def canonical_hash(self) -> str:
        """sha256 of the canonical JSON, plus the content of any user file it names.

        A results store keys runs by this hash; hashing the content of a trace or CDF file too means an
        edited file is a new scenario, not a stale cache hit.
        """
        digest = hashlib.sha256(self.canonical_json().encode())
        for path in self._user_files():
            digest.update(b"\0" + path.encode() + b"\0" + hashlib.sha256(Path(path).read_bytes()).digest())
        return digest.hexdigest()

    def _user_files(self) -> list[str]:
        if isinstance(self.workload, Trace):
            return [self.workload.path]
        if isinstance(self.workload, FanIn):
            return []
        if self.workload.cdf not in workloads.packaged_cdfs():
            return [self.workload.cdf]
        return []

    @property
    def hosts(self) -> int:
        """Number of hosts of the topology."""
        return self.topology.hosts


def _replaced(data: dict, values: dict[str, Any]) -> dict:
    """`data` (a scenario as plain data, changed in place and returned) with the dotted fields of `values`
    replaced, sections made as needed."""
    for dotted, value in values.items():
        *parents, leaf = dotted.split(".")
        target = data
        for key in parents:
            target = target.setdefault(key, {})
            if not isinstance(target, dict):
                raise ScenarioError(dotted, value, f"expected {key} to be a section")
        target[leaf] = value
    return data
