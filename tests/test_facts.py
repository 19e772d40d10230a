"""Facts the pages state, against independent ground truth (mpmath, scipy), and slips they must not repeat.

Issue 19: 1.702 is not the slope-matching constant of the sigmoid gate (that is
4/sqrt(2 pi) ~ 1.596) but, to three decimals, the beta that makes sigmoid(beta x)
the minimax approximation of Phi(x); the sigmoid page states the slopes and gaps
as computed numbers. |GELU(x) - ReLU(x)| = |x| Phi(-|x|) is even in x.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy import optimize, special

from gelu_lab.analysis import theory
from gelu_lab.app import content

pytestmark = pytest.mark.mpmath_dps(40)  # the precision of every mpmath oracle here, test by test (tests/conftest.py)

BETA = 1.702


def _mp_gate_gap(beta) -> float:
    """max over x of |sigmoid(beta x) - Phi(x)| by mpmath: a coarse grid, then the
    zeros of the derivative beta sigma'(beta x) - phi(x) next to each local peak."""
    beta = mpmath.mpf(beta)
    sig = lambda t: 1 / (1 + mpmath.exp(-beta * t))  # noqa: E731
    err = lambda t: sig(t) - mpmath.ncdf(t)  # noqa: E731
    d_err = lambda t: beta * sig(t) * (1 - sig(t)) - mpmath.npdf(t)  # noqa: E731
    xs = np.linspace(0.0, 8.0, 801)  # the error is odd in x: x >= 0 is enough
    e = np.abs([float(err(v)) for v in xs])
    peaks = [i for i in range(1, len(xs) - 1) if e[i] >= e[i - 1] and e[i] >= e[i + 1]]
    assert peaks
    return max(abs(float(err(mpmath.findroot(d_err, xs[i])))) for i in peaks)


def _scipy_gate_minimax() -> float:
    x = np.linspace(0.0, 8.0, 80001)
    Phi = special.ndtr(x)
    return optimize.minimize_scalar(lambda b: np.max(np.abs(special.expit(b * x) - Phi)), bounds=(1.0, 2.5),
                                    method="bounded", options={"xatol": 1e-11}).x


def test_where_1702_comes_from():
    g = theory.sigmoid_gate()
    phi0 = mpmath.npdf(0)
    assert g["phi_slope"] == pytest.approx(float(1 / mpmath.sqrt(2 * mpmath.pi)), rel=1e-15)
    assert g["sig_slope"] == pytest.approx(BETA / 4, rel=1e-15)  # sigma'(0) = 1/4
    assert g["slope_beta"] == pytest.approx(float(4 * phi0), rel=1e-15)  # beta/4 = phi(0)
    # slope matching does not give 1.702; the minimax gate does, to three decimals
    assert round(g["slope_beta"], 3) == 1.596
    assert g["gate_beta"] == pytest.approx(_scipy_gate_minimax(), abs=2e-6)
    assert round(g["gate_beta"], 3) == BETA
    assert g["gap"] == pytest.approx(_mp_gate_gap(BETA), rel=1e-6)
    assert g["gate_gap"] == pytest.approx(_mp_gate_gap(g["gate_beta"]), rel=1e-6)
    assert g["slope_gap"] == pytest.approx(_mp_gate_gap(4 * phi0), rel=1e-6)
    assert g["gate_gap"] < g["gap"] < 0.01 < g["slope_gap"]


@pytest.mark.parametrize("lang", content.LANGS)
def test_sigmoid_page_states_the_computed_constants(lang):
    from gelu_lab.app.pages.sigmoid import page as sigmoid

    t = sigmoid._t(lang)
    gates, after = t["gates.text"], t["fam.after"]
    phi0 = 1 / math.sqrt(2 * math.pi)
    # about four significant figures (the minimax beta five: 1.7017, which rounds to 1.702)
    for want in (f"{phi0:.4f}", f"{BETA / 4:.4f}", f"{4 * phi0:.4g}", f"{_scipy_gate_minimax():.4f}",
                 f"{_mp_gate_gap(BETA):.4g}", f"{_mp_gate_gap(_scipy_gate_minimax()):.4g}", f"{_mp_gate_gap(4 * phi0):.4g}",
                 f"{100 * (BETA / 4 / phi0 - 1):.4g}%"):
        assert want in gates, want
    x = np.linspace(-8.0, 8.0, 160001)
    gelu = x * special.ndtr(x)
    dist = lambda b: np.max(np.abs(x * special.expit(b * x) - gelu))  # noqa: E731
    best = optimize.minimize_scalar(dist, bounds=(1.0, 3.0), method="bounded", options={"xatol": 1e-9}).x
    assert f"{dist(BETA):.4g}" in after and f"{best:.4g}" in after
    for slip in ("slope-matching", "slope matching constant", "斜率匹配给出", "百分之一", "about a hundredth"):
        assert slip not in gates + after


def test_gelu_relu_gap_is_even():
    """|GELU(x) - ReLU(x)| = |x| Phi(-|x|): the negative side is not where they differ more."""
    gap = lambda v: abs(v * mpmath.ncdf(v) - max(v, 0))  # noqa: E731
    for v in (0.1, 0.5, 0.7518, 1.0, 2.0, 2.9):
        v = mpmath.mpf(v)
        assert gap(-v) == pytest.approx(gap(v), rel=1e-25)
        assert gap(v) == pytest.approx(v * mpmath.ncdf(-v), rel=1e-25)
    for lang, slip in (("en", "differ most"), ("zh", "差别最大")):
        assert slip not in content.text(lang, "bert")["dist.text"]


SLIPS = {  # (lang, page, block): wrong statements issue 19 found
    ("en", "gradients", "flow.text"): "as in BERT-style",
    ("zh", "gradients", "flow.text"): "BERT 类 Transformer 中的 pre-LayerNorm",
    ("en", "gradients", "flow.after"): "the setting in which BERT uses GELU",
    ("zh", "gradients", "flow.after"): "BERT 正是在这种结构中",
    ("en", "overview", "intro"): "most Transformers that followed",
    ("zh", "overview", "intro"): "之后大多数 Transformer",
    ("en", "definition", "bern.text"): "so its average is p·x",
    ("zh", "definition", "bern.text"): "与 x 无关，平均值是 p·x",
    ("en", "shell", "footer"): "every number on these pages",
    ("zh", "shell", "footer"): "每一个数字",
    ("en", "interview", "a.dropout"): "does not depend on x (E[x·m] = p·x)",
    ("zh", "interview", "a.dropout"): "与 x 无关（E[x·m] = p·x）",
}
SLIPS_39 = [  # (lang, page, block, wrong statement): what issue 39 found
    ("en", "story", "bert.text", "rely on the small negative outputs that ReLU cuts off"),
    ("zh", "story", "bert.text", "模型的权重依赖那些被 ReLU 截掉的小负输出"),
    ("en", "story", "bert.text", "(it is a close race)"),
    ("zh", "story", "bert.text", "训练前，两者不相上下"),
    ("en", "demo", "table.text", "vanish below the format's resolution"),
    ("zh", "demo", "table.text", "近似误差小于格式的分辨率，于是就看不出来了"),
    ("en", "interview", "a.tanh_vs_erf", "runs fine with the other"),
    ("zh", "interview", "a.tanh_vs_erf", "换另一种形式运行没有问题"),
    ("en", "implementation", "forms.text", "This exact form is PyTorch's default."),
    ("zh", "implementation", "forms.text", "这是 PyTorch 的默认形式。"),
    ("en", "interview", "a.why", "**No dead units.**"),
    ("zh", "interview", "a.why", "**不会出现神经元死亡。**"),
    ("zh", "bert", "dist.after", "GELU 的大部分工作发生在负半轴"),
    ("en", "story", "large.text", "in small networks"),
    ("zh", "story", "large.text", "的小网络上"),
    ("en", "story", "after.text", "**GPT-2 and GPT-3** compute"),
    ("zh", "story", "after.text", "**GPT-2 和 GPT-3** 用"),
    ("en", "overview", "used.text", "**GPT-2** and GPT-3: the tanh"),
    ("zh", "overview", "used.text", "**GPT-2** 与 GPT-3：用"),
    ("en", "misconceptions", "note.gelu_lower_loss.unsettled", "(T5: 1.983"),
    ("zh", "misconceptions", "note.gelu_lower_loss.unsettled", "（T5：65k"),
    ("en", "interview", "a.ffn_gain", "Shazeer 2020, T5: log-perplexity"),
    ("zh", "interview", "a.ffn_gain", "Shazeer 2020 的 T5 实验"),
    ("zh", "ffn", "intro", "本页不讲道理"),
    ("zh", "gradients", "ride.text", "断崖"),
    ("en", "gradients", "ride.text", "cliff edge"),
    ("zh", "story", "after.text", "GELU 活在门控结构之中"),
    ("zh", "interview", "a.bf16", "冲成"),
    ("zh", "definition", "bern.text", "以固定概率 p = {keep} 保留"),
    ("en", "definition", "bern.text", "with a fixed probability p = {keep}"),
    ("zh", "story", "shape.text", "GELU 就变成了 ReLU"),
    ("en", "story", "shape.text", "for large |x| GELU becomes ReLU"),
    ("zh", "demo", "intro", "种子示例"),
    ("en", "interview", "a.bert", "According to Hugging Face transformers (docstrings in its activations.py)"),
]


@pytest.mark.parametrize("where", sorted(SLIPS))
def test_slip_is_gone(where):
    lang, page, block = where
    assert SLIPS[where] not in content.text(lang, page)[block]


@pytest.mark.parametrize("lang,page,block,slip", SLIPS_39)
def test_issue_39_slip_is_gone(lang, page, block, slip):
    assert slip not in content.text(lang, page)[block]


def test_readme_names_the_models_whose_ffn_default_is_gelu():
    """README line 5 listed T5 v1.0, whose FFN activation is ReLU (T5Config's default: the
    configuration of T5 v1.0; Raffel et al. 2020 use ReLU)."""
    from pathlib import Path

    import transformers

    intro = Path(__file__).parents[1].joinpath("README.md").read_text(encoding="utf-8").split("\n\n")[1]
    assert transformers.T5Config().dense_act_fn == "relu" and transformers.T5Config().feed_forward_proj == "relu"
    assert "default FFN activation" in intro and "T5" not in intro


def test_pytorch_s_default_gelu_cancels_for_very_negative_x():
    """The Implementation page: PyTorch's default (approximate='none') is the exact form computed
    the 1 + erf way, which cancels: in float64 at x = -10 it returns 0 where x Phi(x) is about
    -7.6e-23 (mpmath), and the erfc way keeps the value."""
    import torch

    x = -10.0
    truth = float(mpmath.mpf(x) * mpmath.ncdf(x))
    got = float(torch.nn.functional.gelu(torch.tensor(x, dtype=torch.float64)))
    assert torch.nn.GELU().approximate == "none" and got == 0.0 and truth < -7e-23
    assert 0.5 * x * special.erfc(-x / math.sqrt(2)) == pytest.approx(truth, rel=1e-12)
    for lang, words in (("en", "with 1 + erf"), ("zh", "用的是第一种写法 1 + erf")):
        assert words in content.text(lang, "implementation")["forms.text"]


def test_what_rounding_to_16_bits_does_to_each_approximation():
    """The Python demo's per-form sentence: over all 65,536 inputs of bfloat16 and float16, how
    many round differently from exact GELU (float64 by SciPy, rounded once by ml_dtypes), and the
    default table's x where the error survives; the page quotes these counts and lists."""
    import ml_dtypes

    from gelu_lab.app.pages.demo import view as demo_parts

    got = demo_parts.sixteen_bit("en")
    for dtype, short in ((ml_dtypes.bfloat16, "bf16"), (np.float16, "f16")):
        x = np.arange(1 << 16, dtype=np.uint16).view(dtype).astype(np.float64)
        x = x[np.isfinite(x)]
        exact = (x * special.ndtr(x)).astype(dtype)
        tanh = (0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))).astype(dtype)
        sig = (x * special.expit(1.702 * x)).astype(dtype)
        for form, y in (("tanh", tanh), ("sig", sig)):
            assert got[f"{form}_n_{short}"] == f"{int(np.count_nonzero(y != exact)):,}", (form, short)
        xs = np.array([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0]).astype(dtype).astype(np.float64)
        e, tt, ss = ((v(xs)).astype(dtype) for v in (lambda t: t * special.ndtr(t),
                                                     lambda t: 0.5 * t * (1 + np.tanh(math.sqrt(2 / math.pi) * (t + 0.044715 * t**3))),
                                                     lambda t: t * special.expit(1.702 * t)))
        assert got[f"tanh_x_{short}"] == ", ".join(f"{v:g}" for v, a, b in zip(xs, tt, e) if a != b)
        assert got[f"sig_x_{short}"] == ", ".join(f"{v:g}" for v, a, b in zip(xs, ss, e) if a != b)
    assert got["tanh_x_bf16"] == "-3, -1"  # the bfloat16 table shows the tanh form's error at x = -3 and -1
    for lang in content.LANGS:
        text = content.fill(content.text(lang, "demo")["table.text"], **demo_parts.sixteen_bit(lang))
        assert all(got[k].split(",")[0] in text for k in ("tanh_n_bf16", "tanh_n_f16", "sig_n_bf16", "sig_n_f16", "sig_f16"))


def test_bert_s_history_is_cited_to_its_commits():
    """google-research/bert's first release (fe35475) computed erf; bee6030 switched to tanh."""
    for lang in content.LANGS:
        t = content.text(lang, "interview")
        for sha in ("fe35475", "bee6030"):
            assert f"`{sha}`" in t["a.bert"] and f"commit/{sha}" in t["sources"], (lang, sha)
