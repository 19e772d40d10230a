"""Misconceptions page: the small figure on each claim's card.

Three shapes cover every claim: curves with marked points (values, the minimum,
error curves against a threshold), bars against a threshold (speed ratios, dead
shares) and a placeholder that says why there is nothing to draw yet.
``evidence_figure(claim_id, figures, t)`` draws a claim's evidence in the shape it takes.
"""

from __future__ import annotations

import textwrap

import numpy as np
import plotly.graph_objects as go

from .. import activations
from ..analysis.claims import ERROR_BOUND
from ..analysis.errors import error_curves
from . import COLORS, NEUTRAL, axis, figure, palette

HEIGHT = 290


def _threshold(y: float, label: str) -> dict:
    return {"type": "line", "xref": "paper", "x0": 0, "x1": 1, "y0": y, "y1": y, "line": {"color": NEUTRAL, "dash": "dash", "width": 1.2},
            "label": {"text": label, "textposition": "end", "font": {"size": 11, "color": NEUTRAL}}}


def curves_figure(x, curves: list[tuple], labels: dict, points=(), threshold=None, log_x=False, log_y=False) -> go.Figure:
    """Lines on a shared x. curves: [(name, y, color key)]; points: [(x, y, text)]
    marked and labelled; threshold: (y, label) drawn as a dashed line.
    labels: title, x, y."""
    traces = [
        {"type": "scatter", "mode": "lines+markers" if len(x) < 20 else "lines", "x": x, "y": y, "name": name,
         "line": palette.line(color, width=2)}
        for name, y, color in curves
    ]
    if points:
        traces.append({"type": "scatter", "mode": "markers+text", "x": [p[0] for p in points], "y": [p[1] for p in points],
                       "text": [p[2] for p in points], "textposition": "top center", "showlegend": False,
                       "marker": {"color": NEUTRAL, "size": 8, "symbol": "x"}, "textfont": {"size": 11}})
    return figure(
        traces, labels["title"], hovermode="closest",
        xaxis=axis(labels["x"], type="log" if log_x else "linear"),
        yaxis=axis(labels["y"], type="log" if log_y else "linear", exponentformat="power", automargin=True),  # tick labels as wide as the data
        shapes=[_threshold(*threshold)] if threshold else [],
        # the legend under the x axis title, with the room it needs
        legend={"orientation": "h", "y": -0.36, "yanchor": "top", "x": 0, "font": {"size": 11}},
        margin={"l": 55, "r": 15, "t": 50, "b": 90}, height=HEIGHT + 30,
    )


def bars_figure(names: list[str], values: list[float], labels: dict, threshold=None, color: str = "gelu", **layout) -> go.Figure:
    """One bar a value, with an optional (y, label) threshold line. labels: title, y."""
    traces = [{"type": "bar", "x": names, "y": values, "marker": {"color": COLORS.get(color, NEUTRAL)},
               "text": [f"{v:.3g}" for v in values], "textposition": "outside", "showlegend": False}]
    return figure(traces, labels["title"], height=HEIGHT, hovermode="closest", yaxis=axis(labels["y"]),
                  shapes=[_threshold(*threshold)] if threshold else [], **layout)


def placeholder_figure(text: str) -> go.Figure:
    """An empty frame with a line of text: the evidence is not there yet (or still being computed)."""
    return figure([], None, height=HEIGHT, xaxis={"visible": False}, yaxis={"visible": False},
                  # an annotation does not wrap itself: lines of at most 60 characters
                  annotations=[{"text": "<br>".join(textwrap.wrap(text, 60)), "xref": "paper", "yref": "paper", "x": 0.5, "y": 0.5, "showarrow": False,
                                "font": {"size": 13, "color": NEUTRAL}}])


# --- the figure of each claim's evidence (gelu_lab.analysis.claims) --------------------------


def _gelu_curve(lo, hi, n=301):
    x = np.linspace(lo, hi, n)
    return x, activations.get("gelu").fn(x)


def _values(f, t):
    x, y = _gelu_curve(-3, 3)
    pts = [(2.0, f["gelu(2)"], f"{f['gelu(2)']:.4f}"), (0.0, f["gelu(0)"], "0"), (-2.0, f["gelu(-2)"], f"{f['gelu(-2)']:.4f}")]
    slope = f["gelu'(0)"]
    return curves_figure(x, [("GELU(x)", y, "gelu"), (f"{slope:g}·x", slope * x, "relu")],
                         {"title": t["fig.values"], "x": "x", "y": "y"}, points=pts)


def _monotonic(f, t):
    x, y = _gelu_curve(-4, 1)
    return curves_figure(x, [("GELU(x)", y, "gelu"), ("GELU′(x)", activations.get("gelu").grad(x), "relu")],
                         {"title": t["fig.monotonic"], "x": "x", "y": "y"}, points=[(f["argmin"], f["min"], f"({f['argmin']:.3f}, {f['min']:.3f})")])


def _random(f, t):
    return bars_figure([t["fig.mc"], "GELU(1)"], [f["mc_mean_x1"], f["gelu(1)"]], {"title": t["fig.random"], "y": "y"})


def _error(form):
    def fig(f, t):
        c = error_curves(form, interval=tuple(f["interval"]))
        step = max(1, len(c.x) // 800)  # a card's figure needs no more points than pixels
        return curves_figure(
            c.x[::step], [(f"|{t['names'][c.approx]} − GELU|", c.abs_error[::step], c.approx)],
            {"title": t["fig.error"], "x": "x", "y": t["fig.error.y"]},
            points=[(m["x"], m["abs_error"], f"{m['abs_error']:.2e}") for m in f["maxima"]], threshold=(ERROR_BOUND, f"{ERROR_BOUND:g}"))

    return fig


def _speed(f, t):
    # t["cases"]: each ratio's bar name in the page's words (app.claim_words.case)
    return bars_figure([t.get("cases", {}).get(k, k) for k in f["ratios"]], list(f["ratios"].values()), {"title": t["fig.speed"], "y": t["fig.speed.y"]},
                       threshold=(f["threshold"], f"{f['threshold']:g}×"), color="gelu_tanh")


def _limit(f, t):
    return curves_figure(f["scales"], [("max |GELU(s·x)/s − ReLU(x)|", f["sup_abs_diff"], "gelu")],
                         {"title": t["fig.limit"], "x": "s", "y": ""}, log_x=True, log_y=True)


def _infinity(f, t):
    return curves_figure(list(f["x"]), [("|GELU(−x) − ReLU(−x)|", list(f["abs_diff_at_-x"]), "gelu")],
                         {"title": t["fig.infinity"], "x": "x", "y": ""}, log_y=True)


def _quick(f, t):
    x = np.linspace(-4, 4, 321)
    return curves_figure(x, [(t["names"][n], activations.get(n).fn(x), n) for n in QUICK],
                         {"title": t["fig.quick"], "x": "x", "y": "y"})


def _dead(f, t):
    """The worst layer's dead share, its largest over the seeds of each width, init and rate."""
    worst: dict[str, float] = {}
    for r in f.get("runs") or []:
        cell = (t["fig.dead.cell"].format(width=r.get("width"), fc=r.get("fc_init_std"), lr=f"{r['lr']:g}") if isinstance(r.get("lr"), (int, float))
                else t["fig.dead.run"].format(id=r["run_id"]))
        worst[cell] = max(worst.get(cell, 0.0), r["max_layer_share"])
    # two-line bar labels: the axis makes room for them
    return bars_figure(list(worst), list(worst.values()), {"title": t["fig.dead"], "y": t["fig.dead.y"]}, threshold=(0.5, "0.5"), color="relu",
                       xaxis={"automargin": True, "tickangle": 0})


def _lower_loss(f, t):
    """GELU minus ReLU over training: the seed-paired mean and its 95 % interval at each evaluation."""
    o = f["over_training"][1:]  # step 0: the same weights, a difference of the activations alone
    x = [p["step"] for p in o]
    band = {"type": "scatter", "x": x + x[::-1], "y": [p["hi"] for p in o] + [p["lo"] for p in o][::-1], "fill": "toself",
            "fillcolor": palette.fill(COLORS["gelu"], 0.15), "line": {"width": 0}, "hoverinfo": "skip", "showlegend": False}
    mean = {"type": "scatter", "x": x, "y": [p["mean"] for p in o], "mode": "lines+markers", "line": {"color": COLORS["gelu"], "width": 2},
            "showlegend": False, "hovertemplate": "%{x}: %{y:.4f}<extra></extra>"}
    return figure([band, mean], t["fig.lower"], height=HEIGHT, hovermode="closest", xaxis=axis(t["fig.lower.x"]),
                  yaxis=axis(t["fig.lower.y"]), shapes=[_threshold(0.0, "0")])


def _ks(f, t):
    """Per layer of the BERT probe: the KS distance of GELU's inputs to N(0, 1) and to the fitted normal."""
    x = [L["layer"] for L in f["layers"]]
    return curves_figure(x, [(t["fig.ks.std"], [L["ks_std_normal"] for L in f["layers"]], "relu"),
                             (t["fig.ks.fit"], [L["ks_fitted_normal"] for L in f["layers"]], "gelu")],
                         {"title": t["fig.ks"], "x": t["fig.ks.x"], "y": "KS"}, threshold=(f["ks_far"], f"{f['ks_far']:g}"))


def _deep(f, t):
    """The first-layer gradient of each stack (groups) and activation (bars), on a log axis."""
    rows = f["first_layer"]
    names = ("gelu", "relu", "sigmoid")
    traces = [{"type": "bar", "x": [t.get(f"str.{r['arch']}", r["arch"]) for r in rows], "y": [r[n] for r in rows], "name": t["names"].get(n, n),
               "marker": {"color": COLORS.get(n, NEUTRAL)}} for n in names]
    return figure(traces, t["fig.deep"], height=HEIGHT + 30, hovermode="closest", barmode="group",
                  yaxis=axis("", type="log", exponentformat="power"), shapes=[_threshold(f["kept"], f"{f['kept']:g}")],
                  legend={"orientation": "h", "y": -0.25, "yanchor": "top", "x": 0, "font": {"size": 11}}, margin={"l": 55, "r": 15, "t": 50, "b": 80})


def _named(title_key: str, keys: tuple):
    """The activations a model's config names (the figures' `keys`), each drawn beside exact GELU."""
    def fig(f, t):
        names = [activations.canonical(f[k]) for k in keys]
        x = np.linspace(-4, 4, 321)
        drawn = list(dict.fromkeys([*names, "gelu"]))
        return curves_figure(x, [(t["names"].get(n, n), activations.get(n).fn(x), n) for n in drawn], {"title": t[title_key], "x": "x", "y": "y"})

    return fig


QUICK = ("gelu_sigmoid", "silu", "gelu")  # the activations the quick-GELU figure draws
NAMED = ("gelu_tanh", "gelu_sigmoid", "silu", "gelu", "relu", "sigmoid")  # the activations whose labels t["names"] must hold
_FIGURES = {
    "values": _values, "monotonic": _monotonic, "random": _random,
    "tanh_error_below_0.003": _error("tanh"), "sigmoid_error_below_0.003": _error("sigmoid"),
    "tanh_much_faster": _speed, "tends_to_relu": _limit, "relu_at_infinity": _infinity,
    "quick_gelu_is_silu": _quick, "relu_half_dead": _dead, "gelu_lower_loss": _lower_loss,
    "inputs_standard_normal": _ks, "smooth_deep": _deep,
    "t5_gelu": _named("fig.t5", ("v1_0_activation", "v1_1_activation")), "llama_gelu": _named("fig.llama", ("hidden_act",)),
}


def evidence_figure(claim_id: str, figures: dict, t: dict) -> go.Figure | None:
    """The figure of a claim's evidence (``claims.check(...)["figures"]``), or None when the
    evidence is its numbers only. t: the fig.* words of the Misconceptions page and
    "names", {activation: label} for NAMED."""
    fn = _FIGURES.get(claim_id)
    return None if fn is None else fn(figures, t)
