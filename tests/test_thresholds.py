"""The section 6.1 threshold model (pfabric.analysis.thresholds) against the paper and against M/G/1 theory.

The web search CDF's breakpoints are whole packets (6, 13, 19, ... 20000 packets of 1460 B), so its
distribution rounded up to packets can be written down independently here: 15% at 6 packets, and each
segment (a, b] spread evenly over the packet counts a+1 .. b.
"""

from __future__ import annotations

import numpy as np
import pytest
from pfabric.analysis import (
    SizeDistribution,
    equal_load_thresholds,
    equal_split_thresholds,
    fct_curve,
    fct_n,
    fct_n_two_queues,
    mg1_fifo_fct_n,
    optimal_thresholds,
    queue_breakdown,
)
from pfabric.analysis.thresholds import MODELS
from pfabric.workloads import load_cdf
from run_cli import pfabric

MSS = 1460
LOADS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)


@pytest.fixture(scope="module")
def websearch():
    return load_cdf("websearch")


@pytest.fixture(scope="module")
def rounded(websearch):
    return SizeDistribution.from_cdf(websearch)


@pytest.fixture(scope="module")
def continuous(websearch):
    return SizeDistribution.from_cdf(websearch, packet_bytes=None)


def websearch_packets(cdf) -> tuple[np.ndarray, np.ndarray]:
    """Packet counts and their probabilities, built by hand from the table (every breakpoint is whole)."""
    packets = cdf.size_bytes / MSS
    assert np.array_equal(packets, np.round(packets)) and packets[0] == packets[1] == 6
    counts, probs = [6], [cdf.cdf[1]]
    for i in range(2, len(packets)):
        a, b = int(packets[i - 1]), int(packets[i])
        counts += range(a + 1, b + 1)
        probs += [(cdf.cdf[i] - cdf.cdf[i - 1]) / (b - a)] * (b - a)
    return np.array(counts, dtype=float), np.array(probs)


def pollaczek_khintchine(sizes: np.ndarray, probs: np.ndarray, load: float) -> float:
    """E[FCT/S] of one M/G/1 FIFO queue: W = lambda E[S^2] / (2 (1 - rho)), E[FCT/S] = 1 + W E[1/S]."""
    mean = (probs * sizes).sum()
    wait = load / mean * (probs * sizes**2).sum() / (2 * (1 - load))
    return 1 + wait * (probs / sizes).sum()


# --- the paper's numbers ------------------------------------------------------------------------------------


def test_two_queue_optimum_grows_with_load_as_in_figure_16(rounded, continuous):
    # Paper, section 6.1: "The threshold varies between approximately 880-1740 KB as the load increases
    # from 10% to 80%." This model gives 857 KB at 10% (within 3% of 880 KB) but only 1.37 MB at 80%, not
    # 1.74 MB (the paper's upper end is what this model gives at about 90% load). Asserted: the threshold
    # never decreases with load, the 10% value is the paper's lower end within 5% ("approximately"), and
    # every value lies inside the paper's range widened by those 5% at the bottom.
    for dist in (rounded, continuous):
        best = [optimal_thresholds(dist, load, 2)[0][0] for load in LOADS]
        assert np.all(np.diff(best) >= 0), best
        assert best[0] == pytest.approx(880e3, rel=0.05)
        assert all(0.95 * 880e3 <= t <= 1740e3 for t in best), best
        assert best[-1] > 1.5 * best[0]
    # Pinned (sizes rounded to 1460-B packets): 587 packets at 10% load, 757 at 60%, 939 at 80%.
    assert [optimal_thresholds(rounded, load, 2)[0][0] / MSS for load in (0.1, 0.6, 0.8)] == [587, 757, 939]


def test_two_queue_optimum_is_exact_over_every_flow_size(rounded):
    sizes = rounded.atom_bytes
    for load in (0.2, 0.8):
        best, value = optimal_thresholds(rounded, load, 2)
        curve = fct_curve(rounded, load, sizes)
        assert value == pytest.approx(curve.min(), rel=1e-12)
        assert best[0] == sizes[np.argmin(curve)]


@pytest.mark.parametrize("queues", [2, 4, 8])
@pytest.mark.parametrize("load", [0.3, 0.6, 0.8])
def test_optimum_beats_the_equal_split(rounded, queues, load):
    best, value = optimal_thresholds(rounded, load, queues)
    split = equal_split_thresholds(rounded, queues)
    assert len(best) == len(split) == queues - 1
    assert np.all(np.diff(best) >= 0)
    assert value == pytest.approx(fct_n(rounded, load, best), rel=1e-12)
    assert value <= fct_n(rounded, load, split) * (1 + 1e-12)


def test_more_queues_never_hurt(rounded):
    values = [optimal_thresholds(rounded, 0.6, n)[1] for n in (1, 2, 4, 8)]
    assert values[0] == pytest.approx(mg1_fifo_fct_n(rounded, 0.6), rel=1e-12)
    assert np.all(np.diff(values) <= 0), values


def test_equal_split_gives_each_queue_its_share_of_flows(rounded):
    for queues in (2, 4, 8):
        split = equal_split_thresholds(rounded, queues)
        share = rounded.partial(split)[0]
        below = rounded.partial(split - 1)[0]  # the next smaller flow size is at least a packet less
        k = np.arange(1, queues) / queues
        assert np.all(share >= k - 1e-12) and np.all(below < k)
    # 15% of web search flows are 6 packets: with 8 queues the first threshold is that atom.
    assert equal_split_thresholds(rounded, 8)[0] == 6 * MSS


def test_equal_load_gives_each_queue_its_share_of_bytes(rounded, continuous):
    for dist in (rounded, continuous):
        mean = dist.moments[0]
        for queues in (2, 4):
            split = equal_load_thresholds(dist, queues)
            k = np.arange(1, queues) / queues
            assert np.all(dist.partial(split)[1] / mean >= k - 1e-9)
            assert np.all(dist.partial(split * (1 - 1e-6) - 1)[1] / mean < k)
    # Web search's bytes sit in its large flows: the top queue of four holds every flow under 3.8 MB.
    assert 3.7e6 < equal_load_thresholds(rounded, 4)[0] < 3.9e6


# --- the formulas against each other and against Pollaczek-Khintchine ---------------------------------------


@pytest.mark.parametrize("load", [0.1, 0.5, 0.9])
def test_n_queue_model_with_two_queues_is_the_papers_equation(rounded, continuous, load):
    for dist in (rounded, continuous):
        grid = np.geomspace(1e3, 4e7, 301)
        by_paper = fct_n_two_queues(dist, load, grid)
        by_n_queues = np.array([fct_n(dist, load, [t]) for t in grid])
        np.testing.assert_allclose(by_n_queues, by_paper, rtol=1e-12)
        np.testing.assert_allclose(fct_curve(dist, load, grid), by_paper, rtol=0)


# By flow size: a threshold below every size leaves one queue. Demotion (PIAS) is tested in test_pias.py.
@pytest.mark.parametrize("model", [m for m in MODELS if m != "demotion"])
@pytest.mark.parametrize("load", [0.2, 0.7])
def test_one_queue_is_pollaczek_khintchine(websearch, rounded, continuous, model, load):
    packets, probs = websearch_packets(websearch)
    expected = pollaczek_khintchine(packets * MSS, probs, load)
    assert mg1_fifo_fct_n(rounded, load) == pytest.approx(expected, rel=1e-12)
    largest, smallest = 30e6, 1.0
    for thresholds in ([], [largest], [largest] * 3, [smallest], [smallest] * 7):
        assert fct_n(rounded, load, thresholds, model=model) == pytest.approx(expected, rel=1e-12)

    # Without rounding: an atom at 8760 B, then uniform densities, moments in closed form.
    size, cdf = websearch.size_bytes, websearch.cdf
    a, b, mass = size[1:-1], size[2:], np.diff(cdf[1:])
    mean = cdf[1] * size[0] + (mass * (a + b) / 2).sum()
    second = cdf[1] * size[0] ** 2 + (mass * (a * a + a * b + b * b) / 3).sum()
    inverse = cdf[1] / size[0] + (mass * np.log(b / a) / (b - a)).sum()
    expected = 1 + load / mean * second / (2 * (1 - load)) * inverse
    assert fct_n(continuous, load, [], model=model) == pytest.approx(expected, rel=1e-12)
    assert fct_n(continuous, load, [largest, largest], model=model) == pytest.approx(expected, rel=1e-12)


def test_mean_size_is_the_simulators(rounded):
    # The core's closed form (workload/cdf.rs): 1140.98 packets unrounded, about half a packet more rounded.
    mean = rounded.moments[0] / MSS
    assert 1140.98 < mean < 1141.98
    assert SizeDistribution.from_cdf(load_cdf("websearch"), None).moments[0] == pytest.approx(
        1_665_831, rel=1e-6
    )


def test_textbook_priority_models(rounded):
    load, thresholds = 0.7, [50e3, 1e6, 5e6]
    fifo_wait = load / rounded.moments[0] * rounded.moments[1] / (2 * (1 - load))
    # Kleinrock's conservation law for work-conserving non-preemptive disciplines:
    # sum_k rho_k W_k = rho W_FIFO.
    queues = queue_breakdown(rounded, load, thresholds, model="nonpreemptive")
    assert sum(q.load * q.mean_wait_bytes for q in queues) == pytest.approx(load * fifo_wait, rel=1e-12)
    assert sum(q.flow_share for q in queues) == pytest.approx(1, rel=1e-12)
    assert sum(q.load for q in queues) == pytest.approx(load, rel=1e-12)
    # Preemptive-resume: the top queue ignores the others, exactly as in the paper's model; lower queues also
    # wait for the residual work of the higher ones, so they wait longer.
    paper = queue_breakdown(rounded, load, thresholds, model="paper")
    preemptive = queue_breakdown(rounded, load, thresholds, model="preemptive")
    assert preemptive[0] == paper[0]
    assert all(p.mean_wait_bytes > q.mean_wait_bytes for p, q in zip(preemptive[1:], paper[1:], strict=True))
    total = sum(q.flow_share * q.mean_normalized_fct for q in paper)
    assert total == pytest.approx(fct_n(rounded, load, thresholds), rel=1e-12)


def test_bad_arguments(websearch, rounded):
    with pytest.raises(ValueError, match="load"):
        fct_n(rounded, 1.0, [])
    with pytest.raises(ValueError, match="queues"):
        optimal_thresholds(rounded, 0.5, 0)
    with pytest.raises(ValueError, match="non-decreasing"):
        fct_n(rounded, 0.5, [2e6, 1e6])
    with pytest.raises(ValueError, match="model"):
        fct_n(rounded, 0.5, [], model="fifo")
    with pytest.raises(ValueError, match="size 0"):  # HPCC's web search spreads 15% over 0-10 KB
        SizeDistribution.from_cdf(load_cdf("websearch_hpcc_bytes"), packet_bytes=None)


# --- the command -----------------------------------------------------------------------------------------


def test_cli_prints_the_thresholds(pfabric_env, rounded):
    result = pfabric(pfabric_env, "thresholds", "--workload", "websearch", "--load", "0.6", "--queues", "4")
    assert result.returncode == 0, result.stderr
    best, value = optimal_thresholds(rounded, 0.6, 4)
    split = equal_split_thresholds(rounded, 4)
    for t in (*best, *split):
        assert f"{t:,.0f}" in result.stdout
        assert f"{t / MSS:,.0f}" in result.stdout
    assert f"optimal {value:.4f}" in result.stdout
    assert f"equal split {fct_n(rounded, 0.6, split):.4f}" in result.stdout


@pytest.mark.parametrize(
    "args, expected",
    [
        (("--load", "1.5"), "--load 1.5: expected a load in (0, 1)"),
        (("--load", "0.5", "--queues", "1"), "--queues 1: expected a number of queues from 2 to 16"),
    ],
)
def test_cli_bad_arguments(pfabric_env, args, expected):
    result = pfabric(pfabric_env, "thresholds", *args)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.splitlines() == [f"pfabric: error: {expected}"]
