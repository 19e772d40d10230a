"""The playground page's view: its numbers (analysis/, nn/, results/) as the page shows them, the
texts filled with them and its figures; the layout is :mod:`.page`, the callbacks :mod:`.callbacks`."""

from __future__ import annotations

from dash import html

from .... import activations
from ....analysis import playground as pg
from ....figures import palette
from ... import content


CELLS = 40  # heatmap cells per side (playground.js G)
POINTS_PX = 300  # the data points' canvas


def config(values: dict) -> tuple[dict, bool]:
    """(the script's settings, whether no feature was chosen): {param name: value}, x1 and x2 when none is."""
    cfg = dict(values)
    empty = not cfg["features"]
    cfg["features"] = pg.feature_list(cfg["features"])
    return cfg, empty


def words(lang: str, t: dict) -> dict:
    """What the script writes and paints: its sentences (values marked %name), every activation's
    name and colour, the class colours."""
    keys = {"surface": "aria.surface", "units": "aria.units", "unit": "aria.unit", "none": "aria.none", "dead": "dead"}
    return {**{k: t[v] for k, v in keys.items()}, "series": [t["series.train"], t["series.test"]],
            "acts": {n: content.label(n, lang) for n in activations.names()},
            "colors": {"class0": palette.BLUE, "class1": palette.ORANGE, "neutral": palette.NEUTRAL, "paper": palette.PAPER,
                       "acts": dict(palette.COLORS)}}


def _title(which: str, act: str, lang: str, t: dict) -> str:
    return content.fill(t["net.title"], which=which, act=content.label(act, lang))


def _net(k: str, act: str, lang: str, t: dict):
    label = content.label(act, lang)
    return html.Div([
        html.H3(_title(k.upper(), act, lang, t), id=f"playground-head-{k}"),
        html.H4(t["surface.h"]),
        html.Div([html.Canvas(id=f"playground-surface-{k}", width=CELLS, height=CELLS, className="pg-surface"),
                  html.Canvas(id=f"playground-points-{k}", width=POINTS_PX, height=POINTS_PX, className="pg-points")],
                 id=f"playground-view-{k}", className="pg-view", role="img", **{"aria-label": content.fill(t["aria.start"], act=label)}),
        html.H4(t["units.h"]),
        html.Div(id=f"playground-units-{k}", className="pg-units", role="img", **{"aria-label": content.fill(t["aria.start"], act=label)}),
    ], className="pg-net")


def _readout(t: dict):
    cols = ("train", "test", "acc", "dead")
    rows = [html.Tr([html.Th(k.upper(), scope="row")] + [html.Td("—", id=f"playground-r-{c}-{k}") for c in cols]) for k in "ab"]
    return html.Div([
        html.P([html.Span(t["read.step"], className="readout-label"), " ", html.Span("0", id="playground-r-step", className="readout-value")]),
        html.Table([html.Thead(html.Tr([html.Th(t["read.net"])] + [html.Th(t[f"read.{c}"]) for c in cols])), html.Tbody(rows)], className="values"),
    ], id="playground-readout", className="pg-readout", **{"aria-live": "polite", "aria-atomic": "true"})


def _button(id: str, text: str, **kw):
    return html.Button(text, id=f"playground-{id}", n_clicks=0, type="button", **kw)
