"""Statements people make about GELU, each checked by computation when asked.

    CLAIMS                  id -> Claim(id, text {"zh", "en"}, evidence)
    check(id, store=None)   -> dict: id, text, verdict, figures, note {"zh", "en"}, how
    check_all(store=None)   -> list of those, in registry order

A verdict is one of "true", "false", "depends" (on the machine or the setup:
the figures say what this machine shows) and "untested" (the evidence needs a
run or a package that is not there; ``how`` says what to run). No verdict is
stored: each evidence function computes its figures and derives the verdict
from them, every time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .. import numerics as nm

VERDICTS = ("true", "false", "depends", "untested")


@dataclass(frozen=True)
class Claim:
    id: str
    text: dict  # {"zh": ..., "en": ...}
    evidence: Callable  # (store) -> dict(verdict, figures, note {"zh","en"}, how=None)


def _ev(verdict, figures, en, zh, how=None):
    assert verdict in VERDICTS
    return {"verdict": verdict, "figures": figures, "note": {"en": en, "zh": zh}, "how": how}


# --------------------------------------------------------------------------
# evidence functions


def _values(store):
    import gelu_lab

    g2, g0, gm2 = (float(v) for v in gelu_lab.gelu(np.array([2.0, 0.0, -2.0])))
    d0 = float(gelu_lab.gelu_grad(0.0))
    ok = abs(g2 - 1.954) < 5e-4 and g0 == 0.0 and abs(gm2 + 0.046) < 5e-4 and d0 == 0.5
    f = {"gelu(2)": g2, "gelu(0)": g0, "gelu(-2)": gm2, "gelu'(0)": d0}
    return _ev("true" if ok else "false", f,
               f"GELU(2) = {g2:.6f}, GELU(0) = {g0:g}, GELU(-2) = {gm2:.6f}, GELU'(0) = {d0:g}.",
               f"GELU(2) = {g2:.6f}，GELU(0) = {g0:g}，GELU(-2) = {gm2:.6f}，GELU'(0) = {d0:g}。")


def gelu_minimum() -> tuple[float, float]:
    """(x, GELU(x)) at the minimum of GELU: the root of GELU' = Phi + x phi on [-2, 0]."""
    from scipy import optimize

    x0 = optimize.brentq(lambda t: float(nm.gelu_exact_grad(t)), -2.0, 0.0, xtol=1e-15)
    return x0, float(nm.gelu_exact(x0))


def _monotonic(store):
    x0, m = gelu_minimum()
    left, right = float(nm.gelu_exact_grad(x0 - 0.1)), float(nm.gelu_exact_grad(x0 + 0.1))
    mono = not (left < 0 < right)  # GELU' changes sign at x0: falls, then rises
    return _ev("true" if mono else "false", {"argmin": x0, "min": m, "grad_left": left, "grad_right": right},
               f"GELU falls until x = {x0:.5f} (minimum {m:.5f}), then rises: GELU'({x0 - 0.1:.3f}) = {left:.4f} < 0.",
               f"GELU 在 x = {x0:.5f} 之前下降（最小值 {m:.5f}），之后上升：GELU'({x0 - 0.1:.3f}) = {left:.4f} < 0。")


def _random(store):
    import gelu_lab

    rng = np.random.default_rng(0)
    x = rng.normal(size=4096)
    same = bool(np.array_equal(gelu_lab.gelu(x), gelu_lab.gelu(x)))
    torch_same = None
    try:
        import torch

        m = torch.nn.GELU().train()
        t = torch.from_numpy(x)
        torch_same = bool(torch.equal(m(t), m(t)))
    except ImportError:
        pass
    # the stochastic reading: x * Bernoulli(Phi(x)) averages to x Phi(x) = GELU(x)
    xv, n = 1.0, 400_000
    draws = xv * (rng.random(n) < float(nm.Phi(xv)))
    mean, se = float(draws.mean()), float(draws.std() / math.sqrt(n))
    g = float(nm.gelu_exact(xv))
    deterministic = same and torch_same is not False
    f = {"identical_numpy": same, "identical_torch_train_mode": torch_same, "mc_mean_x1": mean, "mc_stderr": se,
         "gelu(1)": g, "mc_within_4se": abs(mean - g) < 4 * se}
    return _ev("false" if deterministic else "true", f,
               f"Two evaluations are bit-identical (torch.nn.GELU in train mode too: {torch_same}). GELU is the expectation "
               f"of x*Bernoulli(Phi(x)): {n} draws at x = 1 average {mean:.4f} +- {se:.4f}, GELU(1) = {g:.4f}; no mask is drawn.",
               f"两次计算结果逐位相同（训练模式下的 torch.nn.GELU 亦然：{torch_same}）。GELU 是 x·Bernoulli(Φ(x)) 的期望："
               f"x = 1 处 {n} 次抽样均值 {mean:.4f} ± {se:.4f}，GELU(1) = {g:.4f}；训练时并不抽取掩码。")


ERROR_BOUND = 0.003  # the bound of the two "max error below 0.003" claims


def _approx_error(form):
    def ev(store):
        from .errors import error_curves

        c = error_curves(form, interval=(-4.0, 4.0))
        below = c.max_abs_error < ERROR_BOUND
        xs = " and ".join(f"x = {x:+.4f}" for x, _ in c.argmax_pair)
        return _ev("true" if below else "false", c.summary(),
                   f"Max |error| on [-4, 4] = {c.max_abs_error:.3e} at {xs}.",
                   f"[-4, 4] 上最大绝对误差 = {c.max_abs_error:.3e}，位于 {xs.replace(' and ', ' 与 ')}。")

    return ev


def _torch_default(store):
    try:
        import torch
    except ImportError:
        return _ev("untested", {}, "torch is not installed.", "未安装 torch。", "pip install torch")
    m = torch.nn.GELU()
    y = float(m(torch.tensor(1.0, dtype=torch.float64)))
    exact, tanh = float(nm.gelu_exact(1.0)), float(nm.gelu_tanh(1.0))
    is_tanh = abs(y - tanh) < abs(y - exact)
    f = {"torch": torch.__version__, "approximate": m.approximate, "gelu(1)": y, "exact(1)": exact, "tanh_form(1)": tanh}
    return _ev("true" if is_tanh else "false", f,
               f"torch {torch.__version__}: nn.GELU().approximate = {m.approximate!r}; it gives {y!r} at x = 1 "
               f"(erf form {exact!r}, tanh form {tanh!r}).",
               f"torch {torch.__version__}：nn.GELU().approximate = {m.approximate!r}；x = 1 处输出 {y!r}"
               f"（erf 形式 {exact!r}，tanh 形式 {tanh!r}）。")


def _jax_default(store):
    try:
        import inspect

        import jax
    except ImportError:
        return _ev("untested", {}, "jax is not installed here, so its default cannot be asked.",
                   "此处未安装 jax，无法查询其默认值。", "pip install jax  # then: gelu-lab claims --id jax_default_tanh")
    default = inspect.signature(jax.nn.gelu).parameters["approximate"].default
    y = float(jax.nn.gelu(1.0))
    exact, tanh = float(nm.gelu_exact(1.0)), float(nm.gelu_tanh(1.0))
    is_tanh = abs(y - tanh) < abs(y - exact)
    f = {"jax": jax.__version__, "approximate_default": default, "gelu(1)": y, "exact(1)": exact, "tanh_form(1)": tanh}
    return _ev("true" if is_tanh else "false", f,
               f"jax {jax.__version__}: jax.nn.gelu(approximate={default!r}) gives {y!r} at x = 1.",
               f"jax {jax.__version__}：jax.nn.gelu 默认 approximate={default!r}，x = 1 处输出 {y!r}。")


MUCH_FASTER = 1.5  # "much faster": at least 1.5x the throughput


def _tanh_faster(store):
    from . import bench

    names = ["numpy:erf", "numpy:tanh", "torch:erf", "torch:tanh", "torch:erf:fwd+bwd", "torch:tanh:fwd+bwd"]
    try:
        import torch

        threads = torch.get_num_threads()
    except ImportError:
        names, threads = names[:2], 1
    rows = bench.run(names, sizes=[1 << 20], threads=(threads,), repeats=5, progress=False)
    r = {f"{q['num']} / {q['den']}": q["ratio"] for q in bench.tanh_vs_erf(rows)}
    much = {k: v >= MUCH_FASTER for k, v in r.items()}
    this_machine = all(much.values())
    txt = ", ".join(f"{k}: {v:.2f}x" for k, v in r.items())
    return _ev("depends", {"ratios": r, "threshold": MUCH_FASTER, "true_on_this_machine": this_machine, "n": 1 << 20, "threads": threads},
               f"Throughput of tanh over erf on this machine (2^20 float32, {threads} threads): {txt}. "
               f"{'Holds' if this_machine else 'Does not hold'} here for every backend; it depends on the library's erf.",
               f"本机 tanh 与 erf 形式吞吐量之比（2^20 个 float32，{threads} 线程）：{txt}。"
               f"{'本机各后端均成立' if this_machine else '本机并非各后端都成立'}；结论取决于所用库的 erf 实现。",
               "gelu-lab bench")


def _relu_limit(store):
    from .errors import located_maxima

    scales = [1.0, 10.0, 100.0, 1000.0]
    sup = []
    for s in scales:
        err = lambda x, s=s: nm.gelu_exact(s * np.asarray(x)) / s - np.maximum(x, 0.0)  # noqa: E731
        derr = lambda x, s=s: nm.gelu_exact_grad(s * np.asarray(x)) - (np.asarray(x) > 0)  # noqa: E731
        sup.append(located_maxima(err, derr, -4.0, 4.0, n=400_001)[0][1])
    shrinking = all(b < a for a, b in zip(sup, sup[1:])) and sup[-1] < 1e-3
    f = {"scales": scales, "sup_abs_diff": sup, "sup_times_scale": [a * s for a, s in zip(sup, scales)]}
    txt = ", ".join(f"s = {s:g}: {a:.3e}" for s, a in zip(scales, sup))
    return _ev("true" if shrinking else "false", f,
               f"max over [-4, 4] of |GELU(s x)/s - ReLU(x)|: {txt} (falls as 1/s).",
               f"[-4, 4] 上 |GELU(s x)/s - ReLU(x)| 的最大值：{txt}（按 1/s 减小）。")


def _relu_infinity(store):
    xs = np.array([2.0, 5.0, 10.0, 20.0, 40.0])
    pos = np.abs(nm.gelu_exact(xs) - xs)
    neg = np.abs(nm.gelu_exact(-xs))  # ReLU(-x) = 0
    agree = bool(np.all(np.diff(pos) <= 0) and np.all(np.diff(neg) < 0) and pos[-1] == 0 and neg[-1] < 1e-300)
    f = {"x": xs, "abs_diff_at_+x": pos, "abs_diff_at_-x": neg}
    return _ev("true" if agree else "false", f,
               f"|GELU(x) - ReLU(x)| = x Phi(-|x|): at |x| = 5: {neg[1]:.2e}, 10: {neg[2]:.2e}, 20: {neg[3]:.2e}.",
               f"|GELU(x) - ReLU(x)| = |x| Φ(-|x|)：|x| = 5 时 {neg[1]:.2e}，10 时 {neg[2]:.2e}，20 时 {neg[3]:.2e}。")


def _quick_gelu_silu(store):
    from .errors import error_curves

    vs_silu = error_curves("gelu_sigmoid", "silu", (-4.0, 4.0))
    vs_gelu = error_curves("gelu_sigmoid", "gelu", (-4.0, 4.0))
    same = vs_silu.max_abs_error < 1e-6
    f = {"max_diff_vs_silu": vs_silu.max_abs_error, "argmax_vs_silu": vs_silu.argmax,
         "max_diff_vs_gelu": vs_gelu.max_abs_error, "silu_beta": 1.0, "quick_gelu_beta": nm.SIGMOID_BETA}
    return _ev("true" if same else "false", f,
               f"SiLU is x*sigmoid(x) (beta = 1). x*sigmoid(1.702x) differs from it by up to {vs_silu.max_abs_error:.4f} on [-4, 4] "
               f"(at x = {vs_silu.argmax:+.3f}) and from GELU by only {vs_gelu.max_abs_error:.4f}: it approximates GELU.",
               f"SiLU 是 x·σ(x)（β = 1）。x·σ(1.702x) 在 [-4, 4] 上与它相差最多 {vs_silu.max_abs_error:.4f}"
               f"（x = {vs_silu.argmax:+.3f}），与 GELU 仅差 {vs_gelu.max_abs_error:.4f}：它近似的是 GELU。")


TRAIN_HOW = "gelu-lab train --activations gelu,relu --preset quick"


def dead_relu_shares(store) -> list[dict]:
    """Final dead-unit share of each finished ReLU training run in the store.

    Reads runs of kind "train" (the FFN lab) with config activation "relu", and
    for each the metrics whose name contains "dead" at the run's last step,
    averaged over layers (values are shares in [0, 1]).
    """
    out = []
    if store is None:
        return out
    for run in store.runs(kind="train", status="done"):
        cfg = run["config"]
        if str(cfg.get("activation", "")).lower() != "relu":
            continue
        ms = [m for m in store.metrics(run["id"]) if "dead" in m["name"] and "near" not in m["name"] and m["value"] is not None]
        if not ms:
            continue
        last = max(m["step"] for m in ms)
        vals = [m["value"] for m in ms if m["step"] == last]
        out.append({"run_id": run["id"], "key": run["key"], "step": last, "dead_share": float(np.mean(vals)), "max_layer_share": float(max(vals))})
    return out


def _relu_half_dead(store):
    shares = dead_relu_shares(store)
    if not shares:
        return _ev("untested", {"runs": []},
                   "No finished ReLU training run with dead-unit measurements in the runs store yet; the verdict needs one.",
                   "运行记录中还没有带死亡单元统计的 ReLU 训练结果；需要先运行一次。", TRAIN_HOW)
    worst = max(s["max_layer_share"] for s in shares)
    mean = float(np.mean([s["dead_share"] for s in shares]))
    f = {"runs": shares, "mean_dead_share": mean, "max_layer_dead_share": worst}
    return _ev("true" if worst > 0.5 else "false", f,
               f"In {len(shares)} stored ReLU run(s) the dead share at the last step is {mean:.2%} on average, "
               f"{worst:.2%} in the worst layer. It depends on init scale, learning rate and steps.",
               f"{len(shares)} 个已存储的 ReLU 训练中，最后一步死亡单元占比平均 {mean:.2%}，最差的一层 {worst:.2%}。"
               f"结果取决于初始化尺度、学习率和训练步数。", TRAIN_HOW)


CLAIMS = {
    c.id: c
    for c in [
        Claim("values", {"en": "GELU(2) ≈ 1.954, GELU(0) = 0, GELU(−2) ≈ −0.046, and GELU'(0) = 0.5.",
                         "zh": "GELU(2) ≈ 1.954，GELU(0) = 0，GELU(−2) ≈ −0.046，且 GELU'(0) = 0.5。"}, _values),
        Claim("monotonic", {"en": "GELU is monotonic.", "zh": "GELU 是单调函数。"}, _monotonic),
        Claim("random", {"en": "GELU is random during training (it samples a mask like dropout).",
                         "zh": "GELU 在训练时是随机的（像 dropout 一样采样掩码）。"}, _random),
        Claim("tanh_error_below_0.003", {"en": "The tanh form's max error is below 0.003 on [−4, 4].",
                                         "zh": "tanh 近似在 [−4, 4] 上的最大误差小于 0.003。"}, _approx_error("tanh")),
        Claim("sigmoid_error_below_0.003", {"en": "The sigmoid form x·σ(1.702x) has max error below 0.003 on [−4, 4].",
                                            "zh": "sigmoid 近似 x·σ(1.702x) 在 [−4, 4] 上的最大误差小于 0.003。"}, _approx_error("sigmoid")),
        Claim("torch_default_tanh", {"en": "PyTorch's default GELU (torch.nn.GELU()) is the tanh form.",
                                     "zh": "PyTorch 默认的 GELU（torch.nn.GELU()）是 tanh 近似。"}, _torch_default),
        Claim("jax_default_tanh", {"en": "JAX's default GELU (jax.nn.gelu) is the tanh form.",
                                   "zh": "JAX 默认的 GELU（jax.nn.gelu）是 tanh 近似。"}, _jax_default),
        Claim("tanh_much_faster", {"en": "The tanh form is much faster than the erf form.",
                                   "zh": "tanh 近似比 erf 形式快得多。"}, _tanh_faster),
        Claim("tends_to_relu", {"en": "GELU tends to ReLU as the input scale grows: GELU(s·x)/s → ReLU(x).",
                                "zh": "输入尺度增大时 GELU 趋于 ReLU：GELU(s·x)/s → ReLU(x)。"}, _relu_limit),
        Claim("relu_at_infinity", {"en": "GELU and ReLU agree as x → ±∞.", "zh": "当 x → ±∞ 时 GELU 与 ReLU 一致。"}, _relu_infinity),
        Claim("quick_gelu_is_silu", {"en": "x·σ(1.702x) is SiLU.", "zh": "x·σ(1.702x) 就是 SiLU。"}, _quick_gelu_silu),
        Claim("relu_half_dead", {"en": "With ReLU, more than half of the neurons die during training.",
                                 "zh": "使用 ReLU 时，训练中超过一半的神经元会死亡。"}, _relu_half_dead),
    ]
}


def check(claim_id: str, store=None) -> dict:
    """The claim with its verdict and evidence, computed now."""
    if claim_id not in CLAIMS:
        raise ValueError(f"unknown claim {claim_id!r}; choose from {', '.join(CLAIMS)}")
    c = CLAIMS[claim_id]
    return {"id": c.id, "text": c.text, **c.evidence(store)}


def check_all(store=None, ids=None) -> list[dict]:
    return [check(i, store) for i in (ids or CLAIMS)]
