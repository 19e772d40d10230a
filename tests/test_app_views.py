"""The shell keeps rendered views of pages that are a pure function of their URL, and of
a LIVE page (one that shows a job or the measurement store) until the store or a job changes;
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


def test_a_live_page_is_rendered_anew_when_the_store_or_a_job_changes(monkeypatch, tmp_path):
    """Kept while the runs store and the jobs' files are as they were; rendered for every
    visit while a job has no exit file or a run is marked running (either may end unseen)."""
    from gelu_lab.results import jobs
    from gelu_lab.results.store import Store

    assert page_module("ffn").LIVE
    store = tmp_path / "runs.sqlite"
    monkeypatch.setenv("GELU_LAB_STORE", str(store))
    client = get_app().server.test_client()
    _counting(monkeypatch, "ffn")
    url = "/ffn?lang=en&v=live"  # a URL no other test asks for
    assert "built-1-times" in _routed_text(client, url)
    assert "built-1-times" in _routed_text(client, url)  # nothing changed: the kept view
    with Store(store) as s:
        run = s.start_run("train", "k", {"activation": "gelu"})  # a store now, and a run marked running
        assert "built-2-times" in _routed_text(client, url) and "built-3-times" in _routed_text(client, url)
        s.set_status(run, "done")
    assert "built-4-times" in _routed_text(client, url)  # the store changed
    assert "built-4-times" in _routed_text(client, url)
    jobs.jobs_dir(store).mkdir()
    (jobs.jobs_dir(store) / "ffn-job.json").write_text("{}")  # a job without its exit file: it may be running
    assert "built-5-times" in _routed_text(client, url) and "built-6-times" in _routed_text(client, url)
    (jobs.jobs_dir(store) / "ffn-done.json").write_text('{"rc": 0}')
    assert "built-7-times" in _routed_text(client, url) and "built-7-times" in _routed_text(client, url)


def test_the_first_layout_holds_the_page_the_browser_is_on_and_keeps_it(monkeypatch):
    client = get_app().server.test_client()
    _counting(monkeypatch, "relu")

    def layout(url, host="localhost"):
        return client.get("/_dash-layout", headers={"Referer": f"http://{host}{url}"}).get_data(as_text=True)

    url = "/relu?mu=0.125&lang=en"
    assert "built-1-times" in layout(url) and '"page-relu"' in layout(url)
    assert "built-1-times" in _routed_text(client, url)  # the routing callback shows the same kept view
    assert "built-" not in layout(url, "elsewhere.example")  # another host's page: the bare shell

