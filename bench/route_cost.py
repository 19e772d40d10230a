"""What a move from page to page costs in the browser, and how much of it is Dash's bookkeeping.

    .venv/bin/python bench/route_cost.py [--lang zh] [--rounds 2]
    .venv/bin/python bench/route_cost.py --bare 250,500,1000,2000

Serves the app in this process and opens it in Debian's Chromium as the browser tests do
(tests/app_browser.py: waitress on a free port, nothing beyond 127.0.0.1; 1366 x 844)
and, from the story page, routes to every page in turn the way a click on a link does
(history.pushState and a popstate event: dcc.Location routes it, no reload). For each
page it prints the time from the route to its figures drawn (the slowest of --rounds),
the Redux actions dash-renderer dispatched meanwhile (counted by wrapping the dispatch
of its store, window.store in the pinned Dash 4.4.1; all, and RESET_COMPONENT_STATE:
Dash 4.4 dispatches one for each component it renders anew, and every dispatch runs the
store selector of every component on the page, so a page's cost grows with the square of
its component count), and the page's DOM elements. The browser's CPU time for the whole
walk is read from /proc.

--bare N,...: the same routes in the smallest Dash app that shows the cost, none of GELU
Lab in it: one callback answers /N with N components (N/2 html.Div, each holding an
html.Span); the time from the route to all of them in the page, the slowest of --rounds.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from app_browser import ARGS, CHROMIUM, serve_in_thread  # noqa: E402
from cpu_by_process import cpu_s, kind  # noqa: E402  (bench/, the script's folder)

# every dispatch counted by its action type (a thunk has none)
HOOK = """() => { if (window.__routeHook) return; window.__routeHook = 1; window.__acts = {};
  const s = window.store, d = s.dispatch;
  s.dispatch = a => { const t = (a && a.type) || 'thunk'; window.__acts[t] = (window.__acts[t] || 0) + 1; return d(a); }; }"""
ROUTE = """u => { window.__acts = {}; history.pushState(null, '', u); window.dispatchEvent(new PopStateEvent('popstate')); }"""
# GELU Lab's pages: the <main> the route replaces, marked, so that its successor can be told apart
STALE = "() => document.querySelector('main.page').setAttribute('data-stale', '1')"
DRAWN = "document.querySelectorAll('.js-plotly-plot').length === document.querySelectorAll('.figure').length"


def browser_cpu_s() -> float:
    """CPU seconds of the Chromium processes alive now (their reaped children included)."""
    return sum(cpu_s(pid, children=True) or 0.0 for pid in filter(str.isdigit, os.listdir("/proc"))
               if (kind(pid) or "").startswith("chromium"))


def bare_app():
    """A Dash app whose page /N holds N components: the cost of Dash's bookkeeping alone."""
    import dash
    from dash import Input, Output, dcc, html

    app = dash.Dash(__name__)
    app.layout = html.Div([dcc.Location(id="url"), html.Main(id="page")])

    @app.callback(Output("page", "children"), Input("url", "pathname"))
    def route(path):
        n = int(path.strip("/") or 2)
        return html.Div([html.Div(html.Span(f"cell {i}")) for i in range(n // 2)], id=f"p{n}")

    return app


def bare(tab, base: str, sizes: list[int], rounds: int) -> list[dict]:
    tab.goto(f"{base}/2")
    tab.wait_for_selector("#p2")
    tab.evaluate(HOOK)
    rows = {}
    for _ in range(rounds):
        for n in sizes:
            for to in (2, n):  # from the two-component page each time
                t0 = time.perf_counter()
                tab.evaluate(ROUTE, f"{base}/{to}")
                tab.wait_for_function(f"document.querySelectorAll('#p{to} span').length === {to // 2}", timeout=300_000)
            dt = time.perf_counter() - t0
            acts = tab.evaluate("window.__acts")
            if n not in rows or dt > rows[n]["s"]:
                rows[n] = {"components": n, "s": round(dt, 2), "dispatches": sum(acts.values()),
                           "reset_component_state": acts.get("RESET_COMPONENT_STATE", 0)}
    return list(rows.values())


def main(argv=None) -> int:
    from playwright.sync_api import sync_playwright

    from gelu_lab.app import registry
    from gelu_lab.results.printing import text_table

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lang", default="zh", choices=("zh", "en"))
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--bare", default="", help="component counts, comma-separated: the bare Dash app instead of GELU Lab")
    a = p.parse_args(argv)
    try:
        sizes = [int(v) for v in a.bare.split(",") if v.strip()]
    except ValueError:
        p.error(f"--bare takes whole numbers, comma-separated: {a.bare!r}")
    if any(n < 2 for n in sizes):
        p.error(f"--bare: each count at least 2: {a.bare!r}")
    if sizes:
        base, server = serve_in_thread(bare_app().server)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            rows = bare(browser.new_page(), base, sizes, a.rounds)
            browser.close()
        server.close()
        print(f"# the bare Dash app ({a.rounds} rounds; the slowest of each size)")
        print(text_table(rows, ["components", "s", "dispatches", "reset_component_state"]))
        return 0
    base, server = serve_in_thread()
    rows = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        tab = browser.new_page(viewport={"width": 1366, "height": 844})
        tab.goto(f"{base}/story?lang={a.lang}")
        tab.wait_for_selector("main.page")
        tab.wait_for_function(DRAWN)
        tab.evaluate(HOOK)
        cpu0 = browser_cpu_s()
        for _ in range(a.rounds):
            for page in registry.PAGES:
                if page.route == "/story":
                    continue
                t0 = time.perf_counter()
                tab.evaluate(STALE)
                tab.evaluate(ROUTE, f"{base}{page.route}?lang={a.lang}")
                tab.wait_for_selector("main.page:not([data-stale])", timeout=120_000)
                tab.wait_for_function(DRAWN, timeout=120_000)
                dt = time.perf_counter() - t0
                acts = tab.evaluate("window.__acts")
                elements = tab.evaluate("document.getElementsByTagName('*').length")
                old = rows.get(page.route)
                if old is None or dt > old["s"]:
                    rows[page.route] = {"page": page.route, "s": round(dt, 2), "dispatches": sum(acts.values()),
                                        "reset_component_state": acts.get("RESET_COMPONENT_STATE", 0), "dom_elements": elements}
        cpu = browser_cpu_s() - cpu0
        browser.close()
    server.close()
    print(f"# {a.rounds} rounds of routes in {a.lang}, 1366 px; the slowest of each page")
    print(text_table(list(rows.values()), ["page", "s", "dispatches", "reset_component_state", "dom_elements"]))
    print(f"# Chromium CPU for the walk: {cpu:.1f} s ({cpu / (a.rounds * len(rows)):.2f} s a route)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
