"""The numbers behind the theory pages (Definition, vs ReLU, vs Sigmoid, Gradients).

Pure data in, data out: every value the app shows on those pages is computed
here from :mod:`gelu_lab.activations` and :mod:`gelu_lab.numerics` at request
time, never typed in.

    gate_table(xs)                 phi(x), Phi(x), GELU(x), ReLU(x) on a grid (Definition's slider)
    bernoulli_masks(x, n, seed)    running means of x*m for GELU's, dropout's and ReLU's masks
    dead_units(mu, sigma, ...)     share of units whose gradient is exactly 0, ReLU vs GELU
    scale_family(scales, xs)       GELU(s x)/s and its largest gap to ReLU
    beta_family(betas, xs)         x sigmoid(beta x) and its largest distance to GELU
    best_beta()                    the beta minimising that distance (minimax)
    gates(xs)                      Phi(x), sigmoid(1.702 x), sigmoid(x)
    gate_gap(form, const)          max |approximate gate - Phi| (gate_error: the error functions)
    sigmoid_gate()                 where 1.702 comes from: slopes at 0, slope matching, the gate's minimax beta
    key_points()                   GELU'(0), the zero of GELU', the extrema of GELU', max sigma'
"""

from __future__ import annotations

import functools

import numpy as np
from scipy import optimize, special

from .. import activations, budget
from .. import numerics as nm
from . import errors, fits

DROPOUT_KEEP = 0.9  # BERT's dropout rate is 0.1: a unit is kept with probability 0.9
DEAD_UNITS = 1000


def _f(name: str, order: int = 0):
    a = activations.get(name)
    return (a.fn, a.grad, a.grad2)[order]


def grid(lo: float, hi: float, step: float) -> np.ndarray:
    """lo, lo+step, ..., hi as float64, each point rounded to the step's decimals."""
    n = int(round((hi - lo) / step)) + 1
    budget.reserve(16 * n)  # the grid and its rounding: on a public server a visitor's interval sets n
    return np.round(lo + step * np.arange(n), 10)


def gate_table(xs) -> dict:
    """The density phi(x), Phi(x), GELU(x) = x Phi(x) and ReLU(x) for each x (float64 arrays)."""
    x = np.asarray(xs, dtype=np.float64)
    return {"x": x, "phi": nm.phi(x), "Phi": nm.Phi(x), "gelu": _f("gelu")(x), "relu": _f("relu")(x)}


def bernoulli_masks(x: float, n: int, seed: int, keep: float = DROPOUT_KEEP) -> dict:
    """Running means of x*m over n draws of three masks m.

    GELU's mask m ~ Bernoulli(Phi(x)) depends on x, so E[x m] = x Phi(x) = GELU(x);
    dropout's m ~ Bernoulli(keep) does not, E = keep * x; ReLU's m = 1[x > 0] is
    not random at all. The same uniforms u drive both random masks (m = 1[u < p]).
    """
    x = float(x)
    u = np.random.default_rng(int(seed)).random(int(n))
    steps = np.arange(1, int(n) + 1)
    p = float(nm.Phi(x))
    gelu_mask = (u < p).astype(np.float64)
    drop_mask = (u < keep).astype(np.float64)
    relu_mask = np.full(int(n), 1.0 if x > 0 else 0.0)
    return {
        "n": steps,
        "Phi": p,
        "keep": keep,
        "gelu_running": np.cumsum(x * gelu_mask) / steps,
        "dropout_running": np.cumsum(x * drop_mask) / steps,
        "relu_running": np.cumsum(x * relu_mask) / steps,
        "gelu": float(_f("gelu")(x)),
        "dropout": keep * x,
        "relu": float(_f("relu")(x)),
    }


def dead_units(mu: float, sigma: float, n: int = DEAD_UNITS, seed: int = 0) -> dict:
    """Pre-activations z ~ N(mu, sigma) of n units and their ReLU and GELU gradients.

    ``relu_zero`` / ``gelu_zero``: share of units whose gradient is exactly 0
    (ReLU: every z <= 0; GELU: only where GELU'(z) underflows, z < -38).
    """
    z = np.random.default_rng(int(seed)).normal(float(mu), float(sigma), int(n))
    rg, gg = _f("relu", 1)(z), _f("gelu", 1)(z)
    return {
        "z": z,
        "relu_grad": rg,
        "gelu_grad": gg,
        "relu_zero": float(np.mean(rg == 0.0)),
        "gelu_zero": float(np.mean(gg == 0.0)),
    }


def scale_family(scales, xs) -> dict:
    """GELU(s x)/s for each s (rows) on xs, and max_x |GELU(s x)/s - ReLU(x)| per s.

    The gap is computed on a dense grid of t = s x (it equals max_t |GELU(t) -
    ReLU(t)| / s, so it shrinks like 1/s: GELU(s x)/s -> ReLU(x) as s -> inf).
    """
    s = np.asarray(scales, dtype=np.float64)[:, None]
    x = np.asarray(xs, dtype=np.float64)[None, :]
    gelu, relu = _f("gelu"), _f("relu")
    t = grid(-8.0, 8.0, 1e-3)
    gap0 = float(np.max(np.abs(gelu(t) - relu(t))))
    return {"y": gelu(s * x) / s, "relu": relu(x[0]), "gap": gap0 / s[:, 0], "gap1": gap0}


def _beta_distance(beta: float, t: np.ndarray, g: np.ndarray) -> float:
    return float(np.max(np.abs(nm.gelu_sigmoid(t, beta) - g)))


def beta_family(betas, xs) -> dict:
    """x sigmoid(beta x) for each beta (rows) on xs, and its max |. - GELU| over [-8, 8]."""
    b = np.asarray(betas, dtype=np.float64)
    x = np.asarray(xs, dtype=np.float64)
    t = grid(-8.0, 8.0, 2e-3)
    g = _f("gelu")(t)
    return {
        "y": np.stack([nm.gelu_sigmoid(x, bi) for bi in b]),
        "gelu": _f("gelu")(x),
        "relu": _f("relu")(x),
        "distance": np.array([_beta_distance(bi, t, g) for bi in b]),
    }


@functools.cache
def best_beta() -> tuple[float, float]:
    """(beta*, distance): the beta minimising max_x |x sigmoid(beta x) - GELU(x)|."""
    t = grid(-8.0, 8.0, 2e-3)
    g = _f("gelu")(t)
    r = optimize.minimize_scalar(lambda b: _beta_distance(b, t, g), bounds=(1.0, 3.0), method="bounded", options={"xatol": 1e-6})
    return float(r.x), float(r.fun)


def gates(xs) -> dict:
    """The three gates Phi(x), sigmoid(1.702 x), sigmoid(x) and max |Phi - sigmoid(1.702x)|."""
    x = np.asarray(xs, dtype=np.float64)
    phi_gate, s1702, s1 = nm.Phi(x), nm.sigmoid(nm.SIGMOID_BETA * x), nm.sigmoid(x)
    t = grid(-8.0, 8.0, 1e-3)
    gap = float(np.max(np.abs(nm.Phi(t) - nm.sigmoid(nm.SIGMOID_BETA * t))))
    return {"x": x, "Phi": phi_gate, "sig1702": s1702, "sig1": s1, "max_gap": gap, "beta": nm.SIGMOID_BETA}


def gate_error(form: str, const: float):
    """(e, e') for the error of an approximate gate against Phi: e(x) = gate(x) - Phi(x) with
    gate = 0.5 (1 + tanh(k (x + c x^3))) (form "tanh", const c, k = sqrt(2/pi)) or
    sigmoid(beta x) (form "sigmoid", const beta). This is the error in the gate Phi, not in
    GELU = x Phi; 1 + tanh z = 2 sigmoid(2z) as in numerics."""
    k = nm.SQRT_2_OVER_PI

    def arg(x):  # (sigmoid argument, its derivative)
        if form == "tanh":
            return 2.0 * k * (x + const * x**3), 2.0 * k * (1.0 + 3.0 * const * x * x)
        return const * x, const

    def e(x):
        x = np.asarray(x, dtype=np.float64)
        return special.expit(arg(x)[0]) - nm.Phi(x)

    def de(x):
        x = np.asarray(x, dtype=np.float64)
        t, dt = arg(x)
        s = special.expit(t)
        return s * (1.0 - s) * dt - nm.phi(x)

    return e, de


def gate_gap(form: str, const: float, interval=(-4.0, 4.0)) -> float:
    """max |gate(x) - Phi(x)| on the interval: the located maximum of :func:`errors.max_abs_error`."""
    return errors.max_abs_error(*gate_error(form, const), *interval, n=4001)[0]


@functools.cache
def gate_minimax(form: str, interval=(-4.0, 4.0)) -> tuple[float, float]:
    """(constant, max error) minimising max_x |gate(x) - Phi(x)| on the interval (see gate_error).

    The sup norm is the located maximum of :func:`errors.max_abs_error` (grid +
    Brent on e'); bounded Brent over the constant, as :mod:`.fits` does for GELU's own error.
    (-4, 4) is the interval the Implementation page compares the approximations on.
    """
    name = "c" if form == "tanh" else "beta"
    r = optimize.minimize_scalar(lambda v: gate_gap(form, v, interval), bounds=fits.BOUNDS[name], method="bounded", options={"xatol": 1e-12})
    return float(r.x), float(r.fun)


@functools.cache
def sigmoid_gate() -> dict:
    """Where the 1.702 of x sigmoid(1.702 x) comes from, each number computed.

    phi_slope = Phi'(0) = phi(0) = 1/sqrt(2 pi); sig_slope = the slope of sigmoid(1.702 x)
    at 0, 1.702 sigma'(0) = 1.702/4; slope_beta = the beta whose slope matches,
    phi(0)/sigma'(0) = 4/sqrt(2 pi) ~ 1.596, and slope_gap its max |sigmoid(beta x) - Phi(x)|;
    gate_beta / gate_gap = the beta minimising that max gap (minimax, ~ 1.7017: the
    classic logistic approximation of the normal CDF) and the gap; gap = the gap at
    1.702. The gaps are sup norms on [-8, 8] (:func:`gate_minimax`); beyond 8 the gap is
    below 1e-5.
    """
    sig1_0 = float(_f("sigmoid", 1)(0.0))
    phi0 = float(nm.phi(0.0))
    slope_beta = phi0 / sig1_0
    wide = (-8.0, 8.0)
    best_beta, best_gap = gate_minimax("sigmoid", wide)
    return {
        "beta": nm.SIGMOID_BETA,
        "phi_slope": phi0,
        "sig_slope": nm.SIGMOID_BETA * sig1_0,
        "slope_beta": slope_beta,
        "slope_gap": gate_gap("sigmoid", slope_beta, wide),
        "gate_beta": best_beta,
        "gate_gap": best_gap,
        "gap": gate_gap("sigmoid", nm.SIGMOID_BETA, wide),
    }


@functools.cache
def key_points() -> dict:
    """Landmarks of GELU's derivatives, each computed (roots by bracketing).

    grad_at_0 = GELU'(0) = 1/2; grad_root = the zero of GELU' (GELU's minimum,
    near -0.7518) and gelu_min = GELU there; grad_max_x / grad_min_x = the zeros
    of GELU'' = phi(x)(2 - x^2), i.e. +-sqrt(2), with GELU' there; sigmoid_grad_max
    = max sigma' = sigma'(0) = 1/4.
    """
    g, g1, g2 = _f("gelu"), _f("gelu", 1), _f("gelu", 2)
    root = optimize.brentq(lambda v: float(g1(v)), -2.0, -0.1, xtol=1e-15)
    xmax = optimize.brentq(lambda v: float(g2(v)), 0.5, 3.0, xtol=1e-15)
    xmin = optimize.brentq(lambda v: float(g2(v)), -3.0, -0.5, xtol=1e-15)
    sig1 = _f("sigmoid", 1)
    smax = optimize.minimize_scalar(lambda v: -float(sig1(v)), bounds=(-3, 3), method="bounded")
    return {
        "grad_at_0": float(g1(0.0)),
        "relu_grad_left": float(_f("relu", 1)(-1e-300)),
        "relu_grad_right": float(_f("relu", 1)(1e-300)),
        "grad_root": root,
        "gelu_min": float(g(root)),
        "grad_max_x": xmax,
        "grad_max": float(g1(xmax)),
        "grad_min_x": xmin,
        "grad_min": float(g1(xmin)),
        "sigmoid_grad_max": float(sig1(smax.x)),
        "sigmoid_grad_max_x": float(smax.x),
    }
