"""The `pfabric` command: `pfabric run SCENARIO.toml -o OUT`, `fields`, `thresholds`, and the experiment
commands `sweep`, `query`, `reproduce`, `report` (many runs through the results store, `store.py`).

Errors a user can fix (a bad scenario, a bad argument) print one line, `pfabric: error: <message>`, and exit
with status 2, never a traceback; Ctrl-C exits with 130. The field reference is generated from the
scenario models, so it cannot drift from what validation accepts.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

# numpy's BLAS starts a thread per core when numpy loads (`import numpy` took 0.22-0.33 s of CPU against
# 0.16-0.17 s with one thread, on this project's 2-core machine; more with more cores), and no command
# multiplies matrices large enough to use them. Set before anything loads numpy (the package's `__init__` loads nothing heavy); a value the user set
# stands, and worker processes inherit it.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from ._native import CoreUnavailable
from .errors import ScenarioError, SweepError

__all__ = ["main"]

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


class _UsageError(Exception):
    """A bad command line, reported like a bad scenario: one line, status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse would print the usage block and exit by itself
        raise _UsageError(f"{message} (see `{self.prog} --help`)")

    def format_help(self) -> str:
        # An epilog may be given as a function, made only when the help is shown: `run`'s lists every scenario
        # field, which loads the scenario models (numpy, pydantic) that other commands and a bad argument need not.
        if callable(self.epilog):
            self.epilog = self.epilog()
        return super().format_help()


def _fields_reference() -> str:
    from .describe import fields_text
    from .scenario import Scenario

    return fields_text(Scenario)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="pfabric",
        description="Packet-level simulator of pFabric and the datacenter transports it is compared with.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = commands.add_parser(
        "run",
        help="simulate one scenario file",
        description="Simulate one scenario; write flows.parquet, ports.parquet and summary.json to OUT.",
        epilog=_fields_reference,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument(
        "scenario", nargs="?", metavar="SCENARIO.toml", help="scenario file (see the fields below)"
    )
    run.add_argument("-o", "--out", required=True, metavar="OUT", help="output folder (created if needed)")
    run.add_argument("--seed", type=int, metavar="N", help="replace the scenario's seed")
    run.add_argument(
        "--threads",
        type=int,
        metavar="N",
        help="run the partitioned engine on N threads (0: every core; 1: the sequential engine), as run.threads "
        "does; any N gives the same results",
    )
    run.add_argument("-q", "--quiet", action="store_true", help="no progress bar and no summary table")
    run.add_argument(
        "--preset", metavar="NAME", help="run a preset experiment instead of a file (`pfabric presets`)"
    )
    run.add_argument("--quick", action="store_true", help="with --preset: the reduced version")
    run.add_argument(
        "-j", "--jobs", type=int, metavar="N", help="with --preset: worker processes (default: every core)"
    )
    run.set_defaults(handler=_run)

    demo = commands.add_parser(
        "demo",
        help="TCP against pFabric on the paper's fabric, small: tables, Parquet and plots",
        description="Web search at 60% load on the paper's 144-host leaf-spine, TCP-DropTail and pFabric on the "
        "same flows; then the seamless-switching preset (the paper's Figure 5a). Writes everything under OUT.",
    )
    demo.add_argument("-o", "--out", required=True, metavar="OUT", help="output folder (created if needed)")
    demo.add_argument("--flows", type=int, default=2000, metavar="N", help="flows per scheme (default 2000)")
    demo.set_defaults(handler=_demo)

    presets = commands.add_parser("presets", help="list the preset experiments")
    presets.set_defaults(handler=_presets)

    fields = commands.add_parser(
        "fields", help="list every scenario field with its type, default and meaning"
    )
    fields.set_defaults(handler=_fields)

    schemes = commands.add_parser(
        "schemes",
        help="the catalogue of hosts, switches and bundles, with parameters, defaults and papers",
        description="Every host transport and switch discipline the core runs, and the bundles that pair them "
        "as a paper did (`[scheme] name`); `host = ...` and `switch = ...` swap either part of a bundle.",
    )
    schemes.add_argument("--json", action="store_true", help="the catalogue as JSON, for tools")
    schemes.set_defaults(handler=_schemes)

    thresholds = commands.add_parser(
        "thresholds",
        help="size thresholds for a few strict-priority queues (the paper's section 6.1 model)",
        description="Optimal flow-size thresholds for N strict-priority queues under the pFabric paper's "
        "M/G/1 model (section 6.1, Figure 16), against the equal-split heuristic (Figure 17c). Flow sizes "
        "are rounded up to whole 1460-byte packets, as the simulator samples them.",
    )
    thresholds.add_argument(
        "--workload",
        default="websearch",
        metavar="CDF",
        help="a packaged CDF name or the path of a size_bytes,cdf CSV (default websearch)",
    )
    thresholds.add_argument(
        "--load", type=float, required=True, metavar="RHO", help="load of the link, in (0, 1)"
    )
    thresholds.add_argument(
        "--queues", type=int, default=2, metavar="N", help="number of priority queues, 2 to 16 (default 2)"
    )
    thresholds.add_argument(
        "--model",
        default="paper",
        metavar="MODEL",
        help="paper (default: the paper's approximation), preemptive or nonpreemptive (textbook M/G/1 "
        "priority queues)",
    )
    thresholds.set_defaults(handler=_thresholds)
    _add_experiment_commands(commands)
    return parser


def _add_experiment_commands(commands) -> None:
    """`sweep`, `query`, `reproduce`, `report`: many runs through the results store, and what they show."""
    sweep = commands.add_parser(
        "sweep",
        help="run a grid of scenarios into the results store",
        description="Run every point of a sweep file (a [base] scenario, a [grid] of dotted fields and seeds) "
        "into the store; points already stored are skipped, so an interrupted sweep resumes where it stopped.",
    )
    sweep.add_argument("spec", metavar="SWEEP.toml", help="sweep file: seeds = [...], [base], [grid]")
    _store_arguments(sweep, required=True)
    sweep.set_defaults(handler=_sweep)

    query = commands.add_parser(
        "query",
        help="SQL over the results store (DuckDB)",
        description="Run SQL over the store: view `runs` (one row per run: key, scheme, workload, load, "
        "flows, seed, every summary number, the scenario as JSON) and view `flows` (every flow of every run, "
        "with the run's key).",
    )
    query.add_argument("sql", metavar="SQL", help='e.g. "SELECT scheme, load, mean_normalized_fct FROM runs"')
    query.add_argument("--store", required=True, metavar="DIR", help="the results store")
    query.add_argument("--csv", action="store_true", help="print CSV instead of a table")
    query.set_defaults(handler=_query)

    reproduce = commands.add_parser(
        "reproduce",
        help="reproduce a figure of the pFabric or AIFO paper",
        description="Run a figure's sweep through the store, then write OUT/<figure>/: PNG and PDF plots, "
        "table.csv and checks.json (our values against the paper's). `--list` names every figure.",
    )
    reproduce.add_argument("figure", nargs="?", metavar="FIGURE", help="e.g. pfabric-fig7 (see --list)")
    reproduce.add_argument("--all", action="store_true", help="every figure, one after another")
    reproduce.add_argument(
        "--list", action="store_true", help="list the figures, what each shows, its schemes"
    )
    reproduce.add_argument("--quick", action="store_true", help="the reduced version (minutes on 2 cores)")
    _store_arguments(reproduce, required=False)
    reproduce.add_argument(
        "-o",
        "--out",
        default="results/figures",
        metavar="OUT",
        help="figures folder (default results/figures)",
    )
    reproduce.set_defaults(handler=_reproduce)

    validate = commands.add_parser(
        "validate",
        help="check this build against queueing theory and every paper figure: one table, exit 1 on a failure",
        description="Theory (a lone flow = its ideal FCT to the picosecond on several fabrics, Ideal = "
        "M/G/1-SRPT on one bottleneck, pFabric near SRPT, load calibration, invariants and determinism over "
        "every scheme), then every figure of `pfabric reproduce` with its checks against the papers. Each row: "
        "passed, diverges: explained (by an experiment the figure runs) or failed. The figures' runs go first, "
        "in one sweep on -j workers (or --dask), with the theory part in one more process beside them (with "
        "-j 1, in this process, first).",
    )
    validate.add_argument("--quick", action="store_true", help="quick figures (under 10 minutes on 2 cores)")
    validate.add_argument("--only", choices=("theory", "papers"), help="one part only")
    validate.add_argument(
        "--figures",
        metavar="NAMES",
        help="only these figures, comma-separated (e.g. pfabric-fig7,aifo-fig8; default: every figure)",
    )
    _store_arguments(validate, required=False)
    validate.add_argument(
        "-o",
        "--out",
        default="results/figures",
        metavar="OUT",
        help="figures folder (default results/figures)",
    )
    validate.add_argument("--write", metavar="MD", help="also write the table as Markdown (e.g. FIDELITY.md)")
    validate.add_argument(
        "--merge-into",
        metavar="MD",
        help="also put this run's rows into MD, a table made in parts (FIDELITY-paper.md): its rows of the same "
        "figures are replaced, new figures' rows added, its totals recounted",
    )
    validate.set_defaults(handler=_validate)

    report = commands.add_parser(
        "report",
        help="one HTML page with every figure made so far and its checks",
        description="Write a static HTML page with the plots under --figures and a table of every check: "
        "figure, check, ours, paper, holds.",
    )
    report.add_argument(
        "--figures", default="results/figures", metavar="DIR", help="figures folder (default results/figures)"
    )
    report.add_argument("-o", "--out", default="report.html", metavar="HTML", help="the page to write")
    report.add_argument(
        "--embed", action="store_true", help="embed the PNGs in the page (one self-contained file)"
    )
    report.set_defaults(handler=_report)


def _store_arguments(parser, required: bool) -> None:
    parser.add_argument(
        "--store",
        required=required,
        default=None if required else "results/store",
        metavar="DIR",
        help="the results store" + ("" if required else " (default results/store)"),
    )
    parser.add_argument("-j", "--jobs", type=int, metavar="N", help="worker processes (default: every core)")
    parser.add_argument("--dask", metavar="ADDR", help="run on a Dask cluster, e.g. tcp://HOST:8786")
    parser.add_argument("--force", action="store_true", help="rerun points already in the store")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bars")


def _executor(args: argparse.Namespace):
    """The Dask client for `--dask ADDR`, or None to run on local processes. Checks `--jobs` too."""
    if args.jobs is not None and args.jobs < 1:
        raise _UsageError(f"--jobs {args.jobs}: expected a number of processes >= 1")
    if args.dask is None:
        return None
    if args.jobs is not None:
        raise _UsageError("--jobs and --dask: give one (the cluster decides how many runs go at once)")
    try:
        from distributed import Client
    except ImportError:
        raise _UsageError("--dask needs dask.distributed: pip install 'dask[distributed]'") from None
    try:
        return Client(args.dask, timeout="10s")
    except (OSError, TimeoutError, ValueError) as exc:
        raise _UsageError(f"--dask {args.dask}: cannot connect ({exc})") from None


def _sweep(args: argparse.Namespace) -> int:
    from .store import Store
    from .sweep import SweepSpec, run_sweep

    spec = SweepSpec.from_toml(args.spec)
    points = spec.expand()
    store = Store(args.store)
    executor = _executor(args)
    try:
        results = run_sweep(
            points, store, jobs=args.jobs, executor=executor, force=args.force, progress=not args.quiet
        )
    finally:
        if executor is not None:
            executor.close()
    if not args.quiet:
        _print_sweep(points, results, store)
    return EXIT_OK


def _print_sweep(points, results, store) -> None:
    from rich.console import Console
    from rich.table import Table

    names = list(dict.fromkeys(name for labels, _ in points for name in labels))
    table = Table(title=f"{len(points)} runs in {store.root}", title_justify="left")
    for header in (*names, "mean nFCT", "small p99", "unfinished", "key"):
        table.add_column(header, justify="right")
    for (labels, scenario), result in zip(points, results, strict=True):
        summary = result.summary
        table.add_row(
            *(str(labels.get(n, "")) for n in names),
            _fmt(summary.get("mean_normalized_fct")),
            _fmt(summary.get("p99_normalized_fct_small")),
            str(summary.get("flows_unfinished", "")),
            store.key(scenario)[:12],
        )
    Console().print(table)


def _query(args: argparse.Namespace) -> int:
    from .store import Store

    store = Store(args.store)
    if not store.root.is_dir():
        raise _UsageError(f"--store {args.store}: no such folder")
    try:
        import duckdb
    except ImportError:
        raise _UsageError("pfabric query needs duckdb: pip install duckdb") from None
    con = store.connect()
    try:
        relation = con.sql(args.sql)
    except duckdb.Error as exc:
        raise _UsageError(f"query: {exc}") from None
    if relation is None:  # a statement without a result (CREATE, SET, ...)
        return EXIT_OK
    try:
        columns, rows = relation.columns, relation.fetchall()
    except duckdb.Error as exc:
        raise _UsageError(f"query: {exc}") from None
    if args.csv:
        import csv

        writer = csv.writer(sys.stdout)
        writer.writerow(columns)
        writer.writerows(rows)
        return EXIT_OK
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{len(rows)} rows", title_justify="left")
    for column in columns:
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*(_cell(v) for v in row))
    Console().print(table)
    return EXIT_OK


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def _reproduce(args: argparse.Namespace) -> int:
    from .figures import FIGURES, figure

    if args.list:
        if args.figure is not None:
            raise _UsageError("give a FIGURE or --list, not both")
        _print_figures(FIGURES)
        return EXIT_OK
    if args.all:
        if args.figure is not None:
            raise _UsageError("give a FIGURE or --all, not both")
        from .reproduce import run_figures

        # Every figure's runs first, in one sweep (longest first); each figure then finds its runs stored.
        executor = _executor(args)
        try:
            run_figures(
                list(FIGURES.values()),
                quick=args.quick,
                store=args.store,
                jobs=args.jobs,
                executor=executor,
                force=args.force,
                progress=not args.quiet,
            )
        finally:
            if executor is not None:
                executor.close()
        status = EXIT_OK
        args.force = False
        for name, fig in FIGURES.items():
            if fig.runnable:
                args.figure, args.all = name, False
                status = max(status, _reproduce(args))
        return status
    if args.figure is None:
        raise _UsageError("give a FIGURE or --all (see `pfabric reproduce --list`)")
    chosen = figure(args.figure)
    from .reproduce import FigureUnavailable, reproduce

    executor = _executor(args)
    try:
        with _output_dir(args.out) as out:
            made = reproduce(
                chosen,
                quick=args.quick,
                store=args.store,
                out=out,
                jobs=args.jobs,
                executor=executor,
                force=args.force,
                progress=not args.quiet,
            )
    except FigureUnavailable as exc:
        _fail(str(exc))
        return EXIT_FAILED
    finally:
        if executor is not None:
            executor.close()
    if not args.quiet:
        _print_reproduction(made)
    return EXIT_OK


def _validate(args: argparse.Namespace) -> int:
    import tempfile
    import time

    from rich.console import Console
    from rich.table import Table

    from . import validate
    from .sweep import default_jobs

    if args.jobs is not None and args.jobs < 1:
        raise _UsageError(f"--jobs {args.jobs}: expected a number of processes >= 1")
    names = _figure_names(args.figures)
    if args.only == "theory" and args.dask is not None:
        raise _UsageError(f"--dask {args.dask}: the theory part runs here; give --dask with the papers' part")
    # The papers' runs go to the cluster with --dask (the theory's stay here): connect before anything runs.
    executor = _executor(args)
    console = Console(stderr=True)
    started = time.perf_counter()
    theory = None
    workdir = tempfile.TemporaryDirectory(prefix="pfabric-validate-")
    try:
        if args.only != "papers":
            console.print("theory: lone flows, M/G/1-SRPT, load, invariants ...", markup=False)
            # The theory's runs are one long sequence: in a process beside the papers' sweep they fill the
            # cores its workers leave idle. With one job, one process: they run here first.
            if args.only == "theory" or (args.jobs or default_jobs()) == 1:
                theory = validate.Ready(validate.theory_checks(args.quick, workdir.name))
            else:
                theory = validate.Background(validate.theory_checks, args.quick, workdir.name)
        papers = []
        if args.only != "theory":
            with _output_dir(args.out) as out:
                papers = validate.paper_checks(
                    args.quick,
                    args.store,
                    str(out),
                    args.jobs,
                    names=names,
                    on_figure=lambda name, s: console.print(f"{name}: {s:.0f} s", markup=False),
                    on_runs=lambda n, s: console.print(f"papers: {n} new runs in {s:.0f} s", markup=False),
                    executor=executor,
                    force=args.force,
                )
        rows = (theory.result() if theory is not None else []) + papers
    except BaseException:
        if theory is not None:
            theory.stop()  # a Ctrl-C or a failure in the papers' part does not wait for the theory's
        raise
    finally:
        if executor is not None:
            executor.close()
        workdir.cleanup()
    seconds = time.perf_counter() - started
    table = Table(title=f"pfabric validate{' --quick' if args.quick else ''}", title_justify="left")
    for header in ("part", "figure / topic", "check", "ours", "reference", "verdict"):
        table.add_column(header, overflow="fold")
    for r in rows:
        c = r.check
        style = None if c.passed else ("yellow" if c.settled else "red")
        verdict = c.verdict + (f": {c.explained}" if c.explained else "")
        table.add_row(r.part, r.source, c.name, c.ours, c.paper, verdict, style=style)
    Console(width=max(160, Console().width)).print(table)
    bad = validate.failed(rows)
    print(f"{len(rows) - len(bad)} of {len(rows)} checks settled, {len(bad)} failed ({seconds / 60:.1f} min)")
    if args.write:
        command = (
            "pfabric validate"
            + (" --quick" if args.quick else "")
            + (f" --only {args.only}" if args.only else "")
            + (f" --figures {','.join(names)}" if names else "")
        )
        try:
            Path(args.write).write_text(
                validate.markdown(rows, seconds, args.quick, command), encoding="utf-8"
            )
        except OSError as exc:
            raise _UsageError(f"--write {args.write}: cannot write ({exc.strerror or exc})") from None
    if args.merge_into:
        try:
            table = Path(args.merge_into).read_text(encoding="utf-8")
            part = validate.markdown(rows, seconds, args.quick, "pfabric validate")
            Path(args.merge_into).write_text(validate.merge_markdown(table, part), encoding="utf-8")
        except OSError as exc:
            raise _UsageError(
                f"--merge-into {args.merge_into}: cannot update ({exc.strerror or exc})"
            ) from None
    return EXIT_FAILED if bad else EXIT_OK


def _figure_names(text: str | None) -> list[str] | None:
    """`--figures a,b`: the names, each a figure of `pfabric reproduce --list` (None: every figure)."""
    if text is None:
        return None
    from .figures import FIGURES

    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in FIGURES]
    if not names or unknown:
        shown = ", ".join(unknown) or repr(text)
        raise _UsageError(f"--figures {shown}: not a figure; expected names from: {', '.join(FIGURES)}")
    return names


def _print_figures(figures) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="figures (pfabric reproduce FIGURE [--quick])", title_justify="left", show_lines=True)
    for header in ("figure", "shows", "schemes", "missing"):
        table.add_column(header, overflow="fold")
    for name, fig in figures.items():
        missing = ", ".join(fig.missing()) or "-"
        if not fig.runnable:
            missing = f"{missing} (not runnable yet)"
        elif not fig.simulated:
            missing = "- (a model: no simulation)"
        table.add_row(name, f"{fig.title}: {fig.shows}", ", ".join(fig.schemes) or "-", missing)
    Console(width=max(120, Console().width)).print(table)


def _print_reproduction(made) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    figure = made.figure
    console.print(f"{figure.name}: {figure.title} ({made.runs} runs, {made.seconds:.1f} s)", markup=False)
    checks = Table(title="checks against the paper", title_justify="left")
    for header in ("check", "ours", "paper", "verdict"):
        checks.add_column(header, overflow="fold")
    for c in made.checks:
        style = None if c.passed else ("yellow" if c.settled else "red")
        checks.add_row(c.name, c.ours, c.paper, c.verdict, style=style)
        if c.explained:
            checks.add_row("", "", "", f"explained: {c.explained}", style=style)
    if made.checks:
        console.print(checks)
    for note in figure.notes:
        console.print(f"note: {note}", markup=False, highlight=False)
    files = [*made.plots, made.out_dir / "table.csv", made.out_dir / "checks.json"]
    console.print("wrote " + ", ".join(str(p) for p in files), markup=False, highlight=False)


def _report(args: argparse.Namespace) -> int:
    from .htmlreport import write_html_report

    figures, out = Path(args.figures), Path(args.out)
    try:
        if not figures.is_dir():
            raise _UsageError(f"--figures {args.figures}: no such folder (run `pfabric reproduce` first)")
        if out.is_dir():
            raise _UsageError(f"-o {args.out}: is a folder, expected the path of an HTML file")
        count = write_html_report(figures, out, embed=args.embed)
    except OSError as exc:
        # Name what the user gave: the page (write_html_report names it, never the temporary file it is
        # written through), or a plot under the figures folder that could not be read.
        if exc.filename == str(out):
            raise _UsageError(f"-o {args.out}: cannot write the page ({exc.strerror or exc})") from None
        raise _UsageError(f"--figures {args.figures}: cannot read {exc.filename} ({exc.strerror})") from None
    print(f"wrote {out} ({count} figures)")
    return EXIT_OK


def _fields(args: argparse.Namespace) -> int:
    print(_fields_reference())
    return EXIT_OK


def _schemes(args: argparse.Namespace) -> int:
    from ._native import scheme_catalogue
    from .describe import catalogue_text

    catalogue = scheme_catalogue()
    print(json.dumps(catalogue, indent=2) if args.json else catalogue_text(catalogue))
    return EXIT_OK


def _thresholds(args: argparse.Namespace) -> int:
    from .analysis import thresholds as model
    from .workloads import load_cdf

    if not 0 < args.load < 1:  # also refuses nan
        raise _UsageError(f"--load {args.load}: expected a load in (0, 1)")
    if not 2 <= args.queues <= 16:
        raise _UsageError(f"--queues {args.queues}: expected a number of queues from 2 to 16")
    if args.model not in model.MODELS:
        raise _UsageError(f"--model {args.model}: expected one of {', '.join(model.MODELS)}")
    cdf = load_cdf(args.workload, field="--workload")
    try:
        sizes = model.SizeDistribution.from_cdf(cdf)
    except ValueError as exc:
        raise _UsageError(f"--workload {args.workload}: {exc}") from None
    try:
        best, best_fct = model.optimal_thresholds(sizes, args.load, args.queues, model=args.model)
    except ModuleNotFoundError as exc:
        _fail(str(exc))
        return EXIT_FAILED
    split = model.equal_split_thresholds(sizes, args.queues)
    split_fct = model.fct_n(sizes, args.load, split, model=args.model)
    fifo_fct = model.mg1_fifo_fct_n(sizes, args.load)
    _print_thresholds(args, best, best_fct, split, split_fct, fifo_fct)
    return EXIT_OK


def _print_thresholds(args, best, best_fct: float, split, split_fct: float, fifo_fct: float) -> None:
    from rich.console import Console
    from rich.table import Table

    from .analysis.thresholds import MSS_BYTES

    console = Console()
    console.print(
        f"{args.workload}, load {args.load:g}, {args.queues} strict-priority queues, model {args.model} "
        f"(pFabric section 6.1; sizes rounded up to {MSS_BYTES}-byte packets)",
        markup=False,
        highlight=False,
    )
    console.print(
        "queue k (1 = highest priority) holds the flows of size in (t_k-1, t_k]",
        markup=False,
        highlight=False,
    )
    table = Table()
    for header in ("", "optimal bytes", "packets", "equal split bytes", "packets"):
        table.add_column(header, justify="left" if not header else "right")
    for k, (a, b) in enumerate(zip(best, split, strict=True), start=1):
        table.add_row(f"t{k}", f"{a:,.0f}", f"{a / MSS_BYTES:,.0f}", f"{b:,.0f}", f"{b / MSS_BYTES:,.0f}")
    console.print(table)
    console.print(
        f"FCT_n, the model's mean normalized FCT: optimal {best_fct:.4f}, equal split {split_fct:.4f} "
        f"({(split_fct / best_fct - 1) * 100:+.1f}%), one FIFO queue {fifo_fct:.4f}",
        markup=False,
        highlight=False,
    )


@contextlib.contextmanager
def _output_dir(out: str) -> Iterator[Path]:
    """The output folder, made up front so that a path that cannot be made fails before a long run, not
    after it; if the command then fails, the folders this made are removed again while still empty (a
    failed run leaves nothing behind)."""
    path = Path(out)
    try:
        if path.exists() and not path.is_dir():
            raise _UsageError(f"-o {out}: is a file, expected a folder")
        made = [p for p in (path, *path.parents) if not p.exists()]  # deepest first
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _UsageError(f"-o {out}: cannot create the folder ({exc.strerror or exc})") from None
    try:
        yield path
    except BaseException:
        for folder in made:
            try:
                folder.rmdir()  # only an empty folder goes
            except OSError:
                break
        raise


def _write_results(result, out: Path, given: str) -> dict[str, Path]:
    """`result.write(out)`, a failure named after the folder the user gave (not a temporary file in it)."""
    try:
        return result.write(out)
    except OSError as exc:
        raise _UsageError(f"-o {given}: cannot write the results ({exc.strerror or exc})") from None


def _demo(args: argparse.Namespace) -> int:
    if args.flows < 1:
        raise _UsageError(f"--flows {args.flows}: expected a number of flows >= 1")
    with _output_dir(args.out) as out:
        return _demo_into(args, out)


def _demo_into(args: argparse.Namespace, out: Path) -> int:
    from . import api
    from .plots import plot_fct_by_size, plot_throughput
    from .presets import PRESETS
    from .report import print_report, write_report
    from .scenario import Scenario

    results = {}
    for name in ("tcp", "pfabric"):
        scenario = Scenario.from_dict(
            {"workload": {"load": 0.6, "flows": args.flows}, "scheme": {"name": name}}
        )
        results[name] = api.run(scenario, progress=True)
        paths = results[name].write(out / name)
        _print_summary(_describe_run(scenario), results[name].summary, paths)
    plots = plot_fct_by_size(results, out / "fct_by_size", "web search, load 0.6, 144-host leaf-spine")
    seamless = PRESETS["seamless-switching"]
    (run,) = seamless.runs(True)
    switching = api.run(run.scenario)
    switching.write(out / "seamless-switching")
    report = seamless.report([(run, switching)])
    print_report(report, write_report(report, out / "seamless-switching"))
    plots += plot_throughput(
        switching, out / "seamless-switching" / "throughput", "pFabric: 5 flows of 20 MB"
    )
    print("plots: " + ", ".join(str(p) for p in plots))
    return EXIT_OK


def _presets(args: argparse.Namespace) -> int:
    from .presets import PRESETS

    for name, preset in PRESETS.items():
        print(f"{name:20} {preset.description}")
    return EXIT_OK


def _run(args: argparse.Namespace) -> int:
    from . import api
    from .scenario import Scenario

    if (args.scenario is None) == (args.preset is None):
        raise _UsageError("give a scenario file or --preset NAME, not both and not neither")
    if args.jobs is not None and args.jobs < 1:
        raise _UsageError(f"--jobs {args.jobs}: expected a number of processes >= 1")
    if args.preset is not None:
        return _run_preset(args)
    # What the command line sets is part of the scenario when it is checked (a file's run.partition needs
    # run.threads, which --threads may give).
    overrides: dict[str, int] = {}
    if args.seed is not None:
        overrides["seed"] = args.seed
    if args.threads is not None:
        overrides["run.threads"] = args.threads
    scenario = Scenario.from_toml(args.scenario, overrides)
    with _output_dir(args.out) as out:
        result = api.run(scenario, progress=not args.quiet)
        paths = _write_results(result, out, args.out)
    if not args.quiet:
        _print_summary(_describe_run(scenario), result.summary, paths)
    return EXIT_OK


def _run_preset(args: argparse.Namespace) -> int:
    from .presets import preset
    from .report import print_report, write_report
    from .sweep import run_all

    chosen = preset(args.preset)
    runs = chosen.runs(args.quick)
    if args.seed is not None:
        runs = [type(r)(r.labels, r.scenario.with_values({"seed": args.seed})) for r in runs]
    if args.threads is not None:
        runs = [type(r)(r.labels, r.scenario.with_values({"run.threads": args.threads})) for r in runs]
    from .progress import RunsBar

    with _output_dir(args.out) as out:
        with RunsBar(len(runs), enabled=not args.quiet) as bar:
            results = run_all(
                [r.scenario for r in runs], jobs=args.jobs, on_done=lambda i, result: bar.advance()
            )
        for run, result in zip(runs, results, strict=True):
            _write_results(result, out / _slug(run.labels), args.out)
        report = chosen.report(list(zip(runs, results, strict=True)))
        paths = write_report(report, out)
    if not args.quiet:
        print_report(report, paths)
    return EXIT_OK


def _slug(labels: dict) -> str:
    """A folder name for a run from its labels, e.g. `probe_mode=True,flows=5`; `run` with no labels."""
    return ",".join(f"{k}={v}" for k, v in labels.items()) or "run"


def _describe_run(scenario) -> str:
    """One line saying what ran, load included (DESIGN section 5: show the load in every output)."""
    topology, workload = scenario.topology, scenario.workload
    if workload.kind == "fan-in":
        if workload.sizes_bytes:
            size = "sizes " + ", ".join(f"{b} B" for b in workload.sizes_bytes)
        elif workload.flow_bytes:
            size = f"{workload.flow_bytes} B each"
        else:
            size = f"{workload.total_bytes} B in all"
        what = f"fan-in of {workload.sender_count} senders to host {workload.receiver}, {size}"
    elif workload.kind == "poisson":
        size = (
            f"{workload.flows} flows"
            if workload.flows is not None
            else f"{workload.duration_s} s of arrivals"
        )
        rate = (
            f"load {workload.load}"
            if workload.load is not None
            else f"{workload.arrival_rate_per_s:g} flows/s"
        )
        what = f"poisson {workload.cdf} at {rate}, {size}"
    else:
        what = f"trace {workload.path}"
    return f"{scenario.scheme.name} on {topology.kind} ({topology.hosts} hosts): {what}, seed {scenario.seed}"


def _fmt(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _print_summary(title: str, summary: dict, paths: dict[str, Path]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    console.print(title, markup=False, highlight=False)
    table = Table(title="normalized FCT by flow size (finished flows)", title_justify="left")
    for header in ("size", "flows", "finished", "unfinished", "mean", "p99", "mean FCT ms"):
        table.add_column(header, justify="left" if header == "size" else "right")
    for label, stats in summary["bins"].items():
        mean_fct_ms = None if stats["mean_fct_s"] is None else stats["mean_fct_s"] * 1e3
        table.add_row(
            label,
            str(stats["flows"]),
            str(stats["finished"]),
            str(stats["unfinished"]),
            _fmt(stats["mean_normalized_fct"]),
            _fmt(stats["p99_normalized_fct"]),
            _fmt(mean_fct_ms, 3),
        )
    console.print(table)
    console.print(
        f"all sizes: mean normalized FCT {_fmt(summary['mean_normalized_fct'])} over "
        f"{summary['flows_measured']} measured of {summary['flows_total']} flows "
        f"({summary['flows_left_out_warmup']} left out by warm-up, "
        f"{summary['flows_left_out_cooldown']} by cool-down)",
        markup=False,
        highlight=False,
    )
    for warning in summary["warnings"]:
        console.print(f"warning: {warning}", style="yellow", markup=False, highlight=False)
    console.print("wrote " + ", ".join(str(p) for p in paths.values()), markup=False, highlight=False)


def _fail(message: str) -> None:
    print(f"pfabric: error: {' '.join(str(message).split())}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `pfabric` command; returns the exit status."""
    try:
        args = _parser().parse_args(argv)
        return args.handler(args)
    except (ScenarioError, _UsageError) as exc:
        _fail(str(exc))
        return EXIT_USAGE
    except CoreUnavailable as exc:
        _fail(str(exc))
        return EXIT_FAILED
    except SweepError as exc:  # a run failed or a worker died; finished runs are stored
        _fail(str(exc))
        return EXIT_FAILED
    except OSError as exc:  # writing the outputs (BrokenPipeError is caught above)
        _fail(f"{exc.filename or ''}: {exc.strerror or exc}" if exc.filename else str(exc))
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("pfabric: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except RuntimeError as exc:  # the core's internal error (a bug), in one line; see pfabric-py's `guarded`
        if "internal error in the simulation core" not in str(exc):
            raise
        _fail(str(exc))
        return EXIT_FAILED
