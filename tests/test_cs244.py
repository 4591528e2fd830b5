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
