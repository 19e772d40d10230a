"""Floating-point formats and correct rounding into them.

A format is described by its precision p (significand bits, the implicit one
included) and emin (exponent of the smallest normal number):

    float16  p=11 emin=-14     bfloat16 p=8 emin=-126
    float32  p=24 emin=-126    float64  p=53 emin=-1022

``round_to_format`` rounds float64 values *once* to a narrower format
(round-to-nearest-even, subnormals and overflow included). Going through
float32 on the way to a 16-bit format would round twice and is wrong for
values near a 16-bit midpoint; NumPy's float64->bfloat16 cast does exactly that.
"""

from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass

import ml_dtypes
import mpmath
import numpy as np

bfloat16 = np.dtype(ml_dtypes.bfloat16)


@dataclass(frozen=True)
class Format:
    name: str
    dtype: np.dtype
    p: int  # significand bits, implicit bit included
    emin: int  # exponent of the smallest normal number

    @property
    def min_ulp(self) -> float:
        """Spacing of the subnormals: the smallest positive number."""
        return 2.0 ** (self.emin - self.p + 1)


FORMATS = {
    "float16": Format("float16", np.dtype(np.float16), 11, -14),
    "bfloat16": Format("bfloat16", bfloat16, 8, -126),
    "float32": Format("float32", np.dtype(np.float32), 24, -126),
    "float64": Format("float64", np.dtype(np.float64), 53, -1022),
}


_BY_DTYPE = {f.dtype: f for f in FORMATS.values()}  # the common case without np.dtype(...).name (microseconds a call)


def is_format(dtype: np.dtype) -> bool:
    """Whether a NumPy dtype is one of FORMATS."""
    return dtype in _BY_DTYPE


def format_of(dtype) -> Format:
    """The Format of a NumPy dtype or name; ValueError for non-float dtypes."""
    if isinstance(dtype, np.dtype) and dtype in _BY_DTYPE:
        return _BY_DTYPE[dtype]
    name = dtype if isinstance(dtype, str) else np.dtype(dtype).name
    if name not in FORMATS:
        raise ValueError(f"unsupported dtype {name!r}; use one of {', '.join(FORMATS)}")
    return FORMATS[name]


def ulp_of(y, fmt: Format):
    """Spacing of `fmt` at the float64 values y (their own binade; min_ulp below)."""
    y = np.asarray(y, dtype=np.float64)
    _, e = np.frexp(np.abs(y))  # |y| in [2^(e-1), 2^e)
    return np.ldexp(1.0, np.maximum(e - 1, fmt.emin) - fmt.p + 1)


def round_to_format(y, fmt: Format):
    """Round float64 values once to `fmt`, returned as an array of fmt.dtype.

    Round to nearest, ties to even; values beyond the largest finite number
    round to +-inf as IEEE 754 says; the sign of zero is kept.
    """
    y = np.asarray(y, dtype=np.float64)
    if fmt.p == 53:
        return y.copy()
    with np.errstate(invalid="ignore", over="ignore"):
        step = ulp_of(y, fmt)
        r = np.rint(y / step) * step  # exact: y/step and back are power-of-two scalings
        r = np.where(np.isfinite(y), np.copysign(r, y), y)
        return r.astype(fmt.dtype)  # exact, or the IEEE overflow to inf


def round_known(y, rel_err, fmt: Format, up_where=None):
    """Round y, known to within rel_err, once to `fmt`: (rounded, undecided).

    The true value t lies in [y (1 - rel_err), y (1 + rel_err)]; rounding is
    monotone, so if both ends round alike so does t, and the entry is decided.
    Where ``up_where`` is true an undecided entry takes the upper end's
    rounding and counts as decided: for a y that is a rounded stand-in for a
    truth known to lie just above it (GELU(x) ~ x/2 + 0.4 x^2 for tiny x).
    """
    y = np.asarray(y, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        ends = round_to_format(y * (1.0 - rel_err), fmt), round_to_format(y * (1.0 + rel_err), fmt)
        undecided = (ends[0] != ends[1]) & np.isfinite(y)
        rounded = round_to_format(y, fmt)
        if up_where is not None:
            up = undecided & up_where
            rounded = np.where(up, np.maximum(ends[0], ends[1]), rounded)
            undecided &= ~up
    return rounded, undecided


_THREAD = threading.local()


@contextlib.contextmanager
def mp_context(dps: int):
    """``with mp_context(40) as c:`` -- this thread's own mpmath context at `dps` decimal
    digits for the block (its functions are its methods: ``c.ncdf``, ``c.mpf``); the
    precision it had is restored after, so blocks nest as ``mpmath.workdps`` does.

    ``mpmath.mp`` is one context for the whole process, and ``mpmath.workdps`` sets its
    precision for every thread: a reference computed while another thread enters or leaves
    ``workdps`` (the app's server answers requests in several threads) would come out at
    that thread's precision, 53 bits say, and round the hard cases wrongly.
    """
    ctx = getattr(_THREAD, "mp", None)
    if ctx is None:
        ctx = _THREAD.mp = mpmath.MPContext()
    saved = ctx.prec
    ctx.dps = dps
    try:
        yield ctx
    finally:
        ctx.prec = saved


def round_mpf(t, fmt: Format, tie_up: bool = False) -> float:
    """Round an mpmath number to `fmt` (nearest, ties to even) as a Python float.

    `tie_up` breaks an *exact* tie toward +inf: for a t computed as a rounded
    stand-in for a value known to lie just above it.
    """
    c = getattr(t, "context", mpmath.mp)  # t's own precision, whatever another thread set mpmath.mp's to
    if c.isnan(t):
        return float("nan")
    if t == 0:
        return 0.0
    _, e = c.frexp(abs(t))  # |t| in [2^(e-1), 2^e)
    step = c.ldexp(1, max(int(e) - 1, fmt.emin) - fmt.p + 1)
    n = t / step
    f = c.floor(n)
    frac = n - f
    if frac > 0.5 or (frac == 0.5 and (tie_up or int(f) % 2 == 1)):
        f += 1
    if f == 0:
        return -0.0 if t < 0 else 0.0
    return float(f * step)  # exact: f has at most p bits
