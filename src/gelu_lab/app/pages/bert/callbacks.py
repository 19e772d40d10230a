"""The bert page's callbacks (its layout: :mod:`.page`)."""

from __future__ import annotations

from dash import Input, Output, State, callback, no_update

from ....nn import probe_view as data
from ... import content
from .view import METRICS, _names, drift, sentence_view


@callback(Output("bert-drift", "figure"), Input("bert-metric", "value"), State("lang", "data"), prevent_initial_call=True)
def _drift(metric, lang):
    if metric not in METRICS:
        return no_update
    return drift(data.stored()["result"], metric, _names(lang), content.text(lang, "bert"))


@callback(
    Output("bert-sentence-out", "children"),
    Output("bert-msg", "children"),
    Input("bert-go", "n_clicks"),
    Input("bert-sentence", "n_submit"),
    State("bert-sentence", "value"),
    State("lang", "data"),
    prevent_initial_call=True,
)
def _sentence(_clicks, _submit, sentence, lang):
    children, msg = sentence_view(sentence, lang if lang in content.LANGS else content.DEFAULT_LANG)
    return (children if children is not None else no_update), msg
