"""The compat entries that are speed tricks (gelu_lab/app/compat/__init__.py), behind one switch.

Each trick reaches past Dash's public API and is kept for what it measurably pays in an
interleaved A/B (``bench/bench_app.py --ab NAME``, figures in bench/results/bench_app_ab.json;
the bar: at least 100 ms of cold page load or 10 ms of control latency; a trick under it
is deleted):

- ``scripts``: less script work on the main thread during a cold load. Dash's 100 kB
  @babel/polyfill is left out (core-js for old browsers: Chromium needs none of it;
  assets/vendor/regenerator-runtime.min.js defines the one global Dash's bundles take
  from it), so is dash_table's bundle (no page has a DataTable), and every script the
  app serves starts with V8's explicit compile hint, so Chromium compiles it on a
  background thread while it streams in. Edits Dash's private resource lists.
- ``readouts``: a slider made with a table (:func:`..components.slider`) gets its readouts
  written from the table as soon as the handle moves, before Dash's round through its
  store (assets/compat/speed_readouts.js: reads the table through
  ``window.dash_component_api.getLayout`` and writes React's text nodes; Dash's
  callback then writes the same texts).
- ``ticks``: an Overview tick shows its table row and curve on the box's change event
  (assets/compat/speed_ticks.js); Dash's callback then redraws the figure with the same choice.

One more setting of the switch uses Dash's public API only, so it is no compat entry:
``first_paint``: the first layout Dash asks for already holds the page the browser is on
(read from the Referer of that request, in a function layout: no routing round trip), and
the layout and callbacks are preloaded with the page (``app.index_string``). It sits behind
the switch so that ``GELU_LAB_FAST=0`` is stock Dash, the baseline of the A/B. (Its former
private half, dcc's Graph and Slider chunks made eager by an edit of ``dcc._js_dist`` and
rendered once off the document by assets/speed_lazy.js, is gone: first_paint as a whole
measured +38 ms of median cold load, under the bar; bench_app_ab.json.)

The switch is the environment variable ``GELU_LAB_FAST``, read by
:func:`gelu_lab.app.create_app` (or its ``fast`` argument):

    unset or ``1``   every trick            ``0``      none: stock Dash
    ``a,b``          only tricks a and b    ``-a,-b``  every trick but a and b

The edits to Dash's lists are per process (they are module globals): a process runs
one setting, and bench_app starts one server per setting. The tricks depend on Dash's
internals, so Dash is pinned exactly in pyproject.toml, and :func:`check`
(tests/test_app_speed.py; in Chromium, tests/test_compat_js.py) names what changed; on a
Dash that changed, the app runs without them and logs one line.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path
from urllib.parse import urlsplit

import dash
from flask import has_request_context, request

log = logging.getLogger("gelu_lab.app")

# name -> the asset files of the trick (Dash leaves them out of the page when it is off)
TRICKS = {
    "scripts": ("regenerator-runtime.min.js",),
    "first_paint": (),  # public API only: no compat entry (see above)
    "readouts": ("speed_readouts.js",),
    "ticks": ("speed_ticks.js",),
}
PUBLIC = frozenset({"first_paint"})  # settings of the switch that use Dash's public API only (no compat entry)
# what the tricks count on in Dash's bundles: (file in the dash package, text in it, what it is)
DEPENDS = [
    ("dash-renderer/build/dash_renderer.min.js", "dash_component_api=Object.assign(", "window.dash_component_api"),
    ("dash-renderer/build/dash_renderer.min.js", "getLayout:function(", "window.dash_component_api.getLayout"),
    ("dcc/async-slider.js", '"aria-valuenow":', "dcc.Slider's handle with aria-valuenow"),
]
POLYFILL = "polyfill@"
DASH_TABLE = "dash_table/bundle.js"
COMPILE_HINT = b"//# allFunctionsCalledOnLoad\n"
_edited: frozenset | None = None  # the tricks whose edits of Dash's lists this process made


class DashChanged(RuntimeError):
    """Dash no longer has what a speed trick counts on."""


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


def apply(app: dash.Dash, tricks: frozenset[str]) -> None:
    """Turn on for `app` what the tricks do on the server (call right after ``dash.Dash(...)``)."""
    global _edited
    edits = tricks & {"scripts"}
    if _edited is not None and edits != _edited:
        raise RuntimeError(f"Dash's resource lists were edited for {sorted(_edited)} in this process; an app with {sorted(edits)} needs a process of its own")
    _edited = edits
    if "scripts" in tricks:
        _drop_polyfill()
        _drop_dash_table()
        _compile_hint(app)
    if "first_paint" in tricks:
        _preload(app)


def first_layout(frame, tricks: frozenset[str]):
    """The app's layout for Dash: ``frame(key)``, the shell showing the URL `key`.

    With "first_paint", `key` is the page the browser is on, the Referer of Dash's layout
    request (another host's, or none: ``frame(None)``, and the routing callback renders
    the page); without it the layout is ``frame(None)``.
    """
    if "first_paint" not in tricks:
        return frame(None)

    def serve():
        key = None
        if has_request_context() and request.referrer:
            ref = urlsplit(request.referrer)
            if ref.netloc == request.host:
                key = ref.path + (f"?{ref.query}" if ref.query else "")
        return frame(key)

    return serve


def check(dash_dir: Path | None = None) -> None:
    """Raise :class:`DashChanged`, naming it, if Dash (its bundles in `dash_dir`, the
    installed dash package by default, and its resource lists, as they are before this
    process edited them or as edited) no longer has what the tricks count on."""
    from dash import _dash_renderer, dash_table

    where = f"the speed tricks (gelu_lab/app/compat/speed.py, assets/compat/speed_*.js) must be updated for Dash {dash.__version__}"
    root = Path(dash_dir or Path(dash.__file__).parent)
    for file, text, what in DEPENDS:
        path = root / file
        if not path.is_file() or text not in path.read_text(encoding="utf-8", errors="replace"):
            raise DashChanged(f"{what} is gone from dash/{file}: {where}")
    edited = _edited or frozenset()
    deps = getattr(_dash_renderer, "_js_dist_dependencies", None)
    if not isinstance(deps, list) or not all(isinstance(d, dict) for d in deps):
        raise DashChanged(f"dash._dash_renderer._js_dist_dependencies is no longer a list of resources: {where}")
    if "scripts" not in edited and not any(POLYFILL in f for d in deps for f in _files(d)):
        raise DashChanged(f"dash._dash_renderer._js_dist_dependencies no longer lists @babel/polyfill: {where}")
    table = [r.get("relative_package_path") for r in getattr(dash_table, "_js_dist", [])]
    if "scripts" not in edited and DASH_TABLE not in table:
        raise DashChanged(f"dash.dash_table._js_dist no longer has {DASH_TABLE}: {where}")


def _files(dep: dict):
    for key in ("relative_package_path", "external_url"):
        v = dep.get(key)
        if isinstance(v, dict):  # {"prod": [...], "dev": [...]}
            for files in v.values():
                yield from files
        elif isinstance(v, str):
            yield v


def _drop_polyfill():
    """Leave Dash's @babel/polyfill out of every page. Idempotent."""
    from dash import _dash_renderer

    for dep in _dash_renderer._js_dist_dependencies:
        for key in ("external_url", "relative_package_path"):
            if isinstance(dep.get(key), dict):
                dep[key] = {mode: [f for f in files if POLYFILL not in f] for mode, files in dep[key].items()}


def _drop_dash_table():
    """Leave dash_table's bundle out of every page (Dash sends it, used or not). Idempotent."""
    from dash import dash_table

    dash_table._js_dist[:] = [r for r in dash_table._js_dist if r.get("relative_package_path") != DASH_TABLE]


def _preload(app: dash.Dash):
    prefix = app.config.requests_pathname_prefix
    links = "".join(f'<link rel="preload" href="{prefix}{path}" as="fetch" crossorigin="anonymous">' for path in ("_dash-layout", "_dash-dependencies"))
    app.index_string = app.index_string.replace("{%css%}", links + "{%css%}", 1)


def _compile_hint(app: dash.Dash):
    """Put V8's explicit compile hint at the top of every script `app` serves (Dash's and
    the assets); browsers without it read a comment."""
    prefix = app.config.requests_pathname_prefix
    served = (prefix + "_dash-component-suites/", prefix + "assets/")

    @app.server.after_request
    def _hint(response):
        if response.status_code == 200 and request.path.startswith(served) and request.path.endswith(".js"):
            response.direct_passthrough = False  # assets come as a file stream
            response.set_data(COMPILE_HINT + response.get_data())
        return response
