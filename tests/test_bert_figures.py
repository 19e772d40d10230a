"""The Real BERT figures draw exactly the data they are given, with the given words."""

import numpy as np

from gelu_lab.figures import COLORS, bert


def labels(*keys):
    return {k: f"<{k}>" for k in keys}


def test_histogram_figure_one_panel_per_layer_with_both_normals():
    x = np.linspace(-6, 4, 11)
    panels = [{"centers": [-1.0, 0.0, 1.0], "density": [0.1 * i, 0.2, 0.3], "x": x, "std_pdf": x * 0 + i, "fit_pdf": x * 0 - i,
               "title": f"L{i}"} for i in range(6)]
    fig = bert.histogram_figure(panels, labels("title", "data", "std", "fit", "x", "y"))
    assert len(fig.data) == 18
    for i in range(6):
        bars, std, fit = fig.data[3 * i : 3 * i + 3]
        k = "" if i == 0 else str(i + 1)
        assert bars.type == "bar" and list(bars.y) == [0.1 * i, 0.2, 0.3]
        assert {bars.xaxis, std.xaxis, fit.xaxis} == {f"x{k}"} and {bars.yaxis, fit.yaxis} == {f"y{k}"}
        assert np.all(np.asarray(std.y) == i) and np.all(np.asarray(fit.y) == -i)
        assert (std.showlegend, fit.showlegend) == (i == 0, i == 0)
    assert [a.text for a in fig.layout.annotations] == [f"L{i}" for i in range(6)]
    assert fig.layout.title.text == "<title>" and [t.name for t in fig.data[:3]] == ["<data>", "<std>", "<fit>"]


def test_drift_figure_log_axis_lines_per_layer_and_a_marker_for_all():
    series = {"relu": (["1", "2"], [0.1, 0.2]), "gelu_tanh": (["1", "2"], [1e-7, 2e-7])}
    fig = bert.drift_figure(series, {"relu": 0.5, "gelu_tanh": 1e-6}, {"relu": "R", "gelu_tanh": "T"}, labels("title", "x", "y", "all"))
    assert [(t.name, t.mode) for t in fig.data] == [("R", "lines+markers"), ("R", "markers"), ("T", "lines+markers"), ("T", "markers")]
    assert list(fig.data[0].x) == ["1", "2"] and list(fig.data[2].y) == [1e-7, 2e-7]
    assert list(fig.data[1].x) == ["<all>"] and list(fig.data[1].y) == [0.5] and list(fig.data[3].y) == [1e-6]
    assert fig.data[0].line.color == fig.data[1].marker.color == COLORS["relu"] and fig.layout.yaxis.type == "log"
    assert fig.data[1].showlegend is False


def test_sentence_figure_one_curve_per_layer():
    curves = [{"x": [0, 1], "density": [i, i + 1], "name": f"n{i}"} for i in range(6)]
    fig = bert.sentence_figure(curves, labels("title", "x", "y"))
    assert [t.name for t in fig.data] == [f"n{i}" for i in range(6)] and list(fig.data[5].y) == [5, 6]
    assert len({t.line.color for t in fig.data}) == 6
