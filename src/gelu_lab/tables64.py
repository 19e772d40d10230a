"""GELU and GELU' in float64 to about one ulp: Taylor series from a 1/64 grid.

A float64 evaluation through erfc/erfcx rounds four or five times and lands
up to ~8 ulp from the truth. Here instead, for t_j = j/64 on [-37.6, 8.5],

    GELU(t_j + h)  = G0_j + sum_{k>=1} GELU^(k)(t_j)/k! h^k,        |h| <= 1/128
    GELU'(t_j + h) = G1_j + sum_{k>=1} GELU^(k+1)(t_j)/k! h^k

with G0_j = GELU(t_j) and G1_j = GELU'(t_j) held as double-doubles (hi + lo)
and the series' coefficients as doubles, all computed once with mpmath at
34 digits on first use. h = x - t_j is exact, the
series is a small correction evaluated by Horner, and the only rounding of
size is the final hi + (lo + series): the result is within ~1.5 ulp.

Derivatives: GELU^(k)(t) = (-1)^(k-1) phi(t) (He_k(t) - He_{k-2}(t)) for k >= 2,
with He the probabilists' Hermite polynomials (He_k = t He_{k-1} - (k-1) He_{k-2}).

Domain of use: |x| >= 1/128 and -37.6 <= x <= 8.5 (outside, the direct
formulas of :mod:`gelu_lab.numerics` are already within an ulp or subnormal).
GELU' near its zero x0 = -0.7518 is left to the root series in numerics.
"""

from __future__ import annotations

import functools

import mpmath
import numpy as np

GRID = 64  # grid points per unit of x
T_LO, T_HI = -37.6, 8.5  # left of -37.6 the results are subnormal: the direct formulas round once
ORDER = 16  # terms of each series: |38 h|^k / k! < 1e-18 at k = 16


@functools.cache
def tables():
    """(g0_hi, g0_lo, g1_hi, g1_lo, D) with D[j, k] = GELU^(k)(t_j)/k!, k = 0..ORDER+1.

    G0 and G1 by mpmath (double-double); the higher coefficients need only
    double precision (they multiply h^k <= 2^-7k) and come from the Hermite
    recurrence in NumPy.
    """
    n = np.arange(int(T_LO * GRID), int(T_HI * GRID) + 1)
    t = n / GRID  # exact
    g = np.empty((4, n.size))
    m = mpmath.MPContext()  # its own: mpmath.mp's precision is every thread's, and a first call may come from any
    m.dps = 34
    for i, ti in enumerate(t):
        tm = m.mpf(ti)
        pdf, cdf = m.npdf(tm), m.ncdf(tm)
        for r, v in enumerate((tm * cdf, cdf + tm * pdf)):
            g[2 * r, i] = float(v)
            g[2 * r + 1, i] = float(v - g[2 * r, i])
    pdf = np.exp(-0.5 * t * t) / np.sqrt(2 * np.pi)
    he = [np.ones_like(t), t]
    for k in range(2, ORDER + 2):
        he.append(t * he[-1] - (k - 1) * he[-2])
    d = np.empty((n.size, ORDER + 2))
    d[:, 0], d[:, 1] = g[0], g[2]
    fact = 1.0
    for k in range(2, ORDER + 2):
        fact *= k
        d[:, k] = (-1) ** (k - 1) * pdf * (he[k] - he[k - 2]) / fact
    return g[0], g[1], g[2], g[3], d


def in_domain(x):
    """Where the tables apply: 1/128 <= |x| and T_LO <= x <= T_HI (nan: False)."""
    return (np.abs(x) >= 1.0 / 128) & (x >= T_LO) & (x <= T_HI)


def _series(coeffs, h):
    """sum_{k>=1} coeffs[:, k] h^k by Horner (coeffs[:, 0] unused)."""
    s = coeffs[:, -1]
    for k in range(coeffs.shape[1] - 2, 0, -1):
        s = s * h + coeffs[:, k]
    return s * h


def gelu(x):
    """GELU at float64 x inside in_domain(x); ~1 ulp."""
    g0_hi, g0_lo, _, _, d = tables()
    j = np.rint(x * GRID)
    h = x - j / GRID  # exact: t_j and x are within a factor 2 of each other
    i = (j - int(T_LO * GRID)).astype(np.intp)
    return g0_hi[i] + (g0_lo[i] + _series(d[i, : ORDER + 1], h))


def gelu_grad(x):
    """GELU' at float64 x inside in_domain(x); ~1 ulp away from its zero."""
    _, _, g1_hi, g1_lo, d = tables()
    j = np.rint(x * GRID)
    h = x - j / GRID
    i = (j - int(T_LO * GRID)).astype(np.intp)
    k = np.arange(ORDER + 2)
    # GELU'(t+h) = sum_k GELU^(k+1)(t)/k! h^k = sum_k (k+1) D[k+1] h^k
    shifted = np.zeros((i.size, ORDER + 1))
    shifted[:, 1:] = d[i, 2 : ORDER + 2] * k[2 : ORDER + 2]
    return g1_hi[i] + (g1_lo[i] + _series(shifted, h))
