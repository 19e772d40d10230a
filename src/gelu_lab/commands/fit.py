"""`gelu-lab fit`: fit the constants of the tanh / sigmoid forms to exact GELU (minimax or L2)."""

from __future__ import annotations

from ..analysis.fits import FORM_NAMES, NORMS, fit
from ..printing import emit, to_json

COLUMNS = ["constants", "params", "max_error", "argmax", "rms_error"]


def register(sub):
    p = sub.add_parser("fit", help="fit 0.044715 (and sqrt(2/pi)) or 1.702 on an interval")
    p.add_argument("--form", default="tanh", choices=FORM_NAMES)
    p.add_argument("--interval", nargs=2, type=float, default=[-4.0, 4.0], metavar=("A", "B"))
    p.add_argument("--norm", default="max", choices=NORMS, help="max (minimax) or l2 (least RMS error)")
    p.add_argument("--fit-scale", action="store_true", help="tanh form: fit the sqrt(2/pi) scale too")
    p.add_argument("--format", default="text", choices=["text", "json"])
    p.set_defaults(func=run)


def _params(p: dict) -> str:
    return " ".join(f"{k}={v:.10g}" for k, v in p.items())


def run(args) -> int:
    f = fit(args.form, tuple(args.interval), args.norm, args.fit_scale)
    if args.format == "json":
        print(to_json(f.to_dict()))
        return 0
    rows = [
        {"constants": f"fitted ({f.norm})", "params": _params(f.params), "max_error": f.max_error, "argmax": f.argmax, "rms_error": f.rms_error},
        {"constants": "classic", "params": _params(f.classic["params"]), "max_error": f.classic["max_error"],
         "argmax": f.classic["argmax"], "rms_error": f.classic["rms_error"]},
    ]
    print(f"{f.form} form on [{f.interval[0]:g}, {f.interval[1]:g}]")
    print(emit(rows, COLUMNS, "text"))
    return 0
