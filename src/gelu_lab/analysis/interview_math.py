"""The numbers of the Interview questions about GELU's own mathematics (analysis.interview
registers them with their questions): its landmarks, its mask, its gap to ReLU and the sigmoid,
the constants of its approximations, its tails in float64, float32 and bfloat16.

Each function returns {key: value} for one question, computed from the library; the helpers
(the naive and the erfc way to write GELU, a tail's zero edge, ...) serve them and the figures.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import integrate, special

from .. import activations
from .. import numerics as nm
from . import errors, fits, theory
from .theory import gate_error, gate_gap, gate_minimax

INTERVAL = (-4.0, 4.0)  # where the approximations are compared, as on the Implementation page
DROPOUT_N, SEED = 100_000, 0  # Monte Carlo draws of GELU's Bernoulli mask
CANCEL_X = -10.0  # where the naive 1 + erf form is shown to fail
FAR_LEFT = -5.0  # where GELU's gradient is shown to be tiny, though not zero


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



def grad0():
    kp = theory.key_points()
    return {"grad0": float(_f("gelu", 1)(0.0)), "grad2_0": float(_f("gelu", 2)(0.0)),
            "relu_left": kp["relu_grad_left"], "relu_right": kp["relu_grad_right"]}


def dip():
    kp = theory.key_points()
    return {"min_x": kp["grad_root"], "min_y": kp["gelu_min"]}


def grad_range():
    kp = theory.key_points()
    return {"gmax_x": kp["grad_max_x"], "gmax": kp["grad_max"], "gmin_x": kp["grad_min_x"], "gmin": kp["grad_min"]}


def dropout():
    b = theory.bernoulli_masks(1.0, DROPOUT_N, SEED)
    mean = float(b["gelu_running"][-1])  # at x = 1 each draw x*m is 0 or 1: variance mean (1 - mean)
    return {"gelu1": b["gelu"], "mc_mean": mean, "mc_se": math.sqrt(mean * (1.0 - mean) / DROPOUT_N), "dropout1": b["dropout"]}


def relu_gap():
    c = errors.error_curves("relu", "gelu", INTERVAL)
    return {"gap": c.max_abs_error, "gap_x": abs(c.argmax), "gap_10": c.max_abs_error / 10.0}


def c044715():
    return {"c_series": series_c(), "gelu_max_classic": errors.error_curves("tanh", "gelu", INTERVAL).max_abs_error}


def c044715_fits():
    c_gate, gate_max = gate_minimax("tanh")
    f = fits.fit("tanh", INTERVAL, "max")
    classic_gate = gate_gap("tanh", nm.TANH_CUBIC, INTERVAL)
    return {"c_gate": c_gate, "gate_max": gate_max, "gate_max_classic": classic_gate, "c_gelu": f.params["c"], "gelu_max_fit": f.max_error}


def sigmoid_ffn():
    kp = theory.key_points()
    return {"sig_grad_max": kp["sigmoid_grad_max"], "sig0": float(_f("sigmoid")(0.0)),
            "mean_sig_grad": _normal_mean(_f("sigmoid", 1)), "mean_gelu_grad": _normal_mean(_f("gelu", 1)),
            "sig_4": float(_f("sigmoid")(4.0)), "gelu_4": float(_f("gelu")(4.0))}


def far_left():
    """GELU'(-5): not zero, but small (why "no dead units" is too strong)."""
    return {"grad_m5": float(_f("gelu", 1)(FAR_LEFT))}


def dead_relu():
    d = theory.dead_units(0.0, 1.0)
    g1 = _f("gelu", 1)
    return {"relu_dead": d["relu_zero"], "gelu_dead": d["gelu_zero"], "p_dead": float(nm.Phi(0.0)), **far_left(),
            # float32: the float64 value rounded once (gelu_lab's float32 GELU' is correctly rounded)
            "edge64": zero_edge(g1, np.float64, -1000.0), "edge32": zero_edge(lambda v: g1(v.astype(np.float64)).astype(np.float32), np.float32)}


def silu():
    s = errors.error_curves("silu", "gelu", INTERVAL)
    q = errors.error_curves("sigmoid", "gelu", INTERVAL)
    beta, dist = theory.best_beta()
    return {"silu_max": s.max_abs_error, "silu_x": abs(s.argmax), "quick_max": q.max_abs_error, "best_beta": beta, "best_beta_max": dist}


def silu_gate():
    beta_gate, gate_max = gate_minimax("sigmoid")
    return {"beta_gate": beta_gate, "beta_gate_max": gate_max}


def cancellation():
    x = CANCEL_X
    true = float(_f("gelu")(x))
    naive, good = float(naive_gelu(x)), float(erfc_gelu(x))
    return {"true_m10": true, "naive_m10": naive, "naive_rel": abs(naive - true) / abs(true), "erfc_rel": abs(good - true) / abs(true),
            "naive_edge64": zero_edge(naive_gelu, np.float64), "naive_edge32": zero_edge(lambda v: naive_gelu(v, "float32"), np.float32)}


def bf16_edge():
    """Where bfloat16's GELU tail starts to be 0: the largest x < -1 whose correctly rounded
    GELU is 0, searched on [-64, -1] (GELU is monotonic below its minimum at -0.75)."""
    from ..reference import correctly_rounded

    x = _all16("bfloat16")
    with np.errstate(invalid="ignore"):
        xf = x.astype(np.float64)
        near = x[(xf >= -64.0) & (xf < -1.0)]
        y = correctly_rounded("gelu", near).astype(np.float64)
    return {"bf16_zero_edge": float(near.astype(np.float64)[y == 0].max())}


def bf16():
    import torch  # first: without it, ModuleNotFoundError names it (the page then names the extra)

    from ..reference import correctly_rounded
    from . import accuracy

    x = _all16("bfloat16")
    with np.errstate(invalid="ignore"):
        y, xf = correctly_rounded("gelu", x).astype(np.float64), x.astype(np.float64)
    zero = (y == 0) & (xf != 0) & np.isfinite(xf)
    tail = zero & (xf < -1.0)  # the negative tail: GELU(x) = x Phi(x) below bfloat16's smallest number
    ours = accuracy.measure("gelu", "bfloat16", progress=False)
    torch_ = accuracy.measure("torch:gelu", "bfloat16", progress=False)
    return {"torch_version": torch.__version__, "bf16_zero": int(np.count_nonzero(zero)), "bf16_zero_tail": int(np.count_nonzero(tail)),
            "bf16_zero_tiny": int(np.count_nonzero(zero & (np.abs(xf) < 1.0))),
            "ours_max_ulp": ours["max_ulp"], "torch_max_ulp": torch_["max_ulp"], "torch_wrong": torch_["wrong"],
            "torch_flush": torch_["counts"]["flush"]}


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
