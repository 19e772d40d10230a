"""The sigmoid page's view: its numbers (analysis/, nn/, results/) as the page shows them, the
texts filled with them and its figures; the layout is :mod:`.page`, the callbacks :mod:`.callbacks`."""

from __future__ import annotations

import functools

from .... import numerics as nm
from ....analysis import theory
from ... import content
from ...components import fmt, sig


XS = theory.grid(-4.0, 4.0, 0.05)
PRESETS = (1.0, nm.SIGMOID_BETA, 4.0, 8.0)
READOUTS = ("sigmoid-rbeta", "sigmoid-rdist")  # what the beta slider moves


@functools.cache
def _numbers() -> dict:
    """The numbers the text quotes: where 1.702 comes from (theory.sigmoid_gate) and the fit to GELU."""
    g = theory.sigmoid_gate()
    kp = theory.key_points()
    best, _ = theory.best_beta()
    dist = theory.beta_family([nm.SIGMOID_BETA], XS)["distance"][0]
    return {
        "beta": f"{nm.SIGMOID_BETA:g}",
        "phi_slope": fmt(g["phi_slope"]), "sig_slope": fmt(g["sig_slope"]),
        "steeper": f"{sig(100 * (g['sig_slope'] / g['phi_slope'] - 1))}%",
        "slope_beta": sig(g["slope_beta"]), "slope_gap": sig(g["slope_gap"]),
        "gate_beta": sig(g["gate_beta"], 5),  # five figures: 1.7017, which rounds to 1.702
        "gate_gap": sig(g["gate_gap"]), "gap": sig(g["gap"]), "best": sig(best), "dist": sig(dist),
        "half": f"{float(nm.Phi(0.0)):.4g}", "sig_max": f"{kp['sigmoid_grad_max']:.4g}",  # exact: 0.5 and 0.25
    }


def _t(lang):
    v = _numbers()
    return {k: content.fill(t, **v) for k, t in content.text(lang, "sigmoid").items()}
