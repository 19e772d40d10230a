"""What a move from page to page costs in the browser, and how much of it is Dash's bookkeeping.

    .venv/bin/python bench/route_cost.py [--lang zh] [--rounds 2]

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
ROUTE = """u => { window.__acts = {}; document.querySelector('main.page').setAttribute('data-stale', '1');
  history.pushState(null, '', u); window.dispatchEvent(new PopStateEvent('popstate')); }"""
DRAWN = "document.querySelectorAll('.js-plotly-plot').length === document.querySelectorAll('.figure').length"


def browser_cpu_s() -> float:
    """CPU seconds of the Chromium processes alive now (their reaped children included)."""
    return sum(cpu_s(pid, children=True) or 0.0 for pid in filter(str.isdigit, os.listdir("/proc"))
               if (kind(pid) or "").startswith("chromium"))


def main(argv=None) -> int:
    from playwright.sync_api import sync_playwright

    from gelu_lab.app import registry
    from gelu_lab.results.printing import text_table

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lang", default="zh", choices=("zh", "en"))
    p.add_argument("--rounds", type=int, default=2)
    a = p.parse_args(argv)
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
