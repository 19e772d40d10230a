"""The interview page's callbacks (its layout: :mod:`.page`)."""

from __future__ import annotations

from dash import ALL, ClientsideFunction, Input, MATCH, Output, State, callback, clientside_callback, ctx, html

from .... import extras
from ....analysis import interview as iv
from ... import content
from .view import _t, result_table


clientside_callback(
    ClientsideFunction("gelu_quiz", "update"),
    Output({"type": "interview-answer", "q": ALL}, "style"),
    Output({"type": "interview-bar", "q": ALL}, "style"),
    Output({"type": "interview-knew", "q": ALL}, "disabled"),
    Output({"type": "interview-didnt", "q": ALL}, "disabled"),
    Output({"type": "interview-mark", "q": ALL}, "children"),
    Output("interview-score", "style"),
    Output("interview-knew-n", "children"),
    Output("interview-didnt-n", "children"),
    Output("interview-left-n", "children"),
    Input({"type": "interview-reveal", "q": ALL}, "n_clicks_timestamp"),
    Input({"type": "interview-knew", "q": ALL}, "n_clicks_timestamp"),
    Input({"type": "interview-didnt", "q": ALL}, "n_clicks_timestamp"),
    Input("interview-reset", "n_clicks_timestamp"),
    Input("interview-quiz", "value"),
    State("interview-quiz-words", "data"),
    prevent_initial_call=True,
)


@callback(
    Output({"type": "interview-result", "q": MATCH}, "children"),
    Input({"type": "interview-check", "q": MATCH}, "n_clicks"),
    State("lang", "data"),
    prevent_initial_call=True,
)
def _check(_n, lang):
    t = _t(lang if lang in content.LANGS else content.DEFAULT_LANG)
    try:
        return result_table(iv.check(ctx.triggered_id["q"]), t)
    except ModuleNotFoundError as e:  # a check that needs an extra this installation lacks (torch): say which
        if e.name is None or extras.extra_of(e.name) is None:
            raise
        return html.P(content.fill(t["check.missing"], module=e.name.split(".")[0], extra=extras.extra_of(e.name)), className="message")
