"""The definition page's view: its numbers (analysis/, nn/, results/) as the page shows them, the
texts filled with them and its figures; the layout is :mod:`.page`, the callbacks :mod:`.callbacks`."""

from __future__ import annotations

import functools

import numpy as np

from ....analysis import theory
from ....figures import definition as figs
from ... import content
from ...components import fmt, sig


PRESETS = (2.0, 0.0, -2.0)
READOUTS = ("definition-rx", "definition-rphi", "definition-rout")  # what the x slider moves


@functools.cache
def _numbers() -> dict:
    """What the HR-office analogy quotes, computed: the share Phi(x) of the scores 1, 0 and -1
    that gets through, what comes out, and GELU's minimum (how far below 0 a negative score can come out)."""
    g = theory.gate_table([1.0, 0.0, -1.0])
    kp = theory.key_points()
    pct = [f"{sig(100 * p)}%" for p in g["Phi"]]
    return {"keep": f"{theory.DROPOUT_KEEP:g}", "phi1": pct[0], "phi0": pct[1], "phim1": pct[2],
            "out1": sig(g["gelu"][0]), "outm1": sig(g["gelu"][2]), "gelu_min": sig(kp["gelu_min"]), "x_min": sig(kp["grad_root"])}


def _t(lang):
    v = _numbers()
    return {k: content.fill(t, **v) for k, t in content.text(lang, "definition").items()}


def gate_labels(t):
    return {k: t[f"fig.{k}"] for k in ("density_title", "output_title", "density", "area", "input", "output", "identity", "x", "y")}


PLOTTED = 300  # points per running-mean curve at most: spaced evenly on its log n axis


def bernoulli(x, n, seed, t):
    """Figure and readouts of the Bernoulli-mask section.

    The curves are drawn through at most PLOTTED of the n running means (the first
    and the last included), log-spaced like the axis: the same picture as all n,
    with a payload and a redraw that do not grow with n (5000 masks were 200 kB).
    """
    b = theory.bernoulli_masks(x, n, seed)
    labels = {k: t[f"bern.{k}"] for k in ("title", "gelu", "dropout", "relu", "expect", "n", "mean")}
    k = np.unique(np.round(np.geomspace(1, len(b["n"]), PLOTTED)).astype(int)) - 1
    fig = figs.bernoulli_figure(b["n"][k], b["gelu_running"][k], b["dropout_running"][k], b["relu_running"][k], b["gelu"], b["dropout"], b["relu"], labels)
    vals = [fmt(b["gelu_running"][-1]), fmt(b["gelu"]), fmt(abs(b["gelu_running"][-1] - b["gelu"])), fmt(b["dropout_running"][-1]), fmt(b["dropout"])]
    return fig, vals
