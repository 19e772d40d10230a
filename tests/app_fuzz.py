"""A seeded fuzzer for the app: junk URLs and random sessions in Chromium, junk over HTTP.

    .venv/bin/python tests/app_fuzz.py --sessions 30 --actions 80 --seed 1    # a long run: prints its figures

tests/test_server_fuzz.py runs a bounded version of the same code. What counts as
an error, anywhere: an HTTP status >= 400 (a 500 above all) on any response,
/_dash-update-component included; an uncaught exception in the page
(``pageerror``); a console error; a request that leaves 127.0.0.1; and, on the
server, any record the app or waitress logs at ERROR level, because a failing
callback is answered 204 (the page keeps its state) and logged, not shown.

Everything is generated from the pages' own ``PARAMS`` and from
:data:`gelu_lab.app.registry.PAGES`, so a page switched on is fuzzed with no
change here. The only controls left alone are the buttons of class ``run-button``,
which start background jobs (training, exhaustive sweeps: minutes of CPU per
click); each page's own tests click them on purpose.
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from app_browser import Log, ServerLog, _new_tab  # noqa: E402

SKIP = ".run-button"  # buttons that start a background job (training, exhaustive sweeps): minutes of CPU per click
LONG = "9" * 10_000  # a 10 kB value

# typed into boxes and put into the query string: numbers out of every range, not
# numbers at all, code (never evaluated), markup (never rendered as HTML), unicode
JUNK = [
    "", " ", "1e400", "-1e400", "1e-400", "nan", "NaN", "-nan", "inf", "-Infinity", "-0", "0x1p3", "1_000", "1,5", "１２３",
    "99999999999999999999999", "-99999999999999999999", "2.5e-324", "1e308*10", "1/0",
    "__import__('os').system('echo pwned')", "eval('1')", "exec", "().__class__.__bases__[0].__subclasses__()", "lambda: 0",
    "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "\"><svg onload=alert(1)>", "javascript:alert(1)",
    "'; DROP TABLE runs; --", "{{7*7}}", "${7*7}", "%s%s%s%n", "\\x00", "\u202eevil", "中文 输入", "😀" * 40, "ﷺ" * 20,
    "x" * 2000, "x*" * 300 + "x", "(" * 500 + "x" + ")" * 500, "x**x**x**x**x", "exp(exp(exp(x)))", "sigmoid(", "a" * 64,
]
KEYS = ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "PageUp", "PageDown", "Home", "End", "Enter", "Escape", "Tab", "Space"]


def built_pages():
    """(Page row, page module) for every page switched on in the registry."""
    from gelu_lab.app import page_module, registry

    return [(p, page_module(p.slug)) for p in registry.PAGES]


def junk_value(rng: random.Random, p) -> str:
    """A bad (sometimes good) raw query value for Param `p`."""
    choices = [*JUNK, LONG]
    if p.choices:
        good = list(p.choices)
        choices += [rng.choice(good), rng.choice(good).upper(), ",".join(rng.sample(good, min(3, len(good)))) + ",nope,,",
                    " " + rng.choice(good) + " ", ",".join(good * 3)]
    if p.lo is not None:
        span = p.hi - p.lo
        choices += [repr(p.lo - 1), repr(p.hi + 1), repr(p.hi + span * 1e9), repr(p.lo - span * 1e12), repr(p.lo), repr(p.hi),
                    repr(rng.uniform(p.lo, p.hi)), repr((p.lo + p.hi) / 2 + (p.step or 0) / 3), "1e300", "-1e300"]
    return rng.choice(choices)


def junk_query(rng: random.Random, params) -> str:
    """A hand-edited query string: junk for some params, repeated and unknown keys, a bad lang, raw bad escapes."""
    pairs = []
    for p in params:
        if rng.random() < 0.8:
            pairs.append((p.name, junk_value(rng, p)))
        if rng.random() < 0.2:  # a repeated key: the last one wins
            pairs.append((p.name, junk_value(rng, p)))
    pairs.append(("lang", rng.choice(["en", "zh", "", "EN", "fr", "en,zh", "zh-CN", "../en", LONG, "<b>en</b>"])))
    if rng.random() < 0.5:
        pairs.append((rng.choice(["junk", "__proto__", "constructor", "_dash", "x[]", "", "a" * 300]), rng.choice(JUNK)))
    rng.shuffle(pairs)
    q = "&".join(f"{quote(k, safe='')}={quote(v, safe='')}" for k, v in pairs)
    if rng.random() < 0.3:  # things a hand edit leaves that no encoder writes
        q += rng.choice(["&", "&&=&", "&%ZZ=%G0", "&x=%FF%FE", "&=1", "&lang", "#frag", "&%00=%00", "&x=1;y=2"])
    return "?" + q


@dataclass
class Tally:
    sessions: int = 0
    actions: int = 0
    urls: int = 0
    requests: int = 0
    skipped: int = 0  # actions the browser could not do (element gone, covered): not app errors
    why_skipped: Counter = field(default_factory=Counter)
    errors: list = field(default_factory=list)

    def line(self) -> str:
        return (f"sessions fuzzed {self.sessions}, actions {self.actions} ({self.skipped} not possible), junk URLs {self.urls}, "
                f"requests {self.requests}, errors {len(self.errors)}")


# --- over HTTP, no browser ---------------------------------------------------------------


def route_body(key) -> bytes:
    """The routing callback's request for URL `key`, as the browser sends it (shell.register)."""
    return json.dumps({"output": "..shell.children...rendered.data..",
                       "outputs": [{"id": "shell", "property": "children"}, {"id": "rendered", "property": "data"}],
                       "inputs": [{"id": "route", "property": "data", "value": key}], "changedPropIds": ["route.data"], "state": []}).encode()


def http_junk(base: str, rng: random.Random, n_per_page: int, tally: Tally) -> None:
    """GET every page with junk queries, Dash's layout request with the same URL as Referer
    and the routing callback for it (the server renders the page from either): every
    answer is 200."""
    import http.client

    host = urlsplit(base).netloc
    conn = http.client.HTTPConnection(host, timeout=60)
    for page, mod in built_pages():
        for _ in range(n_per_page):
            url = page.route + junk_query(rng, mod.PARAMS)
            for method, path, body, headers in (("GET", url, None, {}), ("GET", "/_dash-layout", None, {"Referer": base + url}),
                                                ("POST", "/_dash-update-component", route_body(url), {"Content-Type": "application/json"})):
                conn.request(method, path, body=body, headers=headers)
                r = conn.getresponse()
                r.read()
                tally.requests += 1
                if r.status != 200:
                    tally.errors.append(f"HTTP {r.status} {method} {path[:120]} ({url[:120]})")
            tally.urls += 1
    conn.close()


# --- in Chromium ---------------------------------------------------------------------------


READY = "() => !!document.querySelector('main.page') && !document.querySelector('main.page[data-stale]')"
QUIET = "() => !document.querySelector('[data-dash-is-loading=\"true\"]')"
NAVIGATE = """u => { if (document.activeElement) document.activeElement.blur();
  const m = document.querySelector('main.page'); if (m) m.setAttribute('data-stale', '1');
  history.pushState(null, '', u); window.dispatchEvent(new PopStateEvent('popstate')); }"""
CLICKABLE = ("header a, header button, main a[href], main button, main input[type=checkbox], main input[type=radio], main label, "
             "main [role=slider], main [role=combobox], main [role=option], main [role=button], main .dash-dropdown, main summary")
TYPABLE = "main input[type=text], main input[type=number], main input:not([type]), main textarea, main input[type=search]"
TARGETS = {"click": CLICKABLE, "type": TYPABLE, "keys": "main [role=slider], main input, main button"}  # what each action acts on


def _settle(page, ms: int = 5_000) -> None:
    """Wait until the page has no callback in flight (Dash marks loading components)."""
    try:
        page.wait_for_function(QUIET, timeout=ms)
    except Exception:
        pass


def goto(page, base: str, url: str, full: bool) -> None:
    """Open url: inside the running app (history + popstate, as a link does) or, with
    full or when no app is running in the tab, as a full page load."""
    try:
        # an unchanged URL routes nothing (dcc.Location sees no change): load it afresh
        inside = not full and page.url != base + url and page.evaluate("() => !!window.dash_clientside && !!document.querySelector('main.page')")
        if inside:
            page.evaluate(NAVIGATE, base + url)
    except Exception:  # the tab was navigating (a previous back, a full load): load it afresh
        inside = False
    if not inside:
        page.goto(base + url, timeout=60_000)
    page.wait_for_function(READY, timeout=60_000)


# marks the visible candidates of a selector with data-fuzz="k" in one round trip; returns their input types
MARK = """([sel, skip]) => {
  document.querySelectorAll('[data-fuzz]').forEach(e => e.removeAttribute('data-fuzz'));
  const out = [];
  for (const e of document.querySelectorAll(sel)) {
    const r = e.getBoundingClientRect();
    if (!(r.width > 0 && r.height > 0) || getComputedStyle(e).visibility === 'hidden') continue;
    if (e.closest(skip) || e.closest('.modebar') || e.hasAttribute('download')) continue;  // a job, or a file download
    // a link out of the app: the browser has no network to follow it
    if (e.tagName === 'A' && e.href && !['127.0.0.1', 'localhost'].includes(new URL(e.href, location.href).hostname)) continue;
    e.setAttribute('data-fuzz', String(out.length));
    out.push(e.getAttribute('type') || '');
  }
  return out;
}"""


def _pick(page, rng: random.Random, selector: str):
    """(locator, input type) of a random visible element matching selector, or (None, None)."""
    types = page.evaluate(MARK, [selector, SKIP])
    if not types:
        return None, None
    k = rng.randrange(len(types))
    return page.locator(f'[data-fuzz="{k}"]'), types[k]


def act(page, base: str, rng: random.Random, pages, tally: Tally) -> None:
    """One random action."""
    kind = rng.choices(["url", "click", "type", "keys", "back"], weights=[2, 6, 3, 2, 1])[0]
    tally.actions += 1
    try:
        if kind in TARGETS:
            el, itype = _pick(page, rng, TARGETS[kind])
            if el is None:
                tally.skipped += 1
                tally.why_skipped[f"{kind}: nothing to act on"] += 1
                return
        if kind == "url":
            page_row, mod = rng.choice(pages)
            goto(page, base, page_row.route + junk_query(rng, mod.PARAMS), full=rng.random() < 0.15)
            tally.urls += 1
        elif kind == "click":
            el.click(timeout=1_500)
        elif kind == "type":
            text = rng.choice([*JUNK, LONG[:3000]])
            if itype == "number":
                el.fill("")
                el.press_sequentially(text[:60], delay=0)  # a number box keeps what a number box can hold
            else:
                el.fill(text)
            el.press(rng.choice(["Enter", "Tab"]))
        elif kind == "keys":
            el.focus()
            for _ in range(rng.randint(1, 6)):
                el.press(rng.choice(KEYS))
        else:
            page.go_back(timeout=10_000) if rng.random() < 0.7 else page.go_forward(timeout=10_000)
            if not page.url.startswith(base):
                goto(page, base, "/", full=True)
    except Exception as e:  # a Playwright timeout or a detached element: the fuzzer's problem, not the app's
        if "Target page, context or browser has been closed" in str(e):
            raise
        tally.skipped += 1
        tally.why_skipped[f"{kind}: {str(e).splitlines()[0][:70]}"] += 1
    page.wait_for_timeout(rng.choice([0, 10, 30, 100, 250]))


def fuzz_session(tab, base: str, seed: int, n_actions: int, tally: Tally, start: str | None = None, full: bool = True) -> None:
    """A junk URL (`start`, or one of a random built page), then n random actions in `tab`
    (a tab from app_browser: its log records what went wrong); errors into tally.

    full: the URL is a full page load (a new reader), else it is opened inside the
    running app (the same reader going on). One tab serves every session: closing
    tabs under load once hung Playwright for minutes.
    """
    rng = random.Random(seed)
    pages = built_pages()
    tab.set_default_timeout(3_000)
    responses, dialogs = [], []
    count = lambda r: responses.append(r.status)  # noqa: E731

    def dialog(d):  # an alert from junk markup would mean the page ran it
        dialogs.append(f"{d.type}: {d.message[:100]}")
        d.dismiss()

    tab.on("response", count)
    tab.on("dialog", dialog)
    try:
        page_row, mod = rng.choice(pages)
        goto(tab, base, start or page_row.route + junk_query(rng, mod.PARAMS), full=full)
        tally.urls += 1
        for _ in range(n_actions):
            act(tab, base, rng, pages, tally)
        _settle(tab)
        tab.wait_for_timeout(200)  # a last callback's answer and its rendering
    finally:
        tally.sessions += 1
        tally.requests += len(responses)
        tab.remove_listener("response", count)
        tab.remove_listener("dialog", dialog)
        log, tab.log = tab.log, Log()
        tally.errors += [f"seed {seed}: console/page error: {e[:300]}" for e in log.errors]
        tally.errors += [f"seed {seed}: HTTP {s} {u[:160]}" for s, u in log.bad_status]
        tally.errors += [f"seed {seed}: request outside 127.0.0.1: {u[:160]}" for u in log.external()]
        tally.errors += [f"seed {seed}: dialog opened: {d}" for d in dialogs]


def every_param_url(rng: random.Random) -> list[str]:
    """For each built page, one URL with every one of its params junked, a bad lang, a
    repeated key, an unknown key and a 10 kB value: every Param of every page is hit."""
    urls = []
    for page, mod in built_pages():
        pairs = [(p.name, junk_value(rng, p)) for p in mod.PARAMS]
        pairs += [(p.name, LONG) for p in mod.PARAMS[:1]] + [("lang", "xx"), ("nope", "<script>1</script>")]
        urls.append(page.route + "?" + "&".join(f"{quote(k)}={quote(v, safe='')}" for k, v in pairs))
    return urls


def main() -> int:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=20)
    ap.add_argument("--actions", type=int, default=60, help="random actions per session")
    ap.add_argument("--http", type=int, default=50, help="junk URLs per page over plain HTTP")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    import os
    import tempfile

    os.environ.setdefault("GELU_LAB_DATA", tempfile.mkdtemp(prefix="gelu-lab-fuzz-"))  # never the reader's own store
    from playwright.sync_api import sync_playwright

    from app_browser import ARGS, CHROMIUM, serve_in_thread

    base, server = serve_in_thread()
    tally = Tally()
    t0 = time.time()
    with ServerLog() as slog, sync_playwright() as pw:
        http_junk(base, random.Random(args.seed), args.http, tally)
        print(f"over HTTP: {tally.line()}", flush=True)
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        tab = _new_tab(browser.new_context(viewport={"width": 1280, "height": 900}))
        for i, url in enumerate(every_param_url(random.Random(args.seed))):
            fuzz_session(tab, base, args.seed * 100_000 + i, 3, tally, start=url, full=i == 0)
        for s in range(args.sessions):
            try:
                fuzz_session(tab, base, args.seed * 100_000 + 1000 + s, args.actions, tally)
            except Exception as e:  # the session's first load failed: say so, go on with a fresh tab
                tally.errors.append(f"seed {args.seed * 100_000 + 1000 + s}: session aborted: {str(e).splitlines()[0][:200]}")
                tab = _new_tab(tab.context)
            print(f"session {s + 1}/{args.sessions}: {tally.line()}", flush=True)
        browser.close()
    server.close()
    tally.errors += slog.records
    print(f"\n{tally.line()} in {time.time() - t0:.0f} s (seed {args.seed})")
    for e in tally.errors[:50]:
        print("  " + e)
    print("actions not possible (the browser's reason):", dict(tally.why_skipped.most_common(8)))
    return 1 if tally.errors else 0


if __name__ == "__main__":
    sys.exit(main())
