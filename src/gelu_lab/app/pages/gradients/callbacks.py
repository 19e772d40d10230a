"""The gradients page's callbacks (its layout: :mod:`.page`)."""

from __future__ import annotations

from dash import Input, Output, State, callback, no_update

from ...state import inputs
from .page import DEPTH
from .view import _flow_ids, flow


@callback(
    Output("gradients-flow", "figure"),
    [Output(i, "children") for i in _flow_ids()],
    Output("gradients-msg", "children"),
    Input("gradients-depth", "value"),
    State("lang", "data"),
    prevent_initial_call=True,
)
def _flow(depth, lang):
    vals, msg = inputs([(DEPTH, depth)], lang)
    if vals is None:
        return (no_update,) * (1 + len(_flow_ids())) + (msg,)
    fig, out = flow(vals[0], lang)
    return (fig, *out, msg)
