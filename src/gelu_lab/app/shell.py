"""The frame around every page: navigation, language switch, routing, URL state.

The URL is the state: ``/definition?x=2&lang=en`` (:mod:`.state` reads and writes
it). The routing callback renders a page from its path and query (clamping bad
values, with a note); moving a control rewrites the query in place
(``history.replaceState``, no reload, no server round trip); the language switch
sets ``lang`` in the query and re-renders. The clientside callbacks are
``dash_clientside.gelu_lab`` in assets/gelu_lab.js.
"""

from __future__ import annotations

import functools
import json

from dash import ClientsideFunction, Input, Output, State, callback, clientside_callback, dcc, html

from ..results import live_signature
from . import content, registry, state
from .compat import speed

KEPT = 64  # views: any query string is a new key, and a Sigmoid view holds ~340 kB of tables
HTML_LANG = {"zh": "zh-Hans", "en": "en"}  # <html lang>: BCP 47 names the script (simplified Chinese)


def layout(show, tricks: frozenset[str]):
    """The app's layout: the frame around the page, the page in it where the speed tricks
    render it at once (:func:`.compat.speed.first_layout`), else empty for the routing callback.
    ``rendered`` holds the URL shown, so that the routing callback is not called for it."""

    def frame(key: str | None):
        return html.Div([dcc.Location(id="url"), dcc.Store(id="rendered", data=key), dcc.Store(id="route"), dcc.Store(id="head-shown"),
                         html.Div(show(key) if key else None, id="shell", className="shell")])

    return speed.first_layout(frame, tricks)


def views(pages: dict):
    """show(key): the shell's content for the URL `key` (``/relu?mu=1&lang=en``).

    Most views are a pure function of their URL, so the last KEPT are kept, and a
    reader's visit takes no CPU to render a page seen before. A page whose layout shows
    what changes while the server runs (a training job, the measurement store) says
    ``LIVE = True``: its views are kept as long as the store and the jobs' files are as
    they were (:func:`gelu_lab.results.live_signature`), and rendered every time while a
    job or a run may be running.
    """
    live = {slug for slug, mod in pages.items() if getattr(mod, "LIVE", False)}

    def view(key: str, _signature=None):
        path, _, query = key.partition("?")
        return render(path, f"?{query}" if query else "", pages)

    kept = functools.lru_cache(maxsize=KEPT)(view)  # bounded: any query string is a new key

    def show(key: str):
        page = registry.by_route(key.partition("?")[0])
        if page is None or page.slug not in live:
            return kept(key)
        signature = live_signature()
        return view(key) if signature is None else kept(key, signature)

    return show


def title(page: registry.Page | None, lang: str) -> str:
    """The browser tab's title for a page (None: the not-found page)."""
    t = content.text(lang, "shell")
    return f"{t[f'nav.{page.slug}'] if page else t['notfound.title']} · GELU Lab"


def head(path: str | None, search: str | None) -> tuple[str, str]:
    """(<html lang>, <title>) of the URL: what the index page the server sends says
    (gelu_lab.app.App), before any script runs."""
    lang = state.lang_of(search)
    return HTML_LANG[lang], title(registry.by_route(path), lang)


def _nav(current: registry.Page | None, lang: str, t: dict):
    return html.Nav(
        [
            dcc.Link(t[f"nav.{p.slug}"], href=state.href(p.route, lang), className="nav-link active" if current == p else "nav-link", id=f"nav-{p.slug}")
            for p in registry.PAGES
        ],
        className="nav", id="nav-pages", **{"aria-label": t["nav.label"]},
    )


def _menu_button(t: dict):
    """On a narrow screen the pages' navigation is a menu behind this button (assets/viewport.css
    hides the list until it is opened; assets/menu.js opens and closes it); hidden on a wide one."""
    return html.Button([html.Span("☰", className="nav-toggle-icon", **{"aria-hidden": "true"}), t["nav.menu"]], id="nav-toggle",
                       className="nav-toggle", type="button", **{"aria-expanded": "false", "aria-controls": "nav-pages"})


def _header(current, lang: str, t: dict):
    switch = html.Div(
        [
            html.Button("中文", id="lang-zh", lang=HTML_LANG["zh"], className="lang" + (" active" if lang == "zh" else ""), n_clicks=0),
            html.Button("English", id="lang-en", lang="en", className="lang" + (" active" if lang == "en" else ""), n_clicks=0),
        ],
        className="lang-switch",
    )
    brand = dcc.Link([html.Span("GELU Lab", className="brand-name"), html.Span(t["tagline"], className="brand-tag")], href=state.href("/", lang), className="brand")
    return html.Header([html.Div([brand, _menu_button(t), switch], className="header-top"), _nav(current, lang, t)], className="header")


def _pager(page: registry.Page, lang: str, t: dict):
    """The guided route: links to the previous and the next page in navigation order."""
    i = registry.PAGES.index(page)
    links = []
    for j, way in ((i - 1, "prev"), (i + 1, "next")):
        if 0 <= j < len(registry.PAGES):
            p = registry.PAGES[j]
            links.append(dcc.Link([html.Span(t[f"pager.{way}"], className="pager-dir"), html.Span(t[f"nav.{p.slug}"], className="pager-title")],
                                  href=state.href(p.route, lang), className=f"pager-{way}", id=f"pager-{way}"))
    return html.Nav(links, className="pager", **{"aria-label": t["pager.label"]})


def main_words(t: dict) -> dict:
    """The words the scripts read from <main> (the app's and the offline report's), from
    shell.md `t`: data-region-*, how assets/compat/a11y.js names a box that scrolls sideways (a
    focusable region); data-figure-words, the fig.* blocks as JSON, from which
    assets/compat/figure_text.js words each figure's text alternative and its CSV button."""
    words = {f"data-region-{k}": t[f"region.{k}"] for k in ("table", "code", "math")}
    words["data-figure-words"] = json.dumps({k.removeprefix("fig."): v for k, v in t.items() if k.startswith("fig.")}, ensure_ascii=False)
    return words


def notes_text(notes, t: dict) -> str:
    return " ".join(content.fill(t[f"msg.{key}"], **args) for key, args in notes)


def render(pathname: str | None, search: str | None, pages: dict):
    lang = state.lang_of(search)
    t = content.text(lang, "shell")
    page = registry.by_route(pathname)
    if page is None:
        body = html.Div([html.H1(t["notfound.title"]), html.P(t["notfound.body"])], className="card")
        notes = []
    else:
        mod = pages[page.slug]
        values, notes = state.read(mod.PARAMS, search)
        body = mod.layout(values, lang)
    main = f"page-{page.slug}" if page else "page-notfound"
    return html.Div(
        [
            dcc.Store(id="lang", data=lang),
            dcc.Store(id="head", data={"lang": HTML_LANG[lang], "title": title(page, lang)}),  # gelu_lab.head sets them
            dcc.Store(id=f"{page.slug}-url") if page else None,
            html.A(t["skip"], href=f"#{main}", className="skip-link", id="skip-link"),  # the first thing Tab reaches
            _header(page, lang, t),
            html.Div(notes_text(notes, t), id="url-notes", className="message" if notes else "message empty", role="status"),
            html.Div(id="live-notice", className="message empty", role="status"),  # a public server's refusal (app.refusal, app.guard)
            html.Main(body, className="page", id=main, lang=HTML_LANG[lang], tabIndex="-1", **main_words(t)),  # -1: the skip link focuses it
            _pager(page, lang, t) if page else None,
            html.Footer(t["footer"], className="footer"),
        ]
    )


def register(pages: dict):
    """Routing, language switch and URL sync for the given {slug: page module}; returns
    the routing's show(key) (:func:`views`), for the layout."""
    show = views(pages)

    # the URL the shell should show; no update when it shows it already (the layout
    # rendered it: a page load then makes no routing request)
    clientside_callback(
        ClientsideFunction("gelu_lab", "route"),
        Output("route", "data"), Input("url", "pathname"), Input("url", "search"), State("rendered", "data"),
    )

    @callback(Output("shell", "children"), Output("rendered", "data"), Input("route", "data"), prevent_initial_call=True)
    def _route(key):
        key = key or "/"
        return show(key), key

    # <html lang> and the title follow the page shown (the server's index page has them for the first one)
    clientside_callback(ClientsideFunction("gelu_lab", "head"), Output("head-shown", "data"), Input("head", "data"))

    clientside_callback(
        ClientsideFunction("gelu_lab", "switch_lang"),
        Output("url", "search"),
        Input("lang-zh", "n_clicks"),
        Input("lang-en", "n_clicks"),
        prevent_initial_call=True,
    )
    for slug, mod in pages.items():
        if mod.PARAMS:
            clientside_callback(
                ClientsideFunction("gelu_lab", "sync_url"),  # the param names are the inputs' ids after "<slug>-"
                Output(f"{slug}-url", "data"),
                [Input(f"{slug}-{p.name}", "value") for p in mod.PARAMS],
                State("lang", "data"),
                prevent_initial_call=True,
            )
    return show
