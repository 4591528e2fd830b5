"""One static HTML page over every figure reproduced so far: the plots, and a table of every check.

Why static: the page must open from a laptop, a CI artifact or a mail attachment, with no server and no
JavaScript. It reads what `reproduce` wrote (`<figures>/<figure>/checks.json` and the PNGs beside it) and
links the PNGs by relative path (or embeds them with `embed=True`, for one self-contained file).
"""

from __future__ import annotations

import base64
import html
import json
import os
from datetime import UTC, datetime
from pathlib import Path

__all__ = ["collect", "render", "write_html_report"]

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; } td.no { color: #b00; font-weight: bold; } td.yes { color: #070; } td.explained { color: #a60; }
img { max-width: 100%; border: 1px solid #eee; margin: 0.5em 0; }
.note { color: #555; font-size: 0.9em; margin: 0.2em 0; }
"""


def collect(figures_dir: Path) -> list[tuple[Path, dict]]:
    """(folder, checks.json document) of every reproduced figure under `figures_dir`, in the papers' order
    (the registry's), figures it does not know last by name."""
    from .figures import FIGURES

    order = {name: i for i, name in enumerate(FIGURES)}
    found = []
    for path in Path(figures_dir).glob("*/checks.json"):
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):  # ValueError: not JSON, or not UTF-8
            continue  # a figure folder being written right now, or damaged: leave it out
        if isinstance(doc, dict):  # anything else is no checks.json that `reproduce` wrote
            found.append((path.parent, doc))
    return sorted(found, key=lambda item: (order.get(item[0].name, len(order)), item[0].name))


def _image(png: Path, page_dir: Path, embed: bool) -> str:
    if embed:
        data = base64.b64encode(png.read_bytes()).decode()
        src = f"data:image/png;base64,{data}"
    else:
        src = Path(os.path.relpath(png.resolve(), page_dir.resolve())).as_posix()
    return f'<img src="{html.escape(src)}" alt="{html.escape(png.stem)}">'


def render(figures: list[tuple[Path, dict]], page_dir: Path, embed: bool = False) -> str:
    """The page: a summary table of every check, then one section per figure with its plots and notes."""
    e = html.escape
    rows = []
    for _, doc in figures:
        for check in doc.get("checks", []):
            holds = bool(check.get("passed"))
            verdict = check.get("verdict") or ("passed" if holds else "failed")
            explained = check.get("explained")
            cell = e(verdict) + (f"<br><small>{e(explained)}</small>" if explained else "")
            rows.append(
                f"<tr><td>{e(doc.get('figure', ''))}</td><td>{e(check.get('name', ''))}</td>"
                f"<td>{e(str(check.get('ours', '')))}</td><td>{e(str(check.get('paper', '')))}</td>"
                f'<td class="{"yes" if holds else ("explained" if explained else "no")}">{cell}</td></tr>'
            )
    held = sum(1 for _, doc in figures for c in doc.get("checks", []) if c.get("passed"))
    explained = sum(
        1 for _, doc in figures for c in doc.get("checks", []) if not c.get("passed") and c.get("explained")
    )
    total = sum(len(doc.get("checks", [])) for _, doc in figures)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8"><title>pfabric: reproduced figures</title>',
        f"<style>{_STYLE}</style></head><body>",
        "<h1>pfabric: reproduced figures</h1>",
        (
            f'<p class="note">{len(figures)} figures, {held} of {total} checks hold, {explained} diverge '
            "with the divergence explained by an experiment. Written "
            f"{datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}.</p>"
        ),
        "<h2>Checks against the papers</h2>",
        "<table><tr><th>figure</th><th>check</th><th>ours</th><th>paper</th><th>verdict</th></tr>",
        *rows,
        "</table>",
    ]
    for folder, doc in figures:
        name = doc.get("figure", folder.name)
        scale = "quick" if doc.get("quick") else "paper scale"
        parts.append(f'<h2 id="{e(name)}">{e(name)}: {e(doc.get("title", ""))}</h2>')
        parts.append(f'<p class="note">{e(doc.get("shows", ""))}</p>')
        parts.append(
            f'<p class="note">{scale}; {doc.get("runs", 0)} runs; {doc.get("seconds", 0)} s. '
            f"Schemes: {e(', '.join(doc.get('schemes', [])) or '-')}; "
            f"missing: {e(', '.join(doc.get('missing_schemes', [])) or 'none')}.</p>"
        )
        for note in doc.get("notes", []):
            parts.append(f'<p class="note">{e(note)}</p>')
        for png in sorted(folder.glob("*.png")):
            parts.append(_image(png, page_dir, embed))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def write_html_report(figures_dir: str | Path, out: str | Path, embed: bool = False) -> int:
    """Write the page to `out` (atomically); return how many figures it shows.

    An OSError writing the page names `out` (never the temporary file it goes through); one reading a plot
    to embed names the plot.
    """
    out = Path(out)
    figures = collect(Path(figures_dir))
    text = render(figures, out.parent, embed)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        try:
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, out)
        finally:
            tmp.unlink(missing_ok=True)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(out)) from None
    return len(figures)
