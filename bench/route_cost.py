"""What a move from page to page costs in the browser, and how much of it is Dash's bookkeeping.

    .venv/bin/python bench/route_cost.py [--lang zh] [--rounds 2]
    .venv/bin/python bench/route_cost.py --bare 250,500,1000,2000

Serves the app in this process and opens it in Debian's Chromium as the browser tests do
(tests/app_browser.py: waitress on a free port, nothing beyond 127.0.0.1; 1366 x 844)
and, from the story page, routes to every page in turn the way a click on a link does
(app_browser.open_page: history.pushState and a popstate event, dcc.Location routes it,
no reload). For each page it prints the time from the route to its figures drawn (the
slowest of --rounds), the Redux actions dash-renderer dispatched meanwhile (counted by
wrapping the dispatch of its store, window.store in the pinned Dash 4.4.1; all, and
RESET_COMPONENT_STATE: Dash 4.4 dispatches one for each component it renders anew, and
every dispatch runs the store selector of every component on the page, so a page's cost
grows with the square of its component count), and the page's DOM elements. The
browser's CPU time for the whole walk is read from /proc.

--bare N,...: the same routes in the smallest Dash app that shows the cost, none of GELU
Lab in it: one callback answers /N with N components (N/2 html.Div, each holding an
html.Span); the time from the route to all of them in the page, the slowest of --rounds.
Writes bench/results/route_cost.json (route_cost_bare.json with --bare).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from app_browser import ARGS, CHROMIUM, open_page, serve_in_thread  # noqa: E402
from cpu_by_process import cpu_s, kind  # noqa: E402  (bench/, the script's folder)
import record  # noqa: E402

# every dispatch counted by its action type (a thunk has none), into window.__acts
HOOK = """() => { if (window.__routeHook) return; window.__routeHook = 1; window.__acts = {};
  const s = window.store, d = s.dispatch;
  s.dispatch = a => { const t = (a && a.type) || 'thunk'; window.__acts[t] = (window.__acts[t] || 0) + 1; return d(a); }; }"""
# the bare app's route, as a click on a link makes it (GELU Lab's pages: app_browser.open_page)
PUSH = "u => { history.pushState(null, '', u); window.dispatchEvent(new PopStateEvent('popstate')); }"


def browser_cpu_s() -> float:
    """CPU seconds of the Chromium processes alive now (their reaped children included)."""
    return sum(cpu_s(pid, children=True) or 0.0 for pid in filter(str.isdigit, os.listdir("/proc"))
               if (kind(pid) or "").startswith("chromium"))


def timed(tab, route) -> tuple[float, dict]:
    """route() run in tab: its seconds and the dispatches it made, by action type."""
    tab.evaluate("() => { window.__acts = {}; }")
    t0 = time.perf_counter()
    route()
    return time.perf_counter() - t0, tab.evaluate("window.__acts")


def keep_slowest(rows: dict, key, dt: float, acts: dict, **more) -> None:
    if key not in rows or dt > rows[key]["s"]:
        rows[key] = {**more, "s": round(dt, 2), "dispatches": sum(acts.values()),
                     "reset_component_state": acts.get("RESET_COMPONENT_STATE", 0)}


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
    def go(n):
        tab.evaluate(PUSH, f"{base}/{n}")
        tab.wait_for_function(f"document.querySelectorAll('#p{n} span').length === {n // 2}", timeout=300_000)

    tab.goto(f"{base}/2")
    tab.wait_for_selector("#p2")
    tab.evaluate(HOOK)
    rows = {}
    for _ in range(rounds):
        for n in sizes:
            go(2)  # from the two-component page each time
            keep_slowest(rows, n, *timed(tab, lambda: go(n)), components=n)
    return list(rows.values())


def pages(tab, base: str, lang: str, rounds: int) -> tuple[list[dict], float]:
    """GELU Lab's pages, each routed to from the one before; (rows, Chromium's CPU seconds)."""
    from gelu_lab.app import registry

    open_page(tab, f"{base}/story?lang={lang}")
    tab.evaluate(HOOK)
    rows, cpu0 = {}, browser_cpu_s()
    for _ in range(rounds):
        for page in registry.PAGES:
            if page.route != "/story":  # open_page reloads a page routed to from itself
                dt, acts = timed(tab, lambda: open_page(tab, f"{base}{page.route}?lang={lang}"))
                keep_slowest(rows, page.route, dt, acts, page=page.route,
                             dom_elements=tab.evaluate("document.getElementsByTagName('*').length"))
    return list(rows.values()), browser_cpu_s() - cpu0


def main(argv=None) -> int:
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
    with record.recording("route_cost_bare" if sizes else "route_cost") as figures:
        figures.update(measure(a, sizes))
    return 0


def measure(a, sizes) -> dict:
    from playwright.sync_api import sync_playwright

    from gelu_lab.printing import text_table

    base, server = serve_in_thread(bare_app().server if sizes else None)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        tab = browser.new_page(viewport={"width": 1366, "height": 844})
        if sizes:
            rows = bare(tab, base, sizes, a.rounds)
        else:
            rows, cpu = pages(tab, base, a.lang, a.rounds)
        browser.close()
    server.close()
    if sizes:
        print(f"# the bare Dash app ({a.rounds} rounds; the slowest of each size)")
        print(text_table(rows, ["components", "s", "dispatches", "reset_component_state"]))
        return {f"{r['components']} components, s (dispatches)": f"{r['s']:.2f} ({r['dispatches']})" for r in rows}
    print(f"# {a.rounds} rounds of routes in {a.lang}, 1366 px; the slowest of each page")
    print(text_table(rows, ["page", "s", "dispatches", "reset_component_state", "dom_elements"]))
    print(f"# Chromium CPU for the walk: {cpu:.1f} s ({cpu / (a.rounds * len(rows)):.2f} s a route)")
    return {**{f"route to {r['page']}, s (dispatches)": f"{r['s']:.2f} ({r['dispatches']})" for r in rows},
            "Chromium CPU for the walk, s": round(cpu, 1)}


if __name__ == "__main__":
    raise SystemExit(main())
