"""Real BERT: what GELU sees inside all-MiniLM-L6-v2's FFNs, and what swapping it does.

The numbers come from :mod:`gelu_lab.nn.probe_view`: the newest finished ``gelu-lab
probe`` run of the reader's runs store, else the result set shipped in
``gelu_lab/data/bert_probe.json``. Rendering the page needs neither torch nor the
model; the sentence box loads the model (once, then cached) on its first request.
"""

from __future__ import annotations

from dash import dcc, html

from .... import activations
from ....printing import pct
from ....figures import bert as figs
from ....nn import probe_view as data
from ... import content, swap_view
from ...components import dropdown, fmt, full, graph, md, message, more, prose, section, sig, values_table
from ...state import Param
from . import view

METRICS = ("cos_mean", "cos_min", "spearman", "nn_top1")
METRIC = Param("metric", "cos_mean", choices=METRICS)
LIVE = True  # the layout shows the newest probe in the user's store: the shell renders it anew for every load
PARAMS = [METRIC]
LEFT = {"textAlign": "left"}


def _names(lang):
    return {n: content.label(n, lang) for n in activations.names()}


def _metric(w, m):
    """A score as the tables show it: the share of neighbours kept, else 1 − the score (cosines
    of 0.99995 and 1 both read 1.000 to four figures; their gaps to 1 do not), full value on hover."""
    return pct(w[m]) if m == "nn_top1" else full(1.0 - w[m])


def _head(m, t):
    return t["col.nn_top1"] if m == "nn_top1" else t[f"col.gap.{m}"]


def histograms(res, t):
    panels = [{**p, "title": content.fill(t["hist.panel"], i=str(i + 1), mean=fmt(p["mean"], 2), std=fmt(p["std"], 2))}
              for i, p in enumerate(data.histogram_panels(res))]
    return figs.histogram_figure(panels, {k: t[f"hist.{k}"] for k in ("title", "data", "std", "fit", "x", "y")})


def stats_table(res, t):
    head = [t["col.layer"], *(t[f"col.{c}"] for c, _, _ in view.STAT_COLS)]
    rows = [html.Tr([html.Td(str(i + 1))] + [html.Td(view.cell(L[c], d, k)) for c, d, k in view.STAT_COLS]) for i, L in enumerate(res["layers"])]
    return values_table(head, rows, id="bert-stats")


def swap_table(res, names, t):
    body = [html.Tr([html.Td(names.get(w["activation"], w["activation"])), *(html.Td(_metric(w, m)) for m in METRICS)], id=f"bert-swap-{w['activation']}")
            for w in res["swaps"] if w["layer"] == "all"]
    return values_table([t["col.activation"], *(_head(m, t) for m in METRICS)], body, id="bert-swaps")


def drift(res, metric, names, t):
    series, together = data.drift(res, metric)
    labels = {"title": t["drift.title"], "x": t["drift.x"], "y": content.fill(t["drift.y"], metric=t[f"col.{metric}"]), "all": t["drift.all"]}
    return figs.drift_figure(series, together, {a: names[a] for a in data.SWAPS}, labels)


def precision_table(res, t):
    body = [html.Tr([html.Td(t["prec.cr"] if p["dtype"] == "float32" else content.fill(t["prec.dtype"], dtype=p["dtype"])),
                     *(html.Td(_metric(p, m)) for m in METRICS)], id=f"bert-prec-{p['dtype']}") for p in res["precision"]]
    return values_table([t["col.variant"], *(_head(m, t) for m in METRICS)], body, id="bert-precision")


def _provenance(d, t):
    p = d["provenance"]
    src = t["src.store"] if d["source"] == "store" else t["src.shipped"]
    return content.fill(t["provenance"], src=src, command=p.get("command", "?"), date=p.get("date", "?")[:10],
                        cpu=p.get("processor", "?"), torch=p.get("torch", "?"))


def layout(state, lang):
    t = content.text(lang, "bert")
    names = _names(lang)
    d = data.stored()
    res = d["result"]
    v = swap_view.quoted(res)
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


def sentence_view(sentence: str, lang: str):
    """(children, message) for the sentence box; bad input and a missing model give only a message."""
    t = content.text(lang, "bert")
    s = " ".join((sentence or "").split())
    if not s:
        return None, t["box.empty"]
    if len(s) > data.MAX_CHARS:
        return None, content.fill(t["box.long"], n=sig(len(s)), limit=sig(data.MAX_CHARS))
    try:
        got = data.sentence(s)
    except (ImportError, ValueError, OSError) as e:  # ProbeError is a ValueError
        return None, content.fill(t["box.nomodel"], why=str(e).splitlines()[0] if str(e) else type(e).__name__)
    names = _names(lang)
    curves = [{"x": L["x"], "density": L["density"], "name": content.fill(t["box.layer"], i=str(i + 1), neg=pct(L["neg"], 0))}
              for i, L in enumerate(got["layers"])]
    fig = figs.sentence_figure(curves, {"title": content.fill(t["box.fig"], n=str(len(got["tokens"]))), "x": t["hist.x"], "y": t["hist.y"]})
    body = [html.Tr([html.Td(names[a]), html.Td(html.Ol([html.Li(content.fill(t["box.near"], sentence=n["sentence"], cos=sig(n["cos"], 3))) for n in near]), style=LEFT)],
                    id=f"bert-nn-{a}")
            for a, near in got["near"].items()]
    tokens = html.P(content.fill(t["box.tokens"], tokens=" ".join(got["tokens"])), className="tokens", id="bert-tokens")
    table = values_table([t["col.activation"], html.Th(t["box.nearest"], style=LEFT)], body, id="bert-neighbours")
    return [tokens, graph("bert-sentence-fig", fig), table], ""
