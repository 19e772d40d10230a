"""Overview: what GELU is, a map of the pages (the route starts here), GELU and its neighbours on one chart, where GELU is used
(each architecture's default activation, read from the installed transformers: app.architecture_table)."""

from __future__ import annotations

from dash import ClientsideFunction, Input, Output, State, callback, clientside_callback, dcc, html, no_update

from ... import activations
from ...analysis import theory
from ...figures import curves
from .. import architecture_table, content, registry
from ..components import fmt, graph, md, message, number, section
from ..state import Param, href, inputs

SHOW = Param("show", ["gelu", "relu", "sigmoid"], choices=tuple(activations.names()), multi=True)
X = Param("x", 1.0, -10.0, 10.0)
PARAMS = [SHOW, X]
ROW = "overview-row-"  # + activation name: a row of the values table


def _curves_figure(show, lang, t):
    # 201 points: smooth at this size (0 is on the grid, ReLU's kink stays sharp), and
    # every tick of a box redraws all ten curves
    x = theory.grid(-5.0, 5.0, 0.05)
    ys = {n: activations.get(n).fn(x) for n in activations.names()}
    return curves.activation_curves(x, ys, {n: content.label(n, lang) for n in ys}, "x", t["fig.y"], shown=show, yrange=[-1.5, 3.5])


def values_table(x: float, show, lang, t):
    """Value, slope and curvature of every activation at x, computed now; the rows of
    the unticked ones are hidden (a tick shows its row at once, with no server call)."""
    rows = []
    for n in activations.names():
        a = activations.get(n)
        rows.append(html.Tr([html.Td(content.label(a.name, lang)), html.Td(fmt(a.fn(x), 6)), html.Td(fmt(a.grad(x), 6)), html.Td(fmt(a.grad2(x), 6))],
                            id=f"{ROW}{n}", hidden=n not in show))
    head = html.Tr([html.Th(t["tab.name"]), html.Th("f(x)"), html.Th("f′(x)"), html.Th("f″(x)")])
    return html.Table([html.Thead(head), html.Tbody(rows)], className="values", id="overview-table")


def _page_map(lang):
    shell = content.text(lang, "shell")
    items = []
    for p in registry.PAGES:
        name = shell[f"nav.{p.slug}"]
        items.append(html.Div([html.B(dcc.Link(name, href=href(p.route, lang))), html.Br(), html.Span(shell[f"q.{p.slug}"])]))
    return html.Div(items, className="pagemap")


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


clientside_callback(
    ClientsideFunction("gelu_lab", "visible"),
    [Output("overview-curves", "figure"), *[Output(f"{ROW}{n}", "hidden") for n in activations.names()]],
    Input("overview-show", "value"),
    State("overview-curves", "figure"),
    State("overview-style", "data"),
    prevent_initial_call=True,
)


@callback(
    Output("overview-values", "children"),
    Output("overview-msg", "children"),
    Input("overview-x", "value"),
    State("overview-show", "value"),
    State("lang", "data"),
    prevent_initial_call=True,
)
def _values(x, show, lang):
    vals, msg = inputs([(X, x), (SHOW, show or [])], lang)
    if vals is None:
        return no_update, msg
    return values_table(vals[0], vals[1], lang, content.text(lang, "overview")), msg
