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

    .venv/bin/python bench/bench_app.py --ab readouts,ticks,all --no-loads [--quiet 0.3]

A/B of the speed tricks (gelu_lab/app/compat/speed.py): one server with every trick and,
for each name given ("a+b": without a and b; "all": with none), one without it (GELU_LAB_FAST),
and with --vs DIR one from another checkout (before / after), all running at once. Cold loads go round the servers in a shuffled order per page
and round, control presses in blocks of 5 per server, so that what else the machine
does falls on every variant alike; with --quiet, each group starts once the machine is
quiet. Prints, per variant, the paired differences against "every trick" (median and
quartiles over pages and rounds; p50 / p95 per control). --no-controls or --no-loads
halves the run.
Writes bench/results/bench_app.json; with --ab bench/results/bench_app_ab.json (each variant's
paired differences: > 0 is what the trick it leaves out gains), with --vs bench/results/bench_app_vs.json.
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

import record  # noqa: E402

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
    and until its background warm-up (every page rendered once) is over: its CPU use stays
    under 5 % for a second. A cold load measured during the warm-up competes with it."""
    p = subprocess.Popen([sys.executable, *argv, "--port", "0"], stdout=subprocess.PIPE, text=True)
    m = re.search(r"(http://127\.0\.0\.1:\d+)/", p.stdout.readline())
    if not m:
        p.kill()
        raise SystemExit("server did not start")
    time.sleep(settle)
    settled(p)
    return p, m.group(1)


def settled(p, deadline_s: float = 120) -> None:
    """Wait until process p's CPU use stays under 5 % for a second."""
    hz, deadline = os.sysconf("SC_CLK_TCK"), time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        t0 = cpu_ticks(p.pid)
        time.sleep(1.0)
        if cpu_ticks(p.pid) - t0 < 0.05 * hz:
            break


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
    from gelu_lab.app.pages.definition import page as definition
    from gelu_lab.app.pages.gradients import page as gradients
    from gelu_lab.app.pages.overview import page as overview
    from gelu_lab.app.pages.relu import page as relu

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


FIGURES: dict = {}  # what main() records: page loads and control latencies of this run


def page_loads(browser, base: str, paths, cold_n: int = 3, who: str = "GELU Lab") -> None:
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
        FIGURES[f"{who} {path}: cold load, median of {cold_n}, ms"] = round(pct(colds, 50))
        ctx.close()


class Presser:
    """One control of one server in a tab of its own: press it, time readout and redraw."""

    def __init__(self, browser, base: str, control):
        url, self.cid, self.key, self.target, self.kind, fig = control
        self.ctx = browser.new_context(viewport={"width": 1280, "height": 900})
        self.page = page = self.ctx.new_page()
        page.goto(base + url)
        page.wait_for_function(READY, polling="raf", timeout=60_000)
        page.evaluate(PROBE, [self.target, self.key, fig])
        if self.key == "click":
            boxes = page.locator(f"#{self.cid} input[type=checkbox]")
            self.boxes = [boxes.nth(i) for i in (5, 6)]  # SiLU, ELU: toggled on and off
        else:
            self.thumb = page.locator(f"#{self.cid} [role=slider]")
        self.i = 0

    def press(self, n: int) -> None:
        page, back = self.page, "ArrowLeft" if self.key == "ArrowRight" else "ArrowRight"
        for _ in range(n):
            if self.key == "click":
                self.boxes[self.i % 2].click()
            else:
                self.thumb.press(self.key if self.i % 2 == 0 else back)
            self.i += 1
            page.wait_for_function("n => window.__lat.length >= n", arg=self.i, timeout=10_000)
            # next press once this one's figure has settled, and 30 ms after its readout
            page.wait_for_function("s => performance.now() - window.__k >= s", arg=SETTLE, timeout=10_000)
            page.wait_for_timeout(30)

    def times(self):
        """(readout latencies, figure-redrawn latencies) in ms."""
        return self.page.evaluate("window.__lat"), [d for d in self.page.evaluate("window.__drawn") if d is not None]

    def close(self):
        self.ctx.close()


def control_latency(browser, base: str, controls, n: int, who: str = "GELU Lab") -> None:
    print(f"{'control':<22}{'kind':<12}{'readout':<24}{'p50':>7}{'p95':>7}{'bar':>6}     {'figure redrawn p50':>18}{'p95':>7}")
    for control in controls:
        pr = Presser(browser, base, control)
        pr.press(n)
        lat, drawn = pr.times()
        pr.close()
        p50, p95 = pct(lat, 50), pct(lat, 95)
        ok = "ok" if p95 <= BAR[pr.kind] else "OVER"
        drawn_txt = f"{pct(drawn, 50):14.1f}{pct(drawn, 95):9.1f}" if drawn else f"{'-':>14}{'-':>9}"
        print(f"{pr.cid:<22}{pr.kind:<12}{pr.target:<24}{p50:7.1f}{p95:7.1f}{BAR[pr.kind]:6.0f} {ok:<4}{drawn_txt}", flush=True)
        FIGURES[f"{who} {pr.cid} ({pr.kind}): readout p95 of {n} presses, ms"] = round(p95, 1)


BASE = "every trick"


def tree_name(tree) -> str:
    """A source tree's commit where it is a git checkout of its own (+dirty: with changes), else
    its folder's name: the figures say what "before" was."""
    git = ["git", "-C", str(tree)]
    top = subprocess.run([*git, "rev-parse", "--show-toplevel"], capture_output=True, text=True)
    if top.returncode or Path(top.stdout.strip()).resolve() != Path(tree).resolve():
        return Path(tree).resolve().name
    head = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run([*git, "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True).stdout.strip()
    return head + ("+dirty" if dirty else "")


def start_variants(names: list[str], settle: float, trees=()) -> dict:
    """{variant: (process, URL)}: `gelu-lab serve` with every speed trick, for each name one
    without that trick ("all": one with none), and one from each other source tree (its
    src/ first on the path, its own defaults); all started at once, then settled."""
    env = {BASE: dict(os.environ, GELU_LAB_FAST="1")}
    for n in names:  # "a+b": one server without a and b
        spec = "0" if n == "all" else ",".join(f"-{m}" for m in n.split("+"))
        env["no trick" if n == "all" else f"-{n}"] = dict(os.environ, GELU_LAB_FAST=spec)
    for tree in trees:
        env[f"tree {tree_name(tree)}"] = dict(os.environ, PYTHONPATH=str(Path(tree).resolve() / "src"))
    procs = {}
    for v, e in env.items():
        procs[v] = subprocess.Popen([sys.executable, "-m", "gelu_lab", "serve", "--port", "0"], stdout=subprocess.PIPE, text=True, env=e)
    out = {}
    for v, p in procs.items():
        m = re.search(r"(http://127\.0\.0\.1:\d+)/", p.stdout.readline())
        if not m:
            for q in procs.values():
                q.kill()
            raise SystemExit(f"server {v} did not start")
        out[v] = (p, m.group(1))
    time.sleep(settle)
    for p, _ in out.values():
        settled(p)
    return out


def wait_quiet(quiet: float, timeout: float = 90.0) -> bool:
    """Wait (between measurements, the bench idle) until at most `quiet` of the CPUs is busy
    for a second: what else runs on a shared machine then falls less on the pair of loads
    that follows. False when `timeout` s passed without."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if (record.busy_share() or 0.0) <= quiet:
            return True
    return False


def _quartiles(d) -> str:
    return f"{pct(d, 50):+8.0f}{pct(d, 25):+8.0f}{pct(d, 75):+8.0f}"


def ab_loads(browser, bases: dict, paths, rounds: int, rng, quiet: float = 1.0, figures: dict | None = None) -> None:
    """Cold loads, each in a fresh context, round the servers in a shuffled order per page and
    round, each such group once the machine is quiet (wait_quiet; quiet=1: no wait)."""
    t = {v: {p: [] for p in paths} for v in bases}
    loud = 0
    for _ in range(rounds):
        for path in paths:
            loud += quiet < 1 and not wait_quiet(quiet)
            for v in rng.permutation(list(bases)):
                ctx, page = load_page(browser)
                t[v][path].append(load_time(page, bases[v] + path + "?lang=en"))
                ctx.close()
    print(f"\ncold load A/B (ms), {rounds} rounds x {len(paths)} pages, interleaved; difference = variant - '{BASE}', paired by page and round")
    if quiet < 1:
        print(f"each group started once at most {quiet:.0%} of the CPUs were busy; {loud} of {rounds * len(paths)} groups started without (after 90 s)")
    print(f"{'variant':<16}{'median':>8}{'diff p50':>10}{'p25':>8}{'p75':>8}   diff p50 per page ({', '.join(paths)})")
    for v in bases:
        pooled = [x for p in paths for x in t[v][p]]
        if v == BASE:
            print(f"{v:<16}{pct(pooled, 50):8.0f}")
            continue
        d = [a - b for p in paths for a, b in zip(t[v][p], t[BASE][p])]
        per = " ".join(f"{pct([a - b for a, b in zip(t[v][p], t[BASE][p])], 50):+5.0f}" for p in paths)
        if figures is not None:  # > 0: the variant (without the entry) is slower, i.e. the entry's gain
            figures[f"{v} - '{BASE}': cold load, paired diff median over {rounds} rounds x {len(paths)} pages, ms"] = round(float(pct(d, 50)), 1)
            figures[f"{v} / '{BASE}': cold load, ratio of medians"] = round(float(pct(pooled, 50) / pct([x for p in paths for x in t[BASE][p]], 50)), 3)
        print(f"{v:<16}{pct(pooled, 50):8.0f}  {_quartiles(d)}   {per}", flush=True)


def ab_controls(browser, bases: dict, controls, n: int, rng, block: int = 5, quiet: float = 1.0, figures: dict | None = None) -> None:
    """Each control pressed on every server, in blocks of `block` presses, servers in a shuffled
    order per round of blocks, each round once the machine is quiet (wait_quiet)."""
    print(f"\ncontrol latency A/B (ms, input -> readout changed), n = {n} per server, blocks of {block}, interleaved")
    print(f"{'control':<22}{'variant':<16}{'p50':>7}{'p95':>7}{'diff p50':>10}{'diff p95':>10}   {'redrawn p50':>11}{'p95':>7}")
    for control in controls:
        pr = {v: Presser(browser, base, control) for v, base in bases.items()}
        for _ in range(max(1, n // block)):
            if quiet < 1:
                wait_quiet(quiet)
            for v in rng.permutation(list(bases)):
                pr[v].press(block)
        res = {v: p.times() for v, p in pr.items()}
        for p in pr.values():
            p.close()
        a50, a95 = pct(res[BASE][0], 50), pct(res[BASE][0], 95)
        for v, (lat, drawn) in res.items():
            diff = "" if v == BASE else f"{pct(lat, 50) - a50:+10.1f}{pct(lat, 95) - a95:+10.1f}"
            if figures is not None and v != BASE:
                figures[f"{v} - '{BASE}': {control[1]} -> {control[3]} readout p50, n = {n}, ms"] = round(float(pct(lat, 50) - a50), 1)
                figures[f"{v} - '{BASE}': {control[1]} -> {control[3]} readout p95, n = {n}, ms"] = round(float(pct(lat, 95) - a95), 1)
            drawn_txt = f"{pct(drawn, 50):11.1f}{pct(drawn, 95):7.1f}" if drawn else f"{'-':>11}{'-':>7}"
            print(f"{control[1]:<22}{v:<16}{pct(lat, 50):7.1f}{pct(lat, 95):7.1f}{diff:<20}   {drawn_txt}", flush=True)


def ab(args, figures: dict | None = None) -> None:
    from playwright.sync_api import sync_playwright

    from gelu_lab.app.compat import speed

    names = [n.strip() for n in args.ab.split(",") if n.strip()]
    speed.enabled(",".join(f"-{m}" for n in names if n != "all" for m in n.split("+")) or "1")  # unknown names fail here
    rng = np.random.default_rng(args.seed)
    servers = start_variants(names, args.settle, args.vs)
    bases = {v: base for v, (_, base) in servers.items()}
    print("servers:", ", ".join(f"{v} {b}" for v, b in bases.items()))
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            if not args.no_loads:
                for base in bases.values():  # one throwaway load each: the servers' first requests
                    ctx, page = load_page(browser)
                    load_time(page, base + "/")
                    ctx.close()
                ab_loads(browser, bases, PAGES, args.rounds, rng, args.quiet, figures)
            if not args.no_controls:
                ab_controls(browser, bases, [c for c in CONTROLS if args.only in c[1]], args.n, rng, quiet=args.quiet, figures=figures)
            browser.close()
    finally:
        for p, _ in servers.values():
            p.terminate()
            p.wait(timeout=10)
    print(f"\nload average at the end: {' '.join(f'{v:.1f}' for v in os.getloadavg())} on {os.cpu_count()} CPUs")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=30, help="presses per control")
    ap.add_argument("--settle", type=float, default=5.0, help="seconds at least between server start and the first load (then until its warm-up is over)")
    ap.add_argument("--cold", type=int, default=3, help="fresh-context loads per page for the cold figure (median)")
    ap.add_argument("--only", default="", help="measure only controls whose id contains this (and no page loads)")
    ap.add_argument("--no-floor", action="store_true", help="skip the Dash floor (bench/dash_floor.py)")
    ap.add_argument("--ab", default="", help="A/B of speed tricks: comma-separated names of gelu_lab/app/compat/speed.py, or all")
    ap.add_argument("--vs", action="append", default=[], help="--ab: also a server from this source tree (e.g. an older checkout: before / after)")
    ap.add_argument("--rounds", type=int, default=4, help="--ab: cold loads per page and server")
    ap.add_argument("--no-loads", action="store_true", help="--ab: no page loads")
    ap.add_argument("--no-controls", action="store_true", help="--ab: no control presses")
    ap.add_argument("--seed", type=int, default=0, help="--ab: seed of the shuffled orders")
    ap.add_argument("--quiet", type=float, default=1.0, help="--ab: start each group of loads once at most this share of the CPUs is busy (1: at once)")
    args = ap.parse_args()
    if args.ab or args.vs:  # the A/B of compat's entries: bench/results/bench_app_ab.json; before / after: bench_app_vs.json
        with record.recording("bench_app_vs" if args.vs else "bench_app_ab") as figures:
            ab(args, figures)
        return 0
    with record.recording("bench_app") as figures:
        measure(args)
        figures.update(FIGURES)
    return 0


def measure(args) -> None:
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
                page_loads(browser, base, ["/"], args.cold, who="floor")
                control_latency(browser, base, FLOOR_CONTROLS, args.n, who="floor")
            finally:
                server.terminate()
                server.wait(timeout=10)
        browser.close()
    if not args.only:
        server_side()
    print(f"\nload average during the run: {' '.join(f'{v:.1f}' for v in os.getloadavg())} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    sys.exit(main())
