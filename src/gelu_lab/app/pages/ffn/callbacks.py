"""The ffn page's callbacks (its layout: :mod:`.page`)."""

from __future__ import annotations

from dash import Input, Output, State, callback, no_update

from ....nn import ffn_view as data
from ... import content, job_box
from ...components import prose
from ...state import inputs
from .block import ACT, READOUTS, SIGMA, live
from .page import FIGS, RUN, RUN_DEFAULT, group_options, results, unfinished


@callback(
    *(Output(f"ffn-{k}", "figure") for k in FIGS),
    *(Output(f"ffn-{k}", "children") for k in ("table", "verdict", "prov", "explain")),
    Input("ffn-group", "value"),
    Input("ffn-metric", "value"),
    Input(job_box.seen(RUN.name), "data"),  # a finished job: redraw with its run
    State("lang", "data"),
    prevent_initial_call=True,
)
def _results(group, metric, _seen, lang):
    metric = metric if metric in data.UNIT_METRICS else "dead"
    res = results(group, lang, content.text(lang, "ffn"), metric)
    if res is None:
        return (no_update,) * 8
    return res["loss"], res["gap"], res["units"], res["grad"], res["table"], res["verdict"], res["prov"], prose(res["explain"])


@callback(Output("ffn-group", "options"), Output("ffn-unfinished", "children"),
          Input(job_box.seen(RUN.name), "data"), State("lang", "data"), prevent_initial_call=True)
def _runs_changed(_seen, lang):
    """The job started, ended or stopped: its run may be a new experiment, or an unfinished one."""
    t = content.text(lang, "ffn")
    return group_options(data.pool()[0], t), unfinished(lang, t)


@callback(Output(job_box.args(RUN.name), "data"), *(Input(f"ffn-run-{k}", "value") for k in RUN_DEFAULT), prevent_initial_call=True)
def _run_args(*values):
    return dict(zip(RUN_DEFAULT, values))


@callback(
    Output("ffn-block", "figure"),
    Output("ffn-w2in", "figure"),
    *(Output(f"ffn-r-{k}", "children") for k in READOUTS),
    Output("ffn-msg", "children"),
    Input("ffn-act", "value"),
    Input("ffn-sigma", "value"),
    State("lang", "data"),
    prevent_initial_call=True,
)
def _live(act, sigma, lang):
    vals, msg = inputs([(ACT, act), (SIGMA, sigma)], lang)
    if vals is None:
        return (no_update,) * (2 + len(READOUTS)) + (msg,)
    block, w2in, r = live(*vals, lang, content.text(lang, "ffn"))
    return (block, w2in, *r, msg)
