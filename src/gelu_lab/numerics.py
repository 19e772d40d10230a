"""Float64 special functions behind every activation in GELU Lab.

Everything here takes and returns float64 NumPy arrays and keeps the *relative*
error small over the whole floating-point range, the negative tail included.
The dtype-aware public functions live in :mod:`gelu_lab.core` and
:mod:`gelu_lab.activations`; this module is only the maths.

The one idea behind the exact GELU
----------------------------------
``GELU(x) = x Phi(x)``; frameworks evaluate ``0.5 x (1 + erf(x/sqrt2))``, and for
x < 0 the sum ``1 + erf`` cancels (at x = -5 float32 keeps 2 digits; below
x ~ -5.5 it returns 0). With a = |x| we write instead

    Q(a) = Phi(-a) = 0.5 exp(-a^2/2) erfcx(a/sqrt2)        (erfcx ~ 1/u, smooth)
    GELU(x) = x (1 - Q)  for x >= 0,     GELU(x) = x Q  for x < 0,

so no two nearly equal numbers are ever subtracted. ``a^2`` is carried as a
double-double so that exp(-a^2/2) keeps full relative accuracy even at a = 38.

The derivative ``GELU'(x) = Phi(x) + x phi(x)`` does cancel near its root
x0 = -0.75179...; there it is evaluated as a Taylor series in (x - x0), with x0
held to 106 bits, so the relative error stays at a few ulp right through the zero.

REGIONS: one method per region of x
-----------------------------------
Each function is a table of rows (:class:`Row`); an input is evaluated by the
first row whose region holds it, and by no other (:func:`piecewise`). The last
row takes the rest, nan included (its formula passes nan on).

    Phi               -0.5 <= x <= 3          erfc(-x/sqrt2)/2, argument rounding corrected
                      x < 0                   Q(-x)
                      otherwise               1 - Q(x)
    gelu_exact        x = -inf                -0 (the limit)
    (GELU_ROWS)       |x| < 1/128             x Phi(x), Phi by erfc as above
                      tables64.in_domain(x)   Taylor series from a 1/64 grid (~1 ulp)
                      x < 0                   x Q(-x), rounded once (x < -37.6: subnormal)
                      otherwise               x (1 - Q(x))   (x > 8.5, +inf)
    gelu_exact_grad   x = -inf                -0
    (GELU_GRAD_ROWS)  x = +inf                1
                      |x - x0| < 1/16         Taylor series about the root x0
                      |x| < 1/128             Phi(x) + x phi(x), Phi by erfc
                      tables64.in_domain(x)   Taylor series from the 1/64 grid
                      x < 0                   Q(-x) + x phi(x); an underflowed 0 is -0
                      otherwise               1 - Q(x) + x phi(x)
    gelu_exact_grad2  |x| > 40                -0 (phi underflows, 2 - x^2 may overflow)
                      otherwise               (2 - x^2) phi(x)
    x sigmoid(z)      x < -1e3                -0 for the value and both derivatives
    (the tanh and     x > 1e3                 x; 1; -0   (sigmoid(z) is 1, s(1-s) underflows)
    sigmoid forms)    otherwise               x s;  s + x z' s(1-s);  s(1-s)(2z' + x z'' + x z'^2 (1-2s))

Q(a) = Phi(-a) is :func:`upper_tail`; w phi(x) is :func:`times_phi`; tables64's
domain is 1/128 <= |x|, -37.6 <= x <= 8.5.

References: S. G. Johnson, Faddeeva package (SciPy's erfcx); T. J. Dekker,
"A floating-point technique for extending the available precision" (1971);
D. Hendrycks and K. Gimpel, "Gaussian Error Linear Units (GELUs)" (2016).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Callable

import numpy as np
from scipy import special

from . import tables64
from .floats import mp_context

SQRT2 = math.sqrt(2.0)
INV_SQRT2 = 1.0 / SQRT2
INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
TANH_CUBIC = 0.044715  # Hendrycks & Gimpel's cubic coefficient of the tanh form
SIGMOID_BETA = 1.702  # the sigmoid form's beta: the minimax beta of sigmoid(beta x) ~ Phi(x) (~1.7017) to 3 decimals, not a slope match (4/sqrt(2 pi) ~ 1.596)
# Below TINY every GELU form is x/2 + ~0.4 x^2: just above x/2 by less than a
# quarter ulp of any format, so where x/2 is a rounding midpoint (odd
# subnormal x) the correctly rounded value is the upper neighbour.
TINY = 2.0**-30
# the float64 formulas of every form and order, as gelu_lab.torch (generic) and gelu_lab.gpu compute them,
# err by at most (BOUND_BASE + slope min(t, cap)) 2^-53 of the sum of their terms' sizes, plus BOUND_FLOOR
# (t = x^2 for the exact form, |z| for the x sigmoid(z) forms; gelu_lab.torch says why)
BOUND_BASE = 64.0
BOUND_X2 = (4.0, 1600.0)  # slope and cap of x^2 (exact form)
BOUND_Z = (32.0, 800.0)  # of |z| (tanh and sigmoid forms)
BOUND_FLOOR = 2.0**-1000


def _lo(exact, hi: float) -> float:
    """Low half of a double-double: exact - hi (an mpf of its own context), rounded to float64."""
    return float(exact - hi)


with mp_context(40) as _m:
    INV_SQRT2_LO = _lo(1 / _m.sqrt(2), INV_SQRT2)
    SQRT2_LO = _lo(_m.sqrt(2), SQRT2)


def two_prod(a, b):
    """Dekker's exact product: returns (p, e) with a*b == p + e exactly."""
    split = 134217729.0  # 2**27 + 1
    with np.errstate(over="ignore", invalid="ignore"):
        p = a * b
        ta = split * a
        a_hi = ta - (ta - a)
        a_lo = a - a_hi
        tb = split * b
        b_hi = tb - (tb - b)
        b_lo = b - b_hi
        e = ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    return p, np.where(np.isfinite(e), e, 0.0)


def exp_neg_half_sq_parts(a):
    """(e, c) with exp(-a^2/2) = e * e * c, each factor a normal float64 or 0.

    a^2 = hi + lo exactly (Dekker); e = exp(-hi/4) and c = exp(-lo/2). Splitting the
    exponential in two keeps every intermediate normal, so a result that ends
    subnormal is rounded once, by the caller's last multiplication.
    """
    a = np.asarray(a, dtype=np.float64)
    hi, lo = two_prod(a, a)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        # |lo| <= ulp(hi)/2 exceeds 1 only where exp(-hi/4) is already 0; unclipped,
        # exp(-lo/2) would overflow there (a > ~4e9) and 0 * inf would give nan
        return np.exp(-0.25 * hi), np.exp(-0.5 * np.clip(lo, -1.0, 1.0))


def times_phi(w, x):
    """w phi(x), phi the standard normal density, rounded once into the subnormal range."""
    e, c = exp_neg_half_sq_parts(np.abs(x))
    with np.errstate(under="ignore", invalid="ignore"):
        return (w * INV_SQRT_2PI * c * e) * e


def phi(x):
    """Standard normal density phi(x) = exp(-x^2/2)/sqrt(2 pi), float64."""
    return times_phi(1.0, np.asarray(x, dtype=np.float64))


def upper_tail_parts(a):
    """(m, e) with Q(a) = Phi(-a) = m * e * e for a >= 0 (see upper_tail)."""
    a = np.asarray(a, dtype=np.float64)
    u, du = two_prod(a, np.float64(INV_SQRT2))
    e, c = exp_neg_half_sq_parts(a)
    with np.errstate(all="ignore"):
        du = du + a * INV_SQRT2_LO
        ex = special.erfcx(u)
        corr = du * (2.0 * u - (2.0 / math.sqrt(math.pi)) / ex)
        # first order in du; |corr| > 1/2 only where exp(-a^2/2) underflows anyway
        corr = np.clip(np.where(np.isfinite(corr), corr, 0.0), -0.5, 0.5)
        m = 0.5 * ex * (1.0 + corr) * c
    m = np.where(a == np.inf, 0.0, m)
    return m, e


def upper_tail(a):
    """Q(a) = Phi(-a) for a >= 0: 0.5 exp(-a^2/2) erfcx(a/sqrt2).

    Domain a >= 0 (+inf gives 0, nan gives nan). Relative error a few ulp for
    every a whose result is a normal float64. The rounding of u = a/sqrt2 is
    corrected to first order with erfcx'(u)/erfcx(u) = 2u - 2/(sqrt(pi) erfcx(u)).
    """
    m, e = upper_tail_parts(a)
    with np.errstate(under="ignore"):
        return (m * e) * e


PHI_ERFC_RANGE = (-0.5, 3.0)  # x range where Phi comes from erfc(-x/sqrt2) directly
NEAR_ZERO = 1.0 / 128  # inside, tables64 does not apply and erfc is used directly
GRAD_ROOT_RADIUS = 1.0 / 16  # where the root series of GELU' replaces the tables
SATURATED = 1e3  # beyond |x| = SATURATED, sigmoid(z) of every x sigmoid(z) form here is 0 or 1


def _Phi_central(x):
    """Phi(x) = erfc(-x/sqrt2)/2 on PHI_ERFC_RANGE, the argument's rounding corrected.

    There erfc(-u) lies in [0.62, 2] and is well conditioned, so one erfc call
    and a first-order correction for u = x/sqrt2 give ~1 ulp, better than the
    erfcx product, whose four roundings add up. (Further left, erfc(|u|) is
    1 - erf(|u|) inside SciPy and cancels: the erfcx form is better there.)
    """
    u, du = two_prod(x, np.float64(INV_SQRT2))
    du = du + x * INV_SQRT2_LO
    with np.errstate(under="ignore"):
        return 0.5 * special.erfc(-u) + du * (1.0 / math.sqrt(math.pi)) * np.exp(-u * u)


# --------------------------------------------------------------------------
# one method per region of x


@dataclass(frozen=True)
class Row:
    """One region of x and the method used there: `holds(x)` a mask (None: every x left), `method(x)` the values."""

    where: str  # the region, as REGIONS in the module docstring says it
    holds: Callable | None
    method: Callable


def piecewise(x, rows) -> np.ndarray:
    """Each entry of x evaluated by the method of the first row whose region holds it, and by no other.

    The masks are made disjoint (a row takes only what no earlier row took) and
    the last row, whose ``holds`` is None, takes the rest, nan included; a method
    sees only its own inputs. Returns a new float64 array of x's shape.
    """
    x = np.asarray(x, dtype=np.float64)
    flat = x.reshape(-1)
    y = np.empty_like(flat)
    free = np.ones(flat.size, dtype=bool)
    left = flat.size
    with np.errstate(all="ignore"):
        for row in rows:
            here = free if row.holds is None else row.holds(flat) & free
            n = np.count_nonzero(here)
            if n == flat.size:  # one region holds all: no gather, no scatter
                return row.method(flat).reshape(x.shape)
            if n:
                y[here] = row.method(flat[here])
                left -= n
                if not left:
                    break
                free &= ~here
    return y.reshape(x.shape)


def _const(v: float):
    return lambda x: np.full(x.shape, v)


def _is(v: float):
    return lambda x: x == v


def _below(v: float):
    return lambda x: x < v


def _above(v: float):
    return lambda x: x > v


def _near_zero(x):
    return np.abs(x) < NEAR_ZERO


def _near_grad_root(x):
    hi, lo, _ = grad_root_series()
    return np.abs((x - hi) - lo) < GRAD_ROOT_RADIUS


def _in_erfc_range(x):
    return (x >= PHI_ERFC_RANGE[0]) & (x <= PHI_ERFC_RANGE[1])


def _negative_zero_left(x, y):
    """y with its zeros left of the root made -0: both terms underflow there, the truth is negative."""
    return np.where((x < 0) & (y == 0), -0.0, y)


# --- the methods: x is the region's own inputs -------------------------------


def _gelu_left(x):
    """x Q(-x) for x < 0, the product rounded once (subnormal below x ~ -37.6)."""
    m, e = upper_tail_parts(-x)
    return ((x * m) * e) * e


def _gelu_right(x):
    """x (1 - Q(x)) for x >= 0 (and nan)."""
    return x * (1.0 - upper_tail(np.abs(x)))


def _gelu_central(x):
    return x * _Phi_central(x)


def _grad_left(x):
    return _negative_zero_left(x, upper_tail(-x) + times_phi(x, x))


def _grad_right(x):
    return (1.0 - upper_tail(np.abs(x))) + times_phi(x, x)


def _grad_central(x):
    return _Phi_central(x) + times_phi(x, x)


def _grad_root(x):
    """GELU' about its root x0 by the Taylor series: x - hi is exact near x0 (Sterbenz)."""
    hi, lo, c = grad_root_series()
    return np.polynomial.polynomial.polyval((x - hi) - lo, c)


def _grad2(x):
    """(2 - x^2) phi(x), 2 - x^2 formed as (sqrt2 - |x|)(sqrt2 + |x|)."""
    a = np.abs(x)
    return times_phi(((SQRT2 - a) + SQRT2_LO) * (SQRT2 + a), x)


def _Phi_left(x):
    return upper_tail(-x)


def _Phi_right(x):
    return 1.0 - upper_tail(np.abs(x))


def _x_sigmoid(z, dz, ddz, order: int):
    """The method for the order-th derivative of x sigmoid(z(x)), given z, z' and z'' as functions of x.

        f = x s,   f' = s + x z' s(1-s),   f'' = s(1-s) (2 z' + x z'' + x z'^2 (1 - 2s)),   s = sigmoid(z)

    s(1-s) is formed as sigmoid(z) sigmoid(-z), which does not cancel. For
    |x| <= SATURATED nothing overflows.
    """

    def method(x):
        zx = z(x)
        s = special.expit(zx)
        if order == 0:
            return x * s
        ss = s * special.expit(-zx)
        d = dz(x)
        if order == 1:
            return _negative_zero_left(x, s + x * d * ss)
        return ss * (2.0 * d + x * ddz(x) + x * d * d * (1.0 - 2.0 * s))

    return method


def _x_sigmoid_rows(z, dz, ddz, order: int) -> tuple:
    """The regions of an x sigmoid(z) form: its limits beyond +-SATURATED, the formula between."""
    right = (np.copy, _const(1.0), _const(-0.0))[order]  # x; 1; -0: s(1-s) underflows, the truth is negative
    return (
        Row("x < -1e3", _below(-SATURATED), _const(-0.0)),
        Row("x > 1e3", _above(SATURATED), right),
        Row("otherwise", None, _x_sigmoid(z, dz, ddz, order)),
    )


def _tanh_z(c: float, k: float) -> tuple:
    """z = 2k(x + c x^3), z', z'': 0.5 x (1 + tanh(z/2)) = x sigmoid(z), as 1 + tanh(w) = 2 sigmoid(2w)."""
    return (
        lambda x: 2.0 * k * (x + c * x * x * x),
        lambda x: 2.0 * k * (1.0 + 3.0 * c * x * x),
        lambda x: 2.0 * k * 6.0 * c * x,
    )


def _sigmoid_z(beta: float) -> tuple:
    """z = beta x, z' = beta, z'' = 0."""
    return (lambda x: beta * x, lambda x: beta, lambda x: 0.0)


GELU_ROWS = (
    Row("x = -inf", _is(-np.inf), _const(-0.0)),
    Row("|x| < 1/128", _near_zero, _gelu_central),
    Row("tables64.in_domain(x)", tables64.in_domain, tables64.gelu),
    Row("x < 0", _below(0.0), _gelu_left),
    Row("otherwise", None, _gelu_right),
)
GELU_GRAD_ROWS = (
    Row("x = -inf", _is(-np.inf), _const(-0.0)),
    Row("x = +inf", _is(np.inf), _const(1.0)),
    Row("|x - x0| < 1/16", _near_grad_root, _grad_root),
    Row("|x| < 1/128", _near_zero, _grad_central),
    Row("tables64.in_domain(x)", tables64.in_domain, tables64.gelu_grad),
    Row("x < 0", _below(0.0), _grad_left),
    Row("otherwise", None, _grad_right),
)
GELU_GRAD2_ROWS = (
    Row("|x| > 40", lambda x: np.abs(x) > 40, _const(-0.0)),
    Row("otherwise", None, _grad2),
)
PHI_ROWS = (
    Row("-0.5 <= x <= 3", _in_erfc_range, _Phi_central),
    Row("x < 0", _below(0.0), _Phi_left),
    Row("otherwise", None, _Phi_right),
)


def Phi(x):
    """Standard normal CDF, float64, relative error a few ulp for all x."""
    return piecewise(x, PHI_ROWS)


def sigmoid(t):
    """Logistic function 1/(1 + e^-t), relative error ~1 ulp, no overflow."""
    return special.expit(np.asarray(t, dtype=np.float64))


# --------------------------------------------------------------------------
# exact GELU, float64


def gelu_exact(x):
    """GELU(x) = x Phi(x), float64, within ~2 ulp everywhere (regions: GELU_ROWS).

    GELU(+inf) = +inf, GELU(-inf) = -0, GELU(-0) = -0, nan -> nan.
    """
    return piecewise(x, GELU_ROWS)


@functools.cache
def grad_root_series(order: int = 26):
    """Root x0 of GELU' (as hi, lo) and Taylor coefficients of GELU' about x0.

    Computed once with mpmath at 50 digits. GELU'' = (2 - x^2) phi; the n-th
    derivative is P_n(x) phi(x) with P_{n+1} = P_n' - x P_n.
    """
    with mp_context(50) as m:  # this thread's own: a first call may come from any thread
        d1 = lambda t: m.ncdf(t) + t * m.npdf(t)  # noqa: E731
        x0 = m.findroot(d1, m.mpf("-0.7517915"))
        hi = float(x0)
        lo = float(x0 - hi)
        coeffs = [m.mpf(0)]  # GELU'(x0) = 0
        poly = [m.mpf(2), m.mpf(0), m.mpf(-1)]  # 2 - x^2, low first
        fact = m.mpf(1)
        for n in range(1, order + 1):
            fact *= n
            val = m.polyval(poly[::-1], x0) * m.npdf(x0)
            coeffs.append(val / fact)
            dpoly = [k * poly[k] for k in range(1, len(poly))] + [0, 0]
            xpoly = [0] + poly
            poly = [dpoly[k] - xpoly[k] for k in range(len(xpoly))]
    return hi, lo, np.array([float(c) for c in coeffs])


def gelu_exact_grad(x):
    """GELU'(x) = Phi(x) + x phi(x), float64, a few ulp everywhere (regions: GELU_GRAD_ROWS).

    Near the root x0 = -0.7517915... a Taylor series in (x - x0) is used, so
    the relative error stays small through the zero. GELU'(+inf) = 1,
    GELU'(-inf) = -0, GELU'(+-0) = 0.5.
    """
    return piecewise(x, GELU_GRAD_ROWS)


def gelu_exact_grad2(x):
    """GELU''(x) = (2 - x^2) phi(x), float64 (regions: GELU_GRAD2_ROWS); -0 beyond |x| = 40."""
    return piecewise(x, GELU_GRAD2_ROWS)


# --------------------------------------------------------------------------
# the approximations, x sigmoid(z), float64, free of overflow and nan for every finite x


def gelu_tanh(x, c=TANH_CUBIC, k=SQRT_2_OVER_PI):
    """0.5 x (1 + tanh(k (x + c x^3))), written as x sigmoid(2 k (x + c x^3)).

    1 + tanh(w) = 2 sigmoid(2w) exactly, and the sigmoid form does not cancel
    for w << 0. Finite for every finite x; -0 at -inf.
    """
    return piecewise(x, _x_sigmoid_rows(*_tanh_z(c, k), 0))


def gelu_tanh_grad(x, c=TANH_CUBIC, k=SQRT_2_OVER_PI):
    """d/dx of the tanh form: s + x z' s(1-s), s = sigmoid(z), z = 2k(x + c x^3)."""
    return piecewise(x, _x_sigmoid_rows(*_tanh_z(c, k), 1))


def gelu_tanh_grad2(x, c=TANH_CUBIC, k=SQRT_2_OVER_PI):
    """Second derivative of the tanh form: s(1-s) (2 z' + x z'' + x z'^2 (1 - 2s)), z = 2k(x + c x^3)."""
    return piecewise(x, _x_sigmoid_rows(*_tanh_z(c, k), 2))


def gelu_sigmoid(x, beta=SIGMOID_BETA):
    """x sigmoid(beta x): finite for every finite x, -0 at -inf."""
    return piecewise(x, _x_sigmoid_rows(*_sigmoid_z(beta), 0))


def gelu_sigmoid_grad(x, beta=SIGMOID_BETA):
    """s + beta x s(1-s), s = sigmoid(beta x)."""
    return piecewise(x, _x_sigmoid_rows(*_sigmoid_z(beta), 1))


def gelu_sigmoid_grad2(x, beta=SIGMOID_BETA):
    """s(1-s) (2 beta + beta^2 x (1 - 2s)), s = sigmoid(beta x)."""
    return piecewise(x, _x_sigmoid_rows(*_sigmoid_z(beta), 2))
