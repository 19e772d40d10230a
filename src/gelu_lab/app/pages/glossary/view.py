"""The glossary page's view: its numbers (analysis/, nn/, results/) as the page shows them, the
texts filled with them and its figures; the layout is :mod:`.page`, the callbacks :mod:`.callbacks`."""

from __future__ import annotations

from dash import html

from ... import content
from ...components import md
from ...shell import HTML_LANG


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
