"""`pfabric validate`: the theory half passes on this build, and the table's verdicts decide the exit status."""

from __future__ import annotations

import pytest

pytest.importorskip("pfabric._core")

from pfabric import validate
from pfabric.presets import Check


def test_every_theory_check_passes():
    rows = validate.theory_checks(quick=True)
    assert len(rows) == 10
    assert validate.failed(rows) == [], [(r.check.name, r.check.ours) for r in validate.failed(rows)]


def test_only_a_failed_row_fails_and_the_markdown_names_each_verdict():
    rows = [
        validate.Row("papers", "fig", Check("holds", "1", "1", True)),
        validate.Row(
            "papers", "fig", Check("explained", "2", "1", False, explained="a sweep shows 2 at 0.9")
        ),
        validate.Row("papers", "fig", Check("fails", "3", "1", False)),
    ]
    assert [r.check.name for r in validate.failed(rows)] == ["fails"]
    text = validate.markdown(rows, 60.0, True, "pfabric validate --quick")
    assert "1 passed, 1 diverge with an explaining experiment, 1 failed" in text
    assert "diverges: explained: a sweep shows 2 at 0.9" in text
