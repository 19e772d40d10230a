"""The measured table "which framework computes GELU right", as the Implementation page, the
Misconceptions page and the report show it (one function: :func:`table`).

The rows are :func:`gelu_lab.analysis.frameworks.accuracy_rows` (the reader's runs store, else
the set shipped with gelu_lab); the words are content/<lang>/frameworks.md. Numbers show four
significant figures, the full value on hover (components.full).
"""

from __future__ import annotations

from dash import html

from ..analysis import frameworks
from ..printing import sig
from ..results.store import FRAMEWORKS
from . import content
from .components import full, md, superscript, values_table

COLS = ("framework", "call", "form", "default", "dtype", "n", "wrong", "max", "at", "zeros", "nonfinite")
LEFT = {"textAlign": "left"}


def _inputs(row, t):
    """65,536 (all); 2³² (all); a sample: its size and the word for it."""
    n = row["n"]
    k = n.bit_length() - 1
    shown = "2" + superscript(k) if n == 1 << k and k > 20 else full(n) if n >= 10**7 else sig(n)
    return [shown, " ", t["mode." + row["mode"]]]


def _default(row, t):
    if row["impl"] in frameworks.ONLY_FORM:
        return t["default.only"]
    return t["default.unknown"] if row["default"] is None else t["default.yes" if row["default"] else "default.no"]


def _share(frac: float):
    return "0" if frac == 0 else [full(100 * frac), "%"]


def _cells(row, t, lang):
    name = row["framework"] if not row.get("version") else [row["framework"] + " ", html.Code(row["version"])]
    head = [html.Td(name, style=LEFT), html.Td(html.Code(row["call"]), style=LEFT), html.Td(content.label(row["form"], lang), style=LEFT),
            html.Td(_default(row, t), style=LEFT), html.Td(row["dtype"])]
    zeros = f"{sig(row['zero_sign'])} / {sig(row['flush'])}"
    nonfinite = sig(row["nonfinite"]) if not row["nonfinite"] else [sig(row["nonfinite"]), " (x = ", full(row["nonfinite_x"]), ")"]
    return head + [html.Td(_inputs(row, t)), html.Td(_share(row["frac_wrong"])), html.Td(full(row["max_ulp"])),
                   html.Td(full(row["worst_x"]) if row["worst_x"] is not None else "—"), html.Td(zeros), html.Td(nonfinite)]


def provenance(rows: list[dict], t: dict) -> str:
    """One sentence: the CPU, dates, framework versions, source and reproducing command of the measured rows."""
    provs = [r["provenance"] for r in rows]
    dates = sorted({str(p.get("date", "?"))[:10] for p in provs})
    versions = {}
    for p in provs:
        for k in ("numpy", "scipy", *FRAMEWORKS):
            if k in p:
                versions[k] = p[k]
    sources = {r["source"] for r in rows}
    commands = [c for c in dict.fromkeys(p.get("command", "") for p in provs if "float32" in p.get("command", "")) if c]
    command = "`python bench/ship_frameworks.py`" + "".join(f" · `{c}`" for c in commands[-1:])
    return content.fill(t["source"], cpu=str(provs[0].get("processor", "?")), cpus=str(provs[0].get("cpus", "?")),
                        dates=" – ".join(dict.fromkeys([dates[0], dates[-1]])), source=t["source." + (sources.pop() if len(sources) == 1 else "both")],
                        versions=", ".join(f"`{k} {v}`" for k, v in versions.items()), command=command)


def table(lang: str, store=None, id: str = "frameworks-table") -> html.Div:
    """The heading's text, the table of the measured rows, their provenance, and what is not measured."""
    t = content.text(lang, "frameworks")
    rows = frameworks.accuracy_rows(store)
    done = [r for r in rows if r["measured"]]
    missing = list(dict.fromkeys(f"`{r['impl']}` {r['dtype']}" for r in rows if not r["measured"]))
    if not done:
        return html.Div([md(t["text"]), md(t["none"])], id=id)
    body = [html.Tr(_cells(r, t, lang), **{"data-impl": r["impl"], "data-dtype": r["dtype"]}) for r in done]
    parts = [md(t["text"]), html.Div(values_table([t[f"col.{c}"] for c in COLS], body, head_style=LEFT), className="wide"),
             html.Div(md(provenance(done, t)), className="muted")]
    if missing:
        parts.append(html.Div(md(content.fill(t["missing"], impls=", ".join(missing))), className="muted"))
    return html.Div(parts, id=id)
