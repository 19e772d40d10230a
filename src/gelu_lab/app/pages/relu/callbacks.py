"""The relu page's callbacks (its layout: :mod:`.page`)."""

from __future__ import annotations

from dash import ClientsideFunction, Input, Output, State, callback, clientside_callback, no_update

from ... import content
from ...state import inputs
from .page import MU, SIGMA
from .view import READOUTS, dead


clientside_callback(  # moves the curve in the drawn figure
    ClientsideFunction("gelu_lab", "relu_s"),
    [Output(r, "children") for r in READOUTS],
    Input("relu-s", "value"),
    Input("relu-s", "drag_value"),
    State("relu-table", "data"),
    prevent_initial_call=True,
)


@callback(
    Output("relu-dead", "figure"),
    Output("relu-rdead", "children"),
    Output("relu-gdead", "children"),
    Output("relu-msg", "children"),
    Input("relu-mu", "value"),
    Input("relu-sigma", "value"),
    State("lang", "data"),
    prevent_initial_call=True,
)
def _dead(mu, sigma, lang):
    vals, msg = inputs([(MU, mu), (SIGMA, sigma)], lang)
    if vals is None:
        return no_update, no_update, no_update, msg
    fig, shares = dead(*vals, content.text(lang, "relu"))
    return fig, shares[0], shares[1], msg
