"""The app's speed tricks that reach past Dash's public API, behind one switch.

Two tricks measurably pay (``bench/bench_app.py --ab``: interleaved A/B, each at least
10 ms of control latency), both in assets/ and both answering a control before Dash's
own round through its store does:

- ``readouts``: a slider made with a table (:func:`.components.slider`) gets its readouts
  written from the table as soon as the handle moves (assets/speed_readouts.js: reads
  the table through ``window.dash_component_api.getLayout`` and writes React's text
  nodes; Dash's callback then writes the same texts);
- ``ticks``: an Overview tick shows its table row and curve on the box's change event
  (assets/speed_ticks.js); Dash's callback then redraws the figure with the same choice.

The others were measured and dropped: Dash's @babel/polyfill swapped for the
regenerator runtime, dash_table's bundle left out, dcc's graph and slider chunks as
script tags resolved before the first render, the layout and callbacks preloaded, V8's
compile hint on every script, the routed page rendered from the Referer of the layout
request (each under 100 ms of cold load).

The switch is the environment variable ``GELU_LAB_FAST``, read by
:func:`gelu_lab.app.create_app` (or its ``fast`` argument):

    unset or ``1``   every trick            ``0``      none: stock Dash
    ``a,b``          only tricks a and b    ``-a,-b``  every trick but a and b

The tricks depend on what Dash's JavaScript does, so Dash is pinned exactly in
pyproject.toml, and :func:`check` (tests/test_app_speed.py) names what changed.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

import dash

log = logging.getLogger("gelu_lab.app")

# name -> the asset files that are the trick (Dash leaves them out of the page when it is off)
TRICKS = {
    "readouts": ("speed_readouts.js",),
    "ticks": ("speed_ticks.js",),
}
# what the tricks count on in Dash's bundles: (file in the dash package, text in it, what it is)
DEPENDS = [
    ("dash-renderer/build/dash_renderer.min.js", "dash_component_api=Object.assign(", "window.dash_component_api"),
    ("dash-renderer/build/dash_renderer.min.js", "getLayout:function(", "window.dash_component_api.getLayout"),
    ("dcc/async-slider.js", '"aria-valuenow":', "dcc.Slider's handle with aria-valuenow"),
]


class DashChanged(RuntimeError):
    """Dash's JavaScript no longer has what a speed trick counts on."""


def enabled(fast: bool | str | None = None) -> frozenset[str]:
    """The tricks a setting turns on: ``fast`` as in GELU_LAB_FAST (None: read it; True/False:
    all/none). None of them, with one line in the log, if :func:`check` finds Dash changed."""
    tricks = _parse(fast)
    if tricks:
        try:
            check()
        except DashChanged as e:
            log.warning("%s; running without them", e)
            return frozenset()
    return tricks


def _parse(fast: bool | str | None) -> frozenset[str]:
    if fast is None:
        fast = os.environ.get("GELU_LAB_FAST", "1")
    if isinstance(fast, bool):
        return frozenset(TRICKS) if fast else frozenset()
    spec = fast.strip()
    if spec in ("", "1"):
        return frozenset(TRICKS)
    if spec == "0":
        return frozenset()
    names = [s.strip() for s in spec.split(",") if s.strip()]
    bare = {n.lstrip("-") for n in names}
    unknown = sorted(bare - set(TRICKS))
    if unknown:
        raise ValueError(f"GELU_LAB_FAST: unknown trick {', '.join(unknown)} (known: {', '.join(TRICKS)}; 0 = none, 1 = all)")
    negated = [n.startswith("-") for n in names]
    if all(negated):
        return frozenset(TRICKS) - bare
    if any(negated):
        raise ValueError(f"GELU_LAB_FAST={spec!r}: either names to keep or -names to drop, not both")
    return frozenset(bare)


def assets_ignore(tricks: frozenset[str]) -> str:
    """The ``assets_ignore`` regex for dash.Dash: the asset files of the tricks that are off."""
    files = [f for name, fs in TRICKS.items() if name not in tricks for f in fs]
    return "^(" + "|".join(re.escape(f) for f in files) + ")$" if files else ""


def check(dash_dir: Path | None = None) -> None:
    """Raise :class:`DashChanged`, naming it, if Dash's bundles (in `dash_dir`, the installed
    dash package by default) no longer have what the tricks count on."""
    root = Path(dash_dir or Path(dash.__file__).parent)
    for file, text, what in DEPENDS:
        path = root / file
        if not path.is_file() or text not in path.read_text(encoding="utf-8", errors="replace"):
            raise DashChanged(f"{what} is gone from dash/{file}: the speed tricks (gelu_lab/app/speed.py, assets/speed_*.js) must be updated for Dash {dash.__version__}")
