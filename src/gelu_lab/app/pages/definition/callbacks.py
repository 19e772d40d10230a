"""The definition page's callbacks (its layout: :mod:`.page`)."""

from __future__ import annotations

from dash import ALL, ClientsideFunction, Input, Output, State, callback, clientside_callback, no_update

from ...state import inputs
from .page import N, SEED, X
from .view import READOUTS, _t, bernoulli


clientside_callback(
    ClientsideFunction("gelu_lab", "preset"),
    Output("definition-x", "value"),
    Input({"type": "definition-preset", "value": ALL}, "n_clicks"),
    prevent_initial_call=True,
)


clientside_callback(  # moves the shaded area, markers and label in the drawn figure
    ClientsideFunction("gelu_lab", "definition_x"),
    [Output(r, "children") for r in READOUTS],
    Input("definition-x", "value"),
    Input("definition-x", "drag_value"),
    State("definition-table", "data"),
    prevent_initial_call=True,
)


@callback(
    Output("definition-bernoulli", "figure"),
    [Output(f"definition-b{k}", "children") for k in ("mean", "gelu", "gap", "drop", "dropexp")],
    Output("definition-msg", "children"),
    Input("definition-x", "value"),
    Input("definition-n", "value"),
    Input("definition-seed", "value"),
    State("lang", "data"),
    prevent_initial_call=True,
)
def _bernoulli(x, n, seed, lang):
    vals, msg = inputs([(X, x), (N, n), (SEED, seed)], lang)
    if vals is None:
        return (no_update,) * 6 + (msg,)
    fig, out = bernoulli(*vals, _t(lang))
    return (fig, *out, msg)
