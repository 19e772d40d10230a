"""Ground truth for the tests, by mpmath alone (no gelu_lab code).

`correct(f, x, dtype)` is the correctly rounded value of f at x in dtype: the
true value at 300 bits, then the nearest of the candidate floats around it
by exact distance (ties to the even significand). It shares nothing with
gelu_lab's rounding, which it checks.
"""

import math

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


# --- float32 in bulk -------------------------------------------------------------------------
# correct() is general and careful (300 bits, the neighbours compared by exact distance) and
# takes ~150 us an input; correct_float32() settles a float32 input in ~50 us, by rounding
# mpmath's value itself: what the tests that send mpmath 10^5 inputs can afford.

F32_P, F32_EMIN = 24, -126  # float32: 24-bit significands; below 2^-126 a fixed quantum of 2^-149
_PRECS = (160, 600)  # bits of the first evaluation, and of the second where the first is too close to call
_GUARD = 40  # bits of the working precision not trusted: mpmath's own error and cancellation (GELU' near its root)


def _nearest_f32(t, bits: int):
    """(the float32 nearest the nonzero finite mpf t as a Python float, ties to even; whether t,
    good to `bits` bits, lies closer to a midpoint between two float32s than its own error,
    |t| 2^-(bits - _GUARD))."""
    _, e = mpmath.frexp(t)  # |t| in [2^(e-1), 2^e)
    q = max(int(e) - F32_P, F32_EMIN - F32_P + 1)  # the exponent of an ulp at t (2^-149 at the bottom)
    n = mpmath.ldexp(t, -q)  # t in ulps: exact
    k = int(mpmath.floor(n))
    off = n - k - mpmath.mpf(0.5)  # exact: the fraction's bits are n's
    if off > 0 or (off == 0 and k % 2):
        k += 1
    value = math.ldexp(k, q)  # exact in a double: |k| <= 2^24
    if value == 0:
        value = -0.0 if t < 0 else 0.0
    return value, abs(off) < abs(n) * mpmath.ldexp(1, _GUARD - bits)


def correct_float32(name, xs) -> np.ndarray:
    """Correctly rounded float32 `name` (a key of MP_FUNCS) at every finite float32 in xs.

    mpmath's value at 160 bits, rounded to float32 here; where it falls closer to a
    midpoint than 2^-120 of itself (the tiny inputs, whose GELU lies a hair above x/2,
    a midpoint) it is recomputed at 600 bits, and a value still that close raises (no
    float32 input comes near: their GELU and GELU' are transcendental, except at 0).
    Each evaluation gets twice x's binary exponent in extra bits: exp(-x^2/2) at |x| ~
    1e26 needs x^2/2's ~180 integer bits before any of its own, and at a fixed 160 bits
    mpmath returns GELU'(-4.65e26) with the wrong sign.
    """
    f = MP_FUNCS[name]
    x = np.asarray(xs, dtype=np.float32).ravel()
    out = np.empty(x.size, dtype=np.float32)
    for i, v in enumerate(x.astype(np.float64).tolist()):
        if not math.isfinite(v):
            raise ValueError(f"correct_float32 takes finite inputs, got {v}")
        extra = 2 * max(math.frexp(v)[1], 0)
        for prec in _PRECS:
            with mpmath.workprec(prec + extra):
                t = f(mpmath.mpf(v))
                if t == 0:  # only at x = +-0, and mpmath has no signed zero: x's sign (GELU(-0) = -0)
                    value, close = v, False
                else:
                    value, close = _nearest_f32(t, prec)
            if not close:
                break
        else:
            raise ArithmeticError(f"{name}({v!r}) is too close to a float32 midpoint to call even at {prec} bits")
        out[i] = value
    return out
