"""Real BERT: what GELU sees inside all-MiniLM-L6-v2's FFNs, and what swapping it does.

The numbers come from :mod:`gelu_lab.nn.probe_view`: the newest finished ``gelu-lab
probe`` run of the reader's runs store, else the result set shipped in
``gelu_lab/data/bert_probe.json``. Rendering the page needs neither torch nor the
model; the sentence box loads the model (once, then cached) on its first request.
"""

from __future__ import annotations

from dash import dcc, html

from ....nn import probe_view as data
from ... import content, swap_view
from ...components import dropdown, graph, md, message, more, prose, section, sig
from ...state import Param
from .view import METRICS, _names, _provenance, drift, histograms, precision_table, stats_table, swap_table

METRIC = Param("metric", "cos_mean", choices=METRICS)
LIVE = True  # the layout shows the newest probe in the user's store: the shell renders it anew for every load
PARAMS = [METRIC]


def layout(state, lang):
    t = content.text(lang, "bert")
    names = _names(lang)
    d = data.stored()
    res = d["result"]
    v = swap_view.quoted(res, lang)
    return html.Div(
        [
            html.H1(t["title"]),
            md(content.fill(t["intro"], **v)),
            more(t["tech.h"], html.Div(prose(_provenance(d, t)), className="provenance", id="bert-provenance")),
            section(html.H2(t["dist.h"]), md(content.fill(t["dist.text"], **v)), graph("bert-hist", histograms(res, t)), stats_table(res, t),
                    md(content.fill(t["dist.after"], **v))),
            section(
                html.H2(t["swap.h"]),
                md(content.fill(t["swap.text"], **v)),
                swap_table(res, names, t),
                dropdown("bert-metric", t["label.metric"], [{"label": t[f"col.{m}"], "value": m} for m in METRICS], state["metric"]),
                graph("bert-drift", drift(res, state["metric"], names, t)),
                md(content.fill(t["swap.after"], **v)),
                swap_view.figure(res, lang, t, "bert-damage"),
            ),
            section(html.H2(t["prec.h"]), md(content.fill(t["prec.text"], **v)), precision_table(res, t)),
            section(
                html.H2(t["box.h"]),
                md(content.fill(t["box.text"], pool=sig(data.POOL), words=sig(data.POOL_WORDS))),
                html.Div([dcc.Input(id="bert-sentence", type="text", value="", placeholder=t["box.placeholder"], debounce=False,
                                    n_submit=0, style={"width": "min(640px, 100%)", "font": "inherit", "padding": "4px 8px"}),
                          html.Button(t["box.button"], id="bert-go", n_clicks=0)], className="presets"),
                message("bert-msg"),
                dcc.Loading(html.Div(id="bert-sentence-out")),
            ),
        ]
    )
