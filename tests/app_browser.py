"""Shared fixtures for the browser tests: the app on a free port, Debian's Chromium.

Import the fixtures into a test module with
``from app_browser import app_url, browser, context, page  # noqa: F401``.
``page`` records every request, every HTTP status >= 400 and every console
error; ``page.log.check()`` asserts that none went wrong and nothing left 127.0.0.1.
"""

from __future__ import annotations

import threading
from urllib.parse import urlparse

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run", "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE localhost",
]
LOCAL_HOSTS = {"127.0.0.1", "localhost"}


def serve_in_thread():
    """(base URL, server) for the app on waitress, port chosen by the OS."""
    from waitress import create_server

    from gelu_lab.app import get_app

    server = create_server(get_app().server, host="127.0.0.1", port=0, threads=8)
    threading.Thread(target=server.run, daemon=True).start()
    return f"http://127.0.0.1:{server.effective_port}", server


@pytest.fixture(scope="session")
def app_url():
    url, server = serve_in_thread()
    yield url
    server.close()


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


class Log:
    def __init__(self):
        self.requests, self.errors, self.bad_status = [], [], []

    def external(self):
        return [u for u in self.requests if urlparse(u).scheme not in ("data", "blob") and urlparse(u).hostname not in LOCAL_HOSTS]

    def check(self):
        assert self.external() == [], f"requests outside 127.0.0.1: {self.external()}"
        assert self.errors == [], f"console errors: {self.errors}"
        assert self.bad_status == [], f"HTTP errors: {self.bad_status}"


@pytest.fixture(scope="session")
def context(browser):
    """One context for the session, so the 5 MB of Plotly and Dash JS are fetched once."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    yield ctx
    ctx.close()


@pytest.fixture
def page(context):
    pg = context.new_page()
    pg.set_default_timeout(20_000)
    pg.log = Log()
    pg.on("request", lambda r: pg.log.requests.append(r.url))
    pg.on("console", lambda m: m.type == "error" and pg.log.errors.append(m.text))
    pg.on("pageerror", lambda e: pg.log.errors.append(str(e)))
    pg.on("response", lambda r: r.status >= 400 and pg.log.bad_status.append((r.status, r.url)))
    yield pg
    pg.close()


def open_page(page, url: str, ready: str = "main.page"):
    """Go to url and wait until the routed page and its figures are drawn."""
    page.goto(url)
    page.wait_for_selector(ready)
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length === document.querySelectorAll('.figure').length")


def set_slider(page, id: str, value) -> None:
    """Type a value into the number box of Dash's slider and commit it."""
    box = page.locator(f"#{id} input[type=number]")
    box.fill(str(value))
    box.press("Tab")  # Dash 4 commits (and clamps) a typed slider value on blur


def text_of(page, id: str) -> str:
    return page.inner_text(f"#{id}").strip()


def wait_text(page, id: str, expected: str) -> str:
    """Wait until element `id` shows `expected`; return what it shows (for the assert message)."""
    try:
        page.wait_for_function("([id, t]) => { const e = document.getElementById(id); return e && e.innerText.trim() === t; }", arg=[id, expected], timeout=10_000)
    except Exception:
        pass
    return text_of(page, id)
