"""Comparing runs, seed bands, the init sweep, the live FFN block, the FFN figures (no torch)."""

import math
import statistics

import mpmath
import numpy as np
import pytest

from gelu_lab import activations
from gelu_lab.figures import ffn as figs
from gelu_lab.nn import ffn, train_job as jobs
from gelu_lab.commands import run_words as W
from gelu_lab.nn import runs as R
from gelu_lab.stats import runsets as S

pytestmark = pytest.mark.mpmath_dps(40)  # the precision of every mpmath oracle here, test by test (tests/conftest.py)

CFG = {"preset": "quick", "n_layer": 2, "n_embd": 64, "steps": 100, "fc_init_std": 0.02, "lr": 0.001, "text_sha256": "x"}


def run(act, seed, loss, fc=0.02, curve=None, dead=None):
    metrics = {"val_loss": curve or [[0, 4.0], [100, loss]]}
    if dead:
        metrics["L0.dead"], metrics["L1.dead"] = dead
    return {"id": hash((act, seed, fc)) % 1000, "config": {**CFG, "activation": act, "seed": seed, "fc_init_std": fc},
            "final": {"val_loss_full": loss}, "metrics": metrics, "provenance": {}, "status": "done", "key": ""}


def test_compare_mean_std_rank_and_separation():
    losses = {"silu": [1.80, 1.85, 1.90], "relu": [1.86, 1.83, 1.92], "gelu": [1.95, 2.00, 2.06]}
    (g,) = W.compare([run(a, s, v) for a, vals in losses.items() for s, v in enumerate(vals)])
    rows = {r["activation"]: r for r in g["rows"]}
    for act, vals in losses.items():
        assert rows[act]["mean"] == pytest.approx(statistics.mean(vals))
        assert rows[act]["std"] == pytest.approx(statistics.stdev(vals))
    assert [r["activation"] for r in g["rows"]] == ["silu", "relu", "gelu"]  # means 1.85 < 1.87 < 2.003
    # separated: the paired 95 % t interval of the per-seed differences to the best excludes 0
    for act in ("relu", "gelu"):
        d = [a - b for a, b in zip(losses[act], losses["silu"])]
        half = stats.t.ppf(0.975, len(d) - 1) * statistics.stdev(d) / len(d) ** 0.5
        assert rows[act]["separated"] is bool(statistics.mean(d) - half > 0), act
    assert rows["gelu"]["separated"] is True and rows["relu"]["separated"] is False
    assert "within the seed-to-seed noise of relu" in g["verdict"] and "every seed" not in g["verdict"]
    assert rows["relu"]["behind"] == "2/3" and rows["gelu"]["behind"] == "3/3"  # paired by seed against silu


def test_a_gap_beyond_the_1_sigma_bands_can_still_be_within_the_paired_noise():
    """The FFN page's ranking and its GELU-against-X pairs must give one verdict: two seeds whose
    bands do not overlap but whose paired interval holds 0 are not separated."""
    (g,) = W.compare([run("silu", 0, 1.95), run("silu", 1, 1.80), run("gelu", 0, 2.00), run("gelu", 1, 2.01)])
    rows = {r["activation"]: r for r in g["rows"]}
    assert rows["gelu"]["gap"] > rows["gelu"]["spread"] and rows["gelu"]["separated"] is False


def test_compare_one_seed_says_spread_unknown():
    (g,) = W.compare([run("relu", 0, 1.9), run("gelu", 0, 2.0)])
    assert all(not r["separated"] for r in g["rows"]) and "one seed" in g["verdict"]


def test_groups_split_by_everything_but_activation_and_seed():
    runs = [run("gelu", 0, 2.0), run("gelu", 0, 1.9, fc="unit"), run("relu", 1, 1.8, fc="unit")]
    assert sorted(len(v) for v in S.groups(runs).values()) == [1, 2]


def test_bands_mean_min_max_and_layer_mean():
    runs = [run("gelu", 0, 2.0, curve=[[0, 4.0], [50, 3.0], [100, 2.0]], dead=([[0, 0.0], [100, 0.1]], [[0, 0.2], [100, 0.3]])),
            run("gelu", 1, 2.2, curve=[[0, 4.2], [50, 3.4], [100, 2.2]], dead=([[0, 0.0], [100, 0.3]], [[0, 0.0], [100, 0.1]]))]
    b = R.bands(runs, "val_loss")["gelu"]
    assert b["step"] == [0, 50, 100] and b["n"] == 2
    assert b["mean"] == pytest.approx([4.1, 3.2, 2.1]) and b["lo"] == [4.0, 3.0, 2.0] and b["hi"] == [4.2, 3.4, 2.2]
    d = R.bands(runs, "dead")["gelu"]  # mean over the two layers, then over seeds
    assert d["mean"] == pytest.approx([0.05, 0.2]) and d["lo"] == pytest.approx([0.0, 0.2]) and d["hi"] == pytest.approx([0.1, 0.2])
    assert R.bands(runs, "dead", 1)["gelu"]["mean"] == pytest.approx([0.1, 0.2])


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


# --- the paired interval and the learning-rate experiment -------------------------


from hypothesis import given, settings, strategies as st  # noqa: E402
from scipy import stats  # noqa: E402


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(1.5, 2.5), st.floats(-0.05, 0.05)), min_size=2, max_size=12),
       st.sampled_from([0.8, 0.9, 0.95, 0.99]))
def test_paired_interval_is_scipys_paired_t_interval(pairs, level):
    b = {i: base for i, (base, _) in enumerate(pairs)}
    a = {i: base + d for i, (base, d) in enumerate(pairs)}
    p = S.paired(a, b, level)
    ci = stats.ttest_rel(list(a.values()), list(b.values())).confidence_interval(level)
    if not math.isfinite(ci.low):  # every difference equal: no spread, scipy gives nan
        assert p["half"] == pytest.approx(0.0, abs=1e-12)
        return
    assert p["n"] == len(pairs) and p["lo"] == pytest.approx(ci.low, abs=1e-12) and p["hi"] == pytest.approx(ci.high, abs=1e-12)
    assert p["verdict"] == ("within" if ci.low <= 0 <= ci.high else "larger")


def test_paired_uses_the_shared_seeds_and_knows_too_few():
    p = S.paired({0: 2.0, 1: 2.1, 2: 2.2}, {1: 2.0, 2: 2.05, 3: 9.0})
    assert p["seeds"] == [1, 2] and p["diffs"] == pytest.approx([0.1, 0.15]) and p["mean"] == pytest.approx(0.125)
    # two seeds: t_{0.975, 1} = 12.706; s = 0.0354: the interval is wide
    assert p["half"] == pytest.approx(12.7062047 * statistics.stdev([0.1, 0.15]) / math.sqrt(2), rel=1e-6) and p["verdict"] == "within"
    one = S.paired({0: 2.0}, {0: 1.0})
    assert one["verdict"] == "unknown" and one["mean"] == 1.0 and math.isnan(one["lo"])


def lr_run(act, seed, loss, lr, width=64, fc=0.02):
    r = run(act, seed, loss, fc)
    r["config"] = {**r["config"], "lr": lr, "n_embd": width}
    r["id"] = hash((act, seed, fc, lr, width)) % 100000
    return r


def test_experiment_picks_each_rate_on_seed_0_and_pairs_the_seeds_at_it():
    runs = [lr_run("gelu", 0, 2.00, 1e-3), lr_run("gelu", 0, 1.90, 2e-3), lr_run("relu", 0, 1.95, 1e-3), lr_run("relu", 0, 1.99, 2e-3)]
    runs += [lr_run("gelu", s, 1.90 - 0.01 * s, 2e-3) for s in (1, 2, 3)] + [lr_run("relu", s, 1.97 - 0.01 * s, 1e-3) for s in (1, 2, 3)]
    runs += [lr_run("gelu_tanh", s, 1.91, 2e-3) for s in (0, 1)]  # not swept: the rate its runs use
    runs += [lr_run("gelu", s, 1.8, 2e-3, width=128) for s in (0, 1)] + [lr_run("relu", s, 1.85 + 0.01 * s, 1e-3, width=128) for s in (0, 1)]
    runs += [lr_run("relu", 1, 5.0, 2e-3)]  # a seed at a rate not chosen: in no cell
    (e,) = S.experiments(runs)
    assert e["lr"] == {"gelu": 2e-3, "relu": 1e-3, "gelu_tanh": 2e-3}
    assert e["sweep"] == {"gelu": {1e-3: 2.00, 2e-3: 1.90}, "relu": {1e-3: 1.95, 2e-3: 1.99}}
    main, wide = e["cells"]
    assert main["main"] and main["width"] == 64 and not wide["main"] and wide["width"] == 128
    duel = {p["b"]: p for p in main["paired"]}
    # seeds 0..3 of each at its rate: GELU 1.90, 1.89, 1.88, 1.87 against ReLU 1.95, 1.96, 1.95, 1.94
    assert duel["relu"]["diffs"] == pytest.approx([-0.05, -0.07, -0.07, -0.07]) and duel["relu"]["verdict"] == "larger"
    assert duel["gelu_tanh"]["n"] == 2
    assert {p["b"]: p["n"] for p in wide["paired"]} == {"relu": 2}
    assert {r["activation"]: r["n"] for r in main["rows"]} == {"gelu": 4, "relu": 4, "gelu_tanh": 2}
    # no sweep at all: no experiment
    assert S.experiments([run("gelu", 0, 2.0), run("relu", 0, 1.9)]) == []


def test_trend_words():
    from gelu_lab.nn.ffn_view import trend_word

    def pts(*ms, v="larger"):
        return [{"width": w, "mean": m, "verdict": v} for w, m in zip((64, 128, 256), ms)]

    assert trend_word(pts(-0.01, -0.03)) == "grows" and trend_word(pts(-0.03, -0.01)) == "shrinks"
    assert trend_word(pts(0.02, -0.01)) == "flips" and trend_word(pts(0.02, -0.01, v="within")) == "noise"
    ends = pts(0.095, -0.001)
    ends[1]["verdict"] = "within"  # a lead that shrinks into the noise has not flipped
    assert trend_word(ends) == "shrinks"
    assert trend_word(pts(0.02)) == "one"
