"""Real BERT: what GELU sees inside all-MiniLM-L6-v2's FFNs, and what swapping it does.

Data: the newest finished ``gelu-lab probe`` run of the user's runs store, else
the result set shipped in ``gelu_lab/data/bert_probe.json``. Rendering the page
needs neither torch nor the model; the sentence box loads the model (once, then
cached with the neighbour pool's embeddings) on its first request.
"""

from __future__ import annotations

import functools
import threading

import numpy as np
from dash import Input, Output, State, callback, dcc, html, no_update

from ... import activations, results
from ...figures import bert as figs
from ...numerics import phi
from .. import content
from ..components import fmt, graph, md, message, section
from ..state import Param

METRICS = ("cos_mean", "cos_min", "spearman", "nn_top1")
METRIC = Param("metric", "cos_mean", choices=METRICS)
LIVE = True  # the layout shows the newest probe in the user's store: the shell renders it anew for every load
PARAMS = [METRIC]
SWAPS = ("gelu_tanh", "gelu_sigmoid", "relu", "silu")  # gelu_lab.nn.probe.SWAPS, without importing torch
POOL, POOL_WORDS = 48, 14  # neighbours: the first 48 probe sentences of at most 14 words (cheap to embed 5 times)
MAX_CHARS = 2000  # gelu_lab.nn.probe.MAX_CHARS (checked here too, before any model is loaded)
XS = np.linspace(-6.0, 4.0, 201)


# --- data -------------------------------------------------------------------------


def stored() -> dict:
    """{"result", "provenance", "source", "run"}: the newest probe in the user's store, else the
    shipped one; read through gelu_lab.results.latest."""
    r = results.latest("probe")
    return {"result": r.value, "provenance": r.provenance, "source": r.source, "run": r.run["id"] if r.run else None}


def _names(lang):
    return {n: activations.get(n).label(lang) for n in activations.names()}


def _pct(v, digits=1):
    return f"{100 * float(v):.{digits}f} %"


def _range(vals, f):
    return f"{f(min(vals))} – {f(max(vals))}"


# --- sections ---------------------------------------------------------------------


def histograms(res, t):
    panels = []
    for i, L in enumerate(res["layers"]):
        h = L["hist"]
        dens = np.asarray(h["density"])
        centers = h["lo"] + h["step"] * (np.arange(len(dens)) + 0.5)
        panels.append({
            "centers": centers, "density": dens, "x": XS, "std_pdf": phi(XS), "fit_pdf": phi((XS - L["mean"]) / L["std"]) / L["std"],
            "title": content.fill(t["hist.panel"], i=str(i + 1), mean=fmt(L["mean"], 2), std=fmt(L["std"], 2)),
        })
    labels = {k: t[f"hist.{k}"] for k in ("title", "data", "std", "fit", "x", "y")}
    return figs.histogram_figure(panels, labels)


STAT_COLS = [("mean", 3, None), ("std", 3, None), ("skew", 2, None), ("excess_kurtosis", 2, None),
             ("share_negative", 1, "%"), ("share_in_minus3_0", 1, "%"), ("share_below_minus3", 2, "%"),
             ("ks_std_normal", 3, None), ("ks_fitted_normal", 3, None), ("gelu_magnitude_from_negative", 1, "%"),
             ("units_never_positive", 0, "int")]


def _cell(v, digits, kind):
    if kind == "%":
        return _pct(v, digits)
    if kind == "int":
        return str(int(v))
    return fmt(v, digits)


def stats_table(res, t):
    head = html.Tr([html.Th(t["col.layer"])] + [html.Th(t[f"col.{c}"]) for c, _, _ in STAT_COLS])
    rows = [html.Tr([html.Td(str(i + 1))] + [html.Td(_cell(L[c], d, k)) for c, d, k in STAT_COLS]) for i, L in enumerate(res["layers"])]
    return html.Div(html.Table([html.Thead(head), html.Tbody(rows)], className="values", id="bert-stats"), style={"overflowX": "auto"})


def swap_table(res, names, t):
    rows = [w for w in res["swaps"] if w["layer"] == "all"]
    head = html.Tr([html.Th(t["col.activation"])] + [html.Th(t[f"col.{m}"]) for m in METRICS])
    body = [html.Tr([html.Td(names.get(w["activation"], w["activation"]))]
                    + [html.Td(_pct(w[m]) if m == "nn_top1" else f"{w[m]:.6f}") for m in METRICS], id=f"bert-swap-{w['activation']}")
            for w in rows]
    return html.Div(html.Table([html.Thead(head), html.Tbody(body)], className="values", id="bert-swaps"), style={"overflowX": "auto"})


def drift(res, metric, names, t):
    series, together = {}, {}
    gap = lambda w: max(1.0 - w[metric], 1e-12)  # noqa: E731  (0 drift would vanish from a log axis)
    for a in SWAPS:
        rows = {w["layer"]: w for w in res["swaps"] if w["activation"] == a}
        layers = sorted(k for k in rows if k != "all")
        if layers:
            series[a] = ([str(k + 1) for k in layers], [gap(rows[k]) for k in layers])
        if "all" in rows:
            together[a] = gap(rows["all"])
    labels = {"title": t["drift.title"], "x": t["drift.x"], "y": content.fill(t["drift.y"], metric=t[f"col.{metric}"]), "all": t["drift.all"]}
    return figs.drift_figure(series, together, {a: names[a] for a in SWAPS}, labels)


def precision_table(res, t):
    head = html.Tr([html.Th(t["col.variant"])] + [html.Th(t[f"col.{m}"]) for m in METRICS])
    body = []
    for p in res["precision"]:
        label = t["prec.cr"] if p["dtype"] == "float32" else content.fill(t["prec.dtype"], dtype=p["dtype"])
        body.append(html.Tr([html.Td(label)] + [html.Td(_pct(p[m]) if m == "nn_top1" else f"{p[m]:.9f}") for m in METRICS]))
    return html.Div(html.Table([html.Thead(head), html.Tbody(body)], className="values", id="bert-precision"), style={"overflowX": "auto"})


def _summary_values(res, names):
    L = res["layers"]
    rows = {(w["activation"], w["layer"]): w for w in res["swaps"]}
    cr = res["precision"][-1]
    bf = next((p for p in res["precision"] if p["dtype"] == "bfloat16"), None)
    v = {
        "n": str(res["n_sentences"]), "tokens": str(res["tokens"]),
        "sub": str(res.get("subset", {}).get("sentences", res["n_sentences"])),
        "means": _range([x["mean"] for x in L], lambda m: fmt(m, 2)),
        "neg": _range([x["share_negative"] for x in L], lambda s: _pct(s, 0)),
        "ks_std": _range([x["ks_std_normal"] for x in L], lambda s: fmt(s, 2)),
        "ks_fit": _range([x["ks_fitted_normal"] for x in L], lambda s: fmt(s, 3)),
        "mag": _range([x["gelu_magnitude_from_negative"] for x in L], lambda s: _pct(s, 0)),
        "mid": _range([x["share_in_minus3_0"] for x in L], lambda s: _pct(s, 0)),
        "differs": _pct(cr["share_torch_differs"]), "over1": _pct(cr["share_torch_over_1ulp"]),
        "cr_cos": f"{cr['cos_min']:.12f}",
        "bf_cos": f"{bf['cos_min']:.5f}" if bf else "–", "bf_nn": _pct(bf["nn_top1"]) if bf else "–",
    }
    for a in SWAPS:
        w = rows.get((a, "all"))
        if w:
            v[f"{a}_cos"] = f"{w['cos_mean']:.6f}" if a == "gelu_tanh" else f"{w['cos_mean']:.3f}"
            v[f"{a}_rho"] = f"{w['spearman']:.3f}"
            v[f"{a}_nn"] = _pct(w["nn_top1"])
    return v


def _provenance(d, t):
    p = d["provenance"]
    src = t["src.store"] if d["source"] == "store" else t["src.shipped"]
    return content.fill(t["provenance"], src=src, command=p.get("command", "?"), date=p.get("date", "?")[:10],
                        cpu=p.get("processor", "?"), torch=p.get("torch", "?"))


def layout(state, lang):
    t = content.text(lang, "bert")
    names = _names(lang)
    d = stored()
    res = d["result"]
    v = _summary_values(res, names)
    return html.Div(
        [
            html.H1(t["title"]),
            md(content.fill(t["intro"], **v)),
            html.P(_provenance(d, t), className="provenance", id="bert-provenance"),
            section(html.H2(t["dist.h"]), md(content.fill(t["dist.text"], **v)), graph("bert-hist", histograms(res, t)), stats_table(res, t),
                    md(content.fill(t["dist.after"], **v))),
            section(
                html.H2(t["swap.h"]),
                md(content.fill(t["swap.text"], **v)),
                swap_table(res, names, t),
                html.Div([html.Label(t["label.metric"], htmlFor="bert-metric", className="control-label"),
                          dcc.Dropdown(id="bert-metric", options=[{"label": t[f"col.{m}"], "value": m} for m in METRICS],
                                       value=state["metric"], clearable=False, className="dropdown")], className="control"),
                graph("bert-drift", drift(res, state["metric"], names, t)),
                md(t["swap.after"]),
            ),
            section(html.H2(t["prec.h"]), md(content.fill(t["prec.text"], **v)), precision_table(res, t)),
            section(
                html.H2(t["box.h"]),
                md(content.fill(t["box.text"], pool=str(POOL), words=str(POOL_WORDS))),
                html.Div([dcc.Input(id="bert-sentence", type="text", value="", placeholder=t["box.placeholder"], debounce=False,
                                    n_submit=0, style={"width": "min(640px, 100%)", "font": "inherit", "padding": "4px 8px"}),
                          html.Button(t["box.button"], id="bert-go", n_clicks=0)], className="presets"),
                message("bert-msg"),
                dcc.Loading(html.Div(id="bert-sentence-out")),
            ),
        ]
    )


# --- the sentence box ----------------------------------------------------------------

_WARM = threading.Lock()


@functools.cache
def _model():
    """The model and the neighbour pool's embeddings under each activation (first request only)."""
    import torch

    from ...nn import probe as P

    # one intra-op thread: a request is a handful of one-sentence passes, and on a busy
    # machine a second OpenMP thread spins for ~10x the work (measured: 2.4 vs 0.16 CPU-s)
    torch.set_num_threads(1)
    bert = P.load()
    pool = [s for s in stored()["result"]["sentences"] if len(s.split()) <= POOL_WORDS][:POOL]
    return bert, pool, P.pool_embeddings(bert, pool)


def sentence_view(sentence: str, lang: str):
    """(children, message) for the sentence box; bad input and a missing model give only a message."""
    t = content.text(lang, "bert")
    s = " ".join((sentence or "").split())
    if not s:
        return None, t["box.empty"]
    if len(s) > MAX_CHARS:
        return None, content.fill(t["box.long"], n=str(len(s)), limit=str(MAX_CHARS))
    try:
        from ...nn import probe as P

        with _WARM:  # one loader at a time; later requests find the cache
            bert, pool, emb = _model()
        pre = P.preactivations(bert, s)
        near = P.neighbours(bert, s, pool, emb, k=3)
    except (ImportError, ValueError, OSError) as e:  # ProbeError is a ValueError
        return None, content.fill(t["box.nomodel"], why=str(e).splitlines()[0] if str(e) else type(e).__name__)
    names = _names(lang)
    bins = np.linspace(-6.0, 4.0, 51)
    curves, negs = [], []
    for i, a in enumerate(pre["layers"]):
        hist, _ = np.histogram(a, bins=bins)
        curves.append({"x": (bins[:-1] + bins[1:]) / 2, "density": hist / (a.size * (bins[1] - bins[0])),
                       "name": content.fill(t["box.layer"], i=str(i + 1), neg=_pct(np.mean(a < 0), 0))})
        negs.append(float(np.mean(a < 0)))
    fig = figs.sentence_figure(curves, {"title": content.fill(t["box.fig"], n=str(len(pre["tokens"]))), "x": t["hist.x"], "y": t["hist.y"]})
    head = html.Tr([html.Th(t["col.activation"]), html.Th(t["box.nearest"], style={"textAlign": "left"})])
    body = [html.Tr([html.Td(names["gelu"] if a == "gelu" else names[a]),
                     html.Td(html.Ol([html.Li(f"{n['sentence']}  (cos {n['cos']:.3f})") for n in near[a]]), style={"textAlign": "left"})],
                    id=f"bert-nn-{a}")
            for a in near]
    tokens = html.P(content.fill(t["box.tokens"], tokens=" ".join(pre["tokens"])), className="tokens", id="bert-tokens")
    table = html.Div(html.Table([html.Thead(head), html.Tbody(body)], className="values", id="bert-neighbours"), style={"overflowX": "auto"})
    return [tokens, graph("bert-sentence-fig", fig), table], ""


@callback(Output("bert-drift", "figure"), Input("bert-metric", "value"), State("lang", "data"), prevent_initial_call=True)
def _drift(metric, lang):
    if metric not in METRICS:
        return no_update
    return drift(stored()["result"], metric, _names(lang), content.text(lang, "bert"))


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
