"""The numbers behind the Interview questions page, each computed when asked.

    QUESTIONS              question id -> Question(id, quantities, compute); page order
    check(qid)             -> [{"key", "value", "stated", "agrees"}], computed once per process
    values(qid)            -> {key: value}, the quick part, computed once per process (the answer texts)
    compute(qid)           -> {key: value}, computed now
    agrees(value, stated)  -> True / False / None (nothing stated)

An answer quotes a figure the way an interviewee would ("GELU'(0) = 0.5", "the
minimum is about -0.1700 at x = -0.7518"): that is the *stated* value of a
:class:`Quantity`, a string whose decimals set the tolerance (half a unit in its
last place). The check computes the quantity with gelu_lab and says whether the
stated figure holds. Quantities with nothing to state (counts over the bfloat16
inputs, a Monte Carlo mean) are computed only. Every value comes from the
library (numerics, activations, analysis.theory / errors / fits / accuracy,
reference); nothing the library can compute is typed in here.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from scipy import integrate, special

from .. import activations
from .. import numerics as nm
from . import errors, fits, forms, theory
from .theory import gate_error, gate_gap, gate_minimax

INTERVAL = (-4.0, 4.0)  # where the approximations are compared, as on the Implementation page
DROPOUT_N, SEED = 100_000, 0  # Monte Carlo draws of GELU's Bernoulli mask
CANCEL_X = -10.0  # where the naive 1 + erf form is shown to fail


@dataclass(frozen=True)
class Quantity:
    """One number of an answer: `stated` is the figure the answer quotes (None: computed only),
    `fmt` how the computed value is shown."""

    key: str
    stated: str | None = None
    fmt: str = ".6f"


@dataclass(frozen=True)
class Question:
    id: str
    quantities: tuple = ()
    compute: Callable | None = None  # () -> {key: value}: quick (under ~0.1 s once warm); the answer may quote these
    slow: Callable | None = None  # () -> {key: value}: the rest, computed only when Check asks
    figure: str | None = None  # name of the page figure that goes with the answer
    keys: list = field(init=False, default=None)

    def __post_init__(self):
        object.__setattr__(self, "keys", [q.key for q in self.quantities])


# --------------------------------------------------------------------------
# helpers


def _f(name: str, order: int = 0):
    a = activations.get(name)
    return (a.fn, a.grad, a.grad2)[order]


def _all16(dtype: str) -> np.ndarray:
    """Every bit pattern of a 16-bit format, as an array of that format."""
    from ..floats import FORMATS

    return np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(FORMATS[dtype].dtype)


def zero_edge(f, dtype, lo: float = -100.0, hi: float = -1.0, points: int = 1025) -> float:
    """The most negative x at which f(x), evaluated in `dtype`, is still non-zero.

    f must be 0 at lo and below, non-zero from the edge up to hi (a tail that
    underflows). Multisection: each pass evaluates `points` values of the dtype
    across the bracket and keeps the step where f turns non-zero, until the two
    ends are neighbouring numbers of the dtype.
    """
    dt = np.dtype(dtype)
    for _ in range(100):
        xs = np.unique(np.linspace(lo, hi, points).astype(dt))
        nz = np.asarray(f(xs), dtype=np.float64) != 0.0
        if nz[0] or not nz[-1]:
            raise ValueError("zero_edge needs f(lo) == 0 and f(hi) != 0")
        i = int(np.argmax(nz))
        lo, hi = float(xs[i - 1]), float(xs[i])
        if np.nextafter(dt.type(lo), dt.type(hi)) == dt.type(hi):
            break
    return hi


def naive_gelu(x, dtype="float64"):
    """0.5 x (1 + erf(x / sqrt 2)) evaluated in `dtype` as a framework writes it: the
    sum 1 + erf cancels for x << 0 (erf rounds to -1)."""
    dt = np.dtype(dtype)
    x = np.asarray(x, dtype=dt)
    e = special.erf(x / dt.type(math.sqrt(2.0))).astype(dt)
    return (dt.type(0.5) * x * (dt.type(1.0) + e)).astype(dt)


def erfc_gelu(x, dtype="float64"):
    """0.5 x erfc(-x / sqrt 2) in `dtype`: the same function with no subtraction."""
    dt = np.dtype(dtype)
    x = np.asarray(x, dtype=dt)
    return (dt.type(0.5) * x * special.erfc(-x / dt.type(math.sqrt(2.0))).astype(dt)).astype(dt)


def series_c() -> float:
    """c matching the x^3 term of the series: Phi(x) = 1/2 + (x - x^3/6 + ...)/sqrt(2 pi) and
    0.5 (1 + tanh(k (x + c x^3))) = 1/2 + k/2 (x + (c - k^2/3) x^3 + ...) with k = sqrt(2/pi)
    give c - k^2/3 = -1/6, i.e. c = 2/(3 pi) - 1/6."""
    return nm.SQRT_2_OVER_PI**2 / 3.0 - 1.0 / 6.0


def _normal_mean(f) -> float:
    """E[f(z)] for z ~ N(0, 1), by adaptive quadrature."""
    return float(integrate.quad(lambda t: float(f(t)) * float(nm.phi(t)), -np.inf, np.inf, epsabs=1e-13, epsrel=1e-12)[0])


# --------------------------------------------------------------------------
# the computations, one per question


def _grad0():
    kp = theory.key_points()
    return {"grad0": float(_f("gelu", 1)(0.0)), "grad2_0": float(_f("gelu", 2)(0.0)),
            "relu_left": kp["relu_grad_left"], "relu_right": kp["relu_grad_right"]}


def _dip():
    kp = theory.key_points()
    return {"min_x": kp["grad_root"], "min_y": kp["gelu_min"]}


def _grad_range():
    kp = theory.key_points()
    return {"gmax_x": kp["grad_max_x"], "gmax": kp["grad_max"], "gmin_x": kp["grad_min_x"], "gmin": kp["grad_min"]}


def _dropout():
    b = theory.bernoulli_masks(1.0, DROPOUT_N, SEED)
    mean = float(b["gelu_running"][-1])  # at x = 1 each draw x*m is 0 or 1: variance mean (1 - mean)
    return {"gelu1": b["gelu"], "mc_mean": mean, "mc_se": math.sqrt(mean * (1.0 - mean) / DROPOUT_N), "dropout1": b["dropout"]}


def _relu_gap():
    c = errors.error_curves("relu", "gelu", INTERVAL)
    return {"gap": c.max_abs_error, "gap_x": abs(c.argmax), "gap_10": c.max_abs_error / 10.0}


def _tanh_vs_erf():
    c = errors.error_curves("tanh", "gelu", INTERVAL)
    s = errors.error_curves("sigmoid", "gelu", INTERVAL)
    return {"tanh_max": c.max_abs_error, "tanh_x": abs(c.argmax), "sigmoid_max": s.max_abs_error}


def _differ16():
    """How many inputs of each 16-bit format round differently under the exact and the tanh form."""
    return {f"differ_{dt}": forms.differ16("gelu_tanh", dt) for dt in ("bfloat16", "float16")}


def _c044715():
    return {"c_series": series_c(), "gelu_max_classic": errors.error_curves("tanh", "gelu", INTERVAL).max_abs_error}


def _c044715_fits():
    c_gate, gate_max = gate_minimax("tanh")
    f = fits.fit("tanh", INTERVAL, "max")
    classic_gate = gate_gap("tanh", nm.TANH_CUBIC, INTERVAL)
    return {"c_gate": c_gate, "gate_max": gate_max, "gate_max_classic": classic_gate, "c_gelu": f.params["c"], "gelu_max_fit": f.max_error}


def _sigmoid_ffn():
    kp = theory.key_points()
    return {"sig_grad_max": kp["sigmoid_grad_max"], "sig0": float(_f("sigmoid")(0.0)),
            "mean_sig_grad": _normal_mean(_f("sigmoid", 1)), "mean_gelu_grad": _normal_mean(_f("gelu", 1)),
            "sig_4": float(_f("sigmoid")(4.0)), "gelu_4": float(_f("gelu")(4.0))}


def _ffn_gain():
    """GELU against ReLU in the shipped learning-rate experiment (the FFN page's): the paired
    final-loss difference and its 95 % interval, and the worst dead-ReLU share of any layer
    of any of its ReLU runs. The shipped set only: a value of the installed package."""
    from .. import results
    from ..results.runsets import experiments, main_cell, pair_of
    from .claims import dead_relu_shares

    got = results.latest("train", store=False)
    exps = experiments(got.value) if got else []
    main = main_cell(exps)
    p = pair_of(main, "relu")
    if p is None:
        return {k: math.nan for k in ("ffn_gap", "ffn_lo", "ffn_hi", "ffn_n", "ffn_width", "ffn_steps", "relu_dead_max")}
    dead = dead_relu_shares(exps[0]["runs"])
    c = main["runs"][0]["config"]
    return {"ffn_gap": p["mean"], "ffn_lo": p["lo"], "ffn_hi": p["hi"], "ffn_n": p["n"], "ffn_width": c["n_embd"], "ffn_steps": c["steps"],
            "relu_dead_max": max((d["max_layer_share"] for d in dead), default=math.nan)}


def _dead_relu():
    d = theory.dead_units(0.0, 1.0)
    g1 = _f("gelu", 1)
    return {"relu_dead": d["relu_zero"], "gelu_dead": d["gelu_zero"], "p_dead": float(nm.Phi(0.0)),
            # float32: the float64 value rounded once (gelu_lab's float32 GELU' is correctly rounded)
            "edge64": zero_edge(g1, np.float64, -1000.0), "edge32": zero_edge(lambda v: g1(v.astype(np.float64)).astype(np.float32), np.float32)}


def _silu():
    s = errors.error_curves("silu", "gelu", INTERVAL)
    q = errors.error_curves("sigmoid", "gelu", INTERVAL)
    beta, dist = theory.best_beta()
    return {"silu_max": s.max_abs_error, "silu_x": abs(s.argmax), "quick_max": q.max_abs_error, "best_beta": beta, "best_beta_max": dist}


def _silu_gate():
    beta_gate, gate_max = gate_minimax("sigmoid")
    return {"beta_gate": beta_gate, "beta_gate_max": gate_max}


def _cancellation():
    x = CANCEL_X
    true = float(_f("gelu")(x))
    naive, good = float(naive_gelu(x)), float(erfc_gelu(x))
    return {"true_m10": true, "naive_m10": naive, "naive_rel": abs(naive - true) / abs(true), "erfc_rel": abs(good - true) / abs(true),
            "naive_edge64": zero_edge(naive_gelu, np.float64), "naive_edge32": zero_edge(lambda v: naive_gelu(v, "float32"), np.float32)}


def _bert():
    import torch

    return {"torch_default": torch.nn.GELU().approximate, "hf_gelu": activations.canonical("gelu"),
            "hf_gelu_new": activations.canonical("gelu_new"), "hf_pytorch_tanh": activations.canonical("gelu_pytorch_tanh"),
            "hf_quick": activations.canonical("quick_gelu")}


def _bf16_edge():
    """Where bfloat16's GELU tail starts to be 0: the largest x < -1 whose correctly rounded
    GELU is 0, searched on [-64, -1] (GELU is monotonic below its minimum at -0.75)."""
    from ..reference import correctly_rounded

    x = _all16("bfloat16")
    with np.errstate(invalid="ignore"):
        xf = x.astype(np.float64)
        near = x[(xf >= -64.0) & (xf < -1.0)]
        y = correctly_rounded("gelu", near).astype(np.float64)
    return {"bf16_zero_edge": float(near.astype(np.float64)[y == 0].max())}


def _bf16():
    from ..reference import correctly_rounded
    from . import accuracy

    x = _all16("bfloat16")
    with np.errstate(invalid="ignore"):
        y, xf = correctly_rounded("gelu", x).astype(np.float64), x.astype(np.float64)
    zero = (y == 0) & (xf != 0) & np.isfinite(xf)
    tail = zero & (xf < -1.0)  # the negative tail: GELU(x) = x Phi(x) below bfloat16's smallest number
    ours = accuracy.measure("gelu", "bfloat16", progress=False)
    torch_ = accuracy.measure("torch:gelu", "bfloat16", progress=False)
    import torch

    return {"torch_version": torch.__version__, "bf16_zero": int(np.count_nonzero(zero)), "bf16_zero_tail": int(np.count_nonzero(tail)),
            "bf16_zero_tiny": int(np.count_nonzero(zero & (np.abs(xf) < 1.0))),
            "ours_max_ulp": ours["max_ulp"], "torch_max_ulp": torch_["max_ulp"], "torch_wrong": torch_["wrong"],
            "torch_flush": torch_["counts"]["flush"]}


QUESTIONS = {
    q.id: q
    for q in [
        Question("why"),
        Question("grad0", (Quantity("grad0", "0.5", ".4f"), Quantity("grad2_0", "0.7979", ".6f"), Quantity("relu_left", "0", ".0f"),
                           Quantity("relu_right", "1", ".0f")), _grad0),
        Question("dip", (Quantity("min_x", "-0.7518"), Quantity("min_y", "-0.1700")), _dip),
        Question("grad_range", (Quantity("gmax_x", "1.4142"), Quantity("gmax", "1.1289"), Quantity("gmin_x", "-1.4142"),
                                Quantity("gmin", "-0.1289")), _grad_range),
        Question("dropout", (Quantity("gelu1", "0.8413"), Quantity("mc_mean", None, ".4f"), Quantity("mc_se", None, ".4f"),
                             Quantity("dropout1", "0.9", ".4f")), _dropout),
        Question("relu_gap", (Quantity("gap", "0.1700"), Quantity("gap_x", "0.7518"), Quantity("gap_10", "0.0170")), _relu_gap),
        Question("tanh_vs_erf", (Quantity("tanh_max", "0.00047", ".3e"), Quantity("tanh_x", "2.70", ".4f"), Quantity("sigmoid_max", "0.020", ".4f"),
                                 Quantity("differ_bfloat16", None, "d"), Quantity("differ_float16", None, "d")), _tanh_vs_erf, _differ16),
        Question("c044715", (Quantity("c_gate", "0.044715", ".7f"), Quantity("gate_max", "0.00018", ".3e"), Quantity("gate_max_classic", None, ".3e"),
                             Quantity("c_series", None, ".7f"), Quantity("c_gelu", "0.0444", ".7f"), Quantity("gelu_max_fit", "0.00039", ".3e"),
                             Quantity("gelu_max_classic", None, ".3e")), _c044715, _c044715_fits, figure="gate"),
        Question("sigmoid_ffn", (Quantity("sig_grad_max", "0.25", ".4f"), Quantity("sig0", "0.5", ".4f"), Quantity("mean_sig_grad", None, ".4f"),
                                 Quantity("mean_gelu_grad", "0.5", ".4f"), Quantity("sig_4", None, ".4f"), Quantity("gelu_4", None, ".4f")), _sigmoid_ffn),
        Question("dead_relu", (Quantity("relu_dead", "0.5", ".3f"), Quantity("gelu_dead", "0", ".3f"), Quantity("p_dead", "0.5", ".4f"),
                               Quantity("edge64", None, ".4f"), Quantity("edge32", None, ".4f")), _dead_relu),
        Question("silu", (Quantity("silu_max", "0.19", ".4f"), Quantity("silu_x", None, ".4f"), Quantity("quick_max", None, ".4f"),
                          Quantity("beta_gate", "1.702", ".4f"), Quantity("beta_gate_max", "0.0095", ".5f"),
                          Quantity("best_beta", None, ".4f"), Quantity("best_beta_max", None, ".4f")), _silu, _silu_gate),
        Question("cancellation", (Quantity("true_m10", None, ".4e"), Quantity("naive_m10", None, "g"), Quantity("naive_rel", "1", ".4f"),
                                  Quantity("erfc_rel", None, ".1e"), Quantity("naive_edge64", None, ".4f"), Quantity("naive_edge32", None, ".4f")),
                 _cancellation, figure="cancel"),
        Question("bert", (Quantity("torch_default", "none", "s"), Quantity("hf_gelu", "gelu", "s"), Quantity("hf_gelu_new", "gelu_tanh", "s"),
                          Quantity("hf_pytorch_tanh", "gelu_tanh", "s"), Quantity("hf_quick", "gelu_sigmoid", "s")), slow=_bert),
        Question("bf16", (Quantity("torch_version", None, "s"), Quantity("bf16_zero", None, "d"), Quantity("bf16_zero_tail", None, "d"), Quantity("bf16_zero_edge", None, ".4f"),
                          Quantity("bf16_zero_tiny", None, "d"), Quantity("ours_max_ulp", "0", "d"),
                          Quantity("torch_max_ulp", None, "d"), Quantity("torch_wrong", None, "d"), Quantity("torch_flush", None, "d")), _bf16_edge, slow=_bf16),
        Question("ffn_gain", (Quantity("ffn_gap", None, "+.4f"), Quantity("ffn_lo", None, "+.4f"), Quantity("ffn_hi", None, "+.4f"),
                              Quantity("ffn_n", None, "d"), Quantity("ffn_width", None, "d"), Quantity("ffn_steps", None, "d"),
                              Quantity("relu_dead_max", None, ".3f")), _ffn_gain),
    ]
}


# --------------------------------------------------------------------------
# the data of the page's two figures


def gate_curves(x) -> dict:
    """Error of the tanh form's gate against Phi for two cubic constants: the series match
    and the classic 0.044715 (the minimax one, see gate_minimax)."""
    cs = {"series": series_c(), "classic": nm.TANH_CUBIC}
    return {name: {"c": c, "y": gate_error("tanh", c)[0](x)} for name, c in cs.items()}


def cancellation_curves(x) -> dict:
    """Relative error of the naive 0.5 x (1 + erf(x/sqrt2)) and of 0.5 x erfc(-x/sqrt2), each in
    float32 and float64, against gelu_lab's float64 GELU (a few ulp). An error of exactly 0 is
    shown at `floor` (a log axis has no 0); a result of 0 where GELU is not 0 has error 1."""
    x = np.asarray(x, dtype=np.float64)
    true = _f("gelu")(x)
    floor = 1e-18
    out = {}
    for name, f in (("naive", naive_gelu), ("erfc", erfc_gelu)):
        for dt in ("float32", "float64"):
            with np.errstate(all="ignore"):
                got = f(x.astype(dt), dt).astype(np.float64)
            # the float32 result is judged against GELU at the float32 input
            ref = true if dt == "float64" else _f("gelu")(x.astype(np.float32).astype(np.float64))
            out[f"{name}_{dt}"] = np.maximum(errors.relative_error(got - ref, ref), floor)
    return out


def _question(qid: str) -> Question:
    if qid not in QUESTIONS:
        raise ValueError(f"unknown question {qid!r}; choose from {', '.join(QUESTIONS)}")
    return QUESTIONS[qid]


def agrees(value, stated: str | None) -> bool | None:
    """Whether `value` rounds to the stated figure: |value - stated| <= half a unit in
    its last decimal (strings: equal). None when nothing is stated."""
    if stated is None:
        return None
    if isinstance(value, str):
        return value == stated
    decimals = len(stated.split(".")[1]) if "." in stated else 0
    return bool(abs(float(value) - float(stated)) <= 0.5 * 10.0**-decimals * (1 + 1e-9))


def compute(qid: str, slow: bool = True) -> dict:
    """{key: value} of question `qid`, computed now ({} for a question without numbers);
    slow=False: only the quick part (what the answer text may quote)."""
    q = _question(qid)
    out = q.compute() if q.compute else {}
    if slow and q.slow:
        out.update(q.slow())
    return out


@functools.cache
def values(qid: str) -> dict:
    """The quick part of :func:`compute`, once per process (the values the answer texts quote)."""
    return compute(qid, slow=False)


def check(qid: str) -> list[dict]:
    """Each quantity of the question: its computed value, the stated figure and whether they agree.

    Every value depends only on gelu_lab and the installed packages, so it is computed once
    per process (the quick part shared with :func:`values`); each call gets its own rows."""
    return [dict(r) for r in _checked(qid)]


@functools.cache
def _checked(qid: str) -> tuple[dict, ...]:
    q = _question(qid)
    v = {**values(qid), **(q.slow() if q.slow else {})}
    return tuple({"key": s.key, "value": v[s.key], "stated": s.stated, "agrees": agrees(v[s.key], s.stated), "fmt": s.fmt} for s in q.quantities)


def show(value, fmt: str) -> str:
    """A computed value as the page shows it: `fmt` applied, no '-0.000'."""
    if isinstance(value, str) or fmt == "s":
        return str(value)
    if isinstance(value, float) and math.isnan(value):  # not measured in this installation's shipped results
        return "–"
    s = format(int(value) if fmt == "d" else float(value), fmt)
    return s[1:] if s.startswith("-") and fmt != "d" and float(s) == 0 else s
