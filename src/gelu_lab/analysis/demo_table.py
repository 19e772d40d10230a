"""The classic GELU comparison table (the "Python demo" of the app, and `gelu-lab table`).

For each x: exact GELU, the tanh and sigmoid approximations with their absolute
errors against the exact value, and ReLU, all computed in the chosen dtype.
Below it: the seed demo (:mod:`seed_demo`, plain ``math``) against gelu_lab in the
left tail, where its ``1 + erf(x/sqrt 2)`` cancels.
"""

from __future__ import annotations

import functools

import numpy as np

from .. import activations, core, reference
from ..floats import FORMATS, format_of, round_to_format
from . import seed_demo

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


def visible_errors(dtype: str, xs=DEFAULT_X) -> dict:
    """{"tanh": [x...], "sigmoid": [x...]}: the x of the table in `dtype` where the form's
    value, rounded to the dtype, still differs from exact GELU's (its error survives rounding)."""
    rows = comparison_table(xs, dtype)
    return {f: [r["x"] for r in rows if r[f"{f}_abs_err"] != 0] for f in ("tanh", "sigmoid")}


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


# --- the seed demo (seed_demo.py, plain `math`) against gelu_lab in the left tail ---

TAIL_X = (-3.0, -5.0, -6.0, -7.0, -8.0, -8.25, -8.5, -10.0, -20.0)
TAIL_COLUMNS = ["x", "seed", "gelu_lab", "true", "seed_rel_err", "gelu_lab_rel_err"]
SCAN_STEP = 2.0**-10  # the grid on which the seed's relative error is scanned (exact floats)


def _rel(a: float, b: float) -> float:
    """|a - b| / |b|: how wrong a is, as a share of the true value b (b != 0)."""
    return 0.0 if a == b else abs(a - b) / abs(b)


def tail_table(xs=TAIL_X) -> list[dict]:
    """Rows of TAIL_COLUMNS in float64: the seed's 0.5 x (1 + erf(x/sqrt 2)), gelu_lab's
    gelu, and the true value (the library's correctly rounded reference: mpmath at 40
    digits, rounded once to float64), with each one's relative error against it."""
    x = np.asarray(xs, dtype=np.float64)
    true = reference.settle("gelu", x, FORMATS["float64"])
    ours = core.gelu(x)
    rows = []
    for xi, t, g in zip(x.tolist(), true.tolist(), ours.tolist()):
        s = seed_demo.gelu(xi)
        rows.append({"x": xi, "seed": s, "gelu_lab": g, "true": t, "seed_rel_err": _rel(s, t), "gelu_lab_rel_err": _rel(g, t)})
    return rows


@functools.cache
def seed_zero_edge() -> float:
    """The largest float x at which the seed's gelu is exactly 0 (it is for every x below:
    erf(x/sqrt 2) rounds to -1, so 1 + erf is 0). Bisection over the floats in [-40, -1]."""
    lo, hi = -40.0, -1.0  # seed(lo) == 0, seed(hi) != 0
    assert seed_demo.gelu(lo) == 0 and seed_demo.gelu(hi) != 0
    while np.nextafter(lo, 0.0) != hi:  # until no float lies between them
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if seed_demo.gelu(mid) == 0 else (lo, mid)
    return lo


@functools.cache
def seed_scan(lo: float = -10.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(x, seed, gelu_lab) on the grid 0, -SCAN_STEP, ... down to lo, in float64.

    gelu_lab's float64 gelu (within 2 ulp, tests/test_core_accuracy.py) is the yardstick here: its own
    relative error, ~1e-16, is far below anything the scan looks for."""
    x = -np.arange(0, int(-lo / SCAN_STEP) + 1) * SCAN_STEP
    return x, np.array([seed_demo.gelu(v) for v in x.tolist()]), core.gelu(x)


def _scan_rel() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    x, seed, ours = seed_scan()
    with np.errstate(invalid="ignore", divide="ignore"):  # at x = 0 both are 0: no error
        rel = np.where(seed == ours, 0.0, np.abs(seed - ours) / np.abs(ours))
    return x, seed, ours, rel


def seed_rel_edge(tol: float = 1e-6) -> float:
    """The first grid x, going down from 0 (step SCAN_STEP), where the seed's relative
    error exceeds tol."""
    x, _, _, rel = _scan_rel()
    assert (rel > tol).any(), tol
    return float(x[np.argmax(rel > tol)])


def seed_tail_curve(hi: float = -3.0, every: int = 16) -> dict:
    """What the tail figure draws: every `every`-th scan point below hi, as lists:
    x, |seed|, |gelu_lab| and the seed's relative error."""
    x, seed, ours, rel = (a[::every] for a in _scan_rel())
    keep = x <= hi
    return {"x": x[keep].tolist(), "seed": np.abs(seed[keep]).tolist(), "gelu_lab": np.abs(ours[keep]).tolist(), "rel": rel[keep].tolist()}


def seed_agreement(xs=DEFAULT_X) -> tuple[float, float]:
    """(largest relative difference between the seed's gelu and gelu_lab's at xs, the x
    where it is): how closely they agree outside the tail. At x = 0 both must be 0."""
    ours = core.gelu(np.asarray(xs, dtype=np.float64)).tolist()
    diffs = [(_rel(seed_demo.gelu(float(v)), g) if g else abs(seed_demo.gelu(float(v))), float(v)) for v, g in zip(xs, ours)]
    return max(diffs)
