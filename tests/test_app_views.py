"""The shell keeps rendered views of pages that are a pure function of their URL, and
renders a LIVE page (one that shows a job or the measurement store) for every visit;
with the speed tricks, the first layout already holds the page the browser is on."""

from __future__ import annotations

import itertools

from app_fuzz import route_body
from gelu_lab.app import get_app, page_module


def _routed_text(client, url: str) -> str:
    """What the routing callback answers for `url`, as a browser on that URL asks it."""
    r = client.post("/_dash-update-component", data=route_body(url), content_type="application/json")
    assert r.status_code == 200
    return r.get_data(as_text=True)


def _counting(monkeypatch, slug: str):
    """Make page `slug` show how many times its layout was built."""
    from dash import html

    mod, n = page_module(slug), itertools.count(1)
    monkeypatch.setattr(mod, "layout", lambda state, lang: html.Div(f"built-{next(n)}-times"))


def test_a_pure_page_is_rendered_once_per_url(monkeypatch):
    client = get_app().server.test_client()
    _counting(monkeypatch, "relu")
    url = "/relu?mu=0.123&lang=en"  # a URL no other test asks for
    first = _routed_text(client, url)
    assert "built-1-times" in first
    assert _routed_text(client, url) == first
    assert "built-2-times" in _routed_text(client, "/relu?mu=0.124&lang=en")  # another URL, another view


def test_a_live_page_is_rendered_for_every_visit(monkeypatch):
    assert page_module("ffn").LIVE
    client = get_app().server.test_client()
    _counting(monkeypatch, "ffn")
    assert "built-1-times" in _routed_text(client, "/ffn?lang=en")
    assert "built-2-times" in _routed_text(client, "/ffn?lang=en")


def test_the_first_layout_holds_the_page_the_browser_is_on_and_keeps_it(monkeypatch):
    client = get_app().server.test_client()
    _counting(monkeypatch, "relu")

    def layout(url, host="localhost"):
        return client.get("/_dash-layout", headers={"Referer": f"http://{host}{url}"}).get_data(as_text=True)

    url = "/relu?mu=0.125&lang=en"
    assert "built-1-times" in layout(url) and '"page-relu"' in layout(url)
    assert "built-1-times" in _routed_text(client, url)  # the routing callback shows the same kept view
    assert "built-" not in layout(url, "elsewhere.example")  # another host's page: the bare shell

