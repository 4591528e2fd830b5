"""Showing and storing a preset's (or figure's) report: its table and its checks against the paper."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from .presets import Report
from .result import _atomic, _json_safe

__all__ = ["print_report", "write_report"]


def write_report(report: Report, out: Path) -> dict[str, Path]:
    """Write `table.csv` and `report.json` into `out`, each atomically; return their paths."""
    paths = {"table": out / "table.csv", "report": out / "report.json"}
    columns = list(dict.fromkeys(key for row in report.rows for key in row))

    def write_csv(tmp: Path) -> None:
        with tmp.open("w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=columns)
            writer.writeheader()
            writer.writerows(report.rows)

    document = _json_safe(
        {
            "title": report.title,
            "rows": report.rows,
            "checks": [c.document() for c in report.checks],
            "notes": report.notes,
            "all_checks_hold": report.passed,
        }
    )
    _atomic(paths["table"], write_csv)
    _atomic(
        paths["report"], lambda tmp: tmp.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    )
    return paths


def print_report(report: Report, paths: dict[str, Path]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    table = Table(title=report.title, title_justify="left")
    columns = list(dict.fromkeys(key for row in report.rows for key in row))
    for column in columns:
        table.add_column(column, justify="right")
    for row in report.rows:
        table.add_row(*(str(row.get(c, "")) for c in columns))
    console.print(table)
    checks = Table(title="checks against the paper", title_justify="left")
    for header in ("check", "ours", "paper", "verdict"):
        checks.add_column(header)
    for c in report.checks:
        style = None if c.passed else ("yellow" if c.settled else "red")
        checks.add_row(c.name, c.ours, c.paper, c.verdict, style=style)
    console.print(checks)
    held = sum(c.passed for c in report.checks)
    console.print(f"{held} of {len(report.checks)} checks hold", markup=False, highlight=False)
    for note in report.notes:
        console.print(note, markup=False, highlight=False)
    console.print("wrote " + ", ".join(str(p) for p in paths.values()), markup=False, highlight=False)
