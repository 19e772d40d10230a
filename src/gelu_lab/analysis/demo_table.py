"""The classic GELU comparison table (the "Python demo" of the app, and `gelu-lab table`).

For each x: exact GELU, the tanh and sigmoid approximations with their absolute
errors against the exact value, and ReLU, all computed in the chosen dtype.
"""

from __future__ import annotations

import numpy as np

from .. import activations
from ..floats import format_of, round_to_format

DEFAULT_X = (-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0)
COLUMNS = ["x", "gelu", "gelu_tanh", "tanh_abs_err", "gelu_sigmoid", "sigmoid_abs_err", "relu"]


def parse_x_list(text: str) -> list[float]:
    """'a,b,c' -> floats; ValueError naming the bad item (no eval, ever)."""
    items = [s.strip() for s in str(text).replace(";", ",").split(",")]
    items = [s for s in items if s]
    if not items:
        raise ValueError("--x needs at least one number, e.g. --x \"-3,0,3\"")
    if len(items) > 10_000:
        raise ValueError("--x takes at most 10000 numbers")
    out = []
    for s in items:
        try:
            out.append(float(s))
        except ValueError:
            raise ValueError(f"not a number in --x: {s!r}") from None
    return out


def comparison_table(xs=DEFAULT_X, dtype: str = "float64") -> list[dict]:
    """Rows of COLUMNS; errors are |approx - exact| in float64 of the dtype's values."""
    fmt = format_of(dtype)
    x = round_to_format(np.asarray(xs, dtype=np.float64), fmt)  # once, no warning; beyond the range +-inf
    exact = activations.get("gelu").fn(x).astype(np.float64)
    tanh = activations.get("gelu_tanh").fn(x).astype(np.float64)
    sig = activations.get("gelu_sigmoid").fn(x).astype(np.float64)
    relu = activations.get("relu").fn(x).astype(np.float64)
    xv = x.astype(np.float64)

    def err(a, b):  # equal values (equal infinities too) differ by 0, not by inf - inf = nan
        return 0.0 if a == b else float(abs(a - b))

    return [
        {
            "x": float(xv[i]),
            "gelu": float(exact[i]),
            "gelu_tanh": float(tanh[i]),
            "tanh_abs_err": err(tanh[i], exact[i]),
            "gelu_sigmoid": float(sig[i]),
            "sigmoid_abs_err": err(sig[i], exact[i]),
            "relu": float(relu[i]),
        }
        for i in range(len(xv))
    ]
