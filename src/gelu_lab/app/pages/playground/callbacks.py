"""The playground page's callbacks (its layout: :mod:`.page`)."""

from __future__ import annotations

from dash import ClientsideFunction, Input, Output, State, callback, clientside_callback, no_update

from ... import content
from ...state import inputs
from .page import PARAMS
from .view import _title, config


clientside_callback(  # a new run in the script whenever the checked settings change (and when the page is drawn)
    ClientsideFunction("gelu_playground", "configure"),
    Output("playground-run", "data"),
    Input("playground-config", "data"),
    State("playground-words", "data"),
)


clientside_callback(  # "new weights": the next weight seed; the URL and the settings follow
    ClientsideFunction("gelu_playground", "reseed"),
    Output("playground-wseed", "value"),
    Input("playground-new", "n_clicks"),
    State("playground-wseed", "value"),
    State("playground-wseed-hi", "data"),
    prevent_initial_call=True,
)


@callback(
    Output("playground-config", "data"),
    Output("playground-msg", "children"),
    Output("playground-head-a", "children"),
    Output("playground-head-b", "children"),
    [Input(f"playground-{p.name}", "value") for p in PARAMS],
    State("lang", "data"),
    prevent_initial_call=True,
)
def _settings(*args):
    *raw, lang = args
    vals, msg = inputs(list(zip(PARAMS, raw)), lang)
    if vals is None:
        return no_update, msg, no_update, no_update
    lang = lang if lang in content.LANGS else content.DEFAULT_LANG
    t = content.text(lang, "playground")
    cfg, empty = config(dict(zip((p.name for p in PARAMS), vals)))
    msg = " ".join(m for m in (msg, t["msg.features"] if empty else "") if m)
    return cfg, msg, _title("A", cfg["act_a"], lang, t), _title("B", cfg["act_b"], lang, t)
