"""The overview page's view: its numbers (analysis/, nn/, results/) as the page shows them, the
texts filled with them and its figures; the layout is :mod:`.page`, the callbacks :mod:`.callbacks`."""

from __future__ import annotations

from dash import dcc, html

from .... import activations
from ....analysis import theory
from ....figures import curves
from ... import content, registry
from ...components import fmt
from ...state import href


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
