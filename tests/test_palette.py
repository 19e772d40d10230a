"""The palette (figures/palette.py): activations told apart under colour-vision deficiency,
text and lines with enough contrast on the light and the dark background.

Colour-vision deficiency is simulated with Machado, Oliveira & Fernandes (2009) at
severity 1.0 (complete protan-, deutan- and tritanopia), applied to linear RGB; colours
are compared by CIEDE2000 in CIELAB (D65). All of it is written out here with NumPy and
checked against published values (Sharma, Wu & Dalal 2005), so the test depends on no
colour library.

Threshold: ΔE2000 >= 10 for every pair of colours that can share a figure, under normal
vision and each simulation. ΔE2000 ≈ 1 is a just-noticeable difference between two
large patches side by side; curves are 2 px lines, matched against a legend swatch, and
need about ten of those. The six Okabe-Ito colours clear it (the closest pair: orange and
reddish purple under tritanopia, 10.9); the red/green pair of the old palette does not
(4.6 under deuteranopia).
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np
import pytest

from gelu_lab import activations
from gelu_lab.figures import (bert, curves, custom, definition, demo, ffn, gradients, implementation, interview, misconceptions, palette,
                              relu, sigmoid)

THRESHOLD = 10.0
FIGURES_SRC = Path(palette.__file__).parent
THEME = FIGURES_SRC.parent / "app" / "assets" / "theme.css"

# Machado et al. 2009, severity 1.0, linear RGB -> linear RGB
MACHADO = {
    "protanopia": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]],
    "deuteranopia": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]],
    "tritanopia": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.303900]],
}
VISIONS = (None, *MACHADO)  # None: normal vision
SRGB_TO_XYZ = np.array([[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750], [0.0193339, 0.1191920, 0.9503041]])
WHITE = SRGB_TO_XYZ @ np.ones(3)  # D65


# --- colour science, written out ----------------------------------------------------------


def rgb(color: str) -> tuple[np.ndarray, float]:
    """'#rrggbb' or 'rgba(r,g,b,a)' -> (sRGB in [0, 1], alpha). Anything else is not a palette colour."""
    if m := re.fullmatch(r"#([0-9a-fA-F]{6})", color):
        return np.array([int(m[1][i:i + 2], 16) for i in (0, 2, 4)]) / 255, 1.0
    if m := re.fullmatch(r"rgba\((\d+),(\d+),(\d+),([\d.]+)\)", color.replace(" ", "")):
        return np.array([int(m[i]) for i in (1, 2, 3)]) / 255, float(m[4])
    raise AssertionError(f"{color!r}: not a colour of figures/palette.py's form")


def linear(srgb: np.ndarray) -> np.ndarray:
    return np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)


def simulate(color: str, vision: str | None) -> np.ndarray:
    """Linear RGB of `color` as seen with `vision` (None: as it is)."""
    lin = linear(rgb(color)[0])
    return lin if vision is None else np.clip(np.array(MACHADO[vision]) @ lin, 0, 1)


def lab(lin: np.ndarray) -> np.ndarray:
    t = (SRGB_TO_XYZ @ lin) / WHITE
    d = 6 / 29
    f = np.where(t > d**3, np.cbrt(t), t / (3 * d * d) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def ciede2000(lab1, lab2) -> float:
    """ΔE00 (Sharma, Wu & Dalal 2005, kL = kC = kH = 1)."""
    (L1, a1, b1), (L2, a2, b2) = lab1, lab2
    cbar = (np.hypot(a1, b1) + np.hypot(a2, b2)) / 2
    g = 0.5 * (1 - np.sqrt(cbar**7 / (cbar**7 + 25**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1, c2 = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1, h2 = np.degrees(np.arctan2(b1, a1p)) % 360, np.degrees(np.arctan2(b2, a2p)) % 360
    dh = 0.0 if c1 * c2 == 0 else (h2 - h1 + 180) % 360 - 180
    dL, dC, dH = L2 - L1, c2 - c1, 2 * np.sqrt(c1 * c2) * np.sin(np.radians(dh / 2))
    Lbar, Cbar = (L1 + L2) / 2, (c1 + c2) / 2
    if c1 * c2 == 0:
        hbar = h1 + h2
    elif abs(h1 - h2) <= 180:
        hbar = (h1 + h2) / 2
    else:
        hbar = (h1 + h2 + 360) / 2 if h1 + h2 < 360 else (h1 + h2 - 360) / 2
    T = (1 - 0.17 * np.cos(np.radians(hbar - 30)) + 0.24 * np.cos(np.radians(2 * hbar)) + 0.32 * np.cos(np.radians(3 * hbar + 6))
         - 0.20 * np.cos(np.radians(4 * hbar - 63)))
    rt = -np.sin(np.radians(60 * np.exp(-(((hbar - 275) / 25) ** 2)))) * 2 * np.sqrt(Cbar**7 / (Cbar**7 + 25**7))
    sl = 1 + 0.015 * (Lbar - 50) ** 2 / np.sqrt(20 + (Lbar - 50) ** 2)
    sc, sh = 1 + 0.045 * Cbar, 1 + 0.015 * Cbar * T
    return float(np.sqrt((dL / sl) ** 2 + (dC / sc) ** 2 + (dH / sh) ** 2 + rt * (dC / sc) * (dH / sh)))


def delta_e(c1: str, c2: str, vision: str | None) -> float:
    return ciede2000(lab(simulate(c1, vision)), lab(simulate(c2, vision)))


def worst(c1: str, c2: str) -> tuple[float, str]:
    """The smallest ΔE00 of the pair over normal vision and the three simulations, and where."""
    return min((delta_e(c1, c2, v), v or "normal") for v in VISIONS)


def luminance(color: str) -> float:
    """WCAG 2 relative luminance (of the colour as drawn on white when it is translucent)."""
    c, a = rgb(color)
    return float(linear(a * c + (1 - a)) @ [0.2126, 0.7152, 0.0722])


def contrast(c1: str, c2: str) -> float:
    hi, lo = sorted((luminance(c1), luminance(c2)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def dark_vars() -> dict[str, str]:
    """The CSS variables of theme.css's dark scheme (its first :root block)."""
    css = THEME.read_text(encoding="utf-8")
    block = css[css.index("@media (prefers-color-scheme: dark)"):]
    root = re.search(r":root\s*\{(.*?)\}", block, re.S)[1]
    return dict(re.findall(r"--([\w-]+):\s*(#[0-9a-fA-F]{6})", root))


# --- the formulas are right ----------------------------------------------------------------


@pytest.mark.parametrize("lab1, lab2, want", [
    # Sharma, Wu & Dalal (2005), table 1: pairs 1, 7, 17, 25 and 34
    ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
    ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
    ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
    ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
    ((2.0776, 0.0795, -1.1350), (0.9033, -0.0636, -0.5514), 0.9082),
])
def test_ciede2000_matches_the_published_pairs(lab1, lab2, want):
    assert ciede2000(lab1, lab2) == pytest.approx(want, abs=1e-4)
    assert ciede2000(lab2, lab1) == pytest.approx(want, abs=1e-4)


def test_lab_and_the_simulations_keep_greys_grey():
    assert np.allclose(lab(np.ones(3)), [100, 0, 0], atol=1e-6)
    for m in MACHADO.values():  # each row sums to 1: white stays white, a grey stays that grey
        assert np.allclose(np.sum(m, axis=1), 1, atol=1e-5)
    assert delta_e("#777777", "#777777", "deuteranopia") == 0
    # a known confusion: red and green nearly merge for a deuteranope, not for a tritanope
    assert delta_e("#ff0000", "#00ff00", None) > 50 and delta_e("#d62728", "#2ca02c", "deuteranopia") < 6


# --- the palette ----------------------------------------------------------------------------


def test_every_activation_has_a_colour_and_a_dash_and_no_two_share_both():
    from gelu_lab.nn import variants

    names = [*activations.names(), "relu2", *variants.GATED]  # the pages' activations and the FFN page's other variants
    assert set(palette.COLORS) == set(palette.DASHES) == set(names)
    styles = [(palette.COLORS[n], palette.DASHES[n]) for n in names]
    assert len(set(styles)) == len(styles)
    assert palette.DASHES["gelu"] == "solid"
    # the GELU forms lie on one another: each approximation dashed, apart from GELU's solid line
    assert {palette.DASHES[n] for n in ("gelu_tanh", "gelu_sigmoid")}.isdisjoint({"solid"})


def test_activation_colours_are_pairwise_distinguishable_under_cvd():
    """Every pair of activations can share a figure (the Overview draws all ten): two that
    do not share a colour and a dash must be ΔE00 >= 10 apart under every simulated vision."""
    for a, b in itertools.combinations(activations.names(), 2):
        ca, cb = palette.COLORS[a], palette.COLORS[b]
        if ca == cb:
            assert palette.DASHES[a] != palette.DASHES[b], (a, b)  # the dash tells them apart
            continue
        d, vision = worst(ca, cb)
        assert d >= THRESHOLD, f"{a} {ca} and {b} {cb}: ΔE00 {d:.1f} under {vision}"


def test_the_series_colours_and_neutral_are_pairwise_distinguishable():
    cols = [*palette.LINES, palette.NEUTRAL]
    assert len(set(cols)) == len(cols) == 7
    assert set(palette.COLORS.values()) <= set(palette.LINES)
    for c1, c2 in itertools.combinations(cols, 2):
        d, vision = worst(c1, c2)
        assert d >= THRESHOLD, f"{c1} and {c2}: ΔE00 {d:.1f} under {vision}"


@pytest.mark.parametrize("old", [
    ("#d62728", "#2ca02c"),  # the old GELU red and sigmoid green
    ("#d62728", "#ff7f0e", "#bcbd22", "#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f"),  # the old ten
])
def test_the_check_fails_for_a_palette_that_is_not_distinguishable(old):
    assert min(worst(c1, c2)[0] for c1, c2 in itertools.combinations(old, 2)) < THRESHOLD


def test_text_contrast_at_least_4_5_on_its_background():
    dark = dark_vars()
    for text in (palette.TEXT, palette.NEUTRAL):
        assert contrast(text, palette.PAPER) >= 4.5, text
    for bg in ("card", "bg", "soft"):  # dark mode: text in --fg, --muted, links on every dark background
        for fg in ("fg", "muted", "link", "accent", "warn"):
            assert contrast(dark[fg], dark[bg]) >= 4.5, (fg, bg)


def test_line_colours_stand_out_from_both_backgrounds():
    """Dark mode keeps the curves' colours: each >= 3:1 on the dark figure background
    (WCAG's non-text contrast). On white, blue, vermillion, green and purple are >= 3:1;
    orange and sky blue are 2.3:1, kept for their place in the CVD-safe set (and drawn
    2 px wide, with a dash); yellow (1.3:1) is left out of the palette."""
    dark = dark_vars()
    for c in (*palette.LINES, palette.NEUTRAL):
        assert contrast(c, dark["card"]) >= 3, c
        assert contrast(c, dark["bg"]) >= 3, c
        assert contrast(c, palette.PAPER) >= 2.2, c
    assert contrast("#F0E442", palette.PAPER) < 1.5 and "#F0E442" not in palette.LINES
    assert contrast(palette.NEUTRAL, palette.PAPER) >= 4.5 and contrast(palette.NEUTRAL, dark["card"]) >= 3


def test_no_colour_is_written_out_in_figures_but_in_the_palette():
    pattern = re.compile(r"#[0-9a-fA-F]{3,8}\b|rgba?\(|\"(black|white|red|green|blue|gray|grey)\"")
    for src in FIGURES_SRC.glob("*.py"):
        if src.name != "palette.py":
            found = [ln for ln in src.read_text(encoding="utf-8").splitlines() if pattern.search(ln)]
            assert not found, f"{src.name}: {found}"


# --- the figures use it -----------------------------------------------------------------------


class Words(dict):
    """Labels and names for any key: the figure functions need words, not these ones."""

    def __missing__(self, key):
        return f"<{key}>"


def sample_figures():
    """One of each figure function, with small made-up data."""
    W, x = Words(), np.linspace(-3, 3, 31)
    acts = activations.names()
    band = {"step": [0, 10, 20], "mean": [3.0, 2.0, 1.5], "lo": [2.9, 1.9, 1.4], "hi": [3.1, 2.1, 1.6], "n": 3}
    bands = {a: band for a in ("gelu", "gelu_tanh", "relu", "sigmoid", "silu")}
    rows = [{"x": v, "gelu": v, "gelu_tanh": v, "gelu_sigmoid": v, "relu": max(v, 0), "tanh_abs_err": 1e-4, "sigmoid_abs_err": 1e-2}
            for v in (-2.0, 0.0, 2.0)]
    panels = [{"centers": [-1.0, 0.0, 1.0], "density": [0.1, 0.2, 0.3], "x": x, "std_pdf": x, "fit_pdf": x, "title": f"L{i}"} for i in range(6)]
    yield "activation_curves", curves.activation_curves(x, {a: x for a in acts}, W, "x", "y")
    yield "gate", definition.gate_figure(x, x, x, 0.5, 0.69, 0.35, W)
    yield "bernoulli", definition.bernoulli_figure(np.arange(1, 5), x[:4], x[:4], x[:4], 1.0, 2.0, 3.0, W)
    yield "scale", relu.scale_figure(x, x, x, W)
    yield "dead", relu.dead_unit_figure(x, x, W)
    yield "gates", sigmoid.gates_figure(x, x, x, x, W)
    yield "family", sigmoid.family_figure(x, x, x, x, W)
    yield "squash", sigmoid.squash_figure(x, x, x, W)
    yield "derivatives", gradients.derivatives_figure(x, {"gelu.grad": x, "gelu.grad2": x, "relu.grad": x, "sigmoid.grad": x}, W,
                                                      [(0.0, 0.5, "p")], W)
    yield "flow", gradients.flow_figure({"mlp": {"gelu": [1, 0.5], "relu": [1, 0.4]}, "preln": {"gelu": [1, 0.9], "relu": [1, 0.8]}}, W, W)
    yield "custom", custom.custom_figure(x, x, x, x, x, W)
    yield "table", demo.table_figure(rows, W)
    yield "tail", demo.tail_figure({"x": [-9.0, -8.0], "gelu_lab": [1e-20, 1e-16], "seed": [0.0, 1e-16], "rel": [1.0, 1e-3]}, -8.4, -6.5, 1e-6, W)
    yield "block", ffn.block_figure([0.0, 1.0], [0.5, 0.5], [0.0, 1.0], [0.0, 1.0], W)
    yield "band", ffn.band_figure(bands, W, W)
    yield "layers", ffn.layers_figure([bands, bands], W, W)
    yield "gap", ffn.gap_figure(bands, "relu", W, W)
    yield "lr", ffn.lr_figure({a: {1e-3: 2.0, 3e-3: 1.9} for a in bands}, {a: 1e-3 for a in bands}, W, W)
    yield "trend", ffn.trend_figure([{"series": s, "width": w, "mean": 0.01, "lo": 0.0, "hi": 0.02, "n": 5} for s in ("a", "b") for w in (64, 128)], W)
    yield "histogram", bert.histogram_figure(panels, W)
    yield "drift", bert.drift_figure({a: (["1", "2"], [0.1, 0.2]) for a in ("gelu_tanh", "gelu_sigmoid", "relu", "silu")},
                                     {a: 0.3 for a in ("gelu_tanh", "relu")}, W, W)
    yield "sentence", bert.sentence_figure([{"x": x, "density": x, "name": f"L{i}"} for i in range(6)], W)
    yield "error", implementation.error_figure(x, {"gelu_tanh": x, "gelu_sigmoid": x, "gelu_tanh.classic": x}, {"gelu_tanh": [(0.0, 1.0)]}, W, W,
                                               dashed=("gelu_tanh.classic",))
    yield "ulp", implementation.ulp_figure({k: ([1.0], [2]) for k in implementation.IMPL_COLORS}, W, W)
    yield "cost", implementation.cost_figure({f: [0.1, 0.2] for f in implementation.FORM_COLORS}, 1.0, ["a", "b"], W, W)
    yield "lines", interview.lines_figure(x, {k: x + 4 for k in "abcd"}, W, W)
    yield "misc_curves", misconceptions.curves_figure(x, [("g", x, "gelu"), ("r", x, "relu")], W, points=[(0.0, 0.0, "0")], threshold=(0.5, "t"))
    yield "misc_bars", misconceptions.bars_figure(["a", "b"], [1.0, 2.0], W, threshold=(1.5, "t"))
    yield "placeholder", misconceptions.placeholder_figure("nothing yet")


def colours(node, path=()):
    """(path, colour) of every colour a figure sets (its template's backgrounds aside)."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "template":
                continue
            if k.endswith("color") and isinstance(v, str):
                yield (*path, k), v
            else:
                yield from colours(v, (*path, k))
    elif isinstance(node, (list, tuple)):
        for i, v in enumerate(node):
            yield from colours(v, (*path, i))


FIGS = dict(sample_figures())
ALLOWED = {*palette.LINES, palette.NEUTRAL, palette.TEXT, palette.PAPER, palette.GRID, palette.AXIS_LINE}


@pytest.mark.parametrize("name", FIGS)
def test_each_figure_draws_in_the_palette_with_legible_text(name):
    fig, dark = FIGS[name].to_plotly_json(), dark_vars()
    assert "transition" not in fig["layout"]  # nothing animates a curve (prefers-reduced-motion or not)
    assert fig["layout"]["font"]["color"] == palette.TEXT
    lines = set()
    for path, c in colours(fig):
        rgb_, alpha = rgb(c)
        assert "#{:02X}{:02X}{:02X}".format(*np.round(rgb_ * 255).astype(int)) in {a.upper() for a in ALLOWED}, (path, c)
        if any("font" in str(k) for k in path):  # text: >= 4.5:1 on the white figure (dark mode repaints all of it, theme.css)
            assert contrast(c, palette.PAPER) >= 4.5, (path, c)
        elif alpha == 1 and path[0] == "data":
            assert contrast(c, dark["card"]) >= 3, (path, c)
            lines.add(c)
    for c1, c2 in itertools.combinations(sorted(lines), 2):  # every two colours of one figure stay apart
        d, vision = worst(c1, c2)
        assert d >= THRESHOLD, f"{c1} and {c2}: ΔE00 {d:.1f} under {vision}"
