"""The relu page's view: its numbers (analysis/, nn/, results/) as the page shows them, the
texts filled with them and its figures; the layout is :mod:`.page`, the callbacks :mod:`.callbacks`."""

from __future__ import annotations

from ....analysis import theory
from ....figures import relu as figs
from ....printing import pct


XS = theory.grid(-3.0, 3.0, 0.025)
READOUTS = ("relu-rs", "relu-rgap")  # what the s slider moves
FAR = 5.0  # where the limits are shown: GELU(5) - 5 and GELU(-5)


def dead(mu, sigma, t):
    d = theory.dead_units(mu, sigma)
    labels = {k: t[f"dead.{k}"] for k in ("title", "relu", "gelu", "grad", "count")}
    return figs.dead_unit_figure(d["relu_grad"], d["gelu_grad"], labels), [pct(d["relu_zero"]), pct(d["gelu_zero"])]
