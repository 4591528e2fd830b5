"""Closed-form references of one bottleneck: the M/G/1 queue under SRPT, FIFO and processor sharing.

Each takes the jobs' service times as a sample (the distribution is the sample itself) and the Poisson arrival
rate, and gives each job's mean response time (waiting + service). Used by `pfabric validate` and the tests
to hold the simulator to queueing theory where a scheme reduces to one server.

- SRPT (preemptive shortest remaining processing time): Schrage and Miller (1966),
  E[T(x)] = lambda/2 (int_0^x t^2 dF(t) + x^2 (1 - F(x))) / (1 - rho(x))^2 + int_0^x dt / (1 - rho(t)),
  with rho(x) = lambda int_0^x t dF(t).
- FIFO: Pollaczek-Khinchine, E[T(x)] = lambda E[S^2] / (2 (1 - rho)) + x.
- PS (processor sharing): E[T(x)] = x / (1 - rho).
"""

from __future__ import annotations

import numpy as np


def srpt_response_s(service_s: np.ndarray, arrival_rate: float) -> np.ndarray:
    """Schrage-Miller mean response time of each job of the sample."""
    n = len(service_s)
    order = np.argsort(service_s, kind="stable")
    s = service_s[order]
    rho_upto = arrival_rate * np.cumsum(s) / n
    second_moment_upto = np.cumsum(s**2) / n
    tail = 1 - np.arange(1, n + 1) / n
    waiting = arrival_rate / 2 * (second_moment_upto + s**2 * tail) / (1 - rho_upto) ** 2
    rho_below = np.concatenate([[0.0], rho_upto[:-1]])
    residence = np.cumsum(np.diff(np.concatenate([[0.0], s])) / (1 - rho_below))
    out = np.empty(n)
    out[order] = waiting + residence
    return out


def fifo_response_s(service_s: np.ndarray, arrival_rate: float) -> np.ndarray:
    """Pollaczek-Khinchine mean response time of each job of the sample."""
    rho = arrival_rate * service_s.mean()
    return arrival_rate * np.mean(service_s**2) / (2 * (1 - rho)) + service_s


def ps_response_s(service_s: np.ndarray, arrival_rate: float) -> np.ndarray:
    """Processor-sharing mean response time of each job of the sample."""
    rho = arrival_rate * service_s.mean()
    return service_s / (1 - rho)


def mlfq_response_s(service_s: np.ndarray, arrival_rate: float, thresholds_s) -> np.ndarray:
    """Multi-level feedback with FIFO in each level (PIAS's queues), each job's mean response time.

    A job starts in the top level and is demoted each time its attained service passes a threshold (strict
    priority between levels, FIFO within one). For a job of size x with a_{k-1} < x <= a_k:
    E[T(x)] = (lambda E[min(S, a_k)^2] / (2 (1 - rho(a_k))) + x) / (1 - rho(a_{k-1})), rho(a) = lambda
    E[min(S, a)] (derived in `analysis.thresholds`, "demotion"). No thresholds: FIFO; a threshold at every
    size: close to FB (`fb_response_s`)."""
    a = np.concatenate([[0.0], np.sort(np.asarray(thresholds_s, dtype=np.float64)), [np.inf]])
    k = np.searchsorted(a, service_s, side="left")  # a[k-1] < x <= a[k]

    def truncated(bound: np.ndarray, power: int) -> np.ndarray:
        return np.array([np.mean(np.minimum(service_s, b) ** power) for b in bound])

    upper, lower = a[k], a[k - 1]
    levels = np.unique(k)
    rho_hi = dict(zip(levels, arrival_rate * truncated(a[levels], 1), strict=True))
    second_hi = dict(zip(levels, truncated(a[levels], 2), strict=True))
    rho_lo = dict(zip(levels, arrival_rate * truncated(a[levels - 1], 1), strict=True))
    del upper, lower
    wait = np.array([arrival_rate * second_hi[j] / (2 * (1 - rho_hi[j])) for j in k])
    return (wait + service_s) / (1 - np.array([rho_lo[j] for j in k]))


def fb_response_s(service_s: np.ndarray, arrival_rate: float) -> np.ndarray:
    """M/G/1-FB (least attained service) mean response time of each job of the sample: E[T(x)] =
    (lambda E[min(S, x)^2] / (2 (1 - rho(x))) + x) / (1 - rho(x)), rho(x) = lambda E[min(S, x)]
    (Harchol-Balter, Performance Modeling and Design of Computer Systems, 2013, ch. 30)."""
    n = len(service_s)
    order = np.argsort(service_s, kind="stable")
    s = service_s[order]
    tail = 1 - np.arange(1, n + 1) / n
    first = np.cumsum(s) / n + s * tail
    second = np.cumsum(s**2) / n + s**2 * tail
    rho = arrival_rate * first
    out = np.empty(n)
    out[order] = (arrival_rate * second / (2 * (1 - rho)) + s) / (1 - rho)
    return out
