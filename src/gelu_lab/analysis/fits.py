"""Where the constants come from: fit the tanh and sigmoid forms to exact GELU.

    fit(form="tanh" | "sigmoid", interval=(-4, 4), norm="max" | "l2", fit_scale=False) -> Fit

tanh form     0.5 x (1 + tanh(k (x + c x^3)))    c (0.044715) and, optionally, k (sqrt(2/pi))
sigmoid form  x sigma(beta x)                      beta (1.702)

norm="max" (minimax) minimises max |e| over the interval, where e = form - GELU;
max |e| is the located maximum of :mod:`.errors` (grid + Brent on e'), so the
objective is the true sup norm, not a grid estimate. One constant: bounded Brent
(minimize_scalar) on that objective; two: Nelder-Mead restarted from its own
answer until it stops moving (the objective has a kink at the optimum, where two
peaks of |e| are equal, and a single simplex run can stall short of it).
norm="l2" minimises the RMS error sqrt(1/(b-a) int e^2 dx), the integral by
composite Gauss-Legendre (256 panels x 16 nodes), with least squares.

Each Fit reports the constants, their max and RMS error, and the same two figures
for the classic constants on the same interval.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize

from .. import numerics as nm
from .errors import check_interval, max_abs_error

FORM_NAMES = ("tanh", "sigmoid")
NORMS = ("max", "l2")
CLASSIC = {"tanh": {"c": nm.TANH_CUBIC, "k": nm.SQRT_2_OVER_PI}, "sigmoid": {"beta": nm.SIGMOID_BETA}}
# search range of the one-constant fits (wide: the optimum moves with the interval)
BOUNDS = {"c": (0.0, 0.3), "beta": (0.5, 4.0)}


def _form(form: str, p: dict):
    """(value, derivative) of the form with constants p, as float64 functions of x."""
    if form == "tanh":
        c, k = p["c"], p.get("k", nm.SQRT_2_OVER_PI)
        return (lambda x: nm.gelu_tanh(x, c, k)), (lambda x: nm.gelu_tanh_grad(x, c, k))
    beta = p["beta"]
    return (lambda x: nm.gelu_sigmoid(x, beta)), (lambda x: nm.gelu_sigmoid_grad(x, beta))


def error_of(form: str, p: dict):
    """(e, e') with e = form(x; p) - GELU(x)."""
    f, df = _form(form, p)
    return (lambda x: f(x) - nm.gelu_exact(x)), (lambda x: df(x) - nm.gelu_exact_grad(x))


def quadrature(a: float, b: float, panels: int = 256, order: int = 16):
    """Nodes and weights of composite Gauss-Legendre on [a, b] (weights sum to b - a)."""
    t, w = np.polynomial.legendre.leggauss(order)
    edges = np.linspace(a, b, panels + 1)
    half = np.diff(edges)[:, None] / 2
    mid = (edges[:-1] + edges[1:])[:, None] / 2
    return (mid + half * t).ravel(), (half * w).ravel()


def rms_error(form: str, p: dict, a: float, b: float) -> float:
    """sqrt(1/(b-a) int_a^b e(x)^2 dx)."""
    x, w = quadrature(a, b)
    e = error_of(form, p)[0](x)
    return float(np.sqrt(np.sum(w * e * e) / (b - a)))


def sup_error(form: str, p: dict, a: float, b: float, n: int = 4001) -> tuple[float, float]:
    """(max |e| on [a, b], where), located (see errors.max_abs_error)."""
    return max_abs_error(*error_of(form, p), a, b, n)


@dataclass
class Fit:
    form: str
    norm: str
    interval: tuple[float, float]
    params: dict  # fitted constants
    max_error: float
    argmax: float
    rms_error: float
    classic: dict  # {"params", "max_error", "argmax", "rms_error"} of the classic constants

    def to_dict(self) -> dict:
        return {
            "form": self.form,
            "norm": self.norm,
            "interval": list(self.interval),
            "params": self.params,
            "max_error": self.max_error,
            "argmax": self.argmax,
            "rms_error": self.rms_error,
            "classic": self.classic,
        }


def _minimax(form: str, names: list[str], a: float, b: float) -> dict:
    def obj(v):
        return sup_error(form, dict(zip(names, v)), a, b)[0]

    if len(names) == 1:
        (name,) = names
        res = optimize.minimize_scalar(lambda v: obj([v]), bounds=BOUNDS[name], method="bounded", options={"xatol": 1e-12})
        return {name: float(res.x)}
    v = np.array([CLASSIC[form][n] for n in names])
    best = obj(v)
    for _ in range(8):
        res = optimize.minimize(obj, v, method="Nelder-Mead", options={"xatol": 1e-12, "fatol": 1e-15, "maxiter": 4000})
        moved = res.fun < best * (1 - 1e-9)
        if res.fun <= best:
            v, best = res.x, res.fun
        if not moved:
            break
    return {n: float(x) for n, x in zip(names, v)}


def _least_squares(form: str, names: list[str], a: float, b: float) -> dict:
    x, w = quadrature(a, b)
    sw = np.sqrt(w)

    def resid(v):
        return sw * error_of(form, dict(zip(names, v)))[0](x)

    v0 = np.array([CLASSIC[form][n] for n in names])
    res = optimize.least_squares(resid, v0, xtol=1e-15, ftol=1e-15, gtol=1e-15, x_scale=np.abs(v0))
    return {n: float(x) for n, x in zip(names, res.x)}


def fit(form: str = "tanh", interval=(-4.0, 4.0), norm: str = "max", fit_scale: bool = False) -> Fit:
    """Fit the constants of `form` to exact GELU on `interval` under `norm`.

    form: "tanh" (fits c; with fit_scale=True, k as well) or "sigmoid" (beta).
    norm: "max" (minimax) or "l2" (least RMS error).
    """
    if form not in FORM_NAMES:
        raise ValueError(f"form must be one of {', '.join(FORM_NAMES)}, got {form!r}")
    if norm not in NORMS:
        raise ValueError(f"norm must be one of {', '.join(NORMS)}, got {norm!r}")
    if fit_scale and form != "tanh":
        raise ValueError("fit_scale applies to the tanh form only (its sqrt(2/pi) scale)")
    a, b = check_interval(*interval, limit=1e3)
    names = ["c", "k"] if form == "tanh" and fit_scale else (["c"] if form == "tanh" else ["beta"])
    params = (_minimax if norm == "max" else _least_squares)(form, names, a, b)
    full = {**CLASSIC[form], **params}
    classic = dict(CLASSIC[form])
    m, at = sup_error(form, full, a, b)
    cm, cat = sup_error(form, classic, a, b)
    return Fit(
        form=form,
        norm=norm,
        interval=(a, b),
        params=params,
        max_error=m,
        argmax=at,
        rms_error=rms_error(form, full, a, b),
        classic={"params": classic, "max_error": cm, "argmax": cat, "rms_error": rms_error(form, classic, a, b)},
    )
