"""`gelu-lab custom`: your own activation formula against exact GELU (max error, where, fitted a)."""

from __future__ import annotations

from ..analysis import user_formula as formula
from ..analysis.custom import BOUNDS, FINE, compare_with_gelu
from ..printing import emit, to_json

COLUMNS = ["quantity", "value", "at_x"]


def register(sub):
    p = sub.add_parser(
        "custom", help="compare a formula in x (and one free constant a) with exact GELU",
        description="Formula grammar: numbers, x, a, pi, e, + - * / ** ( ), and the functions "
        + ", ".join(formula.FUNCTIONS) + ". A formula starting with '-' goes after '--'.",
    )
    p.add_argument("formula", help='e.g. "x*sigmoid(a*x)" or "0.5*x*(1+tanh(0.8*(x+0.044715*x**3)))"')
    p.add_argument("--interval", nargs=2, type=float, default=[-4.0, 4.0], metavar=("A", "B"))
    p.add_argument("--a", type=float, default=None, help="use this value of a instead of fitting it")
    p.add_argument("--bounds", nargs=2, type=float, default=list(BOUNDS), metavar=("LO", "HI"), help="search range of the fitted a")
    p.add_argument("--format", default="text", choices=["text", "json"])
    p.set_defaults(func=run)


def run(args) -> int:
    c = compare_with_gelu(args.formula, tuple(args.interval), a=args.a, bounds=tuple(args.bounds))
    if args.format == "json":
        print(to_json(c.summary()))
        return 0
    lo, hi = c.interval
    print(f"f(x)  = {c.formula}")
    print(f"f'(x) = {c.derivative}")
    print(f"on [{lo:g}, {hi:g}] against exact GELU(x) = x Phi(x)")
    rows = [
        {"quantity": "max |f - GELU|", "value": c.max_abs_error, "at_x": c.argmax},
        {"quantity": "max |f' - GELU'|", "value": c.max_grad_error, "at_x": c.argmax_grad},
    ]
    if c.a is not None:
        rows.insert(0, {"quantity": "a (fitted, minimax)" if c.fitted else "a (given)", "value": c.a, "at_x": "-"})
    print(emit(rows, COLUMNS, "text"))
    if c.nonfinite:
        print(f"note: f is not finite (inf or nan) at {c.nonfinite} of {FINE} grid points, first at x = {c.argmax:g}")
    return 0
