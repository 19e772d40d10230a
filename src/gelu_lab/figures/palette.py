"""The one palette of every figure (app and report): a colour and a dash per activation.

The colours are Okabe & Ito's ("Color Universal Design", 2008), chosen to stay apart
under the common colour-vision deficiencies; tests/test_palette.py checks that they do
(simulated protan-, deutan- and tritanopia, CIEDE2000) and checks their contrast on the
light and the dark background (assets/theme.css). Yellow is left out: on white it is
1.3:1, too faint for a line or a text. Sixteen activations and FFN variants share six colours, so a dash
pattern is the second cue: no two activations have both the same colour and the same
dash, and the GELU forms, which lie on top of one another, are dashed over a solid GELU.

Figures take every colour from here; no colour literal lives anywhere else in figures/.
"""

from __future__ import annotations

# Okabe-Ito, less yellow (#F0E442) and black (invisible on the dark background)
VERMILLION = "#D55E00"
ORANGE = "#E69F00"
REDDISH_PURPLE = "#CC79A7"
BLUE = "#0072B2"
BLUISH_GREEN = "#009E73"
SKY_BLUE = "#56B4E9"
LINES = (BLUE, SKY_BLUE, BLUISH_GREEN, ORANGE, VERMILLION, REDDISH_PURPLE)  # an ordered series (BERT's layers)

# Reference lines, data bars and key-point markers: a grey that is >= 3:1 on both the
# white and the dark figure background and apart from every colour above under CVD;
# it is also >= 4.5:1 on white, so it may be text (threshold labels).
NEUTRAL = "#707478"
TEXT = "#1d2329"  # the figures' text on white (the page's --fg); dark mode recolours it in CSS
PAPER = "#ffffff"  # the figures' background; dark mode repaints it in CSS (assets/theme.css)
GRID, AXIS_LINE = "#e8ecf1", "#c9d1d9"

COLORS = {
    "gelu": VERMILLION,
    "gelu_tanh": ORANGE,
    "gelu_sigmoid": REDDISH_PURPLE,
    "relu": BLUE,
    "sigmoid": BLUISH_GREEN,
    "silu": SKY_BLUE,
    "elu": BLUISH_GREEN,
    "softplus": SKY_BLUE,
    "mish": REDDISH_PURPLE,
    "leaky_relu": BLUE,
    # the FFN variants of the FFN page (gelu_lab.nn.variants): a gated one takes its gate's colour
    "relu2": BLUE,
    "glu": BLUISH_GREEN,
    "bilinear": REDDISH_PURPLE,
    "reglu": BLUE,
    "geglu": VERMILLION,
    "swiglu": SKY_BLUE,
}
DASHES = {
    "gelu": "solid",
    "gelu_tanh": "longdash",
    "gelu_sigmoid": "dot",
    "relu": "dash",
    "sigmoid": "solid",
    "silu": "dashdot",
    "elu": "longdash",
    "softplus": "solid",
    "mish": "longdashdot",
    "leaky_relu": "longdashdot",
    "relu2": "dot",
    "glu": "dash",
    "bilinear": "dash",
    "reglu": "solid",
    "geglu": "dash",
    "swiglu": "dot",
}


def color(name: str) -> str:
    """The activation's colour (its name before any '.', e.g. 'gelu.grad2'); NEUTRAL if it has none."""
    return COLORS.get(name.split(".")[0], NEUTRAL)


def line(name: str, **kw) -> dict:
    """A trace's line for activation `name`: its colour and dash, GELU a little wider; kw overrides."""
    base = name.split(".")[0]
    return {"color": color(name), "dash": DASHES.get(base, "solid"), "width": 2.5 if base == "gelu" else 2, **kw}


def fill(hex_color: str, alpha: float) -> str:
    """A palette colour as a translucent fill (bands, shaded areas, bars under a curve)."""
    h = hex_color.lstrip("#")
    return f"rgba({int(h[0:2], 16)},{int(h[2:4], 16)},{int(h[4:6], 16)},{alpha})"
