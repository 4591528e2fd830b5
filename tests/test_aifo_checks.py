"""The AIFO figures' checks on made-up results: what passes, what an experiment explains, what fails."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from pfabric.figures import _aifo
from pfabric.figures import aifo_fig8 as fig8


def _runs(values: dict[float, list[float]], loads=(0.2, 0.5)) -> list:
    """Small-flow means per k: the first value at every load (seed 1), the rest as extra seeds at the lowest."""
    done = []
    for k, samples in values.items():
        for load in loads:
            scale = 1.0 if load == loads[0] else 1.5 + k  # increasing in k at the higher load
            done.append(({"load": load, "scheme": f"AIFO k={k}"}, SimpleNamespace(value=samples[0] * scale)))
        for seed, v in zip(fig8.MORE_SEEDS, samples[1:], strict=False):
            done.append(
                ({"load": loads[0], "scheme": fig8.seeded(k, seed), "seed": seed}, SimpleNamespace(value=v))
            )
    return done


@pytest.mark.parametrize(
    "values, verdict",
    [
        # Increasing in k on the seeds' means: holds.
        ({0.1: [1.0, 1.0, 1.0], 0.3: [1.1, 1.1, 1.1], 0.7: [1.2, 1.2, 1.2], 0.9: [1.3, 1.3, 1.3]}, "passed"),
        # k = 0.1 and 0.3 tie within the seeds' noise at the lowest load: explained by the seeds.
        (
            {0.1: [1.0, 1.1, 0.9], 0.3: [1.01, 0.9, 1.05], 0.7: [1.2, 1.2, 1.2], 0.9: [1.3, 1.3, 1.3]},
            "diverges: explained",
        ),
        # k = 0.1 clearly above k = 0.3, seed after seed: a real inversion.
        (
            {0.1: [1.2, 1.21, 1.19], 0.3: [1.0, 1.01, 0.99], 0.7: [1.3, 1.3, 1.3], 0.9: [1.4, 1.4, 1.4]},
            "failed",
        ),
    ],
)
def test_fig8_ordering_over_k_explained_only_within_seed_noise(monkeypatch, values, verdict):
    monkeypatch.setattr(_aifo, "small_mean_ms", lambda r: r.value)
    monkeypatch.setattr(fig8, "AUTHORS_KS", tuple(values))
    check = fig8.increasing_in_k(_runs(values))
    assert check is not None and check.verdict == verdict


def _queue_runs(ratios: dict[str, float]) -> list:
    """q_len 100 at 1.0 and q_len 20 at the given ratio, per host kind ("" for the authors' hosts), two loads."""
    done = []
    for hosts, ratio in ratios.items():
        suffix = f", IW {hosts}" if hosts else ""
        for load in (0.3, 0.7):
            done.append(({"load": load, "scheme": f"AIFO q_len=100{suffix}"}, SimpleNamespace(value=1.0)))
            done.append(({"load": load, "scheme": f"AIFO q_len=20{suffix}"}, SimpleNamespace(value=ratio)))
    return done


@pytest.mark.parametrize(
    "ratios, verdict",
    [
        ({"": 1.10, 10: 0.80, 20: 1.10}, "passed"),
        # The authors' hosts (IW 30) miss "close", hosts opening at the queue's 20 packets hold it: explained.
        ({"": 1.26, 10: 0.74, 20: 1.08}, "diverges: explained"),
        # No first window that fits the queue gives the paper's finding: failed.
        ({"": 1.26, 10: 0.74, 20: 1.30}, "failed"),
    ],
)
def test_queue_length_check_explained_only_where_a_fitting_first_window_holds(monkeypatch, ratios, verdict):
    monkeypatch.setattr(_aifo, "small_mean_ms", lambda r: r.value)
    from pfabric.figures import aifo_fig11

    close = aifo_fig11.FIGURE.checks(_queue_runs(ratios))[0]
    assert close.verdict == verdict, close
    if verdict == "diverges: explained":
        assert "at 10 packets the claim fails" in close.explained
        assert "at 20 packets the claim holds" in close.explained


def _large_runs(loads: tuple[float, float], completion: tuple[float, float], windows: dict) -> list:
    """Fig. 8's large-flow means (ms) per k: the load sweep (`loads`, k = 0.1 and 0.9 at each of 0.7 and 0.8),
    the top rate run to completion (`completion`) and the authors' measurement at each of their high rates
    (`windows`: rate -> the two means)."""
    done = []
    for load in (0.7, 0.8):
        for k, value in zip((0.1, 0.9), loads, strict=True):
            done.append(({"load": load, "scheme": f"AIFO k={k}"}, SimpleNamespace(large=value)))
    for label, value in zip(fig8.RATE_RUNS, completion, strict=True):
        done.append(({"scheme": label, "flows": 20_000}, SimpleNamespace(large=value)))
    for rate, values in windows.items():
        for label, value in zip(fig8.WINDOW_RUNS[rate], values, strict=True):
            labels = {"scheme": label, "arrival_rate_per_s": rate, "window_s": 1.0}
            done.append((labels, SimpleNamespace(large=value)))
    return done


@pytest.mark.parametrize(
    "loads, completion, windows, verdict",
    [
        ((10.0, 12.0), (30.0, 35.0), {}, "passed"),
        # Worse to completion, better as the authors measure at both of their high rates: explained.
        ((21.0, 15.0), (35.0, 32.0), {141_500: (30.0, 43.0), 190_000: (37.0, 93.0)}, "diverges: explained"),
        # As the authors measure, still worse at one rate: failed.
        ((21.0, 15.0), (35.0, 32.0), {141_500: (30.0, 43.0), 190_000: (95.0, 93.0)}, "failed"),
        # The authors' measurement did not run: failed.
        ((21.0, 15.0), (35.0, 32.0), {}, "failed"),
    ],
)
def test_fig8_large_flows_explained_only_where_the_authors_measurement_shows_the_claim(
    monkeypatch, loads, completion, windows, verdict
):
    monkeypatch.setattr(_aifo, "large_mean_ms", lambda r: r.large)
    monkeypatch.setattr(_aifo, "large_unfinished", lambda r: 0.2)
    monkeypatch.setattr(_aifo, "large_unfinished_mean_mb", lambda r: 6.0)
    check = fig8.large_flows_at_high_load(_large_runs(loads, completion, windows))
    assert check is not None and check.verdict == verdict, check
    if verdict == "diverges: explained":
        assert "190,000 flows/s: 37.00 vs 93.00 ms (theirs 37.1 vs 89.6)" in check.explained


def _closeness_runs(
    loads: dict[str, float], rates: dict[str, tuple[float, ...]], at: tuple[int, ...]
) -> list:
    """Small-flow means (ms): each scheme's at loads 0.2 and 0.5, and at the authors' rates `at`."""
    from pfabric.figures import aifo_fig7

    done = []
    for label, value in loads.items():
        for load in (0.2, 0.5):
            done.append(({"load": load, "scheme": label}, SimpleNamespace(value=value)))
    for label, values in rates.items():
        for rate, value in zip(at, values, strict=True):
            labels = {"scheme": aifo_fig7.AT_RATES.format(label), "arrival_rate_per_s": rate}
            done.append((labels, SimpleNamespace(value=value)))
    return done


@pytest.mark.parametrize(
    "theirs, ours, verdict, says",
    [
        # Their own simulator is beyond the bound on these links and ours follows it: explained.
        (
            {"AIFO": (2.0, 2.0), "PIFO": (1.0, 1.25)},
            {"AIFO": (2.0, 2.0), "PIFO": (1.05, 1.3)},
            "diverges: explained",
            "the authors' own simulator puts AIFO at 1.60-2.00x",
        ),
        # Our AIFO is theirs, and within the bound of their PIFO: the bound fails through our PIFO alone.
        (
            {"AIFO": (2.0, 2.0), "PIFO": (1.2, 1.6)},
            {"AIFO": (2.05, 2.0), "PIFO": (1.0, 1.5)},
            "diverges: explained",
            "the bound fails only through our PIFO",
        ),
        # Our AIFO is 30% above theirs where the ratio is beyond the bound: failed.
        ({"AIFO": (2.0, 2.0), "PIFO": (1.2, 1.6)}, {"AIFO": (2.6, 2.0), "PIFO": (1.0, 1.5)}, "failed", None),
    ],
)
def test_fig7_closeness_explained_only_by_the_authors_means_at_their_rates(
    monkeypatch, theirs, ours, verdict, says
):
    from pfabric.figures import aifo_fig7

    monkeypatch.setattr(_aifo, "small_mean_ms", lambda r: r.value)
    authors = aifo_fig7.AuthorsMeans(links="test links", rates=(100, 200), means_ms=theirs, source="made up")
    done = _closeness_runs({"AIFO": 2.0, "PIFO": 1.0}, ours, authors.rates)
    check = aifo_fig7.close_to(done, "PIFO", authors)
    assert check is not None and check.verdict == verdict, check
    if says:
        assert says in check.explained
    # Failing unexplained, the check shows our means at the authors' rates beside theirs; otherwise not.
    beside = "100/s AIFO 2.600 (2.000), PIFO 1.000 (1.200), ratio 2.60 (1.67)"
    assert (beside in check.ours) == (verdict == "failed")


@pytest.mark.parametrize(
    "aifo, verdict", [(0.020, "diverges: explained"), (0.040, "failed"), (0.0148, "passed")]
)
def test_closeness_without_authors_data_explained_only_by_an_added_delay_below_theirs(
    monkeypatch, aifo, verdict
):
    """Data mining: PIFO's small flows in 8 us; AIFO 12 us above is below the 22 us the authors' web-search runs
    show at the least, 32 us above is not, and 1.85x is within the bound."""
    from pfabric.figures import aifo_fig7

    monkeypatch.setattr(_aifo, "small_mean_ms", lambda r: r.value)
    check = aifo_fig7.close_to(_closeness_runs({"AIFO": aifo, "PIFO": 0.008}, {}, ()), "PIFO")
    assert check is not None and check.verdict == verdict, check


def test_fig10_holds_on_the_authors_ratios_and_fails_on_a_queue_length_that_does_not_matter(monkeypatch):
    """The authors' own ratios (q_len 20 over 100: 0.58 at the lowest load, 0.42 at the highest) pass both of
    Figure 10's checks; a queue of 100 adding nothing (ratio 1) fails the first, with no experiment to explain it
    where the first-window runs did not run."""
    from pfabric.figures import aifo_fig10

    monkeypatch.setattr(_aifo, "small_mean_ms", lambda r: r.value)

    def done(ratios):
        out = []
        for load, ratio in zip((0.2, 0.8), ratios, strict=True):
            out.append(({"load": load, "scheme": "AIFO q_len=100"}, SimpleNamespace(value=1.0)))
            out.append(({"load": load, "scheme": "AIFO q_len=20"}, SimpleNamespace(value=ratio)))
        return out

    assert [c.verdict for c in aifo_fig10.FIGURE.checks(done((0.58, 0.42)))] == ["passed", "passed"]
    assert aifo_fig10.FIGURE.checks(done((1.0, 1.0)))[0].verdict == "failed"


def test_1g_closeness_runs_last_at_least_the_authors_second_of_arrivals():
    """Regression: at quick scale the 1G/4G runs at the authors' rates held 2,000 flows (0.1 s at 19,000/s), so
    our PIFO read 22% below theirs and the closeness experiment failed; they now run the authors' one second."""
    from pfabric.figures import aifo_fig7_1g

    for quick in (True, False):
        floor = _aifo.FLOWS_QUICK if quick else _aifo.FLOWS
        runs = [labels for labels, _ in aifo_fig7_1g.FIGURE.points(quick) if "arrival_rate_per_s" in labels]
        assert runs
        for labels in runs:
            rate = labels["arrival_rate_per_s"]
            assert labels["flows"] == max(floor, int(rate * _aifo.AUTHORS_WINDOW_S))
