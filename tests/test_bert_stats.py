"""The probe's statistics against SciPy and brute force (no model needed)."""

import math

import numpy as np
import pytest
import torch
from scipy import stats

from gelu_lab.nn import probe as P


def _sample(seed=0, n=(3000, 64)):
    g = np.random.default_rng(seed)
    # skewed, heavy-tailed, with a few values beyond the histogram range
    x = np.concatenate([g.normal(-0.8, 1.1, n), g.gamma(2.0, 0.7, n) - 1.0], axis=0).astype(np.float32)
    x[0, :4] = [-40.0, 40.0, -32.0, 31.9999]
    return x


def test_layer_stats_match_scipy_and_brute_force():
    x = _sample()
    st = P.LayerStats(x.shape[1])
    for chunk in np.array_split(x, 7):  # streaming over uneven batches
        st.add(torch.from_numpy(chunk))
    s = st.summary()
    v = x.astype(np.float64).ravel()
    assert s["values"] == v.size and s["tokens"] == x.shape[0]
    # float32 column sums (pairwise), accumulated in float64: ~1e-7 relative
    assert s["mean"] == pytest.approx(v.mean(), rel=1e-6)
    assert s["std"] == pytest.approx(v.std(), rel=1e-6)
    assert s["skew"] == pytest.approx(stats.skew(v), abs=1e-5)
    assert s["excess_kurtosis"] == pytest.approx(stats.kurtosis(v), abs=1e-5)
    assert s["share_negative"] == np.mean(v < 0)
    assert s["share_in_minus3_0"] == np.mean((v >= -3) & (v < 0))
    assert s["share_below_minus3"] == np.mean(v < -3)
    # KS on the bin edges is a lower bound within ks_resolution of the exact value
    for key, (mu, sd) in {"ks_std_normal": (0.0, 1.0), "ks_fitted_normal": (v.mean(), v.std())}.items():
        exact = stats.kstest(v, "norm", args=(mu, sd)).statistic
        assert exact - s["ks_resolution"] - 1e-12 <= s[key] <= exact + 1e-12
    g = v * stats.norm.cdf(v)
    assert s["gelu_magnitude_from_negative"] == pytest.approx(np.abs(g[v < 0]).sum() / np.abs(g).sum(), rel=1e-5)
    assert s["units_never_positive"] == int((x.max(0) <= 0).sum())
    h = s["hist"]
    dens = np.histogram(v, bins=np.arange(P.PLOT_LO, P.PLOT_HI + h["step"] / 2, h["step"]))[0] / (v.size * h["step"])
    np.testing.assert_allclose(h["density"], dens, rtol=0, atol=1e-12)
    assert h["share_outside"] == pytest.approx(np.mean((v < P.PLOT_LO) | (v >= P.PLOT_HI)))


def test_units_never_positive_counts_units_not_values():
    x = np.full((5, 4), -1.0, np.float32)
    x[2, 1] = 0.5  # unit 1 fires once; unit 3 reaches exactly 0 (not positive)
    x[:, 3] = 0.0
    st = P.LayerStats(4)
    st.add(torch.from_numpy(x))
    assert st.summary()["units_never_positive"] == 3


def _ranks(a):
    r = np.empty(len(a))
    r[np.argsort(a, kind="stable")] = np.arange(len(a))
    return r


def test_agreement_against_brute_force():
    g = np.random.default_rng(1)
    ref = g.normal(size=(40, 8))
    emb = ref + 0.7 * g.normal(size=ref.shape)
    got = P.agreement(torch.from_numpy(ref), torch.from_numpy(emb))
    unit = lambda m: m / np.linalg.norm(m, axis=1, keepdims=True)  # noqa: E731
    cos = np.sum(unit(ref) * unit(emb), axis=1)
    assert got["cos_mean"] == pytest.approx(cos.mean(), abs=1e-12)
    assert got["cos_min"] == pytest.approx(cos.min(), abs=1e-12)
    sa, sb = unit(ref) @ unit(ref).T, unit(emb) @ unit(emb).T
    pairs = [(i, j) for i in range(40) for j in range(i + 1, 40)]
    a, b = np.array([sa[p] for p in pairs]), np.array([sb[p] for p in pairs])
    assert got["spearman"] == pytest.approx(np.corrcoef(_ranks(a), _ranks(b))[0, 1], abs=1e-9)
    nn = lambda s, i: max((j for j in range(40) if j != i), key=lambda j: s[i, j])  # noqa: E731
    assert got["nn_top1"] == pytest.approx(np.mean([nn(sa, i) == nn(sb, i) for i in range(40)]))
    same = P.agreement(torch.from_numpy(ref), torch.from_numpy(3.0 * ref))  # scale does not move anything
    assert same["cos_min"] == pytest.approx(1.0, abs=1e-12) and same["nn_top1"] == 1.0 and same["spearman"] == pytest.approx(1.0)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
def test_ordered_bits_count_ulps(dtype):
    v = torch.tensor([-3.5, -1.0, -1e-3, -0.0, 0.0, 1e-3, 1.0, 7.25], dtype=dtype)
    up = torch.nextafter(v, torch.full_like(v, math.inf))
    assert torch.equal(P._ordered(up) - P._ordered(v), torch.ones(len(v), dtype=torch.int64))
    assert P._ordered(torch.tensor([-0.0], dtype=dtype)).item() == 0 == P._ordered(torch.tensor([0.0], dtype=dtype)).item()


def test_bad_sentences_give_one_line_errors(tmp_path):
    with pytest.raises(P.ProbeError, match="no sentences"):
        P.check_sentences(["", "   ", "\t"])
    with pytest.raises(P.ProbeError, match="100000 characters"):
        P.check_sentences(["fine.", "x" * 100000])
    with pytest.raises(P.ProbeError, match="no such file"):
        P.read_text(tmp_path / "missing.txt")
    (tmp_path / "bin.txt").write_bytes(b"\xff\xfe\x00abc")
    with pytest.raises(P.ProbeError, match="not UTF-8"):
        P.read_text(tmp_path / "bin.txt")
    (tmp_path / "ok.txt").write_text("One sentence.\n\n  Two   sentences here. \n")
    assert P.read_text(tmp_path / "ok.txt") == ["One sentence.", "Two sentences here."]
