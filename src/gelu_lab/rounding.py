"""The rounding test shared by the float32 kernels and the libm reference.

    round_flag(x, y, lo, hi, out, flags, i)   round y to float32 into out[i]; flag it when
                                              [lo, hi] (which holds the truth) does not decide

Rounding is monotone: if both ends of an interval that holds the true value
round to the same float32, so does the truth. The kernels (gelu_lab.kernels)
and the reference (gelu_lab.reference) each compute a float64 value with its
own error bound and both decide with this one function, so neither imports
the other.
"""

from __future__ import annotations

import numba
import numpy as np

from .numerics import TINY

_FLAGS = dict(error_model="numpy", fastmath={"contract"}, cache=True)


@numba.njit(inline="always", **_FLAGS)
def round_flag(x, y, lo, hi, out, flags, i):
    """Round y to float32 into out[i], knowing the truth lies between lo and hi; flag if undecided.

    Rounding is monotone, so if lo and hi round alike, so does the truth. For
    |x| < TINY an undecided value is an exact tie at x/2 with the truth just
    above it: it rounds up. Shared by every float32 kernel and the reference.
    """
    lo32 = np.float32(lo)
    hi32 = np.float32(hi)
    undecided = lo32 != hi32 and y == y  # nan is decided: it stays nan
    tiny = abs(x) < TINY
    out[i] = max(lo32, hi32) if undecided and tiny else np.float32(y)
    flags[i] = undecided and not tiny


