"""Every use the app makes of a library's non-public behaviour, one entry each, checked.

    ENTRIES: {name: Entry}      what each depends on (exact pins), where it lives, its check, its gain
    check(name) / check_all()   the Python checks (tests/test_compat.py); the JavaScript ones
                                run in Chromium (tests/test_compat_js.py: window.gelu_lab_compat)
    PINS                        the exact versions the entries were written against (pyproject.toml)

An entry is a private field, a class name, a wire format or a DOM rewrite that a library
does not promise to keep. Each names the packages it depends on, pinned exactly in
pyproject.toml, and has a check that fails naming the dependency when the library changes.
Two kinds:

- a speed trick (``switch=True``): kept only for a gain measured in an interleaved A/B,
  ``bench/bench_app.py --ab NAME`` (figures in bench/results/bench_app_ab.json), of at
  least 100 ms of cold page load or 10 ms of control latency (the bar of
  bench/bench_app.py); it sits behind ``GELU_LAB_FAST`` (:mod:`.speed`). A trick under
  the bar is deleted, not kept.
- a behaviour no public API gives (``switch=False``): an accessible control, a figure that
  fits a phone, a formula drawn as MathML. Its gain is that behaviour, pinned by the
  tests named in ``gain``; turning it off would remove the behaviour, so it has no switch.

Only files in this package and in assets/compat/ may touch such things:
tests/test_compat.py scans the other JavaScript and CSS assets for private fields and
Dash/plotly.js class names.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from typing import Callable

PINS = {"dash": "4.4.1", "plotly": "7.1.0"}
DASH, PLOTLY = f"dash=={PINS['dash']}", f"plotly=={PINS['plotly']}"


class Changed(RuntimeError):
    """A library no longer has what a compat entry counts on (the message names it)."""


@dataclass(frozen=True)
class Entry:
    name: str
    what: str  # the non-public behaviour it relies on
    depends: tuple[str, ...]  # exact pins ("dash==4.4.1"), or the stdlib module of this Python
    files: tuple[str, ...]  # where it lives, relative to gelu_lab/app
    gain: str  # the measured gain (bench_app_ab.json) or the behaviour and its tests
    switch: bool = False  # a speed trick behind GELU_LAB_FAST
    check: Callable[[], None] | None = None  # the Python check; None: checked in Chromium (assets/compat/<file>.js)

    @property
    def js(self) -> bool:
        """Checked in Chromium: its code is in assets/compat/ (window.gelu_lab_compat.<name>)."""
        return any(f.startswith("assets/compat/") and f.endswith(".js") for f in self.files)


def _speed_check():
    from . import speed

    try:
        speed.check()
    except speed.DashChanged as e:
        raise Changed(str(e)) from None


def _refusal_check():
    from . import refusal, speed

    try:
        refusal.check()
    except speed.DashChanged as e:
        raise Changed(str(e)) from None


def _argparse_check():
    """argparse reads its private ``_negative_number_matcher`` to tell "-1e3" (a value) from
    an option; gelu_lab.commands.Parser sets it. Checked by doing it."""
    import argparse

    p = argparse.ArgumentParser(exit_on_error=False)
    p._negative_number_matcher = re.compile(r"^-\d+e\d+$")
    p.add_argument("--x", type=float)
    p.add_argument("-e", action="store_true")  # an option that looks like a number's tail
    try:
        ok = p.parse_args(["--x", "-1e3"]).x == -1000.0
    except (argparse.ArgumentError, SystemExit):
        ok = False
    if not ok:
        raise Changed(f"argparse (Python {sys.version.split()[0]}) no longer reads ArgumentParser._negative_number_matcher: "
                      "gelu_lab/commands/__init__.py (Parser) must be updated")


_ENTRIES = [
    # speed tricks (GELU_LAB_FAST), kept for their A/B gain
    Entry("scripts", "Dash's private resource lists (_dash_renderer._js_dist_dependencies, dash_table._js_dist) edited; "
          "a compile hint put before every script served", (DASH,), ("compat/speed.py", "assets/vendor/regenerator-runtime.min.js"),
          switch=True, check=_speed_check, gain="bench_app_ab.json: '-scripts' - 'every trick', cold load"),
    Entry("readouts", "window.dash_component_api.getLayout and the slider handle's aria-valuenow, React's text nodes written",
          (DASH,), ("compat/speed.py", "assets/compat/speed_readouts.js"), switch=True, check=_speed_check,
          gain="bench_app_ab.json: '-readouts' - 'every trick', readouts of the clientside sliders"),
    Entry("ticks", "plotly.js's SVG: one .scatterlayer .trace per trace, restyled before Dash redraws",
          (PLOTLY,), ("compat/speed.py", "assets/compat/speed_ticks.js"), switch=True,
          gain="bench_app_ab.json: '-ticks' - 'every trick', overview-show readout"),
    # behaviours no public API gives
    Entry("refusal", "Dash's callback wire format (multi, sideUpdate), written for a request refused before any callback",
          (DASH,), ("compat/refusal.py",), check=_refusal_check,
          gain="behaviour: a refused reader sees why (tests/test_public_browser.py, tests/test_public_units.py)"),
    Entry("a11y", "Dash 4's CSS class names of checklists, radio groups and dropdowns; ARIA roles rewritten",
          (DASH,), ("assets/compat/a11y.js",),
          gain="behaviour: every control named and reachable by keyboard (tests/test_app_a11y.py, axe-core)"),
    Entry("phone_fit", "plotly.js's gd._fullLayout, ax._id, legend._effHeight, tick label classes; Plotly.react again",
          (PLOTLY,), ("assets/compat/figure_fit.js",),
          gain="behaviour: figures legible at 390 px (tests/test_app_phone.py)"),
    Entry("figure_text", "plotly.js's class js-plotly-plot and gd._context; Dash's class dash-graph",
          (PLOTLY, DASH), ("assets/compat/figure_text.js",),
          gain="behaviour: each figure's text alternative and CSV (tests/test_app_figure_text.py)"),
    Entry("plotly_gd", "plotly.js's class js-plotly-plot: the drawn graph of a dcc.Graph",
          (PLOTLY, DASH), ("assets/compat/plotly_gd.js",),
          gain="behaviour: curves moved in place by clientside callbacks, the playground's loss chart (tests/test_app_moves.py, tests/test_app_controls.py)"),
    Entry("data_html", "innerHTML written into a div React rendered empty (Dash has no component for markup or MathML)",
          (DASH,), ("assets/compat/data_html.js",),
          gain="behaviour: formulas as MathML, static tables as one component (tests/test_markup.py, tests/test_app_pages.py)"),
    Entry("dash_css", "Dash 4's class names in CSS: 24/32 px checklist targets, a finger-sized slider handle",
          (DASH,), ("assets/compat/dash.css", "assets/compat/css.js"),
          gain="behaviour: WCAG 2.5.8 target sizes (tests/test_app_phone.py)"),
    Entry("plotly_css", "plotly.js's SVG class names in CSS: dark figures, 24 px modebar buttons",
          (PLOTLY,), ("assets/compat/plotly.css", "assets/compat/css.js"),
          gain="behaviour: figures in the dark theme, target sizes (tests/test_app_theme.py, tests/test_app_phone.py)"),
    Entry("argparse_negative", "argparse's private ArgumentParser._negative_number_matcher",
          (f"python {sys.version_info.major}.{sys.version_info.minor} argparse",), ("../commands/__init__.py",), check=_argparse_check,
          gain="behaviour: `--interval -1e3 1` parses (tests/test_cli_errors.py)"),
]
ENTRIES = {e.name: e for e in _ENTRIES}


def check(name: str) -> None:
    """Raise :class:`Changed`, naming the dependency, if entry `name`'s Python check fails
    (an entry checked only in Chromium passes here)."""
    e = ENTRIES[name]
    if e.check is not None:
        e.check()


def check_all() -> list[str]:
    """The messages of every failing Python check (empty: all hold)."""
    out = []
    for name in ENTRIES:
        try:
            check(name)
        except Changed as err:
            out.append(f"{name}: {err}")
    return out
