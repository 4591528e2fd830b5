"""The pFabric paper's model of a few strict-priority queues split by flow size (section 6.1, Figure 16).

The model (paper, section 6.1). One link of capacity 1; flows arrive as a Poisson process of rate lambda with
size S drawn from F_S (density f_S); the load is rho = lambda E[S] < 1. Flows of size <= t go to the
high-priority queue, larger ones to the low-priority queue, so the two arrival processes are independent
Poisson processes of rates lambda F_S(t) and lambda (1 - F_S(t)). The high queue has strict priority and
drains at rate 1; the low queue is given the *average* bandwidth the high queue leaves, 1 - rho B_S(t), as
if it were its instantaneous drain rate, where B_S(t) = int_0^t x f_S(x) dx / E[S] is the share of bytes in
flows of size <= t. Each queue is an M/G/1 FIFO and its mean waiting time is Pollaczek-Khintchine's
W = lambda_q E[X^2] / (2 (1 - rho_q)), X the service time in that queue. The objective is the average
normalized FCT over all flows, "FCT divided by flow size", the flow size counted as its transmission time
at line rate (no propagation delay in this model):

    FCT_n(t) = F_S(t) + (1 - F_S(t)) / (1 - rho B_S(t))
             + lambda int_0^t x^2 f_S(x) dx / (2 (1 - rho B_S(t)))           * int_0^t f_S(y)/y dy
             + lambda int_t^inf x^2 f_S(x) dx / (2 (1 - rho)(1 - rho B_S(t))) * int_t^inf f_S(y)/y dy

Interpretation: the seed text of the paper (`004_…`) renders this equation garbled (the last two terms
appear as lambda/(2(1 - rho B_S(t))) int_t^inf x^2 f_S and lambda(1 - rho)/(2(1 - rho B_S(t))) int_0^inf
f_S(y)/y dy, which is not even dimensionally consistent), so the equation above is re-derived from the
model the paper states: the high queue waits W_H = lambda int_0^t x^2 f_S / (2 (1 - rho B_S(t))); the low
queue serves a flow of size x in x / c with c = 1 - rho B_S(t), so its load is rho (1 - B_S(t)) / c,
1 - that load = (1 - rho) / c, and W_L = lambda int_t^inf x^2 f_S / (2 c (1 - rho)). A flow of size x
then has normalized FCT 1 + W_H / x (high) or 1 / c + W_L / x (low); averaging over f_S gives the four
terms. At t = 0 and t = inf it is Pollaczek-Khintchine's FIFO, 1 + lambda E[S^2] E[1/S] / (2 (1 - rho)).

Note that this model is not the textbook non-preemptive priority queue: the high queue never waits for a
low-priority flow (as if flows were preempted, which a packet switch nearly does: a high-priority packet
waits for at most one low-priority packet), and the low queue is a slowed-down M/G/1.

N queues. The paper says the formula "can be generalized for any number of priority queues" without
writing it; here the same approximation is applied queue by queue. With thresholds t_1 <= ... <= t_{N-1}
(t_0 = 0, t_N = inf), queue k holds the flows of size in (t_{k-1}, t_k] and drains at rate 1 - sigma_{k-1},
where sigma_k = lambda int_0^{t_k} x f_S(x) dx is the load of queues 1..k. Pollaczek-Khintchine for queue k
gives

    W_k = lambda int_{t_{k-1}}^{t_k} x^2 f_S(x) dx / (2 (1 - sigma_{k-1}) (1 - sigma_k)),
    normalized FCT of a flow of size x in queue k = 1 / (1 - sigma_{k-1}) + W_k / x,

the same denominator as the textbook M/G/1 priority queue, and for N = 2 exactly the paper's FCT_n(t)
(`model="paper"`, the default). Two textbook models are offered beside it, for comparison:

- `"preemptive"`: M/G/1 with preemptive-resume priority classes (Kleinrock, Queueing Systems vol. II,
  1976, ch. 3; Harchol-Balter, Performance Modeling and Design of Computer Systems, 2013, part VII):
  T_k(x) = x / (1 - sigma_{k-1}) + lambda int_0^{t_k} x^2 f_S / (2 (1 - sigma_{k-1}) (1 - sigma_k)); the
  waiting term counts the residual work of every queue up to k, not only of queue k. For N = 2 it differs
  from the paper's model in the low queue only.
- `"nonpreemptive"`: M/G/1 with non-preemptive (head-of-line) priority classes (Cobham 1954; the same two
  books): T_k(x) = x + lambda E[S^2] / (2 (1 - sigma_{k-1}) (1 - sigma_k)): a flow once started is
  finished first. Whole flows are not packets, so this is far from what a switch does; it is here because it
  is the formula people often mean by "M/G/1 priority queue".

With one queue (or every threshold outside the support) all three are Pollaczek-Khintchine's FIFO.

Demotion (`"demotion"`, PIAS's multi-level feedback queue): flows do not go to a queue by their size; every
flow starts in the top queue and moves down one queue each time the bytes it has sent pass a threshold a_k,
FIFO within a queue, strict priority between queues (M/G/1 multi-level processing with FCFS at each level).
A flow of size x with a_{k-1} < x <= a_k finishes once (i) all work present at its arrival truncated at a_k is
done (every such job entered each level before it), (ii) its own x, and (iii) the work up to a_{k-1} of the
flows arriving meanwhile (their levels above k come first; in level k they queue behind it). With
rho(a) = lambda E[min(S, a)] and PASTA for (i), a busy-period argument gives, exactly,

    T(x) = (lambda E[min(S, a_k)^2] / (2 (1 - rho(a_k))) + x) / (1 - rho(a_{k-1})),

so a queue's flows have stretch 1 / (1 - rho(a_{k-1})) and wait W_k = lambda E[min(S, a_k)^2] / (2 (1 -
rho(a_{k-1})) (1 - rho(a_k))). One queue is Pollaczek-Khintchine's FIFO again; thresholds at every size give
least attained service, M/G/1-FB: T(x) = (lambda E[min(S, x)^2] / (2 (1 - rho(x))) + x) / (1 - rho(x))
(Harchol-Balter 2013, ch. 30), the limit PIAS approaches as queues are added (`fb_response_time`). Here a
threshold is the bytes a flow sends before it is demoted (with packet rounding, whole packets).

Sizes and units. The distribution comes from a `workloads.Cdf`. By default each size is rounded up to whole
packets of 1460 payload bytes, exactly as the simulator samples flows (DESIGN section 3), which turns a
piecewise-linear CDF into a discrete distribution on whole packets (computed exactly: each linear segment
spreads its mass over the packets it overlaps); `packet_bytes=None` keeps the paper's continuous f_S (a
piecewise-linear CDF is then uniform densities between rows and atoms where a size repeats, integrated in
closed form). Everything is in payload bytes, thresholds included; the objective is dimensionless and does
not change with the unit (bytes, packets, or wire bytes, which are 1500/1460 of the payload for whole-packet
flows), so only thresholds need a unit. A threshold t sends flows of size <= t up; with the default rounding
the optimum is reported as a whole number of packets (the largest flow size of the higher queue).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..workloads import Cdf

__all__ = [
    "MODELS",
    "MSS_BYTES",
    "QueueStats",
    "SizeDistribution",
    "equal_split_thresholds",
    "fb_response_time",
    "fct_curve",
    "fct_n",
    "fct_n_two_queues",
    "mg1_fifo_fct_n",
    "optimal_thresholds",
    "queue_breakdown",
]

MSS_BYTES = 1460  # payload bytes per full packet (DESIGN section 3)
MODELS = ("paper", "preemptive", "nonpreemptive", "demotion")
# A piecewise-linear CDF rounded to packets becomes one atom per packet size it covers; beyond this many,
# use packet_bytes=None (the continuous distribution) instead.
_MAX_ATOMS = 10_000_000
_GRID_POINTS = 1200  # candidate thresholds of the global grid search (log-spaced over the sizes)


# --- the size distribution ---------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class SizeDistribution:
    """A flow-size distribution as atoms plus uniform segments, with its partial moments in closed form.

    `atom_bytes` (increasing) carry probabilities `atom_prob`; segment i spreads `seg_prob[i]` uniformly over
    (`seg_lo[i]`, `seg_hi[i]`] (only without rounding). Sizes are payload bytes. Build with `from_cdf`.
    """

    atom_bytes: np.ndarray
    atom_prob: np.ndarray
    seg_lo: np.ndarray
    seg_hi: np.ndarray
    seg_prob: np.ndarray
    packet_bytes: float | None
    _cum: np.ndarray  # (4, atoms + 1): cumulative P, E[S;.], E[S^2;.], E[1/S;.] over atoms, from 0

    __hash__ = None

    @classmethod
    def from_cdf(cls, cdf: Cdf, packet_bytes: float | None = MSS_BYTES) -> SizeDistribution:
        """The distribution a `Cdf` describes, sizes rounded up to whole packets (unless `packet_bytes` None).

        `linear`: the first row and every repeated size are atoms, the rest uniform between rows (as the core
        samples it); `step`: each row is an atom. Rounding is the core's: max(1, ceil(x / packet)) packets.
        """
        if packet_bytes is not None and not (math.isfinite(packet_bytes) and packet_bytes > 0):
            raise ValueError(f"packet_bytes {packet_bytes!r}: expected a size > 0 or None")
        size = np.asarray(cdf.size_bytes, dtype=np.float64)
        mass = np.diff(np.asarray(cdf.cdf, dtype=np.float64), prepend=0.0)
        is_atom = np.ones(len(size), dtype=bool)
        if cdf.interpolation == "linear":
            is_atom[1:] = size[1:] == size[:-1]
        keep = mass > 0
        atoms, atom_prob = size[keep & is_atom], mass[keep & is_atom]
        seg = np.flatnonzero(keep & ~is_atom)
        lo, hi, seg_prob = size[seg - 1], size[seg], mass[seg]
        if packet_bytes is None:
            if np.any(lo <= 0):
                raise ValueError(
                    "the CDF spreads probability down to size 0, so E[1/S] and the model's FCT_n are "
                    "infinite without rounding: keep the default packet_bytes (round up to whole packets)"
                )
            return cls._build(atoms, atom_prob, lo, hi, seg_prob, None)
        m = float(packet_bytes)
        atoms = np.maximum(1.0, np.ceil(atoms / m)) * m
        first = np.floor(lo / m) + 1  # the packet count of sizes just above lo
        last = np.maximum(np.ceil(hi / m), first)
        count = int((last - first + 1).sum())
        if count > _MAX_ATOMS:
            raise ValueError(
                f"rounding this CDF to {m:g}-byte packets makes {count} distinct sizes (more than "
                f"{_MAX_ATOMS}); use packet_bytes=None for the continuous distribution"
            )
        pieces_x, pieces_p = [atoms], [atom_prob]
        for a, b, p, k0, k1 in zip(lo, hi, seg_prob, first, last, strict=True):
            k = np.arange(k0, k1 + 1)
            overlap = np.clip(np.minimum(k * m, b) - np.maximum((k - 1) * m, a), 0.0, None)
            pieces_x.append(k * m)
            pieces_p.append(p * overlap / (b - a))
        x, inverse = np.unique(np.concatenate(pieces_x), return_inverse=True)
        prob = np.bincount(inverse, weights=np.concatenate(pieces_p), minlength=len(x))
        keep = prob > 0
        empty = np.empty(0)
        return cls._build(x[keep], prob[keep], empty, empty, empty, m)

    @classmethod
    def _build(cls, atoms, atom_prob, lo, hi, seg_prob, packet_bytes) -> SizeDistribution:
        order = np.argsort(atoms, kind="stable")
        atoms, atom_prob = atoms[order], atom_prob[order]
        if len(np.unique(atoms)) != len(atoms):  # repeated atoms of a continuous CDF: merge them
            atoms, inverse = np.unique(atoms, return_inverse=True)
            atom_prob = np.bincount(inverse, weights=atom_prob, minlength=len(atoms))
        terms = np.stack([atom_prob, atom_prob * atoms, atom_prob * atoms**2, atom_prob / atoms])
        cum = np.concatenate([np.zeros((4, 1)), np.cumsum(terms, axis=1)], axis=1)
        return cls(atoms, atom_prob, lo, hi, seg_prob, packet_bytes, cum)

    def partial(self, t) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Moments over sizes <= t: (F_S(t), int_0^t x f_S, int_0^t x^2 f_S, int_0^t f_S(x)/x dx).

        `t` may be any array (inf gives the full moments); the result has its shape. Exact: sums over the
        atoms and closed-form integrals over the uniform segments.
        """
        t = np.asarray(t, dtype=np.float64)
        idx = np.searchsorted(self.atom_bytes, t, side="right")
        out = [self._cum[i][idx] for i in range(4)]
        if len(self.seg_prob):
            lo, hi = self.seg_lo, self.seg_hi
            u = np.clip(t[..., None], lo, hi)
            density = self.seg_prob / (hi - lo)
            out[0] = out[0] + (density * (u - lo)).sum(axis=-1)
            out[1] = out[1] + (density * (u**2 - lo**2) / 2).sum(axis=-1)
            out[2] = out[2] + (density * (u**3 - lo**3) / 3).sum(axis=-1)
            out[3] = out[3] + (density * np.log(u / lo)).sum(axis=-1)
        return out[0], out[1], out[2], out[3]

    @property
    def moments(self) -> tuple[float, float, float]:
        """(E[S], E[S^2], E[1/S]) in bytes, bytes^2 and 1/bytes."""
        _, m1, m2, inv = self.partial(np.inf)
        return float(m1), float(m2), float(inv)

    @property
    def support(self) -> tuple[float, float]:
        """Smallest and largest size with probability around it."""
        lows = np.concatenate([self.atom_bytes[:1], self.seg_lo])
        highs = np.concatenate([self.atom_bytes[-1:], self.seg_hi])
        return float(lows.min()), float(highs.max())

    def quantile(self, q, by: str = "flows") -> np.ndarray:
        """The smallest size s with F_S(s) >= q, for each q in (0, 1]; with `by="bytes"`, the smallest s whose
        flows of size <= s carry a fraction q of all bytes (E[S; S <= s] / E[S] >= q)."""
        q = np.atleast_1d(np.asarray(q, dtype=np.float64))
        moment = {"flows": 0, "bytes": 1}[by]
        total = 1.0 if moment == 0 else self.moments[0]
        if not len(self.seg_prob):  # cumulative sums are not exact: an atom reaching q - 1e-12 reaches q
            idx = np.searchsorted(self._cum[moment][1:] / total, q - 1e-12, side="left")
            return self.atom_bytes[np.minimum(idx, len(self.atom_bytes) - 1)]
        lo, hi = np.zeros_like(q), np.full_like(q, self.support[1])
        for _ in range(200):  # bisection: the partial moment is non-decreasing and right-continuous
            mid = (lo + hi) / 2
            below = self.partial(mid)[moment] / total < q
            lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
        if len(self.atom_bytes):  # an atom's inexact sum may put the answer just past it: give the atom
            below = np.clip(np.searchsorted(self.atom_bytes, hi, side="right") - 1, 0, None)
            near = self.atom_bytes[below]
            hi = np.where(np.isclose(near, hi, rtol=1e-9, atol=0), near, hi)
        return hi

    def candidates(self, points: int = _GRID_POINTS) -> np.ndarray:
        """Thresholds worth trying: log-spaced over the support (atoms if rounded, else breakpoints too)."""
        smallest, largest = self.support
        grid = np.geomspace(smallest, largest, points) if largest > smallest else np.array([smallest])
        if not len(self.seg_prob):
            if len(self.atom_bytes) <= points:
                return self.atom_bytes.copy()
            idx = np.searchsorted(self.atom_bytes, grid, side="right") - 1
            return np.unique(self.atom_bytes[np.clip(idx, 0, None)])
        return np.unique(np.concatenate([grid, self.atom_bytes, self.seg_lo, self.seg_hi]))


def _distribution(cdf: Cdf | SizeDistribution, packet_bytes: float | None) -> SizeDistribution:
    if isinstance(cdf, SizeDistribution):
        return cdf
    if isinstance(cdf, Cdf):
        return SizeDistribution.from_cdf(cdf, packet_bytes)
    raise TypeError(f"expected a workloads.Cdf or a SizeDistribution, got {type(cdf).__name__}")


def _check_load(load: float) -> float:
    load = float(load)
    if not (math.isfinite(load) and 0 < load < 1):
        raise ValueError(f"load {load!r}: expected a load in (0, 1) (the model has no steady state at >= 1)")
    return load


def _check_model(model: str) -> str:
    if model not in MODELS:
        raise ValueError(f"model {model!r}: expected one of {MODELS}")
    return model


def _check_queues(queues: int) -> int:
    if isinstance(queues, bool) or not isinstance(queues, int | np.integer) or queues < 1:
        raise ValueError(f"queues {queues!r}: expected a whole number of queues >= 1")
    return int(queues)


def _check_thresholds(thresholds) -> np.ndarray:
    t = np.asarray(thresholds, dtype=np.float64).reshape(-1)
    if np.any(np.isnan(t)) or np.any(t < 0) or np.any(np.diff(t) < 0):
        raise ValueError(f"thresholds {t.tolist()}: expected sizes >= 0 in non-decreasing order")
    return t


# --- the model ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class QueueStats:
    """One queue of the N-queue model: what it holds and what its flows see (sizes and waits in bytes).

    `mean_wait_bytes` is the mean waiting time W_k expressed as the bytes the link sends meanwhile (time at
    line rate 1); `mean_normalized_fct` is the average of FCT / size over this queue's flows (nan if empty).
    """

    upper_bytes: float  # t_k (inf for the last queue)
    flow_share: float  # F_S(t_k) - F_S(t_{k-1})
    load: float  # lambda int x f_S over the queue: its share of the link
    load_above: float  # sigma_{k-1}: the load of the higher-priority queues
    mean_wait_bytes: float
    mean_normalized_fct: float


def _at(dist: SizeDistribution, t) -> tuple[np.ndarray, ...]:
    """`dist.partial(t)` with the bound itself appended (the demotion model needs E[min(S, t)])."""
    return (*dist.partial(t), np.asarray(t, dtype=np.float64))


def _truncated(bound) -> tuple[np.ndarray, np.ndarray]:
    """(E[min(S, a)], E[min(S, a)^2]) from an `_at` tuple at a (a = inf: the full moments)."""
    f, m1, m2, _, a = bound
    # Past the support (or at a = inf, where F may round below 1) min(S, a) = S: no tail term, no inf x 0.
    a = np.where((f >= 1) | np.isinf(a), 0.0, a)
    return m1 + a * (1 - f), m2 + a * a * (1 - f)


def _queue_terms(model: str, lam: float, second_moment: float, lo, hi):
    """Per-queue (service stretch a_k, waiting time W_k, contribution to FCT_n) for queues (lo, hi].

    `lo`, `hi` are `_at` tuples at the queue's bounds (broadcastable arrays). A flow of size x in queue k
    has FCT a_k x + W_k; its contribution to the average normalized FCT is a_k P(queue) + W_k E[1/S; queue].
    """
    p = hi[0] - lo[0]
    m2 = hi[2] - lo[2]
    inv = hi[3] - lo[3]
    if model == "demotion":
        above, _ = _truncated(lo)
        upto, upto_second = _truncated(hi)
        # The grid search also evaluates queues whose bounds are reversed; their terms are never chosen.
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            stretch = 1 / (1 - lam * above)
            wait = lam * upto_second * stretch / (2 * (1 - lam * upto))
            return stretch, wait, stretch * p + wait * inv
    above, upto = lam * lo[1], lam * hi[1]  # sigma_{k-1}, sigma_k
    denominator = 2 * (1 - above) * (1 - upto)
    if model == "paper":
        stretch, wait = 1 / (1 - above), lam * m2 / denominator
    elif model == "preemptive":
        stretch, wait = 1 / (1 - above), lam * hi[2] / denominator
    else:  # nonpreemptive
        stretch, wait = np.ones_like(above), lam * second_moment / denominator
    return stretch, wait, stretch * p + wait * inv


def _bounds(dist: SizeDistribution, thresholds: np.ndarray):
    points = np.concatenate([[0.0], thresholds, [np.inf]])
    at = _at(dist, points)
    return points, tuple(m[:-1] for m in at), tuple(m[1:] for m in at)


def fct_n(
    cdf: Cdf | SizeDistribution,
    load: float,
    thresholds: Sequence[float],
    *,
    model: str = "paper",
    packet_bytes: float | None = MSS_BYTES,
) -> float:
    """The model's average normalized FCT with N = len(thresholds) + 1 strict-priority queues.

    Implements the N-queue generalization of the paper's FCT_n(t) described in the module docstring
    (sum over queues of a_k (F_S(t_k) - F_S(t_{k-1})) + W_k int_{t_{k-1}}^{t_k} f_S(y)/y dy), or one of the
    textbook priority models (`model`). Thresholds are in bytes, non-decreasing (equal thresholds leave a
    queue empty); no thresholds is one FIFO queue.
    """
    dist = _distribution(cdf, packet_bytes)
    load, model = _check_load(load), _check_model(model)
    t = _check_thresholds(thresholds)
    mean, second, _ = dist.moments
    _, lo, hi = _bounds(dist, t)
    return float(_queue_terms(model, load / mean, second, lo, hi)[2].sum())


def queue_breakdown(
    cdf: Cdf | SizeDistribution,
    load: float,
    thresholds: Sequence[float],
    *,
    model: str = "paper",
    packet_bytes: float | None = MSS_BYTES,
) -> list[QueueStats]:
    """Queue by queue, the terms that `fct_n` adds up (same model, same conventions)."""
    dist = _distribution(cdf, packet_bytes)
    load, model = _check_load(load), _check_model(model)
    t = _check_thresholds(thresholds)
    mean, second, _ = dist.moments
    lam = load / mean
    points, lo, hi = _bounds(dist, t)
    _, wait, contribution = _queue_terms(model, lam, second, lo, hi)
    share = hi[0] - lo[0]
    return [
        QueueStats(
            upper_bytes=float(points[k + 1]),
            flow_share=float(share[k]),
            load=float(lam * (hi[1][k] - lo[1][k])),
            load_above=float(lam * lo[1][k]),
            mean_wait_bytes=float(wait[k]),
            mean_normalized_fct=float(contribution[k] / share[k]) if share[k] > 0 else math.nan,
        )
        for k in range(len(points) - 1)
    ]


def fct_n_two_queues(
    cdf: Cdf | SizeDistribution, load: float, t, *, packet_bytes: float | None = MSS_BYTES
) -> np.ndarray:
    """The paper's FCT_n(t) for two queues, term by term as in section 6.1 (vectorized over `t`, bytes).

    F_S(t) + (1 - F_S(t)) / (1 - rho B_S(t)) + lambda int_0^t x^2 f_S / (2 (1 - rho B_S(t))) int_0^t f_S/y
    + lambda int_t^inf x^2 f_S / (2 (1 - rho)(1 - rho B_S(t))) int_t^inf f_S/y, with lambda = rho / E[S]
    and B_S(t) = int_0^t x f_S / E[S]. Written out on its own (not through `fct_n`) so that the two can be
    checked against each other.
    """
    dist = _distribution(cdf, packet_bytes)
    rho = _check_load(load)
    t = np.asarray(t, dtype=np.float64)
    mean, second, inverse_mean = dist.moments
    lam = rho / mean
    f_s, first_below, second_below, inverse_below = dist.partial(t)
    b_s = first_below / mean
    slowdown = 1 - rho * b_s
    return (
        f_s
        + (1 - f_s) / slowdown
        + lam * second_below / (2 * slowdown) * inverse_below
        + lam * (second - second_below) / (2 * (1 - rho) * slowdown) * (inverse_mean - inverse_below)
    )


def fb_response_time(
    cdf: Cdf | SizeDistribution, load: float, sizes, *, packet_bytes: float | None = MSS_BYTES
) -> np.ndarray:
    """M/G/1-FB (least attained service) mean response time of a flow of each size in `sizes` (bytes), in
    bytes of line-rate time: (lambda E[min(S, x)^2] / (2 (1 - rho(x))) + x) / (1 - rho(x)), rho(x) =
    lambda E[min(S, x)] (Harchol-Balter, Performance Modeling and Design of Computer Systems, 2013, ch. 30)."""
    dist = _distribution(cdf, packet_bytes)
    lam = _check_load(load) / dist.moments[0]
    x = np.asarray(sizes, dtype=np.float64)
    first, second = _truncated(_at(dist, x))
    return (lam * second / (2 * (1 - lam * first)) + x) / (1 - lam * first)


def mg1_fifo_fct_n(
    cdf: Cdf | SizeDistribution, load: float, *, packet_bytes: float | None = MSS_BYTES
) -> float:
    """One FIFO queue, Pollaczek-Khintchine: E[FCT / S] = 1 + E[1/S] lambda E[S^2] / (2 (1 - rho))."""
    dist = _distribution(cdf, packet_bytes)
    rho = _check_load(load)
    mean, second, inverse_mean = dist.moments
    wait = (rho / mean) * second / (2 * (1 - rho))
    return 1 + wait * inverse_mean


def fct_curve(
    cdf: Cdf | SizeDistribution,
    load: float,
    thresholds_grid,
    *,
    model: str = "paper",
    packet_bytes: float | None = MSS_BYTES,
) -> np.ndarray:
    """Figure 16's values: the two-queue FCT_n(t) at each threshold of `thresholds_grid` (bytes)."""
    if _check_model(model) == "paper":
        return fct_n_two_queues(cdf, load, thresholds_grid, packet_bytes=packet_bytes)
    dist = _distribution(cdf, packet_bytes)
    grid = np.asarray(thresholds_grid, dtype=np.float64)
    values = [fct_n(dist, load, [t], model=model) for t in grid.reshape(-1)]
    return np.asarray(values).reshape(grid.shape)


# --- thresholds --------------------------------------------------------------------------------------------


def equal_split_thresholds(
    cdf: Cdf | SizeDistribution, queues: int, *, packet_bytes: float | None = MSS_BYTES
) -> np.ndarray:
    """The heuristic of the paper's Figure 17(c): thresholds at the k/N quantiles of the flow-size CDF.

    Each queue gets 1/N of the flows where the distribution allows it; an atom holding more than 1/N (web
    search: 15% of flows are 6 packets) cannot be split, so it goes whole to the queue where it starts, and
    two thresholds may then coincide (an empty queue). Sizes in bytes, rounded to packets by default.
    """
    dist = _distribution(cdf, packet_bytes)
    queues = _check_queues(queues)
    return dist.quantile(np.arange(1, queues) / queues) if queues > 1 else np.empty(0)


def equal_load_thresholds(
    cdf: Cdf | SizeDistribution, queues: int, *, packet_bytes: float | None = MSS_BYTES
) -> np.ndarray:
    """The other reading of Figure 17(c)'s heuristic: thresholds that give each of the N queues 1/N of the
    bytes (the load), i.e. at the k/N quantiles of the byte-weighted size distribution. Web search, 4 queues:
    3.8, 7.8 and 17.7 MB, so the top queue holds every flow under 3.8 MB. Sizes in bytes, rounded to packets
    by default."""
    dist = _distribution(cdf, packet_bytes)
    queues = _check_queues(queues)
    return dist.quantile(np.arange(1, queues) / queues, by="bytes") if queues > 1 else np.empty(0)


def optimal_thresholds(
    cdf: Cdf | SizeDistribution,
    load: float,
    queues: int,
    *,
    model: str = "paper",
    packet_bytes: float | None = MSS_BYTES,
) -> tuple[np.ndarray, float]:
    """Thresholds t_1 <= ... <= t_{N-1} (bytes) that minimize the model's FCT_n, and that minimum.

    The objective is not convex in the thresholds (Figure 16 has flat shoulders and a sharp minimum at high
    load), so the search is global first, then local:

    1. Grid: the objective is a sum of one term per queue that depends only on that queue's two bounds, so
       the best thresholds on a log-spaced grid of candidate sizes (`SizeDistribution.candidates`) are found
       exactly by dynamic programming over the grid (O(N G^2)).
    2. Refine: `scipy.optimize.minimize` (Powell, in log-size, within the support), started from the grid
       optimum and from the equal-split thresholds.
    3. Polish each start and each refined result, coordinate by coordinate until nothing moves: with packet
       rounding (the default) each threshold is moved to the best whole-packet size between its neighbours,
       found by evaluating them all (so with 2 queues the answer is the exact optimum over every flow
       size); without rounding, by `scipy.optimize.minimize_scalar` between the neighbours. The best of all
       is returned.

    Returns (thresholds in bytes, FCT_n there). With packet rounding each threshold is a flow size of the
    distribution (a whole number of packets): the largest flow size that goes to the higher queue.
    """
    try:
        from scipy import optimize
    except ModuleNotFoundError as exc:  # scipy is in the `test` extra, not a core dependency
        raise ModuleNotFoundError("optimal_thresholds needs scipy: pip install scipy") from exc

    dist = _distribution(cdf, packet_bytes)
    load, model, queues = _check_load(load), _check_model(model), _check_queues(queues)
    mean, second, _ = dist.moments
    lam = load / mean
    if queues == 1:
        return np.empty(0), fct_n(dist, load, [], model=model)

    def objective(t: np.ndarray) -> float:
        _, lo, hi = _bounds(dist, np.sort(t))
        return float(_queue_terms(model, lam, second, lo, hi)[2].sum())

    candidates = dist.candidates()
    starts = [_grid_optimum(dist, model, lam, second, candidates, queues)]
    starts.append(np.clip(equal_split_thresholds(dist, queues), candidates[0], candidates[-1]))
    bounds = [(math.log(candidates[0]), math.log(candidates[-1]))] * (queues - 1)
    best_t, best_value = starts[0], math.inf
    for start in starts:
        result = optimize.minimize(
            lambda y: objective(np.exp(y)),
            np.log(start),
            method="Powell",
            bounds=bounds if bounds[0][1] > bounds[0][0] else None,
            options={"xtol": 1e-6, "ftol": 1e-12},
        )
        for t in (np.sort(np.exp(result.x)), start):
            t = _polish(dist, model, lam, second, np.sort(t), optimize)
            value = objective(t)
            if value < best_value:
                best_t, best_value = t, value
    return best_t, best_value


def _grid_optimum(dist, model, lam, second, candidates, queues) -> np.ndarray:
    """Exact minimum over thresholds taken from `candidates` (non-decreasing), by dynamic programming."""
    points = np.concatenate([[0.0], candidates, [np.inf]])
    moments = _at(dist, points)
    lo = tuple(m[:, None] for m in moments)
    hi = tuple(m[None, :] for m in moments)
    term = _queue_terms(model, lam, second, lo, hi)[2]  # term[i, j]: one queue holding (points[i], points[j]]
    inner = slice(1, len(points) - 1)
    within = np.where(np.triu(np.ones((len(candidates),) * 2, dtype=bool)), term[inner, inner], np.inf)
    value = term[0, inner].copy()  # best cost of the first queues when the latest threshold is candidate j
    choices = []
    for _ in range(queues - 2):
        total = value[:, None] + within
        choices.append(np.argmin(total, axis=0))
        value = total[choices[-1], np.arange(len(candidates))]
    j = int(np.argmin(value + term[inner, -1]))
    picked = [j]
    for choice in reversed(choices):
        j = int(choice[j])
        picked.append(j)
    return candidates[np.array(picked[::-1])]


def _polish(dist, model, lam, second, t: np.ndarray, optimize) -> np.ndarray:
    """Coordinate descent: each threshold to its best value between its neighbours, until none moves."""
    discrete = not len(dist.seg_prob)
    smallest, largest = dist.support
    if discrete:  # the objective is flat between atoms: a threshold is the atom at or below it
        idx = np.clip(np.searchsorted(dist.atom_bytes, t, side="right") - 1, 0, None)
        t = dist.atom_bytes[idx]
    t = t.copy()

    def pair_cost(lower: float, c, upper: float, mid=None):
        """The two queues a threshold c separates, (lower, c] and (c, upper]; `mid`: moments at c if known."""
        low, high = _at(dist, lower), _at(dist, upper)
        mid = _at(dist, c) if mid is None else mid
        return _queue_terms(model, lam, second, low, mid)[2] + _queue_terms(model, lam, second, mid, high)[2]

    for _ in range(200):
        moved = False
        for k in range(len(t)):
            lower = t[k - 1] if k > 0 else 0.0
            upper = t[k + 1] if k + 1 < len(t) else np.inf
            current = float(pair_cost(lower, t[k], upper))
            if discrete:
                a = np.searchsorted(dist.atom_bytes, lower, side="left")
                b = np.searchsorted(dist.atom_bytes, min(upper, largest), side="right")
                options = dist.atom_bytes[a:b]
                if not len(options):
                    continue
                at_options = (*(dist._cum[m][a + 1 : b + 1] for m in range(4)), options)  # _at(options)
                costs = pair_cost(lower, options, upper, at_options)
                i = int(np.argmin(costs))
                new, cost = float(options[i]), float(costs[i])
            else:
                left, right = math.log(max(lower, smallest)), math.log(min(upper, largest))
                if right <= left:
                    continue
                result = optimize.minimize_scalar(
                    lambda y, lo=lower, up=upper: float(pair_cost(lo, math.exp(y), up)),
                    bounds=(left, right),
                    method="bounded",
                    options={"xatol": 1e-9},
                )
                new, cost = math.exp(result.x), float(result.fun)
            if cost < current * (1 - 1e-13) and new != t[k]:
                t[k], moved = new, True
        if not moved:
            break
    return t
