"""The sigmoid page's callbacks (its layout: :mod:`.page`)."""

from __future__ import annotations

from dash import ALL, ClientsideFunction, Input, Output, State, clientside_callback

from .view import READOUTS


clientside_callback(
    ClientsideFunction("gelu_lab", "preset"),
    Output("sigmoid-beta", "value"),
    Input({"type": "sigmoid-preset", "value": ALL}, "n_clicks"),
    prevent_initial_call=True,
)


clientside_callback(  # moves the curve in the drawn figure
    ClientsideFunction("gelu_lab", "sigmoid_beta"),
    [Output(r, "children") for r in READOUTS],
    Input("sigmoid-beta", "value"),
    Input("sigmoid-beta", "drag_value"),
    State("sigmoid-table", "data"),
    prevent_initial_call=True,
)
