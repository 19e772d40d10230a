"""The pure figure functions: they draw exactly the data they are given, with the given words."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from gelu_lab.figures import COLORS, curves, definition, gradients, relu, sigmoid

X = np.linspace(-3, 3, 61)


def labels(*keys):
    return {k: f"<{k}>" for k in keys}


def ys(tr):
    return np.asarray(tr.y, dtype=float)


def test_activation_curves_one_trace_per_curve_tagged_by_name():
    fig = curves.activation_curves(X, {"gelu": X * 2, "relu": np.maximum(X, 0)}, {"gelu": "G", "relu": "R"}, "x", "f")
    assert isinstance(fig, go.Figure)
    assert [t.meta for t in fig.data] == ["gelu", "relu"] and [t.name for t in fig.data] == ["G", "R"]
    assert np.array_equal(ys(fig.data[0]), X * 2)
    assert fig.data[0].line.color == COLORS["gelu"]
    assert fig.layout.xaxis.title.text == "x" and fig.layout.yaxis.title.text == "f"
    shown = curves.activation_curves(X, {"gelu": X, "relu": X}, {"gelu": "G", "relu": "R"}, "x", "f", shown=["relu"])
    hidden, drawn = shown.data
    assert (hidden.opacity, hidden.hoverinfo, hidden.showlegend) == (0, "skip", False)  # drawn, but unseen and out of hover and legend
    assert drawn.opacity is None and drawn.showlegend is None and drawn.visible is None
    assert shown.layout.legend.itemclick is False  # the legend is a key: the page's checklist picks the curves


def test_gate_figure_shades_exactly_the_area_left_of_x():
    dens = np.exp(-X**2 / 2)
    lab = labels("density_title", "output_title", "density", "area", "input", "output", "identity", "x", "y")
    fig = definition.gate_figure(X, dens, X * 0.5, 0.5, 0.69, 0.35, lab)
    shade = fig.data[definition.SHADE]
    assert np.all(np.asarray(shade.x) <= 0.5) and len(shade.x) == int(np.sum(X <= 0.5))
    assert np.array_equal(ys(shade), dens[: len(shade.x)])
    assert list(fig.data[definition.MARK_IN].x) == [0.5] and list(fig.data[definition.MARK_OUT].y) == [0.35]
    label = fig.data[definition.LABEL]
    assert list(label.x) == [0.5] and label.text[0] == "Φ(0.50)<br>= 0.6900" and label.textposition == "middle left"  # towards the middle
    # the page moves x in place: every axis range is fixed and holds all the curves
    assert list(fig.layout.xaxis.range) == list(fig.layout.xaxis2.range) == [X[0], X[-1]]
    lo, hi = fig.layout.yaxis2.range
    assert lo < min(X.min(), (X * 0.5).min()) and hi > max(X.max(), (X * 0.5).max())
    assert {a.text for a in fig.layout.annotations} >= {"<density_title>", "<output_title>"}


def test_bernoulli_figure_draws_runs_and_limits():
    n = np.arange(1, 11)
    lab = labels("title", "gelu", "dropout", "relu", "expect", "n", "mean")
    fig = definition.bernoulli_figure(n, n * 0.1, n * 0.2, n * 0.3, 1.5, 2.5, 3.5, lab)
    assert len(fig.data) == 6
    assert np.array_equal(ys(fig.data[2]), n * 0.2)
    assert list(fig.data[1].y) == [1.5, 1.5] and list(fig.data[5].y) == [3.5, 3.5]
    assert fig.layout.xaxis.type == "log"


def test_relu_figures():
    fig = relu.scale_figure(X, np.maximum(X, 0), X * 0.9, labels("title", "relu", "scaled", "x", "y"))
    assert np.array_equal(ys(fig.data[relu.SCALED]), X * 0.9)
    g_relu = np.array([0.0, 0.0, 1.0, 1.0])
    g_gelu = np.array([-0.1, 0.2, 0.7, 1.05])
    fig = relu.dead_unit_figure(g_relu, g_gelu, labels("title", "relu", "gelu", "grad", "count"))
    h = [t for t in fig.data if t.type == "bar"]
    assert len(h) == 2 and np.array_equal(h[0].x, h[1].x)  # shared bins
    edges = np.concatenate([h[0].x - h[0].width / 2, [h[0].x[-1] + h[0].width / 2]])
    assert edges[0] <= -0.2 and edges[-1] >= 1.2 and np.allclose(np.diff(h[0].x), h[0].width)
    # the counts: each unit in the one bin that holds it (brute force, not np.histogram)
    for bar, g in ((h[0], g_relu), (h[1], g_gelu)):
        want = [sum(lo <= v < hi or (hi == edges[-1] and v == hi) for v in g) for lo, hi in zip(edges[:-1], edges[1:])]
        assert list(bar.y) == want


def test_sigmoid_figures():
    lab = labels("title", "Phi", "sig1702", "sig1", "diff", "x", "gate")
    fig = sigmoid.gates_figure(X, X * 0 + 0.5, X * 0 + 0.7, X * 0, lab)
    assert np.allclose(ys(fig.data[3]), 0.2)  # the difference panel is sig1702 - Phi
    fig = sigmoid.family_figure(X, X, np.maximum(X, 0), X * 3, labels("title", "gelu", "relu", "family", "x", "y"))
    assert np.array_equal(ys(fig.data[sigmoid.FAMILY]), X * 3) and fig.data[sigmoid.FAMILY].name == "<family>"
    fig = sigmoid.squash_figure(X, X * 2, X * 0.1, labels("title", "gelu", "sigmoid", "identity", "x", "y"))
    assert np.array_equal(ys(fig.data[0]), X)


def test_gradients_figures():
    curves_ = {"gelu.grad": X, "gelu.grad2": X * 2, "relu.grad": X * 3}
    names = {k: k.upper() for k in curves_}
    pts = [(0.0, 0.5, "a"), (1.0, 2.0, "b")]
    fig = gradients.derivatives_figure(X, curves_, names, pts, labels("title", "x", "y", "points"))
    assert [t.name for t in fig.data[:3]] == ["GELU.GRAD", "GELU.GRAD2", "RELU.GRAD"]
    assert fig.data[1].line.dash == "dash" and fig.data[0].line.color == fig.data[1].line.color == COLORS["gelu"]
    assert list(fig.data[3].x) == [0.0, 1.0] and list(fig.data[3].text) == ["a", "b"]
    flows = {"mlp": {"gelu": np.array([0.5, 1.0]), "relu": np.array([1.0, 1.0])}, "preln": {"gelu": np.array([2.0, 1.0]), "relu": np.array([3.0, 1.0])}}
    fig = gradients.flow_figure(flows, {"gelu": "G", "relu": "R"}, labels("mlp", "preln", "layer", "ratio"))
    assert len(fig.data) == 4 and [t.showlegend for t in fig.data] == [True, True, False, False]
    assert fig.layout.yaxis.type == "log" and list(fig.data[2].y) == [2.0, 1.0]
