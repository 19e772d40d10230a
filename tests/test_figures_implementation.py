"""The Implementation page's figures draw exactly what they are given."""

from __future__ import annotations

import math

import numpy as np

from gelu_lab.figures import COLORS
from gelu_lab.figures import implementation as figs

X = np.linspace(-3, 3, 61)
LABELS = {"title": "<t>", "x": "<x>", "y": "<y>", "maxima": "<max>"}


def test_error_figure_curves_then_one_marker_trace_per_form_with_maxima():
    curves = {"gelu_tanh": X**2, "gelu_sigmoid": np.abs(X), "gelu_tanh.classic": X}
    fig = figs.error_figure(X, curves, {"gelu_tanh": [(-2.5, 1.0), (2.5, 1.0)], "gelu_sigmoid": []},
                            {"gelu_tanh": "T", "gelu_sigmoid": "S", "gelu_tanh.classic": "Tc"}, LABELS, log=True, dashed=("gelu_tanh.classic",))
    assert [t.name for t in fig.data] == ["T", "S", "Tc", "<max> · T"]  # no marker trace for a form without maxima
    assert np.array_equal(np.asarray(fig.data[0].y), X**2) and fig.data[0].line.color == COLORS["gelu_tanh"]
    assert fig.data[2].line.dash == "dash" and fig.data[2].line.color == COLORS["gelu_tanh"]
    assert list(fig.data[3].x) == [-2.5, 2.5] and list(fig.data[3].y) == [1.0, 1.0]
    assert fig.layout.yaxis.type == "log" and fig.layout.title.text == "<t>"
    assert figs.error_figure(X, {"gelu": X}, {}, {"gelu": "G"}, LABELS).layout.yaxis.type is None


def test_ulp_figure_one_marker_trace_per_implementation():
    pts = {"gelu": (np.array([]), np.array([], dtype=np.int64)), "torch:gelu": (np.array([-5.5, 1.0]), np.array([116, 1]))}
    fig = figs.ulp_figure(pts, {"gelu": "a", "torch:gelu": "b"}, LABELS)
    assert [t.name for t in fig.data] == ["a", "b"]
    assert len(fig.data[0].x) == 0 and list(fig.data[1].y) == [116, 1]
    assert fig.layout.yaxis.type == "log"


def test_cost_figure_bars_per_form_and_the_roofline():
    bars = {"erf": [0.1, 0.2, None], "tanh": [0.3, 0.4, 0.5]}
    fig = figs.cost_figure(bars, 2.5, ["A", "B", "C"], {"erf": "E", "tanh": "T"}, {"title": "<t>", "y": "<y>", "roofline": "<r>"})
    assert [t.type for t in fig.data] == ["bar", "bar"] and [t.name for t in fig.data] == ["E", "T"]
    assert list(fig.data[0].y) == [0.1, 0.2, None] and list(fig.data[1].x) == ["A", "B", "C"]
    assert fig.layout.shapes[0].y0 == fig.layout.shapes[0].y1 == 2.5
    # on the log axis the label sits at the line: an annotation's y is log10 of the value
    assert fig.layout.annotations[0].y == math.log10(2.5) and "<r>" in fig.layout.annotations[0].text
    empty = figs.cost_figure({}, None, [], {}, {"title": "<none>", "y": "<y>", "roofline": "<r>"})
    assert len(empty.data) == 0 and not empty.layout.shapes
