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


def _answer(x: int) -> int:
    if x < 0:
        raise ValueError(f"x: {x} is not allowed")
    return 2 * x


def test_a_background_call_hands_back_its_result_or_its_exception():
    # The theory part runs in a process of its own beside the papers' sweep (a forked worker would hang on a
    # lock a thread held at the fork).
    assert validate.Background(_answer, 21).result() == 42
    with pytest.raises(ValueError, match="x: -1 is not allowed"):
        validate.Background(_answer, -1).result()


def test_the_papers_part_runs_every_figure_once_then_checks_each(tmp_path):
    # Every figure's runs go in one sweep (a run two figures share runs once); the figures then read the store.
    from pfabric.store import Store

    told = []
    rows = validate.paper_checks(
        True,
        str(tmp_path / "store"),
        str(tmp_path / "out"),
        2,
        names=["pfabric-fig5a", "pfabric-fig6"],
        on_runs=lambda new, seconds: told.append(new),
    )
    stored = len(Store(tmp_path / "store"))
    assert told == [stored] and stored > 0
    assert {r.source for r in rows} == {"pfabric-fig5a", "pfabric-fig6"} and not validate.failed(rows)
    validate.paper_checks(
        True,
        str(tmp_path / "store"),
        str(tmp_path / "out"),
        2,
        names=["pfabric-fig6"],
        on_runs=lambda n, s: told.append(n),
    )
    assert told[-1] == 0


def _sleep(seconds: float) -> float:
    import time

    time.sleep(seconds)
    return seconds


def _ended(process) -> bool:
    """Whether `process` has ended: its exit code is known, or the system shows it gone or a zombie. (The pool's
    own thread may reap it first, and then this process's handle never learns its exit code.)"""
    if process.exitcode is not None:
        return True
    try:
        with open(f"/proc/{process.pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


def test_a_background_call_stops_at_once_when_asked():
    call = validate.Background(_sleep, 60.0)
    processes = list(call._pool._processes.values())  # the pool's own bookkeeping: what there is to end
    assert processes
    call.stop()
    for process in processes:
        process.join(10)
        assert _ended(process)  # ended, not left sleeping out its minute


class _Recording:
    """An executor that runs each call at once and counts them."""

    def __init__(self) -> None:
        self.calls = 0

    def submit(self, fn, *args):
        from concurrent.futures import Future

        self.calls += 1
        future: Future = Future()
        future.set_result(fn(*args))
        return future


def test_the_papers_part_runs_on_the_executor_given(tmp_path):
    executor = _Recording()
    rows = validate.paper_checks(
        True, str(tmp_path / "store"), str(tmp_path / "out"), None, names=["pfabric-fig5a"], executor=executor
    )
    assert executor.calls > 0 and rows and not validate.failed(rows)


def test_a_part_replaces_its_figures_rows_in_a_table_made_in_parts_and_the_totals_follow():
    table = """# Fidelity

Made in parts: 2 passed, 0 diverge with an explaining experiment, 0 failed.

| part | figure / topic | check | ours | reference | verdict |
| --- | --- | --- | --- | --- | --- |
| theory | queueing and invariants | lone flow | exact | exact | passed |
| papers | fig-a | old check | 1 | 1 | passed |

A note after the table.
"""
    part = validate.markdown(
        [
            validate.Row("papers", "fig-a", Check("new check", "2", "1", False)),
            validate.Row("papers", "fig-b", Check("another", "x", "y", False, explained="a sweep")),
        ],
        1.0,
        False,
        "pfabric validate",
    )
    merged = validate.merge_markdown(table, part)
    assert "old check" not in merged and "| papers | fig-a | new check | 2 | 1 | failed |" in merged
    assert merged.index("fig-a") < merged.index("fig-b") < merged.index("A note after the table.")
    assert "lone flow" in merged  # other parts' rows stay
    assert "Made in parts: 1 passed, 1 diverge with an explaining experiment, 1 failed." in merged
    assert validate.merge_markdown(merged, part) == merged  # merging the same part again changes nothing
