"""The Misconceptions page's view: a claim's check (gelu_lab.analysis.claims.checked) as its
card shows it: the verdict, the note and the source in words (:mod:`gelu_lab.app.claim_words`),
the evidence as a table of labelled numbers, and its drawing (analysis.claim_figures) with the
words put in, drawn by :mod:`gelu_lab.figures.misconceptions`.

    evidence(got, lang, t)      (verdict text, class, note, source, numbers, figure, how)
    figure(drawing, lang, t)    a drawing as a plotly figure, or None
    say(label, lang, t)         one label of a drawing in the reader's words
"""

from __future__ import annotations

import re

import numpy as np
from dash import html

from .... import activations
from ....analysis import claim_figures as D
from ....figures import misconceptions as figs
from ... import content
from ...claim_words import case, exact, value, words
from ...components import full, more, prose, scrolling, sig, static, values_table

NAMES = set(activations.names())


def say(label, lang: str, t: dict) -> str:
    """A drawing's label (analysis.claim_figures: Word, Name, Case, Num, Fill, Join, or plain text) as the reader reads it."""
    if isinstance(label, D.Word):
        return t[label.key] if label.default is None else t.get(label.key, label.default)
    if isinstance(label, D.Name):
        return content.label(label.activation, lang)
    if isinstance(label, D.Case):
        return case(label.pair, t)
    if isinstance(label, D.Num):
        return format(label.v, label.spec)
    if isinstance(label, D.Fill):
        return t[label.key].format(**{k: say(v, lang, t) for k, v in label.values})
    if isinstance(label, D.Join):
        return "".join(say(p, lang, t) for p in label.parts)
    return label if isinstance(label, str) else str(label)


def figure(drawing, lang: str, t: dict):
    """The plotly figure of a claim's drawing in `lang`; None for none."""
    if drawing is None:
        return None
    s = lambda label: say(label, lang, t)  # noqa: E731
    thr = (drawing.threshold[0], s(drawing.threshold[1])) if getattr(drawing, "threshold", None) else None
    if isinstance(drawing, D.Curves):
        return figs.curves_figure(drawing.x, [(s(n), y, c) for n, y, c in drawing.lines], {"title": s(drawing.title), "x": s(drawing.x_label), "y": s(drawing.y_label)},
                                  points=[(x, y, s(p)) for x, y, p in drawing.points], threshold=thr, log_x=drawing.log_x, log_y=drawing.log_y)
    if isinstance(drawing, D.Bars):
        extra = {"xaxis": {"automargin": True, "tickangle": 0}} if drawing.wrap else {}  # two-line bar labels: the axis makes room for them
        return figs.bars_figure([s(n) for n in drawing.names], list(drawing.values), {"title": s(drawing.title), "y": s(drawing.y_label)},
                                threshold=thr, color=drawing.color, **extra)
    if isinstance(drawing, D.Band):
        return figs.band_figure(drawing.x, drawing.mean, drawing.lo, drawing.hi, {"title": s(drawing.title), "x": s(drawing.x_label), "y": s(drawing.y_label)})
    if isinstance(drawing, D.Grouped):
        return figs.grouped_bars_figure([s(g) for g in drawing.groups], [(s(n), v, c) for n, v, c in drawing.series], s(drawing.title), thr)
    raise TypeError(f"not a drawing: {type(drawing).__name__}")


def _key(k, t: dict) -> str:
    """An evidence key as the reader reads it: its content label (num.<key>), a bench pair by its backend."""
    if " / " in str(k):
        return case(k, t)
    return t.get("num." + re.sub(r"[^\w.\-]", "_", str(k)), str(k))


def _cell(v, t: dict, lang: str):
    """An evidence value in the numbers table: a number to 4 figures with its full value on
    hover, an activation by its name, a list of rows as a small table of its own."""
    if v is None or isinstance(v, (bool, np.bool_)):
        return value(v, t, lang)
    if isinstance(v, str):
        return content.label(v, lang) if v in NAMES else t.get(f"str.{v}") or html.Code(v)  # a version, an argument: code
    if isinstance(v, (int, np.integer)):
        return sig(int(v))
    if isinstance(v, (float, np.floating)):  # exact in 4 figures (0.5, -4): as it is; else 4 figures, the rest on hover
        return exact(float(v)) or full(float(v))
    if isinstance(v, dict):
        return numbers({k: x for k, x in v.items() if k != "key"}, t, lang)  # a run's long store key says nothing to a reader
    items = list(v)
    if items and all(isinstance(x, dict) for x in items):
        cols = [k for k in items[0] if k != "key"]
        return values_table([_key(k, t) for k in cols], [html.Tr([html.Td(_cell(x.get(k), t, lang)) for k in cols]) for x in items])
    cells = [_cell(x, t, lang) for x in items[:8]]
    return [c for i, x in enumerate(cells) for c in ((", ", x) if i else (x,))] + ([" …"] if len(items) > 8 else [])


def numbers(figures: dict, t: dict, lang: str) -> html.Div:
    """The evidence as a table of labelled numbers (each row carries its key for the tests), in its own sideways-scrolling box."""
    rows = [html.Tr([html.Td(_key(k, t)), html.Td(_cell(v, t, lang))], **{"data-key": str(k)}) for k, v in figures.items()]
    return static(scrolling(html.Table(html.Tbody(rows), className="values")))


def evidence(got, lang: str, t: dict):
    """(verdict text, verdict class, note, source, numbers, figure, how) for one claims.checked() result."""
    res = got.result
    v, said = res["verdict"], words(res, lang)
    fig = figure(got.drawing, lang, t)
    if fig is None:
        fig = figs.placeholder_figure(t["fig.none." + ("untested" if v == "untested" else "numbers")])
    how = ""
    if res.get("how") and (v == "untested" or got.claim.reads):  # a measurement: how to make one here
        how = html.Div([html.Span(t["how" if v == "untested" else "how.measured"] + " "), html.Code(res["how"], className="how-cmd")])
    nums = more(t["numbers.more"], numbers(res["figures"], t, lang)) if res["figures"] else ""
    return t[f"verdict.{v}"], f"verdict-tag verdict-{v}", prose(said["note"]), said["source"], nums, fig, how  # a version or argument in `code`
