"""What swapping GELU does to a trained BERT, next to how far the swapped curve is from GELU.

    damage(result=None) -> [{"activation", "max_dev", "at", "cos_gap", "nn_lost", "sentences"}]

One row per activation the probe swapped into every layer (``gelu-lab probe``; the newest
in the reader's runs store, else the shipped one): the largest |swap(x) − GELU(x)| over
the whole line (located as the Implementation page's error curves locate it; every one of
these peaks lies within [−4, 4]), and what the swap cost the model's sentence embeddings:
1 − mean cosine to the original embeddings, and the share of sentences whose nearest
neighbour changed. Sorted by the deviation, smallest first.

The point these rows make (the story's step 6, the Real BERT page): the damage grows with
the deviation from GELU's exact curve, whatever the sign of the inputs where the curves
differ. SiLU keeps small negative outputs and still breaks the model.
"""

from __future__ import annotations

from . import errors

INTERVAL = (-8.0, 8.0)  # wide enough to hold every peak (the farthest, SiLU's, is at |x| ≈ 1.97)


def max_deviation(activation: str) -> tuple[float, float]:
    """(max |activation(x) − GELU(x)|, the x > 0 where it is largest) on INTERVAL."""
    c = errors.error_curves(activation, "gelu", INTERVAL)
    return c.max_abs_error, abs(c.argmax)


def damage(result: dict | None = None) -> list[dict]:
    """The probe's all-layer swaps with their deviation from GELU (see the module text);
    `result`: a probe result document, else the newest through results.latest("probe")."""
    if result is None:
        from .. import results

        got = results.latest("probe")
        if got is None:
            return []
        result = got.value
    rows = []
    for w in result.get("swaps", []):
        if w["layer"] != "all":
            continue
        dev, at = max_deviation(w["activation"])
        rows.append({"activation": w["activation"], "max_dev": dev, "at": at, "cos_gap": 1.0 - w["cos_mean"],
                     "nn_lost": 1.0 - w["nn_top1"], "sentences": w["sentences"]})
    return sorted(rows, key=lambda r: r["max_dev"])
