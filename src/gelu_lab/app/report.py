"""`gelu-lab report`: the whole app as ONE self-contained HTML file, for mail or a course site.

    build(out="gelu-lab.html", lang="zh")   -> dict (path, bytes, seconds, sections, missing)

What goes in, and where it comes from (no maths here; this is an entry point):

- every page of the app, rendered by the page's own ``layout()`` with its
  default state, so the text (``app/content/<lang>/*.md``) and the figures (the
  pure functions in :mod:`gelu_lab.figures`) are exactly the app's. The Dash
  component tree is written out as static HTML (the pages' prose is already HTML
  components, made by markdown-it in app.components.md), each
  ``dcc.Graph`` as an interactive Plotly div, controls as their current value
  (they do not move in a file without a server).
- the measured tables, read through :func:`gelu_lab.results.latest`: the newest
  finished runs in the runs store, else the result files shipped in
  ``gelu_lab/data``, each labelled with where it came from and its provenance
  (command, versions, machine, date); a measurement found in neither is shown as
  missing, with the command that makes it. Nothing is invented.
- the words around them: ``app/content/<lang>/report.md``.
- plotly.js once, from the installed plotly package. Formulas are MathML made on the
  server, as in the app (:mod:`.mathml`, through :func:`.components.md`): the browser
  draws them, no script typesets anything.
- the HTML is written by the app's one writer, :func:`.markup.markup`, given how the
  report writes what is not a plain element (a figure, a control's value, a link to
  another page's section).

The file makes no network request: no CDN, no font, no image from outside
(tests/test_report.py opens it from file:// in Chromium and records requests).
"""

from __future__ import annotations

import datetime as _dt
import html
import json
import re
import time
from importlib import resources

from .. import __version__
from ..results.files import atomic_write
from . import report_tables
from .markup import markup

LANGS = ("zh", "en")
_ATTRS = {"className", "style", "title", "lang", "role", "colSpan", "rowSpan", "href"}  # the props the report keeps (no ids: pages repeat them)
_SKIP = {"Store", "Location", "Interval", "Clipboard", "Download", "Button", "ConfirmDialog", "Upload"}

# the measured tables: (key, result kind of gelu_lab.results.latest, the command that makes it)
MEASUREMENTS = [
    ("accuracy", "accuracy", "gelu-lab accuracy --impl gelu --dtype float32 --exhaustive"),
    ("cost", "bench", "gelu-lab bench"),
    ("training", "train", "gelu-lab experiment --workers 2"),
    ("probe", "probe", "gelu-lab probe"),
]


# --------------------------------------------------------------------------
# a page's component tree as static HTML: app.markup, with what a file without a server shows


def markdown(source: str) -> str:
    """Markdown as the app renders it (:func:`.components.md`: display formulas as MathML)."""
    from .components import prose

    return markup(prose(source))


def link(href: str, routes: dict) -> str:
    """An app route -> its section's anchor (routes: route -> anchor); an outside link stays
    (following it is the reader's choice), anything else goes nowhere."""
    if re.match(r"(?i)^(https?:|mailto:|#)", href):
        return href
    path = "/" + href.split("?")[0].strip("/")
    return f"#{routes[path]}" if path in routes else "#"


def write(tree, routes: dict, figures: list) -> str:
    """`tree` (a page's layout) as HTML: each dcc.Graph an empty div that the file's script
    draws (its figure JSON appended to `figures`), a control as its current value, the rest
    as app.markup writes it."""
    import plotly.io as pio

    def other(c):
        kind, ns = getattr(c, "_type", ""), getattr(c, "_namespace", "")
        if kind in _SKIP:
            return ""
        if ns == "dash_html_components":
            return None
        if kind == "Graph":
            figures.append(pio.to_json(getattr(c, "figure", None) or {}, validate=False))
            return f'<div class="figure report-figure" id="fig-{len(figures) - 1}"></div>'
        if kind == "Link":
            return f'<a href="{html.escape(link(getattr(c, "href", None) or "/", routes))}">{again(getattr(c, "children", None))}</a>'
        if kind in ("Slider", "Input", "Textarea"):
            return f'<span class="static-value">{html.escape(str(getattr(c, "value", None)))}</span>'
        if kind in ("Checklist", "RadioItems", "Dropdown"):
            value = getattr(c, "value", None)
            chosen = value if isinstance(value, list) else [value]
            labels = [again(o.get("label")) if isinstance(o, dict) else html.escape(str(o)) for o in getattr(c, "options", None) or []
                      if (o.get("value") if isinstance(o, dict) else o) in chosen]
            return f'<span class="static-value">{", ".join(labels)}</span>'
        return again(getattr(c, "children", None))  # Loading, Tabs, ...: their content

    def again(t):
        return markup(t, keep=_ATTRS, other=other, href=lambda h: link(h, routes))

    return again(tree)


# --------------------------------------------------------------------------
# the file


_CLOSE = re.compile(r"</(script|style)", re.I)


def _asset(text: str) -> str:
    """Code safe inside <script> or <style>: no closing tag can end it early (the
    bundles hold none today; a blanket "</" -> "<\\/" would break their regexes)."""
    return _CLOSE.sub(lambda m: "<\\/" + m.group(1), text)


def _json(value) -> str:
    """JSON safe inside <script>: "<\\/" is a valid escape of "/" in a JSON string."""
    return json.dumps(value).replace("</", "<\\/")


_START = """
(function () {
  var figs = JSON.parse(document.getElementById('figures').textContent);
  var config = {displaylogo: false, responsive: true, modeBarButtonsToRemove: ['select2d', 'lasso2d', 'sendChartToCloud']};
  figs.forEach(function (f, i) {
    var fig = JSON.parse(f);
    Plotly.newPlot('fig-' + i, fig.data || [], fig.layout || {}, config);
  });
  document.body.setAttribute('data-figures', String(figs.length));
})();
"""

_CSS = """
body { background: var(--bg); }  /* the app's variables: assets/theme.css makes them dark */
.report { max-width: 1100px; margin: 0 auto; padding: 16px 24px 48px; }
.report-nav ol { columns: 2; }
.report-page { margin-top: 28px; border-top: 3px solid var(--accent); padding-top: 8px; }
.static-value { font-family: ui-monospace, monospace; background: var(--soft, #eef1f4); border-radius: 4px; padding: 1px 6px; }
.measurement.missing p { color: var(--warn, #8a4b00); }
table.kv th { text-align: left; vertical-align: top; padding-right: 12px; }
.provenance { font-size: 13px; color: var(--muted); margin-top: 8px; }
.muted { color: var(--muted); }
.measurement .item { border-left: 3px solid var(--line); padding-left: 12px; margin: 12px 0; }
.measurement .wide { overflow-x: auto; max-width: 100%; }
.measurement table.kv { width: 100%; table-layout: fixed; }
.measurement table.kv > tbody > tr > th { width: min(11em, 40%); overflow-wrap: anywhere; }  /* 40 %: a nested table on a phone */
.measurement table.kv > tbody > tr > td { text-align: left; overflow-wrap: anywhere; }
.measurement table.kv table.kv td, .measurement table.kv table.kv th { white-space: normal; overflow-wrap: anywhere; }
.measurement table.kv table:not(.kv) td, .measurement table.kv table:not(.kv) th { white-space: nowrap; }
"""


def build(out="gelu-lab.html", lang: str = "zh", store=None, progress: bool | None = None) -> dict:
    """Write the report; returns {path, bytes, seconds, sections, figures, missing}.

    store: a :class:`gelu_lab.results.store.Store` or its path, None for the reader's own,
    False for none (the shipped results only); read only, never created, an unreadable
    one counts as empty. progress: a tqdm bar on stderr (None: only when stderr is a terminal).
    """
    import plotly.offline
    from tqdm import tqdm

    from . import content, page_module, registry, state
    from .shell import HTML_LANG, main_words

    if lang not in LANGS:
        raise ValueError(f"lang must be one of {', '.join(LANGS)}, got {lang!r}")
    t0 = time.perf_counter()
    w = content.text(lang, "report")
    shell = content.text(lang, "shell")
    pages = registry.PAGES
    routes, figures = {p.route: f"page-{p.slug}" for p in pages}, []
    bar = tqdm(total=len(pages) + 2, desc="report", unit="part", disable=None if progress is None else not progress, leave=False)
    sections, toc = [], []
    try:
        for p in pages:
            bar.set_postfix_str(p.slug)
            mod = page_module(p.slug)
            values, _ = state.read(mod.PARAMS, "")
            body = write(mod.layout(values, lang), routes, figures)
            sections.append(f'<section class="report-page page" id="page-{p.slug}" data-page="{p.slug}">{body}</section>')
            toc.append(f'<li><a href="#page-{p.slug}">{html.escape(shell[f"nav.{p.slug}"])}</a> — {html.escape(shell[f"q.{p.slug}"])}</li>')
            bar.update()
        bar.set_postfix_str("measurements")
        meas, missing = report_tables.measurements_html(MEASUREMENTS, store, lang)
        toc.append(f'<li><a href="#measured">{w["measured"]}</a></li>')
        bar.update()
        bar.set_postfix_str("assets")
        assets = resources.files("gelu_lab").joinpath("app", "assets")  # every stylesheet the app serves, style.css first
        compat_dir = assets.joinpath("compat")  # the app serves assets/compat/ after the rest
        sheets = sorted((f for f in assets.iterdir() if f.name.endswith(".css")), key=lambda f: (f.name != "style.css", f.name))
        sheets += sorted((f for f in compat_dir.iterdir() if f.name.endswith(".css")), key=lambda f: f.name)
        styles = "".join(f.read_text(encoding="utf-8") for f in sheets) + _CSS
        scripts = "".join(f"<script>{_asset(compat_dir.joinpath(f).read_text(encoding='utf-8'))}</script>" for f in ("a11y.js", "figure_text.js"))
        words = " ".join(f'{k}="{html.escape(v)}"' for k, v in main_words(shell).items())  # as the app's <main>
        now = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
        doc = "".join([
            f'<!doctype html><html lang="{HTML_LANG[lang]}"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            # the file may only use what it carries: no request can leave it
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval'; "
            "style-src 'unsafe-inline'; img-src data: blob:; font-src data:\">",
            f"<title>{html.escape(w['title'])}</title><style>{_asset(styles)}</style>",
            f"<script>{_asset(plotly.offline.get_plotlyjs())}</script>",
            f'</head><body><a class="skip-link" href="#content">{html.escape(shell["skip"])}</a><div class="report">',
            f'<header class="card"><h1>{html.escape(w["title"])}</h1><p>{html.escape(shell["tagline"])}</p>',
            f'<p class="muted">{markdown(w["static"])}</p>',
            f'<p class="muted">{w["generated"]} {now} · gelu-lab {__version__}</p>',
            f'<nav class="report-nav"><h2>{w["contents"]}</h2><ol>{"".join(toc)}</ol></nav></header>',
            # one main, with the words of assets/compat/a11y.js and assets/compat/figure_text.js, as in the app
            f'<main id="content" tabindex="-1" {words}>', *sections,
            f'<section class="report-page" id="measured"><h1>{w["measured"]}</h1>{meas}</section></main>',
            f'<footer class="footer">{html.escape(shell["footer"])}</footer></div>',
            f'<script type="application/json" id="figures">{_json(figures)}</script>',
            f"<script>{_START}</script>{scripts}</body></html>",
        ])
        path = atomic_write(out, lambda p: p.write_text(doc, encoding="utf-8"))  # a full disk leaves no half file
        bar.update()
    finally:
        bar.close()
    return {
        "path": str(path), "bytes": path.stat().st_size, "seconds": round(time.perf_counter() - t0, 2), "lang": lang,
        "sections": [p.slug for p in pages] + ["measured"], "figures": len(figures), "missing": missing,
    }
