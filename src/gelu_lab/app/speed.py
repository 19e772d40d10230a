"""The app's speed tricks that reach past Dash's public API, behind one switch.

Each trick here was kept because an interleaved A/B run of ``bench/bench_app.py --ab``
showed it pays (at least 100 ms of cold page load, or 10 ms of control latency);
the others were dropped. Several edit Dash's private resource lists, so Dash is pinned
exactly in pyproject.toml and :func:`check` (run by tests/test_app_speed.py) names the
internal that changed when Dash is upgraded.

The switch is the environment variable ``GELU_LAB_FAST``, read by
:func:`gelu_lab.app.create_app` (or its ``fast`` argument):

    unset or ``1``   every trick            ``0``      none: stock Dash
    ``a,b``          only tricks a and b    ``-a,-b``  every trick but a and b

The edits to Dash's resource lists are per process (the lists are module globals):
a process runs one setting, and ``bench/bench_app.py`` starts one server per setting.
"""

from __future__ import annotations

import functools
import os
import re
from urllib.parse import urlsplit

import dash
from flask import has_request_context, request

# name -> what it does; the A/B bench and the switch know the tricks by these names
TRICKS = {
    "polyfill": "the 7 kB regenerator runtime instead of Dash's 100 kB @babel/polyfill",
    "dash_table": "dash_table's 33 kB bundle left out (no page has a DataTable)",
    "eager_chunks": "dcc's Graph and Slider chunks as script tags with the page",
    "lazy": "dcc's lazy Graph and Slider resolved before Dash renders (assets/speed_lazy.js)",
    "preload": "the layout and callbacks preloaded with the page",
    "compile_hint": "V8's explicit compile hint at the top of every script",
    "routed": "the page the browser is on rendered in the first layout (its Referer)",
    "kept_views": "the last 64 rendered views kept",
    "readouts": "slider readouts written from the table as the handle moves (assets/speed_readouts.js)",
    "ticks": "an Overview tick shown on the box's change event (assets/speed_ticks.js)",
}
# the asset files of a trick: Dash leaves them out of the page when the trick is off
ASSETS = {
    "polyfill": ("regenerator-runtime.min.js",),
    "lazy": ("speed_lazy.js",),
    "readouts": ("speed_readouts.js",),
    "ticks": ("speed_ticks.js",),
}
GLOBAL = frozenset({"polyfill", "dash_table", "eager_chunks"})  # tricks that edit Dash's module-level lists
EAGER_CHUNKS = ("dcc/async-graph.js", "dcc/async-slider.js")
POLYFILL = "polyfill@"
DASH_TABLE = "dash_table/bundle.js"
COMPILE_HINT = b"//# allFunctionsCalledOnLoad\n"
KEPT = 64  # views: any query string is a new key, and a Sigmoid view holds ~340 kB of tables
_applied: frozenset | None = None  # the global edits made in this process


class DashChanged(RuntimeError):
    """A Dash internal that a speed trick edits is not what this module expects."""


def enabled(fast: bool | str | None = None) -> frozenset[str]:
    """The tricks a setting turns on: ``fast`` as in GELU_LAB_FAST (None: read it; True/False: all/none)."""
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
    files = [f for name, fs in ASSETS.items() if name not in tricks for f in fs]
    return "^(" + "|".join(re.escape(f) for f in files) + ")$" if files else ""


def apply(app: dash.Dash, tricks: frozenset[str]) -> None:
    """Turn `tricks` on for `app` (call once, right after ``dash.Dash(...)``)."""
    global _applied
    edits = tricks & GLOBAL
    if _applied is None:
        check()
    elif edits != _applied:
        raise RuntimeError(f"Dash's resource lists were edited for {sorted(_applied)} in this process; a second app cannot have {sorted(edits)}")
    _applied = edits
    if "polyfill" in tricks:
        _drop_polyfill()
    if "dash_table" in tricks:
        _drop_dash_table()
    if "eager_chunks" in tricks:
        _eager_chunks()
    if "preload" in tricks:
        _preload(app)
    if "compile_hint" in tricks:
        _compile_hint(app)


def check() -> None:
    """Raise :class:`DashChanged`, naming the internal, if Dash no longer has what the tricks edit
    (in this process: as it is before :func:`apply` edits it, or as edited)."""
    from dash import _dash_renderer, dash_table, dcc

    where = f"the speed module (gelu_lab/app/speed.py) must be updated for Dash {dash.__version__}"
    deps = getattr(_dash_renderer, "_js_dist_dependencies", None)
    if not isinstance(deps, list) or not all(isinstance(d, dict) for d in deps):
        raise DashChanged(f"dash._dash_renderer._js_dist_dependencies is no longer a list of resources: {where}")
    if not (_applied and "polyfill" in _applied) and not any(POLYFILL in f for d in deps for f in _files(d)):
        raise DashChanged(f"dash._dash_renderer._js_dist_dependencies no longer lists @babel/polyfill: {where}")
    chunks = {r.get("relative_package_path"): r for r in getattr(dcc, "_js_dist", [])}
    for path in EAGER_CHUNKS:
        if path not in chunks or not (_applied and "eager_chunks" in _applied) and chunks[path].get("async") is not True:
            raise DashChanged(f"dash.dcc._js_dist no longer has {path} as an async resource: {where}")
    table = [r.get("relative_package_path") for r in getattr(dash_table, "_js_dist", [])]
    if not (_applied and "dash_table" in _applied) and DASH_TABLE not in table:
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
    """Leave Dash's @babel/polyfill out of the page (core-js for old browsers: Chromium
    needs none of it). The one thing Dash's bundles take from it is the global
    ``regeneratorRuntime``, which assets/vendor/regenerator-runtime.min.js defines
    before they run. Idempotent."""
    from dash import _dash_renderer

    for dep in _dash_renderer._js_dist_dependencies:
        for key in ("external_url", "relative_package_path"):
            if isinstance(dep.get(key), dict):
                dep[key] = {mode: [f for f in files if POLYFILL not in f] for mode, files in dep[key].items()}


def _drop_dash_table():
    """Dash puts dash_table's bundle in every page, used or not; no page has a DataTable."""
    from dash import dash_table

    dash_table._js_dist[:] = [r for r in dash_table._js_dist if r.get("relative_package_path") != DASH_TABLE]


def _eager_chunks():
    """dcc's Graph and Slider chunks as plain script tags, not fetched once Dash meets the
    first graph (a wait after the layout's). Their components are React.lazy all the same:
    assets/speed_lazy.js resolves them before Dash's first render."""
    from dash import dcc

    for res in dcc._js_dist:
        if res.get("relative_package_path") in EAGER_CHUNKS:
            res.pop("async", None)


def _preload(app: dash.Dash):
    """The layout and callbacks preloaded with the page: the server renders the layout
    while the browser parses the scripts, instead of after them."""
    prefix = app.config.requests_pathname_prefix
    links = "".join(f'<link rel="preload" href="{prefix}{path}" as="fetch" crossorigin="anonymous">' for path in ("_dash-layout", "_dash-dependencies"))
    app.index_string = app.index_string.replace("{%css%}", links + "{%css%}", 1)


def _compile_hint(app: dash.Dash):
    """Put V8's explicit compile hint at the top of every script the app serves: Chromium
    then compiles all of a script's functions on a background thread while it streams
    in, instead of each one on the busy main thread when first called. Browsers without
    the hint read a comment."""
    prefix = app.config.requests_pathname_prefix
    served = (prefix + "_dash-component-suites/", prefix + "assets/")

    @app.server.after_request
    def _hint(response):
        if response.status_code == 200 and request.path.startswith(served) and request.path.endswith(".js"):
            response.direct_passthrough = False  # assets come as a file stream
            response.set_data(COMPILE_HINT + response.get_data())
        return response


def routed_layout(view, is_live, tricks: frozenset[str]):
    """The app's layout for Dash: ``view(key)`` for the URL ``key`` the browser is on.

    With "routed", that URL is the Referer of Dash's layout request, so the first paint
    needs no routing round trip; without it (or without a Referer from this host) the
    shell starts empty (``view(None)``) and the routing callback renders the page.
    With "kept_views", the last KEPT views are kept, except of pages for which
    ``is_live(path)`` (they show what changes while the server runs).
    """
    if "routed" not in tricks:
        return view(None)
    kept = functools.lru_cache(maxsize=KEPT)(view) if "kept_views" in tricks else view

    def serve():
        key = None
        if has_request_context() and request.referrer:
            ref = urlsplit(request.referrer)
            if ref.netloc == request.host:
                key = ref.path + (f"?{ref.query}" if ref.query else "")
        return view(key) if key and is_live(key.partition("?")[0]) else kept(key)

    return serve
