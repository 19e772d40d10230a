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
from .view import _entry, entries

PARAMS = []


def layout(state, lang):
    t = content.text(lang, "glossary")
    other = next(x for x in content.LANGS if x != lang)
    k = theory.key_points()
    values = {"min_x": sig(k["grad_root"]), "min": sig(k["gelu_min"])}
    items = [c for e in entries(lang) for c in _entry(e, lang, t, other, values)]
    return html.Div([html.H1(t["title"]), md(t["intro"]), section(html.Dl(items, className="glossary"))])
