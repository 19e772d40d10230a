"""The GELU Lab web app (Dash): ``create_app()``, and ``server`` for a WSGI server.

    gelu-lab serve                          waitress on http://127.0.0.1:8050
    gunicorn 'gelu_lab.app:server'          any WSGI server

Layout: :mod:`.shell` (navigation, language switch, routing, URL state),
:mod:`.registry` (the list of pages), ``pages/<slug>/`` (one page: ``page.py`` its
URL state and layout, ``callbacks.py``, ``view.py`` the numbers of analysis/, nn/,
stats/ or results/ as the page shows them), ``content/{zh,en}/<slug>.md`` (its text,
see :mod:`.content`), ``assets/`` (CSS, the clientside callbacks and the vendored
plotly.js bundle, served by the app itself: no CDN), the figures in
:mod:`gelu_lab.figures`, and :mod:`.compat` (every use of a library's non-public
behaviour, one checked entry each, JavaScript and CSS in ``assets/compat/``; the speed
tricks among them sit behind the GELU_LAB_FAST switch, :mod:`.compat.speed`).

How to add a page (e.g. ``ffn``)
--------------------------------
1. Make the folder ``pages/ffn/``: ``page.py`` with
     ``PARAMS = [Param("width", 64, 8, 512, 8, integer=True), ...]``  (URL state, see :mod:`.state`)
     ``def layout(state: dict, lang: str)`` -> Dash component, built from the state
   (the shell keeps rendered views; set ``LIVE = True`` if the layout also shows
   what changes while the server runs, such as a job or the measurement store);
   controls get the id ``"ffn-<param>"`` (their ``value`` is mirrored into the URL
   automatically), callbacks are module-level ``@dash.callback`` /
   ``dash.clientside_callback`` with ``prevent_initial_call=True`` (the layout
   already shows the initial state) and ``State("lang", "data")`` for the language;
   check callback inputs with :func:`.state.inputs` (clamps, says what it repaired).
   The callbacks go in ``callbacks.py``, the formatting of numbers in ``view.py``
   (:mod:`gelu_lab.printing`), and ``__init__.py`` exports ``PARAMS``, ``layout`` (and
   ``LIVE``) and imports the callbacks; each module at most 250 lines.
   Figures come from a pure function in ``gelu_lab/figures/ffn.py``
   (:func:`gelu_lab.figures.figure` builds one fast enough for a 40 ms callback);
   a slider that only moves a precomputed curve can be clientside
   (:func:`.components.family_table` + ``gelu_lab.family`` in assets/gelu_lab.js).
2. Write ``content/zh/ffn.md`` and ``content/en/ffn.md`` (blocks ``<!-- name -->``).
3. Add ``Page("ffn", "/ffn")`` to :mod:`.registry` and its ``nav.ffn`` and ``q.ffn``
   blocks to ``content/{zh,en}/shell.md``.
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

from .. import budget
from . import guard, public, registry, shell, state
from .compat import speed

log = logging.getLogger("gelu_lab.app")
ASSETS = Path(__file__).parent / "assets"


def page_module(slug: str):
    return importlib.import_module(f"gelu_lab.app.pages.{slug}")


# Dash's index page, but its scripts not in a <footer> (a second contentinfo landmark beside
# the shell's) and <html lang> filled per request (App.interpolate_index)
INDEX = """<!DOCTYPE html>
<html lang="{%lang%}">
    <head>
        {%metas%}
        <title>{%title%}</title>
        {%favicon%}
        {%css%}
    </head>
    <body>
        {%app_entry%}
        {%config%}
        {%scripts%}
        {%renderer%}
    </body>
</html>"""


class App(dash.Dash):
    """Dash, with the index page in the URL's language: ``<html lang>`` and the page's
    title are right before any script runs (screen readers pick their voice from it).
    index_string and interpolate_index are Dash's documented ways to shape the index page."""

    def interpolate_index(self, **kw):
        lang, kw["title"] = shell.head(request.path, request.query_string.decode("latin-1"))
        return super().interpolate_index(**kw).replace("{%lang%}", lang, 1)


def create_app(fast: bool | str | None = None) -> dash.Dash:
    """A new Dash app with every page; debug off, assets served locally (no CDN); what a
    visitor may do as :func:`.public.current` says (configure it first).

    fast: the speed tricks of :mod:`.compat.speed` (None: as the GELU_LAB_FAST environment
    variable says, all of them when it is unset; False: stock Dash).
    """
    tricks = speed.enabled(fast)
    policy = public.current()
    app = App(
        __name__,
        assets_folder=str(ASSETS),
        assets_ignore=speed.assets_ignore(tricks),
        serve_locally=True,
        suppress_callback_exceptions=True,  # page components appear only once routed to
        title="GELU Lab",
        index_string=INDEX,
        update_title=None,
        compress=False,
        on_error=guard.over_budget,  # a callback over its budget shows the notice (public mode)
    )
    speed.apply(app, tricks)
    guard.install(app.server, policy, app.config.requests_pathname_prefix)
    pages = {p.slug: page_module(p.slug) for p in registry.PAGES}
    app.layout = shell.layout(shell.register(pages), tricks)
    _never_500(app.server)
    # Dash registers the callbacks on its first request, unguarded: two first requests
    # at once (serve's warm-up and a browser) can be answered with no callbacks at all.
    # Make that first request here, before any server runs.
    app.server.test_client().get(app.config.requests_pathname_prefix + "_dash-dependencies", environ_base={guard.INTERNAL: True})
    return app


# trace types of the plotly.js bundle in assets/vendor/ (its README); tests/test_app_bundle.py checks every figure against it
BUNDLE_TRACES = frozenset({"bar", "pie", "scatter"})


def _never_500(server):
    """A failing callback answers 204 (nothing changes) and logs one line, never HTTP 500."""

    @server.errorhandler(Exception)
    def _handle(e):
        if isinstance(e, HTTPException):
            return e
        if isinstance(e, (budget.OverBudget, MemoryError)):  # a page (not a callback) over a public server's budget: say so
            kind = e.kind if isinstance(e, budget.OverBudget) else "memory"
            return public.refusal(kind, guard.reader_lang()), 422, {"Content-Type": "text/plain; charset=utf-8"}
        log.error("%s %s: %s: %s", request.method, request.path, type(e).__name__, str(e).splitlines()[0] if str(e) else "")
        if request.path.endswith("_dash-update-component"):
            return "", 204
        return "bad request", 400


def warm() -> None:
    """Render every page once in each language, as a reader's first visit does (the
    layout request a browser makes, or the page), filling the per-page caches (slider
    tables, key points, the gradient-flow forward pass) and the shell's kept views, so
    that the first visit does not pay for them. `gelu-lab serve` runs this in the background."""
    from .content import LANGS

    app = get_app()
    client, layout = app.server.test_client(), app.config.requests_pathname_prefix + "_dash-layout"
    client.environ_base[guard.INTERNAL] = True  # the server's own requests: no visitor's rate or budget
    pages = {p.slug: page_module(p.slug) for p in registry.PAGES}
    routed = "first_paint" in speed.enabled()  # as get_app() made the app
    for p in registry.PAGES:
        for lang in LANGS:
            url = state.href(p.route, lang)
            if routed:
                r = client.get(layout, headers={"Referer": f"http://localhost{url}"})
                if r.status_code != 200:
                    log.error("warm-up: %s answered %s", url, r.status_code)
                continue
            try:
                shell.render(p.route, url[len(p.route):], pages)
            except Exception as e:  # logged in one line, as the app logs a failing request
                log.error("warm-up: %s: %s: %s", url, type(e).__name__, e)
    guard.mark_warm()


@functools.cache
def get_app() -> dash.Dash:
    return create_app()


def __getattr__(name):  # `server` is built on first use, so importing the package stays cheap
    if name == "server":
        return get_app().server
    raise AttributeError(name)
