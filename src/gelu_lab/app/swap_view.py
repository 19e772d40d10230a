"""The BERT probe's swaps as the story (step 6) and the Real BERT page say them: each swap's
damage next to how far its curve is from GELU (:func:`gelu_lab.analysis.swaps.damage`).

    quoted(result)            the probe's numbers as the texts quote them, plus {<swap>_dev}
    figure(result, lang, t)   the damage-against-deviation chart (words: the page's fig.damage.*)
"""

from __future__ import annotations

from ..analysis import swaps
from ..figures import bert as figs
from .pages.bert.view import quoted as probe_quoted
from . import content
from .components import graph, sig


def quoted(result: dict, lang: str = "en") -> dict:
    """probe_quoted(result, lang) and, per swap, its largest deviation from GELU ({relu_dev}: 0.17)."""
    return {**probe_quoted(result, lang), **{f"{r['activation']}_dev": sig(r["max_dev"], 2) for r in swaps.damage(result)}}


def figure(result: dict, lang: str, t: dict, id: str):
    rows = swaps.damage(result)
    labels = {k: t[f"fig.damage.{k}"] for k in ("title", "x", "y", "cos", "nn")}
    return graph(id, figs.damage_figure(rows, {r["activation"]: content.label(r["activation"], lang) for r in rows}, labels))
