"""Overview: what GELU is, a map of the pages (the route starts here), GELU and its neighbours on one chart, where GELU is used
(each architecture's default activation, read from the installed transformers: app.architecture_table)."""

from __future__ import annotations

from dash import dcc, html

from .... import activations
from ....figures import curves
from ... import architecture_table, content
from ...components import graph, md, message, number, section
from ...state import Param
from .view import ROW, _curves_figure, _page_map, values_table

SHOW = Param("show", ["gelu", "relu", "sigmoid"], choices=tuple(activations.names()), multi=True)
X = Param("x", 1.0, -10.0, 10.0)
PARAMS = [SHOW, X]


def layout(state, lang):
    t = content.text(lang, "overview")
    show = state["show"]
    return html.Div(
        [
            html.H1(t["title"]),
            md(t["intro"]),
            section(html.H2(t["map.h"]), md(t["map.text"]), _page_map(lang)),
            section(
                html.H2(t["chart.h"]),
                md(t["chart.text"]),
                html.Div(dcc.Checklist(
                    id="overview-show", options=[{"label": content.label(n, lang), "value": n} for n in activations.names()],
                    value=show, inline=True, className="checklist",
                ), **{"data-rows": ROW, "data-plot": "overview-curves"}),  # assets/compat/speed_ticks.js: a tick shows at once
                graph("overview-curves", _curves_figure(show, lang, t)),
                dcc.Store(id="overview-style", data=[activations.names(), curves.SHOWN, curves.HIDDEN]),  # for the clientside visible()
                html.Div([number("overview-x", X, state["x"], t["label.x"])], className="controls"),
                message("overview-msg"),
                html.Div(values_table(state["x"], show, lang, t), id="overview-values"),
            ),
            section(html.H2(t["used.h"]), md(t["used.text"]), architecture_table.table(lang)),
        ]
    )
