"""Comparing runs, seed bands, the init sweep, the live FFN block, the FFN figures (no torch)."""

import math
import statistics

import mpmath
import numpy as np
import pytest

from gelu_lab import activations
from gelu_lab.figures import ffn as figs
from gelu_lab.nn import ffn, train_job as jobs
from gelu_lab.nn import runs as R

CFG = {"preset": "quick", "n_layer": 2, "n_embd": 64, "steps": 100, "fc_init_std": 0.02, "lr": 0.001, "text_sha256": "x"}


def run(act, seed, loss, fc=0.02, curve=None, dead=None):
    metrics = {"val_loss": curve or [[0, 4.0], [100, loss]]}
    if dead:
        metrics["L0.dead"], metrics["L1.dead"] = dead
    return {"id": hash((act, seed, fc)) % 1000, "config": {**CFG, "activation": act, "seed": seed, "fc_init_std": fc},
            "final": {"val_loss_full": loss}, "metrics": metrics, "provenance": {}, "status": "done", "key": ""}


def test_compare_mean_std_rank_and_separation():
    runs = [run("relu", 0, 1.88), run("relu", 1, 1.89), run("gelu", 0, 2.00), run("gelu", 1, 2.01),
            run("silu", 0, 1.95), run("silu", 1, 1.80)]
    (g,) = R.compare(runs)
    rows = {r["activation"]: r for r in g["rows"]}
    for act, vals in (("relu", [1.88, 1.89]), ("gelu", [2.00, 2.01]), ("silu", [1.95, 1.80])):
        assert rows[act]["mean"] == pytest.approx(statistics.mean(vals))
        assert rows[act]["std"] == pytest.approx(statistics.stdev(vals))
    assert [r["activation"] for r in g["rows"]] == ["silu", "relu", "gelu"]  # means 1.875 < 1.885 < 2.005
    assert rows["gelu"]["separated"] is True  # 0.13 > 0.106 + 0.007
    assert rows["relu"]["separated"] is False  # 0.01 < spread
    assert "within the seed spread of relu" in g["verdict"] and "every seed" not in g["verdict"]
    assert rows["relu"]["behind"] == "1/2" and rows["gelu"]["behind"] == "2/2"  # paired by seed against silu


def test_compare_one_seed_says_spread_unknown():
    (g,) = R.compare([run("relu", 0, 1.9), run("gelu", 0, 2.0)])
    assert all(not r["separated"] for r in g["rows"]) and "one seed" in g["verdict"]


def test_groups_split_by_everything_but_activation_and_seed():
    runs = [run("gelu", 0, 2.0), run("gelu", 0, 1.9, fc="unit"), run("relu", 1, 1.8, fc="unit")]
    assert sorted(len(v) for v in R.groups(runs).values()) == [1, 2]


def test_bands_mean_min_max_and_layer_mean():
    runs = [run("gelu", 0, 2.0, curve=[[0, 4.0], [50, 3.0], [100, 2.0]], dead=([[0, 0.0], [100, 0.1]], [[0, 0.2], [100, 0.3]])),
            run("gelu", 1, 2.2, curve=[[0, 4.2], [50, 3.4], [100, 2.2]], dead=([[0, 0.0], [100, 0.3]], [[0, 0.0], [100, 0.1]]))]
    b = R.bands(runs, "val_loss")["gelu"]
    assert b["step"] == [0, 50, 100] and b["n"] == 2
    assert b["mean"] == pytest.approx([4.1, 3.2, 2.1]) and b["lo"] == [4.0, 3.0, 2.0] and b["hi"] == [4.2, 3.4, 2.2]
    d = R.bands(runs, "dead")["gelu"]  # mean over the two layers, then over seeds
    assert d["mean"] == pytest.approx([0.05, 0.2]) and d["lo"] == pytest.approx([0.0, 0.2]) and d["hi"] == pytest.approx([0.1, 0.2])
    assert R.bands(runs, "dead", 1)["gelu"]["mean"] == pytest.approx([0.1, 0.2])


def test_sweep_orders_init_scales_and_unit_is_one_over_sqrt_d():
    runs = [run(a, s, v, fc) for a, s, v, fc in [("relu", 0, 1.88, 0.02), ("relu", 1, 1.90, 0.02), ("gelu", 0, 2.0, 0.02),
                                                  ("gelu", 0, 1.85, "unit"), ("relu", 0, 1.93, "unit")]]
    sw = R.sweep(runs)
    assert sw["fc"] == [0.02, 0.125] and sw["pre_std"] == pytest.approx([0.16, 1.0])
    assert sw["acts"]["relu"]["mean"] == pytest.approx([1.89, 1.93]) and sw["acts"]["gelu"]["n"] == [1, 1]
    assert R.sweep(runs[:3]) is None


def test_export_rounds_and_keeps_structure():
    doc = R.export_doc([run("gelu", 0, 2.0123456789)], {"command": "x"}, digits=4)
    assert doc["runs"][0]["final"]["val_loss_full"] == 2.012 and doc["provenance"] == {"command": "x"}


def test_next_seed_counts_per_activation_and_experiment():
    runs = [run("gelu", 0, 2.0), run("gelu", 3, 2.0), run("relu", 5, 1.9), run("gelu", 7, 2.0, fc="unit")]
    assert jobs.next_seed(runs, {**CFG, "activation": "gelu", "seed": 0}) == 4
    assert jobs.next_seed(runs, {**CFG, "activation": "silu", "seed": 0}) == 0


def _gauss_r2(name, sigma):
    """R^2 of the best line through (h, act(h)) for h ~ N(0, sigma^2), by quadrature (mpmath)."""
    f = lambda x: mpmath.mpf(float(activations.get(name).fn(float(x))))  # noqa: E731
    pdf = lambda x: mpmath.npdf(x, 0, sigma)  # noqa: E731
    lim = [-12 * sigma, 0, 12 * sigma]
    e_g = mpmath.quad(lambda x: f(x) * pdf(x), lim)
    e_g2 = mpmath.quad(lambda x: f(x) ** 2 * pdf(x), lim)
    e_hg = mpmath.quad(lambda x: x * f(x) * pdf(x), lim)
    return float(e_hg**2 / (sigma**2 * (e_g2 - e_g**2)))


@pytest.mark.parametrize("name,sigma", [("relu", 1.0), ("gelu", 0.16), ("gelu", 1.0), ("silu", 0.3)])
def test_block_linearity_matches_quadrature(name, sigma):
    b = ffn.block(name, sigma)
    assert b["pre_std"] == pytest.approx(sigma, rel=0.03)
    assert b["linearity"] == pytest.approx(_gauss_r2(name, sigma), abs=0.01)


def test_relu_linearity_closed_form():
    # for symmetric Gaussian input: R^2 = 1 / (2 - 2/pi), whatever sigma
    assert _gauss_r2("relu", 0.7) == pytest.approx(1 / (2 - 2 / math.pi), rel=1e-6)


def test_block_unit_shares_and_bad_sigma():
    b = ffn.block("relu", 1.0)
    h = b["h"]
    assert b["dead"] == np.mean(h.max(0) <= 0) and b["pre_neg"] == pytest.approx(np.mean(h < 0))
    with pytest.raises(ValueError):
        ffn.block("gelu", -1.0)


def test_figures_bands_have_fill_only_with_several_seeds():
    names = {"gelu": "GELU", "relu": "ReLU"}
    bands = {"gelu": {"step": [0, 1], "mean": [2, 1], "lo": [1.9, 0.9], "hi": [2.1, 1.1], "n": 2},
             "relu": {"step": [0, 1], "mean": [2, 0.8], "lo": [2, 0.8], "hi": [2, 0.8], "n": 1}}
    fig = figs.band_figure(bands, names, {"title": "t", "x": "x", "y": "y"})
    fills = [tr for tr in fig.data if tr.fill == "toself"]
    assert len(fills) == 1 and len(fig.data) == 3
    gap = figs.gap_figure(bands, "gelu", names, {"title": "t", "x": "x", "y": "y"})
    assert list(gap.data[0].y) == pytest.approx([0.0, -0.2])
    lay = figs.layers_figure([bands, bands], names, {"title": "t", "x": "x", "y": "y", "layer": "layer {i}"})
    assert [a.text for a in lay.layout.annotations] == ["layer 0", "layer 1"]
