"""The Real BERT page's view: the probe's numbers (gelu_lab.nn.probe_view) as the page and the
story quote them, a layer statistic as the table shows it, the page's tables and figures.

    STAT_COLS                   the table's columns: (statistic, digits, kind)
    cell(v, digits, kind)       one table cell
    quoted(result)              the numbers the texts quote ({n}, {tokens}, {means}, ...)
"""

from __future__ import annotations

from dash import html

from .... import activations
from ....figures import bert as figs
from ....nn import probe_view as data
from ....nn.probe_view import SWAPS
from ....printing import fixed, pct, sig
from ... import content
from ...components import fmt, full, graph, values_table

STAT_COLS = [("mean", 3, None), ("std", 3, None), ("skew", 2, None), ("excess_kurtosis", 2, None),
             ("share_negative", 1, "%"), ("share_in_minus3_0", 1, "%"), ("share_below_minus3", 2, "%"),
             ("ks_std_normal", 3, None), ("ks_fitted_normal", 3, None), ("gelu_magnitude_from_negative", 1, "%"),
             ("units_never_positive", 0, "int")]


def _range(vals, f, sep: str = " – ") -> str:
    return f"{f(min(vals))}{sep}{f(max(vals))}"


def cell(v, digits: int, kind) -> str:
    """A layer statistic as the table shows it (STAT_COLS: digits and kind)."""
    if kind == "%":
        return pct(v, digits)
    return str(int(v)) if kind == "int" else fixed(v, digits)


def quoted(res: dict, lang: str = "en") -> dict:
    """The numbers the page's texts quote ({n}, {tokens}, {sub}, {means}, ...), as shown: counts
    grouped, and for the scores that round to 1 their gap to 1 (1 - cosine), which does not;
    a range as low, content.RANGE_SEP[lang], high."""
    sep = content.RANGE_SEP[lang]
    L = res["layers"]
    rows = {(w["activation"], w["layer"]): w for w in res["swaps"]}
    cr = res["precision"][-1]
    bf = next((p for p in res["precision"] if p["dtype"] == "bfloat16"), None)
    v = {
        "n": sig(res["n_sentences"]), "tokens": sig(res["tokens"]),
        "sub": sig(res.get("subset", {}).get("sentences", res["n_sentences"])),
        "means": _range([x["mean"] for x in L], lambda m: fixed(m, 2), sep),
        "neg": _range([x["share_negative"] for x in L], lambda s: pct(s, 0), sep),
        "ks_std": _range([x["ks_std_normal"] for x in L], lambda s: fixed(s, 2), sep),
        "ks_fit": _range([x["ks_fitted_normal"] for x in L], lambda s: fixed(s, 3), sep),
        "kurt": _range([x["excess_kurtosis"] for x in L], lambda s: fixed(s, 1), sep),
        "mag": _range([x["gelu_magnitude_from_negative"] for x in L], lambda s: pct(s, 0), sep),
        "mid": _range([x["share_in_minus3_0"] for x in L], lambda s: pct(s, 0), sep),
        "differs": pct(cr["share_torch_differs"]), "over1": pct(cr["share_torch_over_1ulp"]),
        "cr_gap": sig(1.0 - cr["cos_min"]),
        "bf_gap": sig(1.0 - bf["cos_min"]) if bf else "–", "bf_nn": pct(bf["nn_top1"]) if bf else "–",
    }
    for a in SWAPS:
        w = rows.get((a, "all"))
        if w:
            v[f"{a}_cos"], v[f"{a}_gap"] = sig(w["cos_mean"], 3), sig(1.0 - w["cos_mean"])
            v[f"{a}_rho"] = sig(w["spearman"], 3)
            v[f"{a}_nn"] = pct(w["nn_top1"])
    return v


METRICS = ("cos_mean", "cos_min", "spearman", "nn_top1")
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
    head = [t["col.layer"], *(t[f"col.{c}"] for c, _, _ in STAT_COLS)]
    rows = [html.Tr([html.Td(str(i + 1))] + [html.Td(cell(L[c], d, k)) for c, d, k in STAT_COLS]) for i, L in enumerate(res["layers"])]
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
