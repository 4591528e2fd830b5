"""The pHost figure's checks on made-up results: the 4% claim, and what a failing check shows beside it."""

from types import SimpleNamespace

from pfabric.figures import phost


def _run(mean: float) -> SimpleNamespace:
    return SimpleNamespace(summary={"mean_normalized_fct": mean})


def _done(
    gaps: dict[float, float], third_level: float | None = None, authors_rules: float | None = None
) -> list:
    done = []
    for load, over in gaps.items():
        done.append(({"workload": "web search", "load": load, "scheme": "pFabric"}, _run(1.0)))
        done.append(({"workload": "web search", "load": load, "scheme": "pHost"}, _run(1.0 + over)))
    if third_level is not None:
        labels = {"workload": "web search", "load": phost.CLAIM_LOAD, "scheme": phost.THIRD_LEVEL}
        done.append((labels, _run(1.0 + third_level)))
    if authors_rules is not None:
        labels = {"workload": "web search", "load": phost.CLAIM_LOAD, "scheme": phost.AUTHORS_RULES}
        done.append((labels, _run(1.0 + authors_rules)))
    return done


def test_within_four_percent_passes_and_shows_nothing_beside():
    (check,) = phost.within_pfabric(_done({0.2: 0.01, 0.6: 0.039}, third_level=0.02))
    assert check.passed and "by load" not in check.ours


def test_a_failing_check_shows_the_gap_by_load_and_the_third_level_and_stays_failed():
    (check,) = phost.within_pfabric(_done({0.2: 0.05, 0.6: 0.087, 0.8: 0.103}, third_level=0.066))
    assert not check.passed and check.explained is None
    assert "by load: 0.2 +5.0%, 0.6 +8.7%, 0.8 +10.3%" in check.ours
    assert "a level first: +6.6%" in check.ours


def test_a_failing_check_is_explained_only_where_the_authors_rules_are_at_least_as_far_from_pfabric():
    (check,) = phost.within_pfabric(_done({0.6: 0.132}, third_level=0.10, authors_rules=0.375))
    assert not check.passed and check.explained
    assert "+37.5% over pFabric, against +13.2% for ours" in check.explained
    (check,) = phost.within_pfabric(_done({0.6: 0.132}, authors_rules=0.10))
    assert not check.passed and check.explained is None


def test_a_passing_check_needs_no_explanation():
    (check,) = phost.within_pfabric(_done({0.6: 0.03}, authors_rules=0.375))
    assert check.passed and check.explained is None


def test_the_authors_rules_run_at_the_claims_load_on_both_workloads():
    runs = [labels for labels, _ in phost.points(quick=True) if labels.get("scheme") == phost.AUTHORS_RULES]
    assert sorted(labels["workload"] for labels in runs) == sorted(phost.WORKLOADS)
    assert all(labels["load"] == phost.CLAIM_LOAD for labels in runs)
