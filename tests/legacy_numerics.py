"""TEMPORARY: the numerics module before its regions were made disjoint, for test_numerics_legacy.py.

Float64 special functions behind every activation in GELU Lab.

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

References: S. G. Johnson, Faddeeva package (SciPy's erfcx); T. J. Dekker,
"A floating-point technique for extending the available precision" (1971);
D. Hendrycks and K. Gimpel, "Gaussian Error Linear Units (GELUs)" (2016).
"""

from __future__ import annotations

import functools
import math

import mpmath
import numpy as np
from scipy import special

from gelu_lab import tables64 as taylor64

SQRT2 = math.sqrt(2.0)
INV_SQRT2 = 1.0 / SQRT2
INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
TANH_CUBIC = 0.044715  # Hendrycks & Gimpel's cubic coefficient of the tanh form
SIGMOID_BETA = 1.702  # Hendrycks & Gimpel's slope of the sigmoid form
# Below TINY every GELU form is x/2 + ~0.4 x^2: just above x/2 by less than a
# quarter ulp of any format, so where x/2 is a rounding midpoint (odd
# subnormal x) the correctly rounded value is the upper neighbour.
TINY = 2.0**-30


def _lo(exact, hi: float) -> float:
    """Low half of a double-double: exact - hi, rounded to float64."""
    return float(mpmath.mpf(exact) - mpmath.mpf(hi))


with mpmath.workdps(40):
    INV_SQRT2_LO = _lo(1 / mpmath.sqrt(2), INV_SQRT2)
    SQRT2_LO = _lo(mpmath.sqrt(2), SQRT2)


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


def exp_neg_half_sq(a):
    """exp(-a^2/2) for float64 a, relative error ~ 1 ulp while the result is normal."""
    e, c = exp_neg_half_sq_parts(a)
    with np.errstate(under="ignore"):
        return (c * e) * e


def phi(x):
    """Standard normal density phi(x) = exp(-x^2/2)/sqrt(2 pi), float64."""
    e, c = exp_neg_half_sq_parts(np.abs(np.asarray(x, dtype=np.float64)))
    with np.errstate(under="ignore"):
        return (INV_SQRT_2PI * c * e) * e


def _times_phi(x, at=None):
    """x * phi(at) (at defaults to x), rounded once into the subnormal range."""
    e, c = exp_neg_half_sq_parts(np.abs(x if at is None else at))
    with np.errstate(under="ignore", invalid="ignore"):
        return (x * INV_SQRT_2PI * c * e) * e


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


def _central(x):
    return (x >= PHI_ERFC_RANGE[0]) & (x <= PHI_ERFC_RANGE[1])


def Phi(x):
    """Standard normal CDF, float64, relative error a few ulp for all x."""
    x = np.asarray(x, dtype=np.float64)
    q = upper_tail(np.abs(x))
    tails = np.where(x < 0, q, 1.0 - q)
    return np.where(_central(x), _Phi_central(x), tails)


def sigmoid(t):
    """Logistic function 1/(1 + e^-t), relative error ~1 ulp, no overflow."""
    return special.expit(np.asarray(t, dtype=np.float64))


# --------------------------------------------------------------------------
# exact GELU, float64


def gelu_exact(x):
    """GELU(x) = x Phi(x), float64, within ~2 ulp everywhere.

    GELU(+inf) = +inf, GELU(-inf) = -0, GELU(-0) = -0, nan -> nan.
    """
    x = np.asarray(x, dtype=np.float64)
    m, e = upper_tail_parts(np.abs(x))
    with np.errstate(invalid="ignore", under="ignore"):
        y = np.where(x < 0, ((x * m) * e) * e, x * (1.0 - (m * e) * e))
        y = np.where(_central(x), x * _Phi_central(x), y)
        y = _from_tables(taylor64.gelu, x, y)
        # -inf * 0 is nan; the limit is -0
        return np.where(x == -np.inf, -0.0, y)


def _from_tables(f, x, y):
    """y with the entries in taylor64's domain replaced by f(x) there (~1 ulp)."""
    inside = taylor64.in_domain(x)
    if np.any(inside):
        y = y.copy() if y.ndim else y.reshape(1).copy()
        y.reshape(-1)[inside.reshape(-1)] = f(x[inside])
        y = y.reshape(x.shape)
    return y


@functools.cache
def grad_root_series(order: int = 26):
    """Root x0 of GELU' (as hi, lo) and Taylor coefficients of GELU' about x0.

    Computed once with mpmath at 50 digits. GELU'' = (2 - x^2) phi; the n-th
    derivative is P_n(x) phi(x) with P_{n+1} = P_n' - x P_n.
    """
    with mpmath.workdps(50):
        d1 = lambda t: mpmath.ncdf(t) + t * mpmath.npdf(t)  # noqa: E731
        x0 = mpmath.findroot(d1, mpmath.mpf("-0.7517915"))
        hi = float(x0)
        lo = float(x0 - hi)
        coeffs = [mpmath.mpf(0)]  # GELU'(x0) = 0
        poly = [mpmath.mpf(2), mpmath.mpf(0), mpmath.mpf(-1)]  # 2 - x^2, low first
        fact = mpmath.mpf(1)
        for n in range(1, order + 1):
            fact *= n
            val = mpmath.polyval(poly[::-1], x0) * mpmath.npdf(x0)
            coeffs.append(val / fact)
            dpoly = [k * poly[k] for k in range(1, len(poly))] + [0, 0]
            xpoly = [0] + poly
            poly = [dpoly[k] - xpoly[k] for k in range(len(xpoly))]
    return hi, lo, np.array([float(c) for c in coeffs])


GRAD_ROOT_RADIUS = 1.0 / 16  # where the root series replaces the tables


def gelu_exact_grad(x):
    """GELU'(x) = Phi(x) + x phi(x), float64, a few ulp everywhere.

    Near the root x0 = -0.7517915... a Taylor series in (x - x0) is used, so
    the relative error stays small through the zero. GELU'(+inf) = 1,
    GELU'(-inf) = -0, GELU'(+-0) = 0.5.
    """
    x = np.asarray(x, dtype=np.float64)
    a = np.abs(x)
    q = upper_tail(a)
    with np.errstate(invalid="ignore", over="ignore"):
        xphi = _times_phi(x)
        y = np.where(x < 0, q + xphi, (1.0 - q) + xphi)
        y = np.where(_central(x), _Phi_central(x) + xphi, y)
        y = _from_tables(taylor64.gelu_grad, x, y)
        hi, lo, c = grad_root_series()
        d = (x - hi) - lo  # x - hi is exact near x0 (Sterbenz)
        near = np.abs(d) < GRAD_ROOT_RADIUS
        if np.any(near):
            y = np.where(near, np.polynomial.polynomial.polyval(d, c), y)
        y = np.where(x == np.inf, 1.0, y)
        # far left both terms underflow to +-0; the true value is negative there
        return np.where((x < 0) & ((y == 0) | np.isinf(x)), -0.0, y)


def gelu_exact_grad2(x):
    """GELU''(x) = (2 - x^2) phi(x), float64; 2 - x^2 formed as (sqrt2-|x|)(sqrt2+|x|)."""
    x = np.asarray(x, dtype=np.float64)
    a = np.abs(x)
    with np.errstate(invalid="ignore", over="ignore"):
        two_minus_sq = ((SQRT2 - a) + SQRT2_LO) * (SQRT2 + a)
        y = _times_phi(two_minus_sq, x)
        # beyond |x| = 40 phi underflows while 2 - x^2 may overflow: the limit is -0
        return np.where(a > 40, -0.0, y)


# --------------------------------------------------------------------------
# the approximations, float64, free of overflow and nan for every finite x


def _sig_and_both(t):
    """sigmoid(t) and sigmoid(t) * sigmoid(-t), each without cancellation."""
    s = special.expit(t)
    return s, s * special.expit(-t)


def gelu_tanh(x, c=TANH_CUBIC, k=SQRT_2_OVER_PI):
    """0.5 x (1 + tanh(k (x + c x^3))), written as x sigmoid(2 k (x + c x^3)).

    1 + tanh(z) = 2 sigmoid(2z) exactly, and the sigmoid form does not cancel
    for z << 0. Finite for every finite x (x^3 may overflow to inf: harmless).
    """
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        z2 = 2.0 * k * (x + c * x * x * x)
        y = x * special.expit(z2)
        return np.where(x == -np.inf, -0.0, y)


def gelu_tanh_grad(x, c=TANH_CUBIC, k=SQRT_2_OVER_PI):
    """d/dx of the tanh form: s + x s(1-s) * 2k(1 + 3c x^2), s = sigmoid(2k(x + c x^3))."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        z2 = 2.0 * k * (x + c * x * x * x)
        s, ss = _sig_and_both(z2)
        dz2 = 2.0 * k * (1.0 + 3.0 * c * x * x)
        term = x * dz2 * ss
        # for |x| > 1e3, ss underflows to 0 while x*dz2 may be inf: the limit is 0
        term = np.where(np.abs(x) > 1e3, 0.0 * x, term)
        y = s + term
        return np.where(x == -np.inf, -0.0, np.where(x == np.inf, 1.0, _negative_zero_left(x, y)))


def _negative_zero_left(x, y):
    """y with its zeros left of the root made -0: both terms underflow there, the truth is negative."""
    return np.where((x < 0) & (y == 0), -0.0, y)


def gelu_tanh_grad2(x, c=TANH_CUBIC, k=SQRT_2_OVER_PI):
    """Second derivative of the tanh form: ss (2 z' + x z'' + x z'^2 (1 - 2s)), z = 2k(x+cx^3)."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        z2 = 2.0 * k * (x + c * x * x * x)
        s, ss = _sig_and_both(z2)
        dz = 2.0 * k * (1.0 + 3.0 * c * x * x)
        ddz = 2.0 * k * 6.0 * c * x
        y = ss * (2.0 * dz + x * ddz + x * dz * dz * (1.0 - 2.0 * s))
        # beyond |x| = 1e3 ss underflows while the bracket may be inf; the truth is negative on both sides
        return np.where(np.abs(x) > 1e3, -0.0, y)


def gelu_sigmoid(x, beta=SIGMOID_BETA):
    """x sigmoid(beta x): finite for every finite x, -0 at -inf."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        y = x * special.expit(beta * x)
        return np.where(x == -np.inf, -0.0, y)


def gelu_sigmoid_grad(x, beta=SIGMOID_BETA):
    """s + beta x s(1-s), s = sigmoid(beta x)."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        s, ss = _sig_and_both(beta * x)
        term = np.where(np.abs(x) > 1e3, 0.0 * x, beta * x * ss)
        y = s + term
        return np.where(x == -np.inf, -0.0, np.where(x == np.inf, 1.0, _negative_zero_left(x, y)))


def gelu_sigmoid_grad2(x, beta=SIGMOID_BETA):
    """beta s(1-s) (2 + beta x (1 - 2s))."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        s, ss = _sig_and_both(beta * x)
        y = beta * ss * (2.0 + beta * x * (1.0 - 2.0 * s))
        return np.where(np.abs(x) > 1e3, -0.0, y)  # as in gelu_tanh_grad2
