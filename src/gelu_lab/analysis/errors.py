"""Error of one activation against another, with the maxima located.

    error_curves(approx="gelu_tanh", reference="gelu", interval=(-4, 4))  -> ErrorCurves
    located_maxima(err, derr, a, b)      every local maximum of |err| on [a, b], refined
    max_abs_error(err, derr, a, b)       (value, x) of the largest of them

The error is e(x) = approx(x) - reference(x), in float64 (each side within a few
ulp of its formula, so e is good to ~1e-16 absolute). The maximum of |e| is found
on a dense grid, then each interior local maximum is refined by a bounded 1-D
solver (Brent) on e'(x) = 0: the derivative is known to ~1e-16 and e'' is O(1e-3)
at the peaks, so x* is good to far better than 1e-10. Refining |e| itself could not
do that: near a maximum |e| is flat to second order, so float64 values would pin x
only to ~sqrt(eps) ~ 1e-8.

Symmetry: GELU and both approximations satisfy f(x) - f(-x) = x, so the error is
even, e(-x) = e(x), and the maxima come in +- pairs; ``ErrorCurves.argmax_pair``
holds both, each located on its own half of the interval.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import optimize

from .. import activations

# short names the CLI accepts for the two classic approximations: tanh, sigmoid
FORMS = {approx: name for name, approx in activations.APPROXIMATE.items() if approx != "none"}
GRID = 20001  # grid points used to find the peaks before refining them
XTOL = 1e-12  # tolerance in x of the refinement
REFINE = 8  # grid peaks refined, largest first


def activation_name(name: str) -> str:
    """'tanh' / 'sigmoid' / any registry name or alias -> the canonical registry name."""
    return FORMS.get(str(name).strip().lower(), None) or activations.canonical(name)


def _f64(fn):
    return lambda x: np.asarray(fn(np.asarray(x, dtype=np.float64)), dtype=np.float64)


def error_functions(approx: str, reference: str = "gelu"):
    """(e, e') for registry names: e(x) = approx(x) - reference(x), float64."""
    a, r = activations.get(activation_name(approx)), activations.get(activation_name(reference))
    fa, fr, ga, gr = _f64(a.fn), _f64(r.fn), _f64(a.grad), _f64(r.grad)
    return (lambda x: fa(x) - fr(x)), (lambda x: ga(x) - gr(x))


def check_interval(a, b, limit: float = 1e6) -> tuple[float, float]:
    """Validated (a, b) as floats: finite, a < b, |a|, |b| <= limit; ValueError otherwise."""
    try:
        a, b = float(a), float(b)
    except (TypeError, ValueError):
        raise ValueError(f"interval ends must be numbers, got {a!r} {b!r}") from None
    if not (np.isfinite(a) and np.isfinite(b)):
        raise ValueError(f"interval ends must be finite, got {a!r} {b!r}")
    if not a < b:
        raise ValueError(f"interval needs A < B, got {a!r} {b!r}")
    if max(abs(a), abs(b)) > limit:
        raise ValueError(f"interval ends must lie within +-{limit:g}")
    return a, b


def located_maxima(err, derr, a: float, b: float, n: int = GRID) -> list[tuple[float, float]]:
    """The largest local maxima of |err| on [a, b] as (x, |err(x)|), largest first.

    Dense grid of n points, then for each interior grid peak a Brent root of
    err' between its neighbours (a bounded optimiser on |err| where err' does
    not change sign there, e.g. at a kink). The ends count when |err| peaks there.
    Only the REFINE largest grid peaks are refined and returned.
    """
    x = np.linspace(a, b, n)
    m = np.abs(err(x))
    pad = np.concatenate([[-np.inf], m, [-np.inf]])
    left, right = pad[:-2], pad[2:]
    is_peak = (m >= left) & (m >= right) & ((m > left) | (m > right)) & (m > 0)
    # refining moves a peak's value by O(h^2): the largest is among the top few
    peaks = sorted(np.flatnonzero(is_peak), key=lambda i: -m[i])[:REFINE]
    out = []
    for i in peaks:
        if i in (0, n - 1):
            out.append((float(x[i]), float(m[i])))
            continue
        lo, hi = float(x[i - 1]), float(x[i + 1])
        dlo, dhi = float(derr(lo)), float(derr(hi))
        if np.sign(dlo) * np.sign(dhi) < 0:
            xs = optimize.brentq(lambda t: float(derr(t)), lo, hi, xtol=XTOL, rtol=4 * np.finfo(float).eps)
        else:
            res = optimize.minimize_scalar(lambda t: -abs(float(err(t))), bounds=(lo, hi), method="bounded", options={"xatol": XTOL})
            xs = float(res.x)
        vs = abs(float(err(xs)))
        out.append((xs, vs) if vs >= m[i] else (float(x[i]), float(m[i])))
    out.sort(key=lambda p: -p[1])
    return out


def max_abs_error(err, derr, a: float, b: float, n: int = GRID) -> tuple[float, float]:
    """(max |err| on [a, b], where); (0.0, a) when err vanishes on the grid."""
    peaks = located_maxima(err, derr, a, b, n)
    return (peaks[0][1], peaks[0][0]) if peaks else (0.0, a)


@dataclass
class ErrorCurves:
    """Error of `approx` against `reference` on `interval`, curves and located maxima."""

    approx: str
    reference: str
    interval: tuple[float, float]
    x: np.ndarray
    abs_error: np.ndarray  # |approx - reference|
    rel_error: np.ndarray  # |approx - reference| / |reference| (0 where both are 0)
    max_abs_error: float
    argmax: float  # the x of max_abs_error
    argmax_pair: list = field(default_factory=list)  # [(x, |e|)] located on x<0 and x>0
    signed_error_at_max: float = 0.0
    max_rel_error: float = 0.0
    argmax_rel: float = 0.0  # on the grid

    def summary(self) -> dict:
        """Everything but the curves, as plain Python values."""
        return {
            "approx": self.approx,
            "reference": self.reference,
            "interval": list(self.interval),
            "max_abs_error": self.max_abs_error,
            "argmax": self.argmax,
            "signed_error_at_max": self.signed_error_at_max,
            "maxima": [{"x": x, "abs_error": v} for x, v in self.argmax_pair],
            "max_rel_error": self.max_rel_error,
            "argmax_rel": self.argmax_rel,
        }

    def to_dict(self, curves: bool = True) -> dict:
        d = self.summary()
        if curves:
            d.update(x=self.x, abs_error=self.abs_error, rel_error=self.rel_error)
        return d


def relative_error(e, ref):
    """|e| / |ref|, with 0 where both vanish and inf where only ref does."""
    e, ref = np.abs(e), np.abs(ref)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = e / ref
    return np.where(ref == 0, np.where(e == 0, 0.0, np.inf), r)


def error_curves(approx: str = "gelu_tanh", reference: str = "gelu", interval=(-4.0, 4.0), n: int = 2001) -> ErrorCurves:
    """Absolute and relative error curves (n points) and the located maximum.

    approx, reference: registry names or aliases ('tanh' and 'sigmoid' mean the
    GELU approximations). The maximum is located on a 20 001-point grid over each
    side of 0 (when the interval has both) and refined as in :func:`located_maxima`.
    """
    a, b = check_interval(*interval)
    if not 2 <= int(n) <= 10_000_000:
        raise ValueError(f"points must be between 2 and 10000000, got {n}")
    approx, reference = activation_name(approx), activation_name(reference)
    err, derr = error_functions(approx, reference)
    ref = _f64(activations.get(reference).fn)
    x = np.linspace(a, b, int(n))
    e = err(x)
    rel = relative_error(e, ref(x))
    halves = [(a, min(b, 0.0)), (max(a, 0.0), b)] if a < 0 < b else [(a, b)]
    pair = []
    for lo, hi in halves:
        peaks = located_maxima(err, derr, lo, hi)
        if peaks:
            pair.append(peaks[0])
    best = max(pair, key=lambda p: p[1]) if pair else (a, 0.0)
    j = int(np.argmax(np.where(np.isfinite(rel), rel, -1.0)))
    return ErrorCurves(
        approx=approx,
        reference=reference,
        interval=(a, b),
        x=x,
        abs_error=np.abs(e),
        rel_error=rel,
        max_abs_error=float(best[1]),
        argmax=float(best[0]),
        argmax_pair=sorted(pair),
        signed_error_at_max=float(err(best[0])),
        max_rel_error=float(rel[j]),
        argmax_rel=float(x[j]),
    )
