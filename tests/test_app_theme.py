"""The reader's colour scheme and motion preference (assets/theme.css) in the live app:
prefers-color-scheme: dark gives a dark page and dark figures with light text, also after
plotly.js redraws a figure; prefers-reduced-motion: reduce moves a curve with no
transition and leaves no CSS transition or animation anywhere."""

from __future__ import annotations

import re

import pytest

from app_browser import _new_tab, app_url, browser, fresh_reports, open_page, set_slider, wait_text  # noqa: F401

pytestmark = pytest.mark.xdist_group("app")

# computed colours of the page and of the first figure: body, header, figure background, a tick label, a legend entry
COLOURS = """() => { const gd = document.querySelector('.js-plotly-plot'), cs = e => getComputedStyle(e);
  return {body: cs(document.body).backgroundColor, header: cs(document.querySelector('.header')).backgroundColor,
          text: cs(document.body).color, figure: cs(gd.querySelector('.svg-container > .main-svg')).backgroundColor,
          tick: cs(gd.querySelector('.xtick text')).fill, legend: cs(gd.querySelector('.legendtext')).fill}; }"""

# elements (and ::before / ::after) with a CSS transition or animation that takes time
MOVING = """() => { const out = [], long = v => v.split(',').some(d => parseFloat(d) > 0);
  for (const e of document.querySelectorAll('*')) for (const p of [null, '::before', '::after']) {
    const s = getComputedStyle(e, p);
    if (long(s.transitionDuration) || (s.animationName !== 'none' && long(s.animationDuration)))
      out.push((e.id || e.className.baseVal || e.className || e.tagName) + (p || '')); }
  return out; }"""


def luminance(css: str) -> float:
    """WCAG relative luminance of a computed 'rgb(r, g, b)' colour."""
    c = [int(v) / 255 for v in re.findall(r"\d+", css)[:3]]
    lin = [v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4 for v in c]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def _tab_with(browser, **media):
    """A tab in a context of its own that emulates `media` (color_scheme, reduced_motion)."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, **media)
    yield _new_tab(ctx)
    ctx.close()


@pytest.fixture
def scheme_page(browser):
    yield from _tab_with(browser, color_scheme="dark")


@pytest.fixture
def calm_page(browser):
    yield from _tab_with(browser, reduced_motion="reduce")


def test_dark_scheme_gives_a_dark_page_and_dark_figures_with_light_text(scheme_page, app_url):
    pg = scheme_page
    open_page(pg, f"{app_url}/definition?lang=en")
    dark = pg.evaluate(COLOURS)
    assert luminance(dark["body"]) < 0.02 and luminance(dark["header"]) < 0.02 and luminance(dark["figure"]) < 0.02, dark
    for k in ("text", "tick", "legend"):  # light on dark: >= 4.5:1 on the figure
        assert (luminance(dark[k]) + 0.05) / (luminance(dark["figure"]) + 0.05) >= 4.5, (k, dark)
    # a full redraw by plotly.js (as Dash's Plotly.react) writes its light inline styles again: still dark
    pg.evaluate("() => { const gd = document.querySelector('.js-plotly-plot'); return Plotly.relayout(gd, {height: 420}); }")
    pg.wait_for_function("() => document.querySelector('.js-plotly-plot')._fullLayout.height === 420")
    assert pg.evaluate(COLOURS) == dark
    # the same page in the light scheme is light, with dark text: the switch is the preference
    pg.emulate_media(color_scheme="light")
    light = pg.evaluate(COLOURS)
    assert luminance(light["body"]) > 0.8 and luminance(light["figure"]) == 1.0, light
    assert all(luminance(light[k]) < 0.05 for k in ("text", "tick", "legend")), light
    pg.log.check()


def test_reduced_motion_moves_the_curve_with_no_transition(calm_page, app_url):
    from gelu_lab.figures import definition as figs

    pg = calm_page
    open_page(pg, f"{app_url}/definition?x=1&lang=en")
    # record how the page asks plotly.js to move or redraw a figure
    pg.evaluate("""() => { window.__moves = [];
      for (const f of ['animate', 'react', 'newPlot', 'relayout']) { const orig = Plotly[f];
        Plotly[f] = function () { window.__moves.push([f, JSON.stringify([].slice.call(arguments, 1))]); return orig.apply(this, arguments); }; } }""")
    set_slider(pg, "definition-x", -0.5)
    wait_text(pg, "definition-rx", "-0.50")
    pg.wait_for_function("() => document.querySelector('#definition-gate .js-plotly-plot')._fullData[%d].x[0] === -0.5" % figs.MARK_IN)
    moves = pg.evaluate("window.__moves")
    assert [m[0] for m in moves if m[0] == "animate"], moves  # the curve moved in place (gelu_lab.move)
    for f, args in moves:
        durations = re.findall(r'"(transition|frame)":\{[^}]*"duration":([\d.]+)', args)
        if f == "animate":  # Plotly.animate's defaults take 500 ms: both must be given, as 0
            assert sorted(k for k, _ in durations) == ["frame", "transition"], args
        assert all(float(d) == 0 for _, d in durations), (f, args)
    layout = pg.evaluate("() => document.querySelector('#definition-gate .js-plotly-plot').layout")
    assert layout.get("transition", {}).get("duration", 0) == 0
    assert pg.evaluate(MOVING) == []  # nothing fades or slides, Plotly's own modebar fade included
    # without the preference the check finds the transitions that are there (e.g. Plotly's modebar)
    pg.emulate_media(reduced_motion="no-preference")
    assert pg.evaluate(MOVING) != []
    pg.log.check()


def test_the_offline_report_follows_the_dark_scheme_too(browser, fresh_reports):  # noqa: F811
    info = fresh_reports["en"]
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="dark")
    pg = ctx.new_page()
    pg.goto(f"file://{info['path']}")
    pg.wait_for_function("document.body.getAttribute('data-figures') !== null", timeout=60_000)
    dark = pg.evaluate(COLOURS.replace("'.header'", "'.card'"))  # the report has no app header: its first card
    assert luminance(dark["body"]) < 0.02 and luminance(dark["header"]) < 0.02 and luminance(dark["figure"]) < 0.02, dark
    assert all((luminance(dark[k]) + 0.05) / (luminance(dark["figure"]) + 0.05) >= 4.5 for k in ("text", "tick", "legend")), dark
    pg.emulate_media(color_scheme="light")
    assert luminance(pg.evaluate(COLOURS.replace("'.header'", "'.card'"))["figure"]) == 1.0
    ctx.close()
