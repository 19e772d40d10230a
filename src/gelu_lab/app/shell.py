"""The frame around every page: navigation, language switch, routing, URL state.

The URL is the state: ``/definition?x=2&lang=en``. The layout and the routing
callback render a page from its path and query (clamping bad values, with a note); moving a control
rewrites the query in place (``history.replaceState``, no reload, no server
round trip); the language switch sets ``lang`` in the query and re-renders.
"""

from __future__ import annotations

import functools
import json
from urllib.parse import urlsplit

from dash import Input, Output, State, callback, clientside_callback, dcc, html
from dash.exceptions import PreventUpdate
from flask import has_request_context, request

from . import content, registry, state


def layout(pages: dict):
    """The app's layout, as a function Dash calls for every page load.

    The page the browser is on is the Referer of Dash's layout request, so it is
    rendered right here: the first paint needs no routing round trip. Without a
    Referer (or on another host) the shell starts empty and the routing callback
    renders it. ``rendered`` holds the URL the shell shows, so that callback is not called for it.
    Most views are a pure function of their URL, so the last 64 are kept: the
    layout request, which the browser makes while it parses the scripts, then
    takes no CPU from serving them (the Overview renders in ~45 ms). A page whose
    layout shows what changes while the server runs (a training job, the
    measurement store) says ``LIVE = True`` and is rendered every time.
    """

    def view(key: str | None):
        path, _, query = (key or "").partition("?")
        body = render(path, f"?{query}", pages) if key else None
        return html.Div([dcc.Location(id="url"), dcc.Store(id="rendered", data=key), dcc.Store(id="route"), html.Div(body, id="shell", className="shell")])

    kept = functools.lru_cache(maxsize=64)(view)  # bounded: any query string is a new key
    live = {slug for slug, mod in pages.items() if getattr(mod, "LIVE", False)}

    def serve():
        key = None
        if has_request_context() and request.referrer:
            ref = urlsplit(request.referrer)
            if ref.netloc == request.host:
                key = ref.path + (f"?{ref.query}" if ref.query else "")
        page = registry.by_route(key.partition("?")[0]) if key else None
        return view(key) if page is not None and page.slug in live else kept(key)

    return serve


def _nav(current: registry.Page | None, lang: str, t: dict):
    items = []
    for p in registry.PAGES:
        title = t[f"nav.{p.slug}"]
        if p.built:
            cls = "nav-link active" if current == p else "nav-link"
            items.append(dcc.Link(title, href=f"{p.route}?lang={lang}", className=cls, id=f"nav-{p.slug}"))
        else:
            items.append(html.Span([title, html.Small(t["coming"], className="coming-tag")], className="nav-link coming", title=t["coming"]))
    return html.Nav(items, className="nav")


def _header(current, lang: str, t: dict):
    switch = html.Div(
        [
            html.Button("中文", id="lang-zh", lang="zh-CN", className="lang" + (" active" if lang == "zh" else ""), n_clicks=0),
            html.Button("English", id="lang-en", className="lang" + (" active" if lang == "en" else ""), n_clicks=0),
        ],
        className="lang-switch",
    )
    brand = dcc.Link([html.Span("GELU Lab", className="brand-name"), html.Span(t["tagline"], className="brand-tag")], href=f"/?lang={lang}", className="brand")
    return html.Header([html.Div([brand, switch], className="header-top"), _nav(current, lang, t)], className="header")


def notes_text(notes, t: dict) -> str:
    return " ".join(content.fill(t[f"msg.{key}"], **args) for key, args in notes)


def render(pathname: str | None, search: str | None, pages: dict):
    lang = state.lang_of(search)
    t = content.text(lang, "shell")
    page = registry.by_route(pathname)
    if page is None:
        body = html.Div([html.H1(t["notfound.title"]), html.P(t["notfound.body"])], className="card")
        notes = []
    elif not page.built:
        body = html.Div([html.H1(t[f"nav.{page.slug}"]), html.P(t["coming.body"])], className="card")
        notes = []
    else:
        mod = pages[page.slug]
        values, notes = state.read(mod.PARAMS, search)
        body = mod.layout(values, lang)
    return html.Div(
        [
            dcc.Store(id="lang", data=lang),
            dcc.Store(id=f"{page.slug}-url") if page and page.built else None,
            _header(page, lang, t),
            html.Div(notes_text(notes, t), id="url-notes", className="message" if notes else "message empty", role="status"),
            html.Main(body, className="page", id=f"page-{page.slug}" if page else "page-notfound", lang=lang),
            html.Footer(t["footer"], className="footer"),
        ]
    )


def register(pages: dict):
    """Routing, language switch and URL sync for the given {slug: page module}."""

    # The URL the shell should show; unchanged when the layout already rendered it
    # (checked in the page: a page load makes no routing request)
    clientside_callback(
        "function(p, s, rendered) { const k = (p || '/') + (s || ''); return k === rendered ? window.dash_clientside.no_update : k; }",
        Output("route", "data"), Input("url", "pathname"), Input("url", "search"), State("rendered", "data"),
    )

    @callback(Output("shell", "children"), Output("rendered", "data"), Input("route", "data"), prevent_initial_call=True)
    def _route(key):
        path, _, query = (key or "/").partition("?")
        return render(path, f"?{query}" if query else "", pages), key

    clientside_callback(
        "function(zh, en) { return window.gelu_lab.switch_lang(zh, en); }",
        Output("url", "search"),
        Input("lang-zh", "n_clicks"),
        Input("lang-en", "n_clicks"),
        prevent_initial_call=True,
    )
    for slug, mod in pages.items():
        if not mod.PARAMS:
            continue
        names = [p.name for p in mod.PARAMS]
        clientside_callback(
            f"function(...v) {{ return window.gelu_lab.sync_url({json.dumps(names)}, v); }}",
            Output(f"{slug}-url", "data"),
            [Input(f"{slug}-{n}", "value") for n in names],
            State("lang", "data"),
            prevent_initial_call=True,
        )
