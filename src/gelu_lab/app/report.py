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
- plotly.js once, from the installed plotly package; MathJax (SVG output, no
  fonts to fetch) from the copy that ships inside dash (``dcc/async-mathjax.js``,
  a webpack chunk started here by a ten-line loader). Fallback, documented: if that
  file is missing the TeX source stays in the text, in ``\\( \\)`` / ``\\[ \\]``.

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
from pathlib import Path

from .. import __version__
from ..results.files import atomic_write
from . import report_tables
from .markup import attributes

LANGS = ("zh", "en")
MATH = re.compile(r"\$\$(.+?)\$\$|(?<![\\$])\$(?!\$)(.+?)(?<![\\$])\$", re.S)
_ATTRS = ("className", "style", "title", "lang", "role", "colSpan", "rowSpan")  # the props the report keeps (no ids: pages repeat them)
_SKIP = {"Store", "Location", "Interval", "Clipboard", "Download", "Button", "ConfirmDialog", "Upload"}

# the measured tables: (key, result kind of gelu_lab.results.latest, the command that makes it)
MEASUREMENTS = [
    ("accuracy", "accuracy", "gelu-lab accuracy --impl gelu --dtype float32 --exhaustive"),
    ("cost", "bench", "gelu-lab bench"),
    ("training", "train", "gelu-lab experiment --workers 2"),
    ("probe", "probe", "gelu-lab probe"),
]


# --------------------------------------------------------------------------
# Markdown with maths: the TeX is taken out before markdown-it sees it (it would
# eat backslashes and underscores) and put back for MathJax


def markdown(source: str) -> str:
    from .components import MARKDOWN

    maths = []

    def keep(m):
        display = m.group(1) is not None
        tex = m.group(1) if display else m.group(2)
        maths.append((r"\[" + tex + r"\]") if display else (r"\(" + tex + r"\)"))
        return f"GELULABMATH{len(maths) - 1}Z"

    body = MARKDOWN.render(MATH.sub(keep, source))
    return re.sub(r"GELULABMATH(\d+)Z", lambda m: html.escape(maths[int(m.group(1))], quote=False), body)


# --------------------------------------------------------------------------
# a Dash component tree as static HTML


class _Writer:
    def __init__(self, routes: dict):
        self.routes = routes  # app route -> anchor in the report
        self.figures: list[str] = []  # figure JSON, in order; div i is "fig-i"

    def attrs(self, props: dict) -> str:
        return attributes({k: props.get(k) for k in _ATTRS})

    def figure(self, fig) -> str:
        import plotly.io as pio

        self.figures.append(pio.to_json(fig, validate=False))
        return f'<div class="figure report-figure" id="fig-{len(self.figures) - 1}"></div>'

    def node(self, c) -> str:
        if c is None or isinstance(c, bool):
            return ""
        if isinstance(c, (str, int, float)):
            return html.escape(str(c))
        if isinstance(c, (list, tuple)):
            return "".join(self.node(x) for x in c)
        kind, ns = getattr(c, "_type", ""), getattr(c, "_namespace", "")
        props = {k: getattr(c, k, None) for k in ("children", *_ATTRS, "value", "options", "figure", "href")}
        if kind in _SKIP:
            return ""
        if ns == "dash_html_components":
            made = getattr(c, "data-html", None)
            if made:  # markup made on the server (app.components: a formula's MathML, static content)
                return f"<div{self.attrs(props)}>{made}</div>"
            tag = kind.lower()
            if tag == "br":
                return "<br>"
            inner = self.node(props["children"])
            if tag == "a" and props["href"]:
                return f'<a href="{html.escape(self.link(props["href"]))}"{self.attrs(props)}>{inner}</a>'
            return f"<{tag}{self.attrs(props)}>{inner}</{tag}>"
        if kind == "Graph":
            return self.figure(props["figure"] or {})
        if kind == "Link":
            return f'<a href="{html.escape(self.link(props["href"] or "/"))}">{self.node(props["children"])}</a>'
        if kind in ("Slider", "Input", "Textarea"):
            return f'<span class="static-value">{html.escape(str(props["value"]))}</span>'
        if kind in ("Checklist", "RadioItems", "Dropdown"):
            chosen = props["value"] if isinstance(props["value"], list) else [props["value"]]
            labels = [self.node(o.get("label")) if isinstance(o, dict) else html.escape(str(o)) for o in props["options"] or []
                      if (o.get("value") if isinstance(o, dict) else o) in chosen]
            return f'<span class="static-value">{", ".join(labels)}</span>'
        return self.node(props["children"])  # Loading, Tabs, ...: their content

    def link(self, href: str) -> str:
        """An app route -> its section's anchor; an outside link stays (following it is the reader's choice)."""
        if re.match(r"(?i)^(https?:|mailto:|#)", href):
            return href
        path = "/" + href.split("?")[0].strip("/")
        return f"#{self.routes[path]}" if path in self.routes else "#"


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


def _mathjax() -> str | None:
    """The MathJax bundle that ships with dash, or None (then TeX stays as text)."""
    import dash

    p = Path(dash.__file__).parent / "dcc" / "async-mathjax.js"
    return p.read_text(encoding="utf-8") if p.is_file() else None


# webpack's chunk format, just enough of it to run dash's MathJax chunk (module 3046
# loads MathJax, 6763 and 5606 are its console and process shims)
_MATHJAX_LOADER = """
window.MathJax = {startup: {typeset: false}, svg: {fontCache: 'global'}};
(function () {
  var mods = {}, cache = {};
  function req(id) {
    if (id === 6763) return window.console;
    if (id === 5606) return {env: {}, browser: true, argv: [], nextTick: function (f) { setTimeout(f, 0); }, cwd: function () { return '/'; }};
    if (cache[id]) return cache[id].exports;
    var m = cache[id] = {exports: {}};
    mods[id].call(m.exports, m, m.exports, req);
    return m.exports;
  }
  req.r = function (e) { Object.defineProperty(e, '__esModule', {value: true}); };
  self.webpackChunkdash_core_components = {push: function (chunk) { Object.assign(mods, chunk[1]); }};
  window.gelu_lab_mathjax = function () { req(3046); };
})();
"""

_START = """
(function () {
  var figs = JSON.parse(document.getElementById('figures').textContent);
  var config = {displaylogo: false, responsive: true, modeBarButtonsToRemove: ['select2d', 'lasso2d', 'sendChartToCloud']};
  figs.forEach(function (f, i) {
    var fig = JSON.parse(f);
    Plotly.newPlot('fig-' + i, fig.data || [], fig.layout || {}, config);
  });
  document.body.setAttribute('data-figures', String(figs.length));
  if (window.gelu_lab_mathjax) {
    window.gelu_lab_mathjax();
    MathJax.startup.promise.then(function () { return MathJax.typesetPromise(); })
      .then(function () { document.body.setAttribute('data-mathjax', 'done'); })
      .catch(function (e) { document.body.setAttribute('data-mathjax', 'failed: ' + e); });
  } else {
    document.body.setAttribute('data-mathjax', 'absent');
  }
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
    writer = _Writer({p.route: f"page-{p.slug}" for p in pages})
    bar = tqdm(total=len(pages) + 2, desc="report", unit="part", disable=None if progress is None else not progress, leave=False)
    sections, toc = [], []
    try:
        for p in pages:
            bar.set_postfix_str(p.slug)
            mod = page_module(p.slug)
            values, _ = state.read(mod.PARAMS, "")
            body = writer.node(mod.layout(values, lang))
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
        mathjax = _mathjax()
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
            f"<script>{_MATHJAX_LOADER}</script><script>{_asset(mathjax)}</script>" if mathjax else "",
            f'</head><body><a class="skip-link" href="#content">{html.escape(shell["skip"])}</a><div class="report">',
            f'<header class="card"><h1>{html.escape(w["title"])}</h1><p>{html.escape(shell["tagline"])}</p>',
            f'<p class="muted">{markdown(w["static"])}</p>',
            f'<p class="muted">{w["generated"]} {now} · gelu-lab {__version__}</p>',
            f'<nav class="report-nav"><h2>{w["contents"]}</h2><ol>{"".join(toc)}</ol></nav></header>',
            # one main, with the words of assets/compat/a11y.js and assets/compat/figure_text.js, as in the app
            f'<main id="content" tabindex="-1" {words}>', *sections,
            f'<section class="report-page" id="measured"><h1>{w["measured"]}</h1>{meas}</section></main>',
            f'<footer class="footer">{html.escape(shell["footer"])}</footer></div>',
            f'<script type="application/json" id="figures">{_json(writer.figures)}</script>',
            f"<script>{_START}</script>{scripts}</body></html>",
        ])
        path = atomic_write(out, lambda p: p.write_text(doc, encoding="utf-8"))  # a full disk leaves no half file
        bar.update()
    finally:
        bar.close()
    return {
        "path": str(path), "bytes": path.stat().st_size, "seconds": round(time.perf_counter() - t0, 2), "lang": lang,
        "sections": [p.slug for p in pages] + ["measured"], "figures": len(writer.figures), "missing": missing,
        "mathjax": mathjax is not None,
    }
