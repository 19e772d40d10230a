"""How far apart the GELU forms are, measured in the formats they are computed in: the
numbers of the Implementation page's first section (its "three translators" paragraph).

    apart(a, b)    per approximation (tanh and sigmoid form): its largest error against
                   exact GELU on [a, b], where, that error in steps of each format there,
                   and on how many inputs of each 16-bit format it rounds differently

A step is the spacing of the format's numbers at GELU's value where the error is largest
(an error below one step there is below what the format can write down).
"""

from __future__ import annotations

import functools

import numpy as np

from .. import numerics as nm
from ..floats import FORMATS, ulp_of
from ..reference import correctly_rounded
from . import errors

FORMS = ("gelu_tanh", "gelu_sigmoid")
DTYPES = ("bfloat16", "float16", "float32")  # the 16-bit ones first: where models are trained
ALL16 = 1 << 16  # every bit pattern of a 16-bit format


@functools.cache
def differ16(form: str, dtype: str) -> int:
    """How many of the 65 536 inputs of 16-bit `dtype` give a different correctly rounded
    value under `form` than under exact GELU (nan counts as equal to nan)."""
    x = np.arange(ALL16, dtype=np.uint16).view(FORMATS[dtype].dtype)
    with np.errstate(invalid="ignore"):
        a, b = (correctly_rounded(f, x).astype(np.float64) for f in ("gelu", form))
    return int(np.count_nonzero(~((a == b) | (np.isnan(a) & np.isnan(b)))))


@functools.lru_cache(maxsize=16)
def apart(a: float = -4.0, b: float = 4.0) -> dict:
    """{form: {"max", "at", "steps": {dtype: max error / spacing there}, "differ": {16-bit dtype: inputs}}}."""
    out = {}
    for form in FORMS:
        c = errors.error_curves(form, "gelu", (a, b))
        y = float(nm.gelu_exact(np.float64(c.argmax)))
        out[form] = {"max": c.max_abs_error, "at": c.argmax,
                     "steps": {d: c.max_abs_error / float(ulp_of(y, FORMATS[d])) for d in DTYPES},
                     "differ": {d: differ16(form, d) for d in DTYPES if FORMATS[d].dtype.itemsize == 2}}
    return out
