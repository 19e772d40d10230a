"""Glossary: one term per concept, with what it means (content/<lang>/glossary.md).

Each entry shows its term, the other language's term beside it (marked with its language, so
a screen reader and the page-text checks know it), its definition and, on the Chinese page,
the other names the term goes by elsewhere, which the Chinese pages do not use
(tests/test_glossary.py holds them to that).
"""

from __future__ import annotations

from dash import html

from ....analysis import theory
from ....printing import sig
from ... import content
from ...components import md, section
from ...shell import HTML_LANG

PARAMS = []


def entries(lang: str) -> list[str]:
    """The glossary's entry ids, in the file's order."""
    return [k.split(".", 1)[1] for k in content.text(lang, "glossary") if k.startswith("term.")]


def variants(block: str) -> list[str]:
    """An avoid or allow block as its list of phrases (separated by 、)."""
    return [v.strip() for v in block.split("、") if v.strip()]


def _entry(e: str, lang: str, t: dict, other: str, values: dict):
    o = content.text(other, "glossary")
    left, right = ("（", "）") if lang == "zh" else (" (", ")")  # Chinese brackets on the Chinese page
    head = [html.Span(t[f"term.{e}"], className="term"), left, html.Span(o[f"term.{e}"], lang=HTML_LANG[other], className="muted"), right]
    body = [md(content.fill(t[f"def.{e}"], **values))]
    if f"avoid.{e}" in t:
        body.append(html.P([t["also"], " ", content.join(variants(t[f"avoid.{e}"]), lang)], className="muted"))
    return [html.Dt(head, id=f"glossary-{e}"), html.Dd(body)]


def layout(state, lang):
    t = content.text(lang, "glossary")
    other = next(x for x in content.LANGS if x != lang)
    k = theory.key_points()
    values = {"min_x": sig(k["grad_root"]), "min": sig(k["gelu_min"])}
    items = [c for e in entries(lang) for c in _entry(e, lang, t, other, values)]
    return html.Div([html.H1(t["title"]), md(t["intro"]), section(html.Dl(items, className="glossary"))])
