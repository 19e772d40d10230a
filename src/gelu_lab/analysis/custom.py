"""A reader's own activation against exact GELU: curve, derivative, max error, fitted a.

    compare_with_gelu("x*sigmoid(a*x)", interval=(-4, 4))  -> Comparison
    fit_parameter(expr, interval, bounds=(-10, 10))         -> (a, max error, where)

The formula is parsed by :mod:`gelu_lab.analysis.user_formula` (whitelist grammar, never eval);
its derivative is the symbolic one, exact to float64 rounding. The error is
e(x) = f(x) - GELU(x) with GELU from :mod:`gelu_lab.numerics` (a few ulp), and
its maximum on the interval is located as in :mod:`.errors` (dense grid, then
Brent on e'(x) = 0, with e' = f' - GELU' known symbolically), so "where" is good
to far better than the grid step.

Fitting the free constant a: minimise max |e| over the interval (minimax) on
a in `bounds`. The objective is not convex in general (several local minima are
common), so a scan of SCAN values of a on a coarse x grid picks the basin, then
bounded Brent (minimize_scalar) refines inside it on a fine grid whose peaks are
refined by parabolas (cheap and vectorised; the per-peak Brent of :mod:`.errors`
would cost 20x more per value of a); the answer's error is then located exactly.
Where f is not finite on the interval (exp(1000*x) overflows, log(x) at x < 0)
the error is reported as inf at the first such x, never silently skipped.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize

from . import user_formula as F
from .. import numerics as nm
from .errors import check_interval, max_abs_error

SCAN = 241  # values of a tried before refining
COARSE = 1001  # x points per objective value during the scan
FINE = 4001  # x points per objective value while refining, and for the located maximum
PEAKS = 4  # grid peaks refined by a parabola in the search objective
POLISH = 20001  # x points of the last polish of a
BOUNDS = (-10.0, 10.0)
INTERVAL_LIMIT = 1e3


def _error_functions(f: F.Expr, df: F.Expr, a):
    e = lambda x: f.eval(x, a) - nm.gelu_exact(x)  # noqa: E731
    de = lambda x: df.eval(x, a) - nm.gelu_exact_grad(x)  # noqa: E731
    return e, de


def _first_nonfinite(f: F.Expr, a, lo: float, hi: float, n: int) -> tuple[int, float | None]:
    """(how many grid points give a non-finite f, the first such x) on n points of [lo, hi]."""
    x = np.linspace(lo, hi, n)
    bad = ~np.isfinite(f.eval(x, a))
    return int(bad.sum()), (float(x[np.argmax(bad)]) if bad.any() else None)


def sup_error(f: F.Expr, df: F.Expr, a, lo: float, hi: float, n: int = FINE) -> tuple[float, float]:
    """(max |f - GELU| on [lo, hi], where), located; (inf, first bad x) if f is not finite there."""
    count, at = _first_nonfinite(f, a, lo, hi, n)
    if count:
        return float("inf"), at
    return max_abs_error(*_error_functions(f, df, a), lo, hi, n)


def grid_sup(e: np.ndarray) -> float:
    """max |e| from samples on a uniform grid, each of the PEAKS largest interior local
    maxima refined by the parabola through it and its two neighbours (error O(h^3)
    instead of the grid's O(h^2)); inf if any sample is not finite."""
    m = np.abs(e)
    if not np.all(np.isfinite(m)):
        return float("inf")
    y0, y1, y2 = m[:-2], m[1:-1], m[2:]
    peaks = np.flatnonzero((y1 >= y0) & (y1 >= y2))
    best = float(max(m[0], m[-1]))
    if peaks.size:
        top = peaks[np.argsort(y1[peaks])[-PEAKS:]]
        a, b, c = y0[top], y1[top], y2[top]
        den = a - 2 * b + c
        with np.errstate(divide="ignore", invalid="ignore"):
            vertex = np.where(den < 0, b - (a - c) ** 2 / (8 * den), b)
        best = max(best, float(np.max(vertex)))
    return best


def fit_parameter(f: F.Expr, interval=(-4.0, 4.0), bounds=BOUNDS, df: F.Expr | None = None) -> tuple[float, float, float]:
    """(a, max |e|, where) minimising max |f(x; a) - GELU(x)| over the interval, a in bounds.

    The search uses :func:`grid_sup` (vectorised, no per-point solver); the answer's
    max |e| and where are then located as in :mod:`.errors`. a is good to ~1e-10
    after the polish (~1e-8, bounded Brent's floor, where no bracket is found).
    """
    lo, hi = check_interval(*interval, limit=INTERVAL_LIMIT)
    blo, bhi = check_interval(*bounds, limit=1e6)
    if not F.uses(f, "a"):
        raise F.FormulaError("the formula has no free constant a to fit")
    df = F.diff(f) if df is None else df
    coarse, fine = np.linspace(lo, hi, COARSE), np.linspace(lo, hi, FINE)
    g_coarse, g_fine = nm.gelu_exact(coarse), nm.gelu_exact(fine)
    grid = np.linspace(blo, bhi, SCAN)
    vals = np.array([grid_sup(f.eval(coarse, a) - g_coarse) for a in grid])
    if not np.isfinite(vals).any():
        raise F.FormulaError(f"cannot fit a: the formula is not finite on [{lo:g}, {hi:g}] for any a in [{blo:g}, {bhi:g}]")
    i = int(np.argmin(vals))
    left, right = grid[max(i - 1, 0)], grid[min(i + 1, SCAN - 1)]
    res = optimize.minimize_scalar(
        lambda a: grid_sup(f.eval(fine, a) - g_fine), bounds=(left, right), method="bounded", options={"xatol": 1e-12}
    )
    a = _polish(f, float(res.x), lo, hi)
    m, at = sup_error(f, df, a, lo, hi)
    return a, m, at


def _polish(f: F.Expr, a: float, lo: float, hi: float) -> float:
    """Bounded Brent stops at ~sqrt(eps) relative; plain Brent on a denser grid
    (parabolic peak error ~125x smaller) takes a to ~1e-10 when a bracket holds."""
    x = np.linspace(lo, hi, POLISH)
    g = nm.gelu_exact(x)
    obj = lambda t: grid_sup(f.eval(x, t) - g)  # noqa: E731
    d = 1e-7 * max(1.0, abs(a))
    try:
        res = optimize.minimize_scalar(obj, bracket=(a - d, a, a + d), method="brent", tol=1e-12)
    except (ValueError, RuntimeError):  # no bracket there (a flat or noisy objective): keep a
        return a
    return float(res.x) if res.fun <= obj(a) else a


@dataclass
class Comparison:
    """A formula against GELU on an interval: curves, located maxima, fitted a."""

    formula: str  # as parsed and printed back
    derivative: str
    interval: tuple[float, float]
    a: float | None  # the value used: fitted, given, or None when the formula has no a
    fitted: bool
    max_abs_error: float
    argmax: float
    max_grad_error: float  # max |f' - GELU'|, located the same way
    argmax_grad: float
    nonfinite: int  # grid points where f is inf or nan
    x: np.ndarray
    y: np.ndarray
    dy: np.ndarray
    gelu: np.ndarray
    gelu_grad: np.ndarray

    def summary(self) -> dict:
        return {
            "formula": self.formula,
            "derivative": self.derivative,
            "interval": list(self.interval),
            "a": self.a,
            "fitted": self.fitted,
            "max_abs_error": self.max_abs_error,
            "argmax": self.argmax,
            "max_grad_error": self.max_grad_error,
            "argmax_grad": self.argmax_grad,
            "nonfinite": self.nonfinite,
        }


def compare_with_gelu(formula: str | F.Expr, interval=(-4.0, 4.0), n: int = 801, a: float | None = None, bounds=BOUNDS) -> Comparison:
    """Parse `formula`, fit its constant a (unless given), and measure it against GELU.

    Raises FormulaError (a ValueError) with a one-line reason for a formula the
    grammar refuses, and ValueError for a bad interval.
    """
    f = F.parse(formula) if isinstance(formula, str) else formula
    lo, hi = check_interval(*interval, limit=INTERVAL_LIMIT)
    if not 2 <= int(n) <= 100_000:
        raise ValueError(f"points must be between 2 and 100000, got {n}")
    df = F.diff(f)
    has_a = F.uses(f, "a")
    fitted = has_a and a is None
    if fitted:
        a = fit_parameter(f, (lo, hi), bounds, df)[0]
    elif not has_a:
        a = None
    elif not np.isfinite(float(a)):
        raise ValueError(f"a must be a finite number, got {a!r}")
    m, at = sup_error(f, df, a, lo, hi)
    d2 = F.diff(df)
    count, first = _first_nonfinite(df, a, lo, hi, FINE)
    if count:
        gm, gat = float("inf"), first
    else:
        ge = lambda x: df.eval(x, a) - nm.gelu_exact_grad(x)  # noqa: E731
        gde = lambda x: d2.eval(x, a) - nm.gelu_exact_grad2(x)  # noqa: E731
        gm, gat = max_abs_error(ge, gde, lo, hi, FINE)
    x = np.linspace(lo, hi, int(n))
    return Comparison(
        formula=F.to_text(f),
        derivative=F.to_text(df),
        interval=(lo, hi),
        a=None if a is None else float(a),
        fitted=bool(fitted),
        max_abs_error=float(m),
        argmax=float(at),
        max_grad_error=float(gm),
        argmax_grad=float(gat),
        nonfinite=_first_nonfinite(f, a, lo, hi, FINE)[0],
        x=x,
        y=f.eval(x, a),
        dy=df.eval(x, a),
        gelu=nm.gelu_exact(x),
        gelu_grad=nm.gelu_exact_grad(x),
    )
