"""The demo page's callbacks (its layout: :mod:`.page`)."""

from __future__ import annotations

from dash import Input, Output, State, callback, dcc, no_update

from ... import content
from ...state import inputs
from .page import DTYPE, _say, csv_text, read_x, view


@callback(
    Output("demo-table", "children"),
    Output("demo-fig", "figure"),
    Output("demo-snippet", "children"),
    Output("demo-cli", "children"),
    Output("demo-msg", "children"),
    Input("demo-x", "value"),
    Input("demo-dtype", "value"),
    State("lang", "data"),
    prevent_initial_call=True,
)
def _update(text, dtype, lang):
    vals, msg = inputs([(DTYPE, dtype)], lang)
    t = content.text(lang if lang in content.LANGS else content.DEFAULT_LANG, "demo")
    xs, note = read_x(text)
    if xs is None:  # refused: the table stays as it was, the message says why
        return (no_update,) * 4 + (_say(t, note),)
    table, fig, code, cli, inf_note = view(xs, vals[0], t)
    return table, fig, code, cli, " ".join(s for s in (msg, inf_note) if s)


@callback(
    Output("demo-csv", "data"),
    Output("demo-msg", "children", allow_duplicate=True),
    Input("demo-csv-go", "n_clicks"),
    State("demo-x", "value"),
    State("demo-dtype", "value"),
    State("lang", "data"),
    prevent_initial_call=True,
)
def _csv(n, text, dtype, lang):
    t = content.text(lang if lang in content.LANGS else content.DEFAULT_LANG, "demo")
    xs, note = read_x(text)
    if not n or xs is None or dtype not in DTYPE.choices:
        return no_update, (_say(t, note) if xs is None else no_update)
    return dcc.send_string(csv_text(xs, dtype), f"gelu-table-{dtype}.csv"), no_update
