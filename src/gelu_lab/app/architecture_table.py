"""The table "where GELU is used" of the Overview page (and so of the report): each well-known
architecture's default activation, read from the installed transformers' configuration classes
by :func:`gelu_lab.analysis.architectures.table`; the words are content/<lang>/overview.md."""

from __future__ import annotations

import re

from dash import html

from ..analysis import architectures
from . import content
from .components import full, md, values_table

COLS = ("arch", "read", "value", "form", "ffn", "gap")
GATED = {"gelu": "GEGLU", "gelu_tanh": "GEGLU", "silu": "SwiGLU", "relu": "ReGLU"}  # Shazeer 2020's names of the gated FFNs
LEFT = {"textAlign": "left"}


def table(lang: str) -> html.Div:
    t = content.text(lang, "overview")
    d = architectures.table()
    a, b = d["interval"]
    if d["transformers"] is None:
        return html.Div(md(t["arch.none"]), id="overview-arch")
    rows = []
    for r in d["rows"]:
        form = content.label(r["form"], lang)
        ffn = t["arch.ffn.unknown"] if r["gated"] is None else content.fill(t["arch.ffn.gated"], name=GATED.get(r["form"], "GLU")) if r["gated"] else t["arch.ffn.plain"]
        name = t.get("arch.name." + re.sub(r"\W+", "_", r["architecture"]).strip("_").lower(), r["architecture"])  # CLIP (text): a name with words has them in each language
        rows.append(html.Tr([html.Td(name, style=LEFT), html.Td(html.Code(f"{r['config']}().{r['attribute']}"), style=LEFT),
                             html.Td(html.Code(repr(r["value"])), style=LEFT), html.Td(form, style=LEFT), html.Td(ffn, style=LEFT),
                             html.Td(t["arch.gap.gated"] if r["gap"] is None else "0" if r["gap"] == 0 else full(r["gap"]))],
                            **{"data-arch": r["architecture"], "data-gated": str(r["gated"]).lower()}))
    head = [content.fill(t[f"arch.col.{c}"], a=f"{a:g}".replace("-", "−"), b=f"{b:g}") for c in COLS]
    return html.Div([md(content.fill(t["arch.text"], version=d["transformers"])),
                     html.Div(values_table(head, rows, head_style=LEFT, id="overview-arch-table"), className="wide"),
                     md(t["arch.after"])], id="overview-arch")
