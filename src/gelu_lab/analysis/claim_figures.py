"""What the figure of a claim's evidence draws, as data (each claim's record in
:mod:`gelu_lab.analysis.claims` names its drawing): the curves are computed here, the words
are keys, and :mod:`gelu_lab.figures.misconceptions` draws it once the Misconceptions page's
view (``app/pages/misconceptions/view.py``) has put the words in.

Four shapes cover every claim:

    Curves(title, x, lines, x_label, y_label, points, threshold, log_x, log_y)
    Bars(title, names, values, y_label, threshold, color, wrap)
    Band(title, x, mean, lo, hi, x_label, y_label)                 a mean and its interval over steps
    Grouped(title, groups, series, threshold)                      bars per group, one series a colour

A label is a plain str (a formula, "x"), or what the view says in the reader's language:

    Word(key, default)   the page's content block `key` (`default` when it has none)
    Name(activation)     an activation as the pages call it
    Case(pair)           a bench pair ("numpy:tanh / numpy:erf") by its backend
    Num(v, spec)         a number, written with the format spec (the view writes it)
    Fill(key, values)    the block `key` with {name} fields filled by `values` (labels or numbers)
    Join(parts)          labels one after the other
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import activations


@dataclass(frozen=True)
class Word:
    key: str
    default: str | None = None


@dataclass(frozen=True)
class Name:
    activation: str


@dataclass(frozen=True)
class Case:
    pair: str


@dataclass(frozen=True)
class Num:
    v: float
    spec: str


@dataclass(frozen=True)
class Fill:
    key: str
    values: tuple  # ((name, label or value), ...): hashable, so equal cells group together


@dataclass(frozen=True)
class Join:
    parts: tuple


@dataclass(frozen=True)
class Curves:
    title: Any
    x: Any
    lines: list  # [(label, y, colour key)]
    x_label: Any = "x"
    y_label: Any = "y"
    points: list = field(default_factory=list)  # [(x, y, label)]
    threshold: tuple | None = None  # (y, label)
    log_x: bool = False
    log_y: bool = False


@dataclass(frozen=True)
class Bars:
    title: Any
    names: list
    values: list
    y_label: Any
    threshold: tuple | None = None
    color: str = "gelu"
    wrap: bool = False  # long (two-line) names: the axis makes room for them


@dataclass(frozen=True)
class Band:
    title: Any
    x: list
    mean: list
    lo: list
    hi: list
    x_label: Any
    y_label: Any


@dataclass(frozen=True)
class Grouped:
    title: Any
    groups: list
    series: list  # [(label, values, colour key)]
    threshold: tuple | None = None


def _gelu_curve(lo, hi, n=301):
    x = np.linspace(lo, hi, n)
    return x, activations.get("gelu").fn(x)


def values(f) -> Curves:
    x, y = _gelu_curve(-3, 3)
    slope = f["gelu'(0)"]
    pts = [(2.0, f["gelu(2)"], Num(f["gelu(2)"], ".4f")), (0.0, f["gelu(0)"], "0"), (-2.0, f["gelu(-2)"], Num(f["gelu(-2)"], ".4f"))]
    return Curves(Word("fig.values"), x, [("GELU(x)", y, "gelu"), (Join((Num(slope, "g"), "·x")), slope * x, "relu")], points=pts)


def monotonic(f) -> Curves:
    x, y = _gelu_curve(-4, 1)
    at = Join(("(", Num(f["argmin"], ".3f"), ", ", Num(f["min"], ".3f"), ")"))
    return Curves(Word("fig.monotonic"), x, [("GELU(x)", y, "gelu"), ("GELU′(x)", activations.get("gelu").grad(x), "relu")],
                  points=[(f["argmin"], f["min"], at)])


def random(f) -> Bars:
    return Bars(Word("fig.random"), [Word("fig.mc"), "GELU(1)"], [f["mc_mean_x1"], f["gelu(1)"]], "y")


def error(form: str, bound: float):
    """The error curve of `form` against GELU on the evidence's interval, its maxima marked, `bound` dashed."""

    def drawing(f) -> Curves:
        from .errors import error_curves

        c = error_curves(form, interval=tuple(f["interval"]))
        step = max(1, len(c.x) // 800)  # a card's figure needs no more points than pixels
        return Curves(Word("fig.error"), c.x[::step], [(Join(("|", Name(c.approx), " − GELU|")), c.abs_error[::step], c.approx)],
                      y_label=Word("fig.error.y"), points=[(m["x"], m["abs_error"], Num(m["abs_error"], ".2e")) for m in f["maxima"]],
                      threshold=(bound, Num(bound, "g")))

    return drawing


def speed(f) -> Bars:
    thr = f["threshold"]
    return Bars(Word("fig.speed"), [Case(k) for k in f["ratios"]], list(f["ratios"].values()), Word("fig.speed.y"),
                threshold=(thr, Join((Num(thr, "g"), "×"))), color="gelu_tanh")


def limit(f) -> Curves:
    return Curves(Word("fig.limit"), f["scales"], [("max |GELU(s·x)/s − ReLU(x)|", f["sup_abs_diff"], "gelu")], "s", "", log_x=True, log_y=True)


def infinity(f) -> Curves:
    return Curves(Word("fig.infinity"), list(f["x"]), [("|GELU(−x) − ReLU(−x)|", list(f["abs_diff_at_-x"]), "gelu")], "x", "", log_y=True)


QUICK = ("gelu_sigmoid", "silu", "gelu")  # the activations the quick-GELU figure draws


def quick(f) -> Curves:
    x = np.linspace(-4, 4, 321)
    return Curves(Word("fig.quick"), x, [(Name(n), activations.get(n).fn(x), n) for n in QUICK])


def dead(f) -> Bars:
    """The worst layer's dead share, its largest over the seeds of each width, init and rate."""
    worst: dict = {}
    for r in f.get("runs") or []:
        cell = (Fill("fig.dead.cell", (("width", r.get("width")), ("fc", r.get("fc_init_std")), ("lr", Num(r["lr"], "g"))))
                if isinstance(r.get("lr"), (int, float)) else Fill("fig.dead.run", (("id", r["run_id"]),)))
        worst[cell] = max(worst.get(cell, 0.0), r["max_layer_share"])
    return Bars(Word("fig.dead"), list(worst), list(worst.values()), Word("fig.dead.y"), threshold=(0.5, "0.5"), color="relu", wrap=True)


def relu2(f) -> Bars:
    """ReLU²'s relative gain over GELU, (GELU − ReLU²) / GELU, seed by seed; the line: the low end of the claim's band."""
    d = f["relative"]["diffs"]
    return Bars(Word("fig.relu2"), [Fill("fig.relu2.seed", (("i", i + 1),)) for i in range(len(d))], list(d), Word("fig.relu2.y"),
                threshold=(f["claimed"][0], Word("fig.relu2.band")), color="relu")


def lower_loss(f) -> Band:
    """GELU minus ReLU over training: the seed-paired mean and its 95 % interval at each evaluation."""
    o = f["over_training"][1:]  # step 0: the same weights, a difference of the activations alone
    return Band(Word("fig.lower"), [p["step"] for p in o], [p["mean"] for p in o], [p["lo"] for p in o], [p["hi"] for p in o],
                Word("fig.lower.x"), Word("fig.lower.y"))


def ks(f) -> Curves:
    """Per layer of the BERT probe: the KS distance of GELU's inputs to N(0, 1) and to the fitted normal."""
    L = f["layers"]
    return Curves(Word("fig.ks"), [x["layer"] for x in L], [(Word("fig.ks.std"), [x["ks_std_normal"] for x in L], "relu"),
                                                          (Word("fig.ks.fit"), [x["ks_fitted_normal"] for x in L], "gelu")],
                  Word("fig.ks.x"), "KS", threshold=(f["ks_far"], Num(f["ks_far"], "g")))


def deep(f) -> Grouped:
    """The first-layer gradient of each stack (groups) and activation (bars), on a log axis."""
    rows = f["first_layer"]
    return Grouped(Word("fig.deep"), [Word(f"str.{r['arch']}", r["arch"]) for r in rows],
                   [(Name(n), [r[n] for r in rows], n) for n in ("gelu", "relu", "sigmoid")], threshold=(f["kept"], Num(f["kept"], "g")))


def named(title_key: str, keys: tuple):
    """The activations a model's config names (the evidence's `keys`), each drawn beside exact GELU."""

    def drawing(f) -> Curves:
        names = [activations.canonical(f[k]) for k in keys]
        x = np.linspace(-4, 4, 321)
        drawn = list(dict.fromkeys([*names, "gelu"]))
        return Curves(Word(title_key), x, [(Name(n), activations.get(n).fn(x), n) for n in drawn])

    return drawing
