"""Latency of the web app in Chromium: every control, and cold / warm page loads.

    .venv/bin/python bench/bench_app.py [--n 30]

Starts `gelu-lab serve --port 0` in a subprocess, drives Debian's Chromium
(no network beyond 127.0.0.1) and times everything *in the page* with
performance.now():

- control latency: keydown (or click) -> first DOM mutation of the control's
  readout (MutationObserver), n presses per control, alternating directions (the
  bars apply to this); and keydown -> the control's figure redrawn (its last DOM
  change within SETTLE ms: a curve moved in place by Plotly.animate, or a new
  figure through Plotly.react); the next press comes once SETTLE ms have passed;
- cold load: a fresh browser context (empty cache) opening a page for the first
  time, navigation start -> the frame with all figures drawn has been painted
  (LOADED: timed by the page itself, so Playwright's waiting for the load event
  and its round trips are not counted); once `serve`'s background warm-up of the
  per-page tables is over (see start_server); the median of --cold such loads,
  and the worst;
- warm load: the same page reloaded 5 times in that context.

Prints p50 / p95 per control and load, with the issue's bars (server callback
p95 <= 40 ms, clientside p95 <= 16 ms, cold load <= 1.5 s). Then the same for
the floor, bench/dash_floor.py: the smallest Dash app with a slider, two echo
callbacks and one figure, in the same browser and run (--no-floor skips it).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from app_browser import ARGS, CHROMIUM  # noqa: E402

# (page URL, control id, key or click selector, readout to watch, kind, figure it changes)
CONTROLS = [
    ("/definition?x=1&lang=en", "definition-x", "ArrowRight", "definition-rout", "clientside", "definition-gate"),
    ("/definition?x=1&lang=en", "definition-n", "ArrowRight", "definition-bmean", "server", "definition-bernoulli"),
    ("/relu?mu=-0.5&lang=en", "relu-s", "ArrowRight", "relu-rgap", "clientside", "relu-scale"),
    ("/relu?mu=-0.5&lang=en", "relu-mu", "ArrowRight", "relu-rdead", "server", "relu-dead"),
    ("/relu?mu=-0.5&lang=en", "relu-sigma", "ArrowRight", "relu-rdead", "server", "relu-dead"),
    ("/sigmoid?lang=en", "sigmoid-beta", "ArrowRight", "sigmoid-rdist", "clientside", "sigmoid-family"),
    ("/gradients?lang=en", "gradients-depth", "ArrowLeft", "gradients-f-mlp-gelu", "server", "gradients-flow"),
    ("/?lang=en", "overview-show", "click", "overview-values", "clientside", "overview-values"),
    ("/?lang=en", "overview-show", "click", "overview-curves", "clientside", "overview-curves"),
]
PAGES = ["/", "/definition", "/relu", "/sigmoid", "/gradients"]
BAR = {"server": 40.0, "clientside": 16.0, "cold": 1500.0}

PROBE = """([target, mode, fig]) => {
  window.__lat = []; window.__t0 = null; window.__drawn = []; window.__t1 = null;
  const start = () => { window.__t0 = window.__t1 = window.__k = performance.now(); window.__drawn.push(null); };
  document.addEventListener(mode === 'click' ? 'mousedown' : 'keydown', start, true);
  const opts = {subtree: true, childList: true, characterData: true, attributes: true};
  new MutationObserver(() => {
    if (window.__t0 !== null) { window.__lat.push(performance.now() - window.__t0); window.__t0 = null; }
  }).observe(document.getElementById(target), opts);
  new MutationObserver(() => {  // the last change within SETTLE ms of the input
    const t = performance.now() - window.__t1;
    if (window.__t1 !== null && t < SETTLE) window.__drawn[window.__drawn.length - 1] = t;
  }).observe(document.getElementById(fig), opts);
}"""
SETTLE = 120  # ms: a figure's redraw is over by then (the legend of a moved curve follows at 150 ms)
PROBE = PROBE.replace("SETTLE", str(SETTLE))
READY = "() => document.querySelector('main.page') && document.querySelectorAll('.js-plotly-plot').length === document.querySelectorAll('.figure').length && document.querySelectorAll('.figure').length > 0"


def cpu_ticks(pid: int) -> int:
    """user + system clock ticks the process has used (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


FLOOR = str(Path(__file__).resolve().parent / "dash_floor.py")
FLOOR_CONTROLS = [
    ("/", "floor-x", "ArrowRight", "floor-client", "clientside", "floor-graph"),
    ("/", "floor-x", "ArrowRight", "floor-server", "server", "floor-graph"),
]


def start_server(settle: float, argv=("-m", "gelu_lab", "serve")):
    """`gelu-lab serve` (or another app printing its URL) in a subprocess; wait at least `settle` s,
    and until its background warm-up (every page rendered once, ~7 s of CPU on the 2-core
    machine) is over: its CPU use stays under 5 % for a second. A cold load measured during
    the warm-up competes with it."""
    p = subprocess.Popen([sys.executable, *argv, "--port", "0"], stdout=subprocess.PIPE, text=True)
    m = re.search(r"(http://127\.0\.0\.1:\d+)/", p.stdout.readline())
    if not m:
        p.kill()
        raise SystemExit("server did not start")
    time.sleep(settle)
    hz, deadline = os.sysconf("SC_CLK_TCK"), time.monotonic() + 120
    while time.monotonic() < deadline:
        t0 = cpu_ticks(p.pid)
        time.sleep(1.0)
        if cpu_ticks(p.pid) - t0 < 0.05 * hz:
            break
    return p, m.group(1)


# Run in every document of a load context: the first animation frame in which READY
# holds, then a message posted from it. The message runs once that frame has been
# rendered (style, layout, paint on the main thread; raster follows on other threads),
# and notes the time. Timing it from Python instead (wait_for_function polling on
# animation frames, then performance.now()) read 25-90 ms later: the next frame,
# held back by the page's initial clientside callbacks and Playwright's injected script.
LOADED = f"""(() => {{
  const ready = {READY};
  const tick = () => {{
    if (!ready()) return requestAnimationFrame(tick);
    const ch = new MessageChannel();
    ch.port1.onmessage = () => {{ window.__loaded = performance.now(); }};
    ch.port2.postMessage(0);
  }};
  requestAnimationFrame(tick);
}})();"""


def load_page(browser):
    """A fresh context (empty cache) and a tab in it that times its loads (LOADED)."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    ctx.add_init_script(LOADED)
    return ctx, ctx.new_page()


def load_time(page, url) -> float:
    """ms from navigation start to the frame with all figures drawn painted, timed in the page (a load_page tab)."""
    page.goto(url)
    page.wait_for_function("window.__loaded !== undefined", polling=50, timeout=60_000)
    return page.evaluate("window.__loaded")


def pct(a, q):
    return float(np.percentile(np.asarray(a), q))


def server_side(n: int = 20) -> None:
    """Median ms of each server callback's work in this process (compute + JSON), no browser."""
    import json

    import plotly

    from gelu_lab.app import content, get_app
    from gelu_lab.app.pages import definition, gradients, overview, relu

    get_app()
    jobs = {
        "definition-n": lambda: definition.bernoulli(1.0, 1010, 0, definition._t("en")),
        "relu-mu / sigma": lambda: relu.dead(-0.4, 1.0, content.text("en", "relu")),
        "gradients-depth": lambda: gradients.flow.__wrapped__(11, "en"),  # uncached: the first visit of a depth
        "overview-x": lambda: overview.values_table(1.0, ["gelu", "relu", "sigmoid", "silu"], "en", content.text("en", "overview")),
    }
    print(f"\nserver work per callback (ms, median of {n}, compute + JSON, in-process)")
    for name, job in jobs.items():
        job()
        ts = []
        for _ in range(n):
            t0 = time.perf_counter()
            json.dumps(job(), cls=plotly.utils.PlotlyJSONEncoder)
            ts.append((time.perf_counter() - t0) * 1e3)
        print(f"{name:<22}{pct(ts, 50):7.1f}")


def page_loads(browser, base: str, paths, cold_n: int = 3) -> None:
    """Cold: the median (and the worst) of `cold_n` first loads, each in a fresh context
    (empty cache); one cold load on the 2-core machine varies by +-100 ms. Warm: 5 reloads."""
    print(f"{'page':<14}{'cold':>8}{'worst':>8}{'warm p50':>10}{'warm p95':>10}   (cold: median of {cold_n} fresh contexts)")
    for path in paths:
        colds = []
        for _ in range(cold_n):
            ctx, page = load_page(browser)
            colds.append(load_time(page, base + path + "?lang=en"))
            if len(colds) < cold_n:
                ctx.close()
        warm = [load_time(page, base + path + "?lang=en") for _ in range(5)]
        ok = "ok" if pct(colds, 50) <= BAR["cold"] else "OVER"
        print(f"{path:<14}{pct(colds, 50):8.0f}{max(colds):8.0f}{pct(warm, 50):10.0f}{pct(warm, 95):10.0f}   {ok}", flush=True)
        ctx.close()


def control_latency(browser, base: str, controls, n: int) -> None:
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    print(f"{'control':<22}{'kind':<12}{'readout':<24}{'p50':>7}{'p95':>7}{'bar':>6}     {'figure redrawn p50':>18}{'p95':>7}")
    for url, cid, key, target, kind, fig in controls:
        page.goto(base + url)
        page.wait_for_function(READY, polling="raf", timeout=60_000)
        page.evaluate(PROBE, [target, key, fig])
        if key == "click":
            boxes = page.locator(f"#{cid} input[type=checkbox]")
            el = [boxes.nth(i) for i in (5, 6)]  # SiLU, ELU: toggled on and off
        else:
            thumb = page.locator(f"#{cid} [role=slider]")
            thumb.focus()
        for i in range(n):
            if key == "click":
                el[i % 2].click()
            else:
                thumb.press(key if i % 2 == 0 else ("ArrowLeft" if key == "ArrowRight" else "ArrowRight"))
            page.wait_for_function("n => window.__lat.length >= n", arg=i + 1, timeout=10_000)
            # next press once this one's figure has settled, and 30 ms after its readout
            page.wait_for_function("s => performance.now() - window.__k >= s", arg=SETTLE, timeout=10_000)
            page.wait_for_timeout(30)
        lat, drawn = page.evaluate("window.__lat"), [d for d in page.evaluate("window.__drawn") if d is not None]
        p50, p95 = pct(lat, 50), pct(lat, 95)
        ok = "ok" if p95 <= BAR[kind] else "OVER"
        drawn_txt = f"{pct(drawn, 50):14.1f}{pct(drawn, 95):9.1f}" if drawn else f"{'-':>14}{'-':>9}"
        print(f"{cid:<22}{kind:<12}{target:<24}{p50:7.1f}{p95:7.1f}{BAR[kind]:6.0f} {ok:<4}{drawn_txt}", flush=True)
    ctx.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=30, help="presses per control")
    ap.add_argument("--settle", type=float, default=5.0, help="seconds at least between server start and the first load (then until its warm-up is over)")
    ap.add_argument("--cold", type=int, default=3, help="fresh-context loads per page for the cold figure (median)")
    ap.add_argument("--only", default="", help="measure only controls whose id contains this (and no page loads)")
    ap.add_argument("--no-floor", action="store_true", help="skip the Dash floor (bench/dash_floor.py)")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        server, base = start_server(args.settle)
        try:
            print(f"page loads (ms, navigation start -> all figures drawn and painted), server {base}")
            page_loads(browser, base, [] if args.only else PAGES, args.cold)
            print(f"\ncontrol latency (ms, input event -> readout changed), n = {args.n}")
            control_latency(browser, base, [c for c in CONTROLS if args.only in c[1]], args.n)
        finally:
            server.terminate()
            server.wait(timeout=10)
        if not args.no_floor and not args.only:
            server, base = start_server(1.0, (FLOOR,))
            try:
                print("\nthe floor: bench/dash_floor.py, one slider echoed by a clientside and a server callback,")
                print("one 201-point figure, the same plotly.js bundle: no page can need less")
                ctx, page = load_page(browser)  # one throwaway load: the server's first requests (its warm-up)
                load_time(page, base + "/")
                ctx.close()
                page_loads(browser, base, ["/"], args.cold)
                control_latency(browser, base, FLOOR_CONTROLS, args.n)
            finally:
                server.terminate()
                server.wait(timeout=10)
        browser.close()
    if not args.only:
        server_side()
    print(f"\nload average during the run: {' '.join(f'{v:.1f}' for v in os.getloadavg())} on {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
