"""The words of a claim's check: :mod:`gelu_lab.analysis.claims` returns data, this says it.

    words(res, lang) -> {"text", "note", "source"}
    value(v, t, lang) -> one evidence value as text (about four significant figures)
    exact(v)         -> a float few figures write exactly (0.5), else None
    case(pair, t)    -> a bench pair ("torch:tanh:fwd+bwd / torch:erf:fwd+bwd") as the reader calls it

From ``content/<lang>/misconceptions.md``: the statement is the block its record names
(``claims.CLAIMS[id].words``: ``claim.<id>``),
the note the block ``res["note"]`` filled with ``res["values"]`` (numbers printed by
:func:`value`; a list joined by the word of the block ``and``), the source line
``source.<source>`` filled with the date and CPU of the evidence's provenance. The
Misconceptions page, the report and ``gelu-lab claims`` all say a check this way.
"""

from __future__ import annotations

import numpy as np

from ..analysis.claims import CLAIMS
from ..analysis.evidence import Share, Signed
from ..printing import pct
from . import content
from .components import sig


def case(pair: str, t: dict) -> str:
    """'numpy:tanh / numpy:erf' -> 'NumPy'; 'torch:tanh:fwd+bwd / ...' -> 'PyTorch (forward + backward)'."""
    backend, *rest = pair.split(" / ")[0].split(":")
    name = t.get(f"backend.{backend}", backend)
    return content.fill(t["backend.pass"], name=name) if rest[1:] else name


def exact(v, digits: int = 4) -> str | None:
    """A float that `digits` figures write exactly, written so (0.5, not 0.5000); else None."""
    short = f"{v:.{digits}g}"
    return short if isinstance(v, float) and abs(v) < 1e4 and float(short) == v else None


def value(v, t: dict, lang: str, digits: int = 4) -> str:
    """An evidence value as a sentence shows it: numbers to about `digits` significant figures,
    counts grouped, a Share as a percentage, a Signed difference with its sign, yes / no for a truth value, a list joined with "and", a bench ratio
    dict as "NumPy: 2.14×, …", any other dict as "k: v, …"."""
    if v is None:
        return t["value.none"]
    if isinstance(v, (bool, np.bool_)):
        return t["value.yes" if v else "value.no"]
    if isinstance(v, str):
        return v
    if isinstance(v, Share):
        return pct(v, v.digits)
    if isinstance(v, Signed):
        return f"{float(v):+.{v.digits}f}"
    if isinstance(v, (int, float, np.integer, np.floating)):
        v = v.item() if isinstance(v, np.generic) else v
        return exact(v, digits) or sig(v, digits)
    if isinstance(v, dict):
        if all(isinstance(k, str) and " / " in k for k in v):  # tanh / erf throughput ratios
            return content.join((content.fill(t["value.ratio"], name=case(k, t), ratio=sig(x, 3)) for k, x in v.items()), lang)
        return content.join((content.fill(t["value.item"], k=value(k, t, lang, digits), v=value(x, t, lang, digits)) for k, x in v.items()), lang)
    return f" {t['and']} ".join(value(x, t, lang, digits) for x in v)


def source_line(res: dict, t: dict) -> str:
    """Where the evidence of check() result `res` came from, with its run's date and CPU."""
    p = res.get("provenance") or {}
    return content.fill(t[f"source.{res['source']}"], date=str(p.get("date", "?"))[:10], cpu=p.get("processor", "?"))


def words(res: dict, lang: str) -> dict:
    """{"text", "note", "source"} of one claims.check() result in `lang`."""
    t = content.text(lang, "misconceptions")
    values = {k: value(v, t, lang, 2 if k == "se" else 4) for k, v in res["values"].items()}  # a standard error: two figures are all it has
    return {"text": t[CLAIMS[res["id"]].words], "note": content.fill(t[res["note"]], **values), "source": source_line(res, t)}
