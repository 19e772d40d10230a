"""The Interview page's checks (gelu_lab.analysis.interview): every computed figure
against an independent computation here (mpmath, SciPy, brute force over the 16-bit
formats, torch), the stated figures against the same, the quiz bookkeeping, and the
content: at least 12 questions, the same blocks in zh and en."""

from __future__ import annotations

import functools
import json
import math
import re

import mpmath
import numpy as np
import pytest
from scipy import optimize, special

from gelu_lab.analysis import interview as iv
from gelu_lab.app.pages.interview.view import show
from gelu_lab.app import content
from gelu_lab.floats import FORMATS

pytestmark = pytest.mark.mpmath_dps(40)  # the precision of every mpmath oracle here, test by test (tests/conftest.py)


def mp_gelu(x):
    x = mpmath.mpf(x)
    return x * mpmath.ncdf(x)


def mp_grad(x):
    x = mpmath.mpf(x)
    return mpmath.ncdf(x) + x * mpmath.npdf(x)


def close(a, b, tol):
    return abs(float(a) - float(b)) <= tol


@functools.cache
def computed(qid):
    """The figures of one question's Check (computed once for this module)."""
    return {r["key"]: r["value"] for r in iv.check(qid)}


def test_every_stated_figure_is_what_mpmath_gives():
    """The figures an answer quotes, each against mpmath (not against the code under test)."""
    x0 = mpmath.findroot(mp_grad, -0.75)
    xm = mpmath.sqrt(2)
    gate = lambda c: lambda x: 0.5 * (1 + mpmath.tanh(mpmath.sqrt(2 / mpmath.pi) * (x + c * x**3))) - mpmath.ncdf(x)  # noqa: E731
    truth = {
        "grad0": mp_grad(0), "grad2_0": 2 * mpmath.npdf(0), "min_x": x0, "min_y": mp_gelu(x0),
        "gmax_x": xm, "gmax": mp_grad(xm), "gmin_x": -xm, "gmin": mp_grad(-xm), "gelu1": mp_gelu(1),
        "gap": -mp_gelu(x0), "gap_x": -x0, "gap_10": -mp_gelu(x0) / 10, "sig_grad_max": mpmath.mpf(1) / 4,
        "mean_gelu_grad": mpmath.quad(lambda z: mp_grad(z) * mpmath.npdf(z), [-mpmath.inf, 0, mpmath.inf]),
    }
    for qid, q in iv.QUESTIONS.items():
        for s in q.quantities:
            if s.key in truth:
                assert iv.agrees(float(truth[s.key]), s.stated), (qid, s.key, s.stated, truth[s.key])
    # with the classic c the two peaks of the gate error on x > 0 are equally high (minimax);
    # with the series c they are not
    k = mpmath.sqrt(2 / mpmath.pi)
    for c, equal in ((mpmath.mpf("0.044715"), True), (2 / (3 * mpmath.pi) - mpmath.mpf(1) / 6, False)):
        de = lambda x: 0.5 * k * (1 + 3 * c * x**2) / mpmath.cosh(k * (x + c * x**3)) ** 2 - mpmath.npdf(x)  # noqa: E731
        xs = np.arange(0.05, 4.0, 0.05)
        signs = np.sign([float(de(t)) for t in xs])
        roots = [optimize.brentq(lambda t: float(de(t)), xs[i], xs[i + 1]) for i in np.flatnonzero(signs[:-1] != signs[1:])]
        peaks = [abs(gate(c)(r)) for r in roots]
        assert (len(peaks) == 2 and abs(peaks[0] - peaks[1]) < 1e-3 * peaks[0]) == equal


def test_derivative_landmarks_match_mpmath():
    v = computed("grad0") | computed("dip") | computed("grad_range")
    x0 = mpmath.findroot(mp_grad, -0.75)
    assert v["grad0"] == 0.5 and close(v["grad2_0"], mpmath.sqrt(2 / mpmath.pi), 1e-15)
    assert (v["relu_left"], v["relu_right"]) == (0.0, 1.0)
    assert close(v["min_x"], x0, 1e-12) and close(v["min_y"], mp_gelu(x0), 1e-15)
    assert close(v["gmax_x"], math.sqrt(2), 1e-12) and close(v["gmax"], mp_grad(mpmath.sqrt(2)), 1e-14)
    assert close(v["gmin"], 1 - v["gmax"], 1e-14)


def test_dropout_monte_carlo_is_the_seeded_brute_force():
    v = computed("dropout")
    u = np.random.default_rng(iv.SEED).random(iv.DROPOUT_N)
    draws = 1.0 * (u < float(mpmath.ncdf(1)))
    assert close(v["mc_mean"], draws.mean(), 1e-12)
    assert close(v["mc_se"], draws.std() / math.sqrt(iv.DROPOUT_N), 1e-9)
    assert close(v["gelu1"], mp_gelu(1), 1e-15) and v["dropout1"] == pytest.approx(0.9)
    assert abs(v["mc_mean"] - v["gelu1"]) < 4 * v["mc_se"]


def _mp_max(f, a, b):
    """max |f| on [a, b]: grid of step 0.01, then mpmath's root of f' at the top peak."""
    x = [a + 0.01 * i for i in range(int(round((b - a) / 0.01)) + 1)]
    i = max(range(len(x)), key=lambda j: abs(f(mpmath.mpf(x[j]))))
    t = mpmath.findroot(lambda s: mpmath.diff(f, s), x[i])
    return abs(f(t)), abs(t)


def test_approximation_gaps_match_mpmath():
    k = mpmath.sqrt(2 / mpmath.pi)
    tanh_err = lambda x: 0.5 * x * (1 + mpmath.tanh(k * (x + mpmath.mpf("0.044715") * x**3))) - mp_gelu(x)  # noqa: E731
    silu_err = lambda x: x / (1 + mpmath.exp(-x)) - mp_gelu(x)  # noqa: E731
    quick_err = lambda x: x / (1 + mpmath.exp(-mpmath.mpf("1.702") * x)) - mp_gelu(x)  # noqa: E731
    v = computed("tanh_vs_erf") | computed("silu")
    m, at = _mp_max(tanh_err, 0, 4)
    assert close(v["tanh_max"], m, 1e-12) and close(v["tanh_x"], at, 1e-6)
    m, at = _mp_max(silu_err, 0, 4)
    assert close(v["silu_max"], m, 1e-12) and close(v["silu_x"], at, 1e-6)
    assert close(v["quick_max"], _mp_max(quick_err, -4, 4)[0], 1e-12)
    assert close(v["sigmoid_max"], v["quick_max"], 1e-15)


def test_minimax_gate_constants_are_independent_scipy_fits():
    """c and beta minimising max |gate - Phi|, found here by a plain dense-grid minimax."""
    x = np.linspace(0, 6, 60001)  # the gate errors are odd: [0, 6] covers [-4, 4]'s peaks
    Phi = special.ndtr(x)
    tanh_obj = lambda c: np.max(np.abs(0.5 * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + c * x**3))) - Phi))  # noqa: E731
    sig_obj = lambda b: np.max(np.abs(special.expit(b * x) - Phi))  # noqa: E731
    c = optimize.minimize_scalar(tanh_obj, bounds=(0.03, 0.06), method="bounded", options={"xatol": 1e-10}).x
    b = optimize.minimize_scalar(sig_obj, bounds=(1.0, 2.5), method="bounded", options={"xatol": 1e-10}).x
    v = computed("c044715") | computed("silu")
    assert close(v["c_gate"], c, 2e-7) and close(v["beta_gate"], b, 2e-6)
    assert close(v["gate_max"], tanh_obj(c), 1e-8) and close(v["beta_gate_max"], sig_obj(b), 1e-8)
    assert close(v["c_series"], 2 / (3 * math.pi) - 1 / 6, 1e-16)
    assert round(v["c_gate"], 6) == 0.044715 and round(v["beta_gate"], 3) == 1.702
    assert v["gelu_max_fit"] < v["gelu_max_classic"]  # the GELU fit beats 0.044715 on GELU itself


def test_sigmoid_and_dead_unit_figures():
    v = computed("sigmoid_ffn") | computed("dead_relu")
    sig = lambda t: 1 / (1 + mpmath.exp(-t))  # noqa: E731
    mean_sig_grad = mpmath.quad(lambda z: sig(z) * (1 - sig(z)) * mpmath.npdf(z), [-mpmath.inf, 0, mpmath.inf])
    assert close(v["mean_sig_grad"], mean_sig_grad, 1e-10) and close(v["mean_gelu_grad"], 0.5, 1e-10)
    assert close(v["sig_4"], sig(4), 1e-15) and close(v["gelu_4"], mp_gelu(4), 1e-14) and v["sig0"] == 0.5
    z = np.random.default_rng(0).normal(0.0, 1.0, 1000)
    assert v["relu_dead"] == np.mean(z <= 0) and v["gelu_dead"] == 0.0 and v["p_dead"] == 0.5
    # GELU' underflows to 0 where x phi(x) + Phi(x) drops below half the smallest subnormal
    for key, tiny in (("edge64", mpmath.mpf(2) ** -1075), ("edge32", mpmath.mpf(2) ** -150)):
        edge = mpmath.findroot(lambda t: -mp_grad(t) - tiny, v[key])  # GELU' < 0 there
        assert abs(v[key] - float(edge)) < 1e-3 * abs(float(edge)), key


def test_cancellation_figures():
    v = computed("cancellation")
    assert close(v["true_m10"], mp_gelu(-10), 1e-36) and v["naive_m10"] == 0.0 and v["naive_rel"] == 1.0
    assert v["erfc_rel"] < 1e-13
    # naive form is 0 where erf(x/sqrt2) rounds to -1: 1 + erf < half an ulp of 1 below 1
    for key, half in (("naive_edge64", 2.0**-54), ("naive_edge32", 2.0**-25)):
        edge = float(mpmath.findroot(lambda t: 2 * mpmath.ncdf(t) - half, v[key]))
        assert abs(v[key] - edge) < 5e-3, (key, v[key], edge)
    x = np.array([-9.0, -6.0, -1.0])
    assert np.all(iv.naive_gelu(x[:1]) == 0) and np.all(iv.naive_gelu(x[:2], "float32") == 0)


def test_framework_names_and_torch_default():
    import torch

    v = computed("bert")
    assert v["torch_default"] == torch.nn.GELU().approximate == "none"
    y = float(torch.nn.GELU()(torch.tensor([1.0], dtype=torch.float64)))
    assert close(y, mp_gelu(1), 1e-15)  # the exact form: the tanh form is 1.6e-4 away at x = 1
    assert (v["hf_gelu"], v["hf_gelu_new"], v["hf_pytorch_tanh"], v["hf_quick"]) == ("gelu", "gelu_tanh", "gelu_tanh", "gelu_sigmoid")


def _all(dtype):
    return np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(FORMATS[dtype].dtype)


def _rounded(f64, x, fmt, exact):
    """f rounded to the format: float64 values rounded by ml_dtypes; where the float64
    value is within 1e-13 (relative) of a rounding midpoint, the mpmath value decides."""
    with np.errstate(all="ignore"):
        y = f64(x.astype(np.float64))
        r = y.astype(fmt.dtype)
        lo, hi = r.astype(np.float64), np.nextafter(r, np.inf).astype(np.float64)
        near = np.isfinite(y) & (y != 0) & (np.abs(np.abs(y - lo) - np.abs(y - hi)) < 1e-13 * np.abs(y) + 1e-320)
    for i in np.flatnonzero(near):
        r[i] = fmt.dtype.type(float(exact(mpmath.mpf(float(x[i])))))  # mpmath -> nearest double -> format
    return r


def test_16bit_counts_by_brute_force():
    from gelu_lab.reference import correctly_rounded

    v = computed("tanh_vs_erf") | computed("bf16")
    k = math.sqrt(2 / math.pi)
    exact = lambda x: 0.5 * x * special.erfc(-x / math.sqrt(2))  # noqa: E731
    tanh = lambda x: x * special.expit(2 * k * (x + 0.044715 * x**3))  # noqa: E731
    for dt in ("bfloat16", "float16"):
        x, fmt = _all(dt), FORMATS[dt]
        a = _rounded(exact, x, fmt, mp_gelu).astype(np.float64)
        b = _rounded(tanh, x, fmt, lambda t: 0.5 * t * (1 + mpmath.tanh(mpmath.sqrt(2 / mpmath.pi) * (t + mpmath.mpf("0.044715") * t**3)))).astype(np.float64)
        same = (a == b) | (np.isnan(a) & np.isnan(b))
        assert v[f"differ_{dt}"] == np.count_nonzero(~same), dt
    x = _all("bfloat16")
    with np.errstate(invalid="ignore"):
        xf = x.astype(np.float64)
    y = correctly_rounded("gelu", x).astype(np.float64)
    zero = (y == 0) & (xf != 0) & np.isfinite(xf)
    assert v["bf16_zero"] == np.count_nonzero(zero) == v["bf16_zero_tail"] + v["bf16_zero_tiny"]
    # the tail: every bfloat16 x at or below the edge gives 0, the next one above does not
    tail = xf[np.isfinite(xf) & (xf < -1)]
    assert np.all(y[np.isfinite(xf) & (xf <= v["bf16_zero_edge"])] == 0)
    assert float(mp_gelu(tail[tail > v["bf16_zero_edge"]].max())) < -2.0**-134 / 1.0  # above the edge: not below half the min subnormal


def _ordered(a):
    bits = a.view(np.uint16).astype(np.int64)
    return np.where(bits & 0x8000, -(bits & 0x7FFF), bits)


def test_torch_bf16_ulp_figures_by_brute_force():
    import torch

    from gelu_lab.reference import correctly_rounded

    v = computed("bf16")
    x = _all("bfloat16")
    want = correctly_rounded("gelu", x)
    got = torch.nn.functional.gelu(torch.from_numpy(x.view(np.uint16).astype(np.int16)).view(torch.bfloat16)).view(torch.int16).numpy().astype(np.uint16).view(x.dtype)
    with np.errstate(invalid="ignore"):
        g, w = got.astype(np.float64), want.astype(np.float64)
    flush = (g == 0) & (w != 0)  # counted apart (no ULP distance), as the measurement does
    ok = np.isfinite(g) & np.isfinite(w) & ~flush
    ulp = np.abs(_ordered(got) - _ordered(want))[ok]
    assert v["torch_max_ulp"] == ulp.max()
    assert v["torch_flush"] == np.count_nonzero(flush & np.isfinite(w))
    assert v["torch_version"] == torch.__version__
    assert v["ours_max_ulp"] == 0


def test_agrees_uses_half_a_unit_of_the_last_stated_digit():
    assert iv.agrees(-0.16997, "-0.1700") and not iv.agrees(-0.16994, "-0.1700")
    assert iv.agrees(0.534, "0.5") and not iv.agrees(0.56, "0.5")
    assert iv.agrees("none", "none") and not iv.agrees("tanh", "none") and iv.agrees(1.0, None) is None
    assert show(-0.0000001, ".4f") == "0.0000" and show(12, "d") == "12"
    with pytest.raises(ValueError):
        iv.check("nope")


def _quiz_js(calls: list) -> list:
    """[state(...) and score(...)] of assets/quiz.js for each call (qids, reveal, knew, didnt, reset), run by node."""
    import subprocess

    from gelu_lab.app import ASSETS

    script = ("const q = require(process.argv[1]); const calls = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
              "console.log(JSON.stringify(calls.map(([ids, known, r, k, d, z]) => { const s = q.state(ids, known, r, k, d, z);"
              " return [s, q.score(s, known.length)]; })))")
    known = list(iv.QUESTIONS)
    out = subprocess.run(["node", "-e", script, str(ASSETS / "quiz.js")], input=json.dumps([[c[0], known, *c[1:]] for c in calls]),
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_quiz_state_from_click_times():
    qids = list(iv.QUESTIONS)
    n = len(qids)

    def times(clicks):  # {qid: ms} -> one time per question, -1 for never
        return [clicks.get(q, -1) for q in qids]

    reveal, knew, didnt = {"grad0": 10, "silu": 60}, {"grad0": 20, "bf16": 40}, {"dip": 30, "bf16": 50}
    junk = ["abc", None, float("nan"), True, [1], {"a": 1}]  # NaN travels as JSON null
    (d, s), (_, reset), (after, _), (j, _) = _quiz_js([
        (qids, times(reveal), times(knew), times(didnt), -1),
        (qids, times(reveal), times(knew), times(didnt), 70),
        (qids, times({**reveal, "dip": 80}), times(knew), times({**didnt, "silu": 90}), 55),
        (qids, [None if x != x else x for x in (junk * n)[:n]], [None if x != x else x for x in (junk * n)[:n]], times({"dip": 5}), "x"),
    ])
    assert s == {"knew": 1, "didnt": 2, "left": n - 3}  # bf16: "didn't" came last
    assert set(d["revealed"]) == {"grad0", "dip", "bf16", "silu"}  # marking reveals
    assert d["marks"] == {"grad0": "knew", "dip": "didnt", "bf16": "didnt"}
    assert reset == {"knew": 0, "didnt": 0, "left": n}
    assert after["revealed"] == [q for q in qids if q in ("dip", "silu")] and after["marks"] == {"silu": "didnt"}
    # junk from the browser counts as never clicked, never an error
    assert j == {"revealed": ["dip"], "marks": {"dip": "didnt"}}


def test_content_has_every_question_in_both_languages():
    from gelu_lab.app.pages.interview.view import _ours, _said

    en, zh = content.text("en", "interview"), content.text("zh", "interview")
    assert set(en) == set(zh)
    assert len(iv.QUESTIONS) >= 12
    for qid, q in iv.QUESTIONS.items():
        for t in (en, zh):
            assert t[f"q.{qid}"] and t[f"a.{qid}"]
            for k in q.keys:
                assert t[f"k.{k}"]
        # every stated figure is quoted by the answer, and every placeholder of an answer gets filled
        # (stated, or quick to compute: the slow figures appear only in the Check table)
        said = _said(qid)
        for s in q.quantities:
            if s.stated is not None:
                assert "{" + s.key + "}" in en[f"a.{qid}"] and "{" + s.key + "}" in zh[f"a.{qid}"], (qid, s.key)
        for t, lang in ((en, "en"), (zh, "zh")):
            filled = content.fill(t[f"a.{qid}"], n="1", **said, **_ours(qid, t, lang))
            assert not re.findall(r"\{[a-z_0-9]+\}", filled), (qid, re.findall(r"\{[a-z_0-9]+\}", filled))


def test_a_check_is_computed_once_per_process(monkeypatch):
    """Its figures depend only on gelu_lab and the installed packages: a second Check (another
    click, another reader) is answered from the first, each caller with rows of its own."""
    import dataclasses

    calls = []
    q = iv.QUESTIONS["relu_gap"]
    monkeypatch.setitem(iv.QUESTIONS, "relu_gap", dataclasses.replace(q, compute=lambda: calls.append(1) or q.compute()))
    iv._checked.cache_clear()
    iv.values.cache_clear()
    try:
        a, b = iv.check("relu_gap"), iv.check("relu_gap")
        assert a == b and a is not b and len(calls) == 1
        a[0]["value"] = None
        assert iv.check("relu_gap")[0]["value"] == computed("relu_gap")["gap"]
        assert iv.compute("relu_gap") and len(calls) == 2  # compute() is "computed now"
    finally:
        iv._checked.cache_clear()
        iv.values.cache_clear()


def test_no_exactly_zero_gradient_but_a_tiny_one():
    """Questions 1 and 10: GELU'(-5), by mpmath, is not zero but about -7e-6."""
    want = mp_grad(-5)
    for qid in ("why", "dead_relu"):
        assert computed(qid)["grad_m5"] == pytest.approx(float(want), rel=1e-12)
    assert -1e-5 < float(want) < -5e-6


def test_the_approximations_in_16_bits_and_in_the_real_bert():
    """The sigmoid form's peak in float16 steps (mpmath's error over the spacing numpy gives at
    GELU's value there), and the nearest neighbours the shipped probe kept, read from its file."""
    from gelu_lab.results import shipped

    x = optimize.minimize_scalar(lambda t: -abs(t * special.expit(1.702 * t) - t * special.ndtr(t)), bounds=(1.5, 3.0), method="bounded",
                                 options={"xatol": 1e-12}).x
    err = abs(mpmath.mpf(x) / (1 + mpmath.exp(-1.702 * mpmath.mpf(x))) - mp_gelu(x))
    steps = float(err) / float(np.spacing(np.float16(float(mp_gelu(x)))))
    got = {**computed("tanh_vs_erf"), **iv.differ16()}
    assert got["sigmoid_f16_steps"] == pytest.approx(steps, rel=1e-4) and round(steps) == 10
    doc = json.loads((shipped.DATA / shipped.FILES["probe"]).read_text(encoding="utf-8"))
    kept = {w["activation"]: w["nn_top1"] for w in doc["result"]["swaps"] if w["layer"] == "all"}
    assert (got["tanh_nn"], got["sigmoid_nn"]) == (kept["gelu_tanh"], kept["gelu_sigmoid"]) and kept["gelu_tanh"] > kept["gelu_sigmoid"]


def test_the_gated_ffn_keeps_the_parameter_count():
    """2 d x 4d weights against 3 d x (2/3) 4d; LLaMA-7B's d_ff by its code's rule (hidden_dim =
    int(2 * 4d / 3), then up to a multiple of 256) and by LlamaConfig's defaults, read again."""
    import transformers

    g = computed("gated")
    d = transformers.LlamaConfig().hidden_size
    assert g["plain_params"] == 2 * 4 and g["gated_params"] == pytest.approx(3 * 8 / 3)
    assert g["llama_rule"] == 256 * -(-int(8 * d / 3) // 256) == transformers.LlamaConfig().intermediate_size == g["llama_dff"] == 11008


def test_post_and_pre_ln_first_layer_gradients_are_torch_s():
    from gelu_lab.analysis import gradflow
    from test_gradflow import torch_flow

    g = computed("post_ln")
    for arch in ("preln", "postln"):
        for name in ("gelu", "relu"):
            want = torch_flow(name, gradflow.MAX_DEPTH, arch, width=gradflow.WIDTH, batch=gradflow.BATCH, seed=0)[0]
            assert g[f"{arch}_{name}"] == pytest.approx(want, rel=1e-9), (arch, name)
    assert min(g[k] for k in ("preln_gelu", "preln_relu", "postln_gelu", "postln_relu")) > 0.1  # "neither vanishes"


def test_why_swiglu_quotes_the_paper_record_and_our_experiment_or_says_it_has_none(monkeypatch):
    """The gated answer's numbers: Shazeer's from analysis.glu_paper.PAPER, ours from the shipped
    experiment's paired gaps (nan and the 'none' sentence when the shipped set has no gated runs)."""
    from gelu_lab.analysis import glu_paper, interview_models
    from gelu_lab.app.pages.interview.view import _ours

    v = interview_models.gated()
    assert v["paper_swiglu"] == glu_paper.PAPER["log_ppl"]["swiglu"][0] == 1.944 and v["paper_steps_long"] == 524288
    assert v["paper_gated_spread"] == pytest.approx(abs(1.633 - 1.636))
    en = content.text("en", "interview")
    if v["ours_swiglu_verdict"] == "none":
        assert math.isnan(v["ours_swiglu"]) and _ours("gated", en, "en") == {"ours": en["gated.ours.none"]}
    else:
        assert v["ours_swiglu_lo"] <= v["ours_swiglu"] <= v["ours_swiglu_hi"] and "95% interval" in _ours("gated", en, "en")["ours"]
    fake = {"ours_swiglu": -0.02, "ours_swiglu_lo": -0.03, "ours_swiglu_hi": -0.01, "ours_swiglu_verdict": "larger",
            "ours_geglu": -0.005, "ours_geglu_lo": -0.02, "ours_geglu_hi": 0.01, "ours_geglu_verdict": "within", "ours_n": 5}
    monkeypatch.setattr(iv, "values", lambda qid: {**v, **fake})
    said = _ours("gated", en, "en")["ours"]
    assert "SwiGLU minus GELU is -0.0200 nats/char, 95% interval [-0.0300, -0.0100] (beyond the seed-to-seed noise)" in said
    assert en["gated.verdict.within"] in said and "5 seeds" in said
