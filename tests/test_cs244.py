"""The CS244 case (seed 002) runs beside the correct set-up and says which choice caused what."""

from __future__ import annotations

import pytest

pytest.importorskip("pfabric._core")

from pfabric.figures import FIGURES
from pfabric.figures.cs244 import HOSTS, band_thresholds, scenario


def test_their_rate_is_28_times_the_intended_one_and_overloads():
    intended = scenario("TCP-DropTail", 0.5, their_rate=False, quick=True)
    theirs = scenario("TCP-DropTail", 0.5, their_rate=True, quick=True)
    assert intended.workload.load == 0.5 and theirs.workload.load is None
    assert theirs.topology.hosts == HOSTS == 28 and theirs.topology.host_rate_gbps == 0.1


def test_sixteen_bands_with_linear_and_log_bins():
    linear, log = band_thresholds("linear"), band_thresholds("log")
    assert len(linear) == len(log) == 15
    assert log[0] < linear[0]  # log bins resolve small flows finely


def test_quick_figure_checks_hold(tmp_path):
    figure = FIGURES["cs244"]
    from pfabric.sweep import run_all

    points = [p for p in figure.points(True) if p[0]["load"] == 0.5]
    results = run_all([s for _, s in points], jobs=2)
    done = [(labels, r) for (labels, _), r in zip(points, results, strict=True)]
    checks = figure.checks(done)
    assert checks and all(c.settled for c in checks), checks
    assert figure.plot(done, tmp_path)


def _prio_run(mean, small, offered):
    from types import SimpleNamespace

    summary = {"mean_normalized_fct": mean, "bins": {"(0,100KB]": {"mean_normalized_fct": small}}}
    return SimpleNamespace(summary=summary, stats={"target_load": offered})


def _binning_done(cells):
    """cells: (rate, load, (log mean, log small), (linear mean, linear small), offered load)."""
    done = []
    for rate, load, log, lin, offered in cells:
        for variant, (mean, small) in (("PRIO-log", log), ("PRIO-linear", lin)):
            labels = {"workload": "web search", "variant": variant, "rate": rate, "load": load}
            done.append((labels, _prio_run(mean, small, offered)))
    return done


def test_log_bands_worse_only_in_an_overload_for_longer_flows_is_explained_else_failed():
    """Paper scale showed log bands' mean 4% above linear's at their rate's lowest load (offered 2.8), with
    their small flows 4x faster, and below everywhere else: explained by the overload. A worse mean without
    an overload, or worse small flows, is not."""
    from pfabric.figures.cs244 import _binning_check

    base = [
        ("intended", 0.1, (1.22, 1.3), (1.28, 1.4), 0.1),
        ("theirs (28x)", 0.2, (69.6, 1.6), (130.5, 39.5), 5.6),
    ]
    (check,) = _binning_check(_binning_done([*base, ("theirs (28x)", 0.1, (47.5, 1.5), (45.5, 5.9), 2.8)]))
    assert not check.passed and check.explained and "offered 2.8" in check.explained
    (check,) = _binning_check(_binning_done([*base, ("intended", 0.2, (1.5, 1.3), (1.4, 1.4), 0.2)]))
    assert not check.passed and check.explained is None  # worse without an overload
    (check,) = _binning_check(_binning_done([*base, ("theirs (28x)", 0.1, (47.5, 6.0), (45.5, 5.9), 2.8)]))
    assert not check.passed and check.explained is None  # its small flows worse too
    (check,) = _binning_check(_binning_done(base))
    assert check.explained and "at every load" in check.explained
