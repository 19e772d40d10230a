"""Python demo: the seed demo (plain `math`, its exact source and line notes), the
comparison table of `gelu-lab table`, live, with its code and a CSV, and the left tail
where the seed's 1 + erf(x/sqrt 2) cancels and gelu_lab does not.

The table is :func:`gelu_lab.analysis.demo_table.comparison_table` on the reader's x list and
dtype, the same rows the CLI prints (``--format json``), and the CSV download is
the CLI's ``--format csv`` output byte for byte. The x list is parsed by the
CLI's own :func:`gelu_lab.analysis.demo_table.parse_x_list` (never eval); the page only adds
its limits and says, in the reader's language, what it refused.
"""

from __future__ import annotations

import math

import numpy as np
from dash import dcc, html

from ....analysis import demo_table as T
from ....figures import demo as figs
from ....floats import FORMATS
from ....printing import emit
from ... import content
from ...components import full, graph, md, message, section, values_table
from . import view as parts
from ...custom_box import TextParam
from ...state import Param

MAX_VALUES = 100  # rows a page can show; `gelu-lab table` takes up to 10000
MAX_CHARS = 2000  # the longest x list a URL keeps (TextParam's cap)
DEFAULT_TEXT = ", ".join(f"{v:g}" for v in T.DEFAULT_X)
X = TextParam("x", DEFAULT_TEXT)
DTYPE = Param("dtype", "float64", choices=tuple(sorted(FORMATS, key=lambda n: -FORMATS[n].p)))
PARAMS = [X, DTYPE]


def _is_number(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return False
    return True


def read_x(text) -> tuple[list[float] | None, tuple[str, dict] | None]:
    """(x values, None), or (None, (message key, args)) saying why the text is refused.

    Accepted: what ``gelu-lab table --x`` accepts (numbers separated by commas or
    semicolons), at most MAX_VALUES of them and MAX_CHARS characters, each finite
    in float64. nan and inf are refused here: the table compares finite values.
    """
    text = str(text or "")
    items = [s.strip() for s in text.replace(";", ",").split(",") if s.strip()]
    if not items:
        return None, ("empty", {})
    if len(items) > MAX_VALUES:
        return None, ("too_many", {"n": len(items), "max": MAX_VALUES})
    if len(text) > MAX_CHARS:
        return None, ("too_long", {"n": len(text), "max": MAX_CHARS})
    try:
        xs = T.parse_x_list(text)
    except ValueError:
        return None, ("not_number", {"raw": next((s for s in items if not _is_number(s)), text)[:40]})
    for s, v in zip(items, xs):
        if math.isnan(v) or (math.isinf(v) and not any(c.isdigit() for c in s)):
            return None, ("non_finite", {"raw": s[:40]})
        if math.isinf(v):
            return None, ("overflow", {"raw": s[:40], "max": f"{np.finfo(np.float64).max:.4g}"})
    return xs, None


def _say(t: dict, note) -> str:
    key, args = note
    return content.fill(t[f"msg.{key}"], **{k: str(v) for k, v in args.items()})


def snippet(xs, dtype: str) -> str:
    """Python that prints this table (exactly what `gelu-lab table` prints)."""
    return (
        "from gelu_lab.printing import emit\n"
        "from gelu_lab.analysis.demo_table import COLUMNS, comparison_table\n\n"
        f"xs = {[float(v) for v in xs]!r}\n"
        f"rows = comparison_table(xs, dtype={dtype!r})\n"
        "print(emit(rows, COLUMNS, \"text\"))\n"
    )


def cli_line(xs, dtype: str, fmt: str = "text") -> str:
    return f"gelu-lab table --x=\"{','.join(repr(float(v)) for v in xs)}\" --dtype {dtype}" + ("" if fmt == "text" else f" --format {fmt}")


def csv_text(xs, dtype: str) -> str:
    """What `gelu-lab table --format csv` prints (emit's text plus print's newline)."""
    return emit(T.comparison_table(xs, dtype), T.COLUMNS, "csv") + "\n"


def _table(table_rows, t: dict) -> html.Table:
    # about 4 significant figures, the full value on hover (the CSV has every digit)
    body = [html.Tr([html.Td(full(r[c])) for c in T.COLUMNS]) for r in table_rows]
    return values_table([t[f"col.{c}"] for c in T.COLUMNS], body, id="demo-table-el")


def view(xs, dtype: str, t: dict):
    """(table, figure, snippet, cli line, note) for a valid x list."""
    rows = T.comparison_table(xs, dtype)
    labels = {"title": content.fill(t["fig.title"], dtype=dtype), "x": "x", "y": t["fig.y"], "err": t["fig.err"],
              **{c: t[f"col.{c}"] for c in (*figs.VALUES, *(c for c, _ in figs.ERRORS))}}
    # a finite x beyond the dtype's range is stored as inf: the table shows it, the page says why
    inf = [v for v, r in zip(xs, rows) if not math.isfinite(r["x"])]
    note = content.fill(t["msg.dtype_inf"], dtype=dtype, values=", ".join(f"{v:g}" for v in inf[:5])) if inf else ""
    return _table(rows, t), figs.table_figure(rows, labels), snippet(xs, dtype), cli_line(xs, dtype), note


def layout(state, lang):
    t = content.text(lang, "demo")
    xs, note = read_x(state["x"])
    msg = ""
    if xs is None:  # a refused list in the URL: say why, show the default table
        msg, xs = _say(t, note) + " " + t["msg.default"], list(T.DEFAULT_X)
    table, fig, code, cli, inf_note = view(xs, state["dtype"], t)
    return html.Div(
        [
            html.H1(t["title"]),
            md(t["intro"]),
            parts.seed_section(t),
            section(
                html.H2(t["table.h"]),
                md(content.fill(t["table.text"], max=str(MAX_VALUES), chars=str(MAX_CHARS), f16max=f"{float(np.finfo(np.float16).max):g}", **parts.sixteen_bit(lang))),
                html.Div(
                    [
                        html.Div([html.Label(t["label.x"], htmlFor="demo-x", className="control-label"),
                                  dcc.Input(id="demo-x", type="text", value=state["x"], debounce=True, className="text-box")], className="control"),
                        html.Div([html.Label(t["label.dtype"], htmlFor="demo-dtype", className="control-label"),
                                  dcc.Dropdown(id="demo-dtype", options=list(DTYPE.choices), value=state["dtype"], clearable=False)], className="control"),
                    ],
                    className="controls",
                ),
                message("demo-msg", " ".join(s for s in (msg, inf_note) if s)),
                html.Div(table, id="demo-table"),
                html.Button(t["csv.button"], id="demo-csv-go", n_clicks=0, className="run-button"),
                dcc.Download(id="demo-csv"),
                graph("demo-fig", fig),
            ),
            parts.tail_section(t),
            section(
                html.H2(t["code.h"]),
                md(t["code.text"]),
                parts.code_block("demo-snippet", code),
                md(t["code.cli"]),
                parts.code_block("demo-cli", cli),
                html.H3(t["source.h"]),
                md(t["source.text"]),
                *parts.sources(lang),
            ),
        ]
    )
