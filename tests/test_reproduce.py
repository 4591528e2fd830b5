"""`pfabric reproduce` and `pfabric report` end to end, and the one-line errors of the experiment commands.

Two cheap figures run for real through the CLI (Figure 5a: one fan-in run; Figure 16: the threshold model,
no simulation), from the command to the PNG files and the HTML page that shows them.
"""

from __future__ import annotations

import json
import subprocess
from functools import partial
from pathlib import Path

import pytest
import run_cli
from pfabric.figures import FIGURES

pfabric = partial(run_cli.pfabric, timeout=300)  # running a figure takes longer than an error


def assert_one_line_error(result: subprocess.CompletedProcess, status: int, *expected: str) -> None:
    assert result.returncode == status, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("pfabric: error: ")
    for text in expected:
        assert text in lines[0]


def test_two_quick_figures_to_png_and_html(tmp_path, pfabric_env):
    pytest.importorskip("pfabric._core")
    store, out = tmp_path / "store", tmp_path / "figures"
    for name, pngs in (("pfabric-fig5a", {"throughput.png"}), ("pfabric-fig16", {"threshold_model.png"})):
        result = pfabric(
            pfabric_env, "reproduce", name, "--quick", "--store", str(store), "-o", str(out), "-j", "1"
        )
        assert result.returncode == 0, result.stderr
        folder = out / name
        assert pngs <= {p.name for p in folder.glob("*.png")}
        assert {p.with_suffix(".pdf").name for p in folder.glob("*.png")} <= {
            p.name for p in folder.glob("*.pdf")
        }
        checks = json.loads((folder / "checks.json").read_text())
        assert checks["figure"] == name and checks["quick"] is True and checks["checks"]
        assert all({"name", "ours", "paper", "passed"} <= set(c) for c in checks["checks"])
        assert (folder / "table.csv").read_text().count("\n") >= 2
    assert len(list((store / "runs").glob("*.parquet"))) >= 1  # Figure 5a's run is in the store

    page = tmp_path / "site" / "report.html"
    result = pfabric(pfabric_env, "report", "--figures", str(out), "-o", str(page))
    assert result.returncode == 0, result.stderr
    html = page.read_text()
    for png in ("../figures/pfabric-fig5a/throughput.png", "../figures/pfabric-fig16/threshold_model.png"):
        assert f'src="{png}"' in html and (page.parent / png).resolve().is_file()
    assert "last flow finishes within 0.3% of the best possible" in html  # a check of 5a, in the table
    assert "<th>ours</th><th>paper</th>" in html

    query = pfabric(
        pfabric_env, "query", "SELECT scheme, workload_kind FROM runs", "--store", str(store), "--csv"
    )
    assert query.returncode == 0, query.stderr
    assert query.stdout.splitlines() == ["scheme,workload_kind", "pfabric,fan-in"]


def test_list_names_every_figure_with_its_schemes(pfabric_env):
    result = pfabric(pfabric_env, "reproduce", "--list", timeout=60)
    assert result.returncode == 0, result.stderr
    for name in FIGURES:
        assert name in result.stdout
    # pFabric 5a, 5b, 6-14, 16, 17, AIFO 7-16 (7 also on data mining and 1G/4G), CS244, beyond-fct, pHost, Homa,
    # NDP
    assert len(FIGURES) == 30


def test_unknown_figure_is_a_one_line_error(pfabric_env):
    result = pfabric(pfabric_env, "reproduce", "pfabric-fig99", timeout=60)
    assert_one_line_error(result, 2, "'pfabric-fig99' is not a figure", "pfabric-fig7")


def test_a_figure_that_cannot_run_says_why(tmp_path):
    from pfabric.figures import Figure
    from pfabric.reproduce import FigureUnavailable, reproduce

    waiting = Figure("x-fig1", "X", "Figure 1", "nothing yet", runnable=False, notes=("needs a testbed",))
    with pytest.raises(FigureUnavailable, match="x-fig1 cannot be reproduced yet: needs a testbed"):
        reproduce(waiting, store=tmp_path / "store", out=tmp_path / "out")
    assert not (tmp_path / "out").exists()


BAD_SWEEPS = {
    "unknown field": ('[grid]\n"workload.lod" = [0.2]\n', "workload.lod: 0.2 is not allowed"),
    "empty grid": (
        '[grid]\n"workload.load" = []\n',
        "workload.load: [] is not allowed; expected a non-empty list",
    ),
    "bad value": ('[grid]\n"workload.load" = [0.5, 2.0]\n', "workload.load: 2.0 is not allowed"),
    "unknown section": (
        "[gird]\n",
        "gird: {} is not allowed; a sweep file has only seeds, [base] and [grid]",
    ),
    "bad base": ('[base.scheme]\nname = "bbr"\n', "scheme.name: 'bbr' is not allowed"),
}


@pytest.mark.parametrize("text, expected", BAD_SWEEPS.values(), ids=BAD_SWEEPS.keys())
def test_bad_sweep_spec_is_a_one_line_error(tmp_path, pfabric_env, text, expected):
    path = tmp_path / "sweep.toml"
    path.write_text(text)
    result = pfabric(pfabric_env, "sweep", str(path), "--store", str(tmp_path / "store"), timeout=60)
    assert_one_line_error(result, 2, expected)
    assert not Path(tmp_path / "store" / "runs").exists()  # nothing ran


def test_bad_query_is_a_one_line_error(tmp_path, pfabric_env):
    pytest.importorskip("duckdb")
    (tmp_path / "store").mkdir()
    result = pfabric(pfabric_env, "query", "SELEC 1", "--store", str(tmp_path / "store"), timeout=60)
    assert_one_line_error(result, 2, "query: Parser Error")


def test_validate_names_unknown_figures_in_one_line(pfabric_env):
    result = pfabric(pfabric_env, "validate", "--figures", "pfabric-fig7,pfabric-fig99", timeout=60)
    assert_one_line_error(result, 2, "--figures pfabric-fig99: not a figure", "pfabric-fig7")


def test_validate_of_some_figures_says_which_in_its_table(tmp_path, pfabric_env):
    md = tmp_path / "some.md"
    result = pfabric(
        pfabric_env,
        "validate",
        "--only",
        "papers",
        "--figures",
        "pfabric-fig16",
        "--quick",
        "-o",
        str(tmp_path / "figs"),
        "--store",
        str(tmp_path / "store"),
        "--write",
        str(md),
        "-q",
    )
    assert result.returncode == 0, result.stderr
    text = md.read_text()
    assert "`pfabric validate --quick --only papers --figures pfabric-fig16`" in text
    assert "| papers | pfabric-fig16 |" in text and "aifo-fig" not in text


def test_all_runs_every_figures_runs_in_one_sweep_then_draws_each(tmp_path, monkeypatch):
    # `reproduce --all` (here over two small figures) makes every run first, once, then each figure reads the
    # store: one line per figure, and a second --all makes no run.
    pytest.importorskip("pfabric._core")
    from pfabric import cli
    from pfabric.figures import FIGURES as ALL
    from pfabric.store import Store

    two = {name: ALL[name] for name in ("pfabric-fig5a", "pfabric-fig6")}
    monkeypatch.setattr("pfabric.figures.FIGURES", two)
    import pfabric.reproduce as module

    sweeps = []  # the runs each sweep found to make

    def counting(points, store, **kwargs):
        sweeps.append(sum(not store.has(s) for _, s in points))
        return original(points, store, **kwargs)

    original = module.run_sweep
    monkeypatch.setattr(module, "run_sweep", counting)
    args = [
        "reproduce",
        "--all",
        "--quick",
        "-q",
        "-j",
        "2",
        "--store",
        str(tmp_path / "s"),
        "-o",
        str(tmp_path / "o"),
    ]
    assert cli.main(args) == 0
    stored = len(Store(tmp_path / "s"))
    assert stored == len({Store(tmp_path / "s").key(s) for f in two.values() for _, s in f.points(True)})
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == sorted(two)
    # One sweep made them all; each figure's own found nothing left to run.
    assert sweeps[0] >= stored and sweeps[1:] == [0, 0]
    assert cli.main(args) == 0 and len(Store(tmp_path / "s")) == stored


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (("--dask", "tcp://127.0.0.1:9"), "--dask tcp://127.0.0.1:9: cannot connect"),
        (("--dask", "tcp://127.0.0.1:9", "-j", "2"), "--jobs and --dask: give one"),
    ],
)
def test_validate_refuses_a_cluster_it_cannot_use_before_running_anything(pfabric_env, extra, expected):
    # `validate --dask` was accepted and ignored (its runs went to local cores): it now runs the papers' runs
    # on the cluster, and one it cannot reach is refused at once, before the theory part starts.
    pytest.importorskip("distributed")
    result = pfabric(pfabric_env, "validate", "--quick", "--figures", "pfabric-fig5a", *extra, timeout=60)
    assert_one_line_error(result, 2, expected)


def test_validate_refuses_dask_for_the_theory_part_alone(pfabric_env):
    result = pfabric(pfabric_env, "validate", "--only", "theory", "--dask", "tcp://127.0.0.1:9", timeout=60)
    assert_one_line_error(result, 2, "--dask tcp://127.0.0.1:9: the theory part runs here")
