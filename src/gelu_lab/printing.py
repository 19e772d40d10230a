"""Numbers as a reader sees them, one way for the app, the report and the CLI: ``fixed``,
``sig``, ``pct`` for a number on a page or in a table; ``emit`` for what a command prints
(text, json or csv).

Presentation lives above the library's layers: analysis/, nn/, stats/ and results/ return
numbers, and app/ (its pages' views) and commands/ turn them into text with this module
(tests/test_no_display_strings.py holds the line).
"""

from __future__ import annotations

import csv
import io
import json
import math

import numpy as np

from .results.files import plain as _plain


def to_json(obj) -> str:
    return json.dumps(_plain(obj), indent=2, ensure_ascii=False)


def fixed(v, digits: int = 4) -> str:
    """A computed number as the reader sees it: fixed decimals, no '-0.0000'."""
    s = f"{float(v):.{digits}f}"
    return s[1:] if s.startswith("-") and float(s) == 0 else s


def sig(v, digits: int = 4) -> str:
    """A computed number as text and tables show it: `digits` significant figures
    (trailing zeros kept; integers as they are, grouped by thousands); the full value is for app.components.full and the CSV."""
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return f"{int(v):,}"
    v = float(v)
    if not math.isfinite(v) or v == 0:
        return "0" if v == 0 else f"{v}"
    if 10**digits <= abs(v) < 1e7:  # 12,346 reads better than 1.235e+04
        return f"{v:,.0f}"
    s = f"{v:#.{digits}g}".rstrip(".").replace(".e", "e")  # '#': 1.000, not 1 (a table's column reads evenly)
    return s[1:] if s.startswith("-") and float(s) == 0 else s


def pct(v, digits: int = 1) -> str:
    """A share in [0, 1] as a percentage with `digits` decimals: 0.8413 -> '84.1%' (no space:
    Chinese typography writes 95%, and English may; one way for both languages)."""
    return f"{100 * float(v):.{digits}f}%"


def fmt_number(v, digits: int = 10) -> str:
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.{digits}g}"
    return str(v)


def text_table(rows: list[dict], columns: list[str], digits: int = 10) -> str:
    """Rows as an aligned plain-text table."""
    cells = [[fmt_number(r[c], digits) for c in columns] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) if cells else len(c) for i, c in enumerate(columns)]
    lines = ["  ".join(c.rjust(w) for c, w in zip(columns, widths))]
    lines += ["  ".join(v.rjust(w) for v, w in zip(row, widths)) for row in cells]
    return "\n".join(lines)


def csv_table(rows: list[dict], columns: list[str]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for r in rows:
        w.writerow([repr(float(r[c])) if isinstance(r[c], (float, np.floating)) else r[c] for c in columns])
    return buf.getvalue()


def emit(rows: list[dict], columns: list[str], fmt: str, meta: dict | None = None) -> str:
    """The text a command prints for `rows` in format text, json or csv."""
    if fmt == "json":
        return to_json({**(meta or {}), "columns": columns, "rows": rows})
    if fmt == "csv":
        return csv_table(rows, columns).rstrip("\n")
    return text_table(rows, columns)
