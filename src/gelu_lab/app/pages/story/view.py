"""The story page's view: its numbers (analysis/, nn/, results/) as the page shows them, the
texts filled with them and its figures; the layout is :mod:`.page`, the callbacks :mod:`.callbacks`."""

from __future__ import annotations

from dash import dcc, html

from .... import activations, numerics
from ....analysis import claims, glu_paper, theory
from ....analysis.errors import error_functions, max_abs_error
from ....figures import curves, ffn as ffn_figs
from ....floats import FORMATS, ulp_of
from ....nn import ffn_view, probe_view
from ....nn.presets import PRESETS
from ....printing import pct
from ... import content, registry, swap_view
from ...components import graph, sig
from ...state import href


# (step, the pages that let the reader check it)
STEPS = [
    ("origin", ["definition"]),
    ("gpt", ["overview"]),
    ("shape", ["relu", "gradients", "sigmoid"]),
    ("small", ["ffn"]),
    ("large", ["ffn"]),
    ("bert", ["bert"]),
    ("after", ["implementation", "overview"]),
    ("folklore", ["misconceptions"]),
]


def signed(v) -> str:
    """A difference with its sign (+0.095, -0.0012): which side leads is the point."""
    return ("+" if v > 0 else "") + sig(v, 2)


def _decision():
    return ffn_view.decision(ffn_view.pool()[0])


def setups(lang: str, t: dict, points: list[dict]) -> str:
    """The experiment's setups (width and init) grouped by what GELU − ReLU did there: within
    the seed-to-seed noise, GELU ahead, ReLU ahead; one sentence (step 4 ends with it, step 6
    points back to it)."""
    said = {"within": [], "gelu": [], "relu": []}
    for p in sorted(points, key=lambda p: (p["fc"], p["width"])):
        who = "within" if p["verdict"] != "larger" else ("gelu" if p["mean"] < 0 else "relu")
        said[who].append(content.fill(t["small.setup"], width=str(p["width"]), init=t.get(f"small.short.{p['fc']}", p["fc"])))
    parts = [content.fill(t[f"small.where.{k}"], setups=content.join(v, lang)) for k, v in said.items() if v]
    sep = "；" if lang == "zh" else "; "
    return content.fill(t["small.summary"], parts=sep.join(parts))


def _ffn(lang: str, t: dict, d: dict | None) -> dict:
    if d is None:
        return {"ffn": t["small.none"], "trends": "", "silu": "", "setups": ""}
    r, c = d["relu"], d["c"]
    silu = next((p for p in d["pairs"] if p["b"] == "silu"), None)
    sep = "；" if lang == "zh" else "; "
    trends = []
    for fc in dict.fromkeys(p["fc"] for p in d["trend"]):
        pts = sorted((p for p in d["trend"] if p["fc"] == fc), key=lambda p: p["width"])
        said = [content.fill(t["small.point"], width=str(p["width"]), mean=signed(p["mean"]), verdict=t[f"small.{p['verdict']}"]) for p in pts]
        trends.append(content.fill(t["small.init"], init=t.get(f"small.init.{fc}", fc), points=sep.join(said)))
    return {
        "ffn": content.fill(t["small.result"], mean=signed(r["mean"]), lo=signed(r["lo"]), hi=signed(r["hi"]), n=str(r["n"]), verdict=t[f"small.{r['verdict']}"],
                            layers=str(c["n_layer"]), width=str(c["n_embd"]), steps=str(c["steps"]), params=sig(c["params"])),
        "trends": "\n".join(f"- {x}" for x in trends),
        "setups": setups(lang, t, d["trend"]) if d["trend"] else "",
        "silu": content.fill(t["which.silu"], mean=signed(silu["mean"]), lo=signed(silu["lo"]), hi=signed(silu["hi"]),
                             verdict=t[f"small.{silu['verdict']}"]) if silu else "",
    }


def _gap(p: dict | None) -> str:
    """A paired gap to GELU as step 7 says it: mean [lo, hi] (or the mean alone with one seed)."""
    if p is None:
        return ""
    return signed(p["mean"]) + ("" if p["verdict"] == "unknown" else f" [{signed(p['lo'])}, {signed(p['hi'])}]")


def after(lang: str, t: dict, d: dict | None) -> dict:
    """Step 7's gated FFN in numbers: the parameter match at the experiment's width and our gated
    variants against GELU (analysis.glu_paper), beside the paper's (its Table 1)."""
    width = d["c"]["n_embd"] if d else PRESETS["decide"]["n_embd"]  # no experiment: the width it would have
    counts = {r["act"]: r for r in ffn_view.param_counts(width)}
    lp, steps = glu_paper.PAPER["log_ppl"], glu_paper.PAPER["steps"]
    out = {"d": str(width), "plain_hidden": str(counts["gelu"]["hidden"]), "gated_hidden": str(counts["swiglu"]["hidden"]),
           "plain_params": sig(counts["gelu"]["params"]), "gated_params": sig(counts["swiglu"]["params"]),
           "p_gelu": f"{lp['gelu'][0]:.3f}", "p_geglu": f"{lp['geglu'][0]:.3f}", "p_swiglu": f"{lp['swiglu'][0]:.3f}", "p_steps": f"{steps[0]:,}"}
    s = glu_paper.side_by_side(d["main"]) if d else None
    gated = [a for a in ("swiglu", "geglu") if s and a in s["ours"] and s["ours"][a]["gap"]]
    if not gated:
        return {**out, "ours_gated": t["after.none"]}
    said = content.join((content.fill(t["after.gap"], act=content.label(a, lang), gap=_gap(s["ours"][a]["gap"]),
                                      verdict=t[f"small.{s['ours'][a]['gap']['verdict']}"]) for a in gated), lang)
    return {**out, "ours_gated": content.fill(t["after.ours"], gaps=said, n=str(min(s["ours"][a]["gap"]["n"] for a in gated)))}


def numbers(lang: str, t: dict, decision: dict | None = None) -> dict:
    """Every value the story quotes, as it shows them (`decision`: ffn_view.decision of the
    runs pool, read here when not given)."""
    k = theory.key_points()
    phi = theory.gate_table([1.0, -1.0])
    tanh_err, tanh_at = max_abs_error(*error_functions("gelu_tanh"), -4.0, 4.0)
    d = decision if decision is not None else _decision()
    return {
        "phi1": pct(phi["Phi"][0]), "phim1": pct(phi["Phi"][1]),
        "slope0": sig(k["grad_at_0"], 1), "min_x": sig(k["grad_root"]), "min": sig(k["gelu_min"]),
        "dip_x": sig(k["grad_min_x"]), "dip": sig(k["grad_min"]),
        "tanh_err": sig(tanh_err, 2), "tanh_at": sig(tanh_at, 3),
        # the float16 spacing at GELU's value there, as analysis.forms measures an error in steps
        "f16_half": sig(float(ulp_of(numerics.gelu_exact(tanh_at), FORMATS["float16"])) / 2, 2),
        **_ffn(lang, t, d), **after(lang, t, d), **swap_view.quoted(probe_view.stored()["result"], lang),
    }


def _checks(slugs, lang: str, t: dict, shell: dict):
    links = []
    for s in slugs:
        page = next(p for p in registry.PAGES if p.slug == s)
        links += [" · " if links else "", dcc.Link(shell[f"nav.{s}"], href=href(page.route, lang))]
    return html.P([t["check"], " ", *links], className="story-check")


def _folklore(lang: str, t: dict):
    m = content.text(lang, "misconceptions")
    items = []
    for c in claims.CLAIMS.values():  # popular claims about GELU (their records say which): those the Misconceptions page finds false or not settled
        if not c.popular:
            continue
        v = claims.check(c.id)["verdict"]
        if v in ("false", "unsettled", "depends"):
            items.append(html.Li([html.Span(m[f"verdict.{v}"], className=f"verdict-tag verdict-{v}"), " ", m[c.words]]))
    return html.Ul(items, className="story-folklore")


def _shape_figure(t: dict, lang: str):
    x = theory.grid(-3.0, 3.0, 0.02)
    names = ("gelu", "relu")
    return graph("story-shape", curves.activation_curves(x, {n: activations.get(n).fn(x) for n in names}, {n: content.label(n, lang) for n in names},
                                                         "x", "f(x)", title=t["fig.shape.title"], yrange=[-0.5, 3.0]))


def _trend_figure(t: dict, d: dict | None):
    if d is None or not d["trend"]:
        return None
    points = [{**p, "series": t.get(f"small.init.{p['fc']}", p["fc"])} for p in d["trend"]]
    return graph("story-trend", ffn_figs.trend_figure(points, {"title": t["fig.trend.title"], "x": t["fig.trend.x"], "y": t["fig.trend.y"]}))
