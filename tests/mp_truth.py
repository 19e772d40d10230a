"""Ground truth for the tests, by mpmath alone (no gelu_lab code).

`correct(f, x, dtype)` is the correctly rounded value of f at x in dtype: the
true value at 300 bits, then the nearest of the candidate floats around it
by exact distance (ties to the even significand). It shares nothing with
gelu_lab's rounding, which it checks.
"""

import mpmath
import numpy as np

MP_FUNCS = {
    "gelu": lambda t: t * mpmath.ncdf(t),
    "gelu_grad": lambda t: mpmath.ncdf(t) + t * mpmath.npdf(t),
    "gelu_grad2": lambda t: (2 - t * t) * mpmath.npdf(t),
    # 0.5 t (1 + tanh z) written as t / (1 + exp(-2z)) so that it does not cancel
    "gelu_tanh": lambda t: t / (1 + mpmath.exp(-2 * mpmath.sqrt(2 / mpmath.pi) * (t + mpmath.mpf("0.044715") * t**3))),
    "gelu_sigmoid": lambda t: t / (1 + mpmath.exp(-mpmath.mpf("1.702") * t)),
}


def _bits(dtype):
    return {2: np.uint16, 4: np.uint32, 8: np.uint64}[np.dtype(dtype).itemsize]


def neighbours(v, dtype):
    """v and the two floats of dtype next to it (v a finite float of dtype)."""
    a = np.array([v], dtype=dtype)
    b = a.view(_bits(dtype))
    out = [a[0]]
    for step in (-1, 1):
        c = (b.astype(np.int64) + step)
        if 0 <= c[0] < 2 ** (8 * a.itemsize):
            cand = c.astype(_bits(dtype)).view(dtype)[0]
            if np.isfinite(np.float64(cand)):
                out.append(cand)
    # crossing zero: the floats just either side of zero
    out.append(np.array([0.0], dtype=dtype)[0])
    return out


def correct(name_or_fn, x, dtype):
    """Correctly rounded f(x) in dtype, by mpmath at 300 bits."""
    f = MP_FUNCS[name_or_fn] if isinstance(name_or_fn, str) else name_or_fn
    with mpmath.workprec(300):
        t = f(mpmath.mpf(float(x)))
        guess = np.array([float(t)], dtype=np.float64).astype(dtype)[0]
        if not np.isfinite(np.float64(guess)):
            return guess  # overflow: the format's inf
        best, best_d = None, None
        for c in neighbours(guess, dtype):
            d = abs(mpmath.mpf(float(np.float64(c))) - t)
            if best is None or d < best_d or (d == best_d and int(np.array([c]).view(_bits(dtype))[0]) % 2 == 0):
                best, best_d = c, d
        if float(np.float64(best)) == 0.0:  # zero keeps the sign of the truth
            best = np.array([-0.0 if t < 0 else 0.0], dtype=dtype)[0]
        return best


def ulp_error(y, x, name, dtype=np.float64):
    """|y - f(x)| in ulps of f(x) in dtype (float64 by default), by mpmath."""
    f = MP_FUNCS[name]
    with mpmath.workprec(300):
        t = f(mpmath.mpf(float(x)))
        ft = float(t)
        spacing = float(np.spacing(np.abs(np.array(ft, dtype=dtype)))) if ft != 0 else float(np.finfo(dtype).smallest_subnormal)
        return float(abs(mpmath.mpf(float(y)) - t) / spacing)
