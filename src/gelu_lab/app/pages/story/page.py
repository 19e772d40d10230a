"""Why BERT uses GELU: the story in order, each step ending in links to the pages that check it.

Every number a step quotes is computed here from the library, the runs store (else the
shipped experiment) and the stored BERT probe; the papers' own figures are cited as theirs.
"""

from __future__ import annotations

from dash import html

from ....nn import probe_view
from ... import content, swap_view
from ...components import md, section
from .view import STEPS, _checks, _decision, _folklore, _shape_figure, _trend_figure, numbers

LIVE = True  # quotes the newest experiment and probe in the reader's store
PARAMS = []


def layout(state, lang):
    t, shell = content.text(lang, "story"), content.text(lang, "shell")
    d = _decision()
    v = numbers(lang, t, d)
    shown = {"shape": _shape_figure(t, lang), "small": _trend_figure(t, d), "folklore": _folklore(lang, t),  # below a step's text
             "bert": swap_view.figure(probe_view.stored()["result"], lang, t, "story-damage")}
    body = [html.H1(t["title"]), md(t["intro"])]
    for i, (step, slugs) in enumerate(STEPS, 1):
        parts = [html.H2(f"{i}. {t[step + '.h']}", id=f"story-{step}"), md(content.fill(t[step + ".text"], **v)), shown.get(step)]
        body.append(section(*parts, _checks(slugs, lang, t, shell)))
    body.append(html.Section([html.H2(t["which.h"], id="story-which"), md(content.fill(t["which.text"], **v))], className="card which"))
    return html.Div(body)
