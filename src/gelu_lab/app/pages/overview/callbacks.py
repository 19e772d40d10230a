"""The overview page's callbacks (its layout: :mod:`.page`)."""

from __future__ import annotations

from dash import ClientsideFunction, Input, Output, State, callback, clientside_callback, no_update

from .... import activations
from ... import content
from ...state import inputs
from .page import SHOW, X
from .view import ROW, values_table


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
