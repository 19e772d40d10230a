"""The GELU Lab web app (Dash): ``create_app()``, and ``server`` for a WSGI server.

    gelu-lab serve                          waitress on http://127.0.0.1:8050
    gunicorn 'gelu_lab.app:server'          any WSGI server

Layout: :mod:`.shell` (navigation, language switch, routing, URL state),
:mod:`.registry` (the list of pages), ``pages/<slug>.py`` (layout and
callbacks of one page, nothing else), ``content/{zh,en}/<slug>.md`` (its text,
see :mod:`.content`), ``assets/`` (CSS and the clientside callbacks, served by
the app itself: no CDN), and the figures in :mod:`gelu_lab.figures`.

How to add a page (e.g. ``ffn``)
--------------------------------
1. Write ``pages/ffn.py`` with
     ``PARAMS = [Param("width", 64, 8, 512, 8, integer=True), ...]``  (URL state, see :mod:`.state`)
     ``def layout(state: dict, lang: str)`` -> Dash component, built from the state
   (the shell keeps rendered views; set ``LIVE = True`` if the layout also shows
   what changes while the server runs, such as a job or the measurement store);
   controls get the id ``"ffn-<param>"`` (their ``value`` is mirrored into the URL
   automatically), callbacks are module-level ``@dash.callback`` /
   ``dash.clientside_callback`` with ``prevent_initial_call=True`` (the layout
   already shows the initial state) and ``State("lang", "data")`` for the language;
   check callback inputs with :func:`.state.inputs` (clamps, says what it repaired).
   Figures come from a pure function in ``gelu_lab/figures/ffn.py``
   (:func:`gelu_lab.figures.figure` builds one fast enough for a 40 ms callback);
   a slider that only moves a precomputed curve can be clientside
   (:func:`.components.family_table` + ``gelu_lab.family`` in assets/gelu_lab.js).
2. Write ``content/zh/ffn.md`` and ``content/en/ffn.md`` (blocks ``<!-- name -->``).
3. In :mod:`.registry` set ``Page("ffn", "/ffn", built=True)``.
4. Add ``tests/test_app_ffn.py`` for its controls (fixtures in tests/app_browser.py;
   tests/test_app_pages.py picks the page up from the registry: it loads, draws its
   figures, no console error, no request outside 127.0.0.1).
"""

from __future__ import annotations

import functools
import importlib
import logging
from pathlib import Path

import dash
from flask import request
from werkzeug.exceptions import HTTPException

from . import registry, shell

log = logging.getLogger("gelu_lab.app")


def page_module(slug: str):
    return importlib.import_module(f"gelu_lab.app.pages.{slug}")


def create_app() -> dash.Dash:
    """A new Dash app with every built page; debug off, assets served locally."""
    app = dash.Dash(
        __name__,
        assets_folder=str(Path(__file__).parent / "assets"),
        serve_locally=True,
        suppress_callback_exceptions=True,  # page components appear only once routed to
        title="GELU Lab",
        update_title=None,
        compress=False,
    )
    _serve_partial_plotly()
    _serve_lean_polyfill()
    _skip_dash_table()
    _start_sooner(app)
    _compile_eagerly(app)
    pages = {p.slug: page_module(p.slug) for p in registry.PAGES if p.built}
    app.layout = shell.layout(pages)
    shell.register(pages)
    _never_500(app.server)
    # Dash registers the callbacks on its first request, unguarded: two first requests
    # at once (serve's warm-up and a browser) can be answered with no callbacks at all.
    # Make that first request here, before any server runs.
    app.server.test_client().get(app.config.requests_pathname_prefix + "_dash-dependencies")
    return app


PLOTLY_BUNDLE = "app/vendor/plotly-basic.min.js"
# trace types in that bundle (vendor/README.md); tests/test_app_bundle.py checks every figure against it
BUNDLE_TRACES = frozenset({"bar", "pie", "scatter"})


def _serve_partial_plotly():
    """Make dcc.Graph load the vendored basic plotly.js bundle (1.2 MB) instead of the full one (4.8 MB).

    Dash registers plotly.py's plotly.min.js as an eager async resource of dcc;
    that entry becomes a plain script tag for the same plotly.js version's
    partial bundle in this package, so ``window.Plotly`` exists before any
    graph mounts (dcc.Graph only fetches plotly.min.js when it does not). Cold
    page loads spend most of their time parsing this file.
    """
    from dash import dcc

    for res in dcc._js_dist:
        if res.get("relative_package_path") == "package_data/plotly.min.js":
            res.update(namespace="gelu_lab", relative_package_path=PLOTLY_BUNDLE)
            res.pop("async", None)


REGENERATOR = "app/vendor/regenerator-runtime.min.js"


def _serve_lean_polyfill():
    """Load the 7 kB regenerator runtime instead of Dash's 100 kB @babel/polyfill.

    The polyfill (core-js for old browsers) costs Chromium 130-330 ms of a cold
    page load on a slow CPU, to patch nothing; the one thing Dash's bundles need
    from it is the global ``regeneratorRuntime`` (their transpiled async code),
    which vendor/regenerator-runtime.min.js defines. Idempotent.
    """
    from dash import _dash_renderer

    deps = _dash_renderer._js_dist_dependencies
    for dep in deps:
        for key in ("external_url", "relative_package_path"):
            if isinstance(dep.get(key), dict):  # {"prod": [...], "dev": [...]}
                dep[key] = {mode: [f for f in files if "polyfill@" not in f] for mode, files in dep[key].items()}
    if not any(d.get("relative_package_path") == REGENERATOR for d in deps):
        deps.insert(0, {"relative_package_path": REGENERATOR, "namespace": "gelu_lab"})


def _skip_dash_table():
    """Do not send dash_table's script (33 kB) to the browser: no page has a DataTable.

    Dash puts dash_table's bundle in every index page, used or not. Idempotent.
    """
    from dash import dash_table

    dash_table._js_dist[:] = [r for r in dash_table._js_dist if r.get("relative_package_path") != "dash_table/bundle.js"]


EAGER_CHUNKS = ("dcc/async-graph.js", "dcc/async-slider.js")


def _start_sooner(app: dash.Dash):
    """Shorten the chain of requests before the first figure; for ``app`` and every app made later.

    Stock Dash runs its scripts, then fetches the layout and the callbacks, renders,
    and only then fetches the script chunks of the components it meets (dcc.Graph's,
    dcc.Slider's): three waits in a row. Here the layout and callbacks are preloaded
    with the page (the server renders the layout while the browser parses
    plotly.js) and the two chunks every page needs are plain script tags, as Dash's
    ``eager_loading`` makes of all eight chunks (MathJax's included). Their
    components are React.lazy all the same: assets/gelu_lab.js resolves them
    before Dash's first render, which would otherwise suspend on them.
    """
    from dash import dcc

    for res in dcc._js_dist:
        if res.get("relative_package_path") in EAGER_CHUNKS:
            res.pop("async", None)
    prefix = app.config.requests_pathname_prefix
    links = "".join(f'<link rel="preload" href="{prefix}{path}" as="fetch" crossorigin="anonymous">' for path in ("_dash-layout", "_dash-dependencies"))
    app.index_string = app.index_string.replace("{%css%}", links + "{%css%}", 1)


COMPILE_HINT = b"//# allFunctionsCalledOnLoad\n"


def _compile_eagerly(app: dash.Dash):
    """Put V8's explicit compile hint at the top of every script Dash serves.

    Chromium (136 and later) then compiles all of a script's functions on a
    background thread while it streams in, instead of each one on the main
    thread the first time it is called. A cold page load calls most of React,
    Dash's renderer, dcc and plotly.js's drawing code at once, and its main
    thread is busy from the first script to the last figure; the other core is
    idle. Measured: cold loads 130-190 ms shorter (plotly.js alone ~130 ms).
    Browsers without the hint read a comment.
    """
    prefix = app.config.requests_pathname_prefix + "_dash-component-suites/"

    @app.server.after_request
    def _hint(response):
        if response.status_code == 200 and request.path.startswith(prefix) and request.path.endswith(".js"):
            response.set_data(COMPILE_HINT + response.get_data())
        return response


def _never_500(server):
    """A failing callback answers 204 (nothing changes) and logs one line, never HTTP 500."""

    @server.errorhandler(Exception)
    def _handle(e):
        if isinstance(e, HTTPException):
            return e
        log.error("%s %s: %s: %s", request.method, request.path, type(e).__name__, str(e).splitlines()[0] if str(e) else "")
        if request.path.endswith("_dash-update-component"):
            return "", 204
        return "bad request", 400


def warm() -> None:
    """Request every built page's layout once in each language, as a browser does,
    filling the per-page caches (slider tables, key points, the gradient-flow
    forward pass) and the shell's views, so that a reader's first visit does not
    pay for them. `gelu-lab serve` runs this in the background."""
    from .content import LANGS

    app = get_app()
    client, url = app.server.test_client(), app.config.requests_pathname_prefix + "_dash-layout"
    for p in registry.PAGES:
        if p.built:
            for lang in LANGS:
                r = client.get(url, headers={"Referer": f"http://localhost{p.route}?lang={lang}"})
                if r.status_code != 200:
                    log.error("warm-up: %s?lang=%s answered %s", p.route, lang, r.status_code)


@functools.cache
def get_app() -> dash.Dash:
    return create_app()


def __getattr__(name):  # `server` is built on first use, so importing the package stays cheap
    if name == "server":
        return get_app().server
    raise AttributeError(name)
