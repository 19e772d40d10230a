"""What a cold page load fetches with the speed tricks on (the default): every script
from this server (no CDN), plotly.js's basic bundle and not the full one, the lean
regenerator runtime instead of Dash's @babel/polyfill, no dash_table, no MathJax
(formulas are MathML), and every script with V8's compile hint. Fetched from the WSGI app."""

from __future__ import annotations

import re

import pytest

from gelu_lab.app import ASSETS, get_app

pytestmark = pytest.mark.xdist_group("app")


@pytest.fixture(scope="module")
def client():
    return get_app().server.test_client()


def test_the_page_loads_the_basic_plotly_bundle_and_no_mathjax(client):
    html = client.get("/definition?lang=en").get_data(as_text=True)
    scripts = re.findall(r'<script src="([^"]+)"', html)
    assert not [s for s in scripts if "mathjax" in s.lower() or "package_data/plotly" in s]
    assert len([s for s in scripts if "/assets/vendor/plotly-basic" in s]) == 1
    for s in scripts:  # every script from this server, and there
        assert s.startswith("/") and client.get(s).status_code == 200, s


def test_index_loads_the_regenerator_runtime_not_the_polyfill(client):
    html = client.get("/definition?lang=en").get_data(as_text=True)
    scripts = re.findall(r'<script src="([^"]+)"', html)
    assert not [s for s in scripts if "polyfill" in s or "dash_table" in s]
    runtime = [s for s in scripts if "regenerator-runtime" in s]
    assert len(runtime) == 1
    assert scripts.index(runtime[0]) < min(i for i, s in enumerate(scripts) if "dash_renderer" in s)  # defined before Dash runs
    resp = client.get(runtime[0])
    assert resp.status_code == 200 and b"regeneratorRuntime" in resp.data


def test_creating_the_app_twice_changes_nothing(client):
    from gelu_lab.app.compat import speed

    def scripts():
        return re.findall(r'<script src="([^"]+)"', client.get("/").get_data(as_text=True))

    before = scripts()
    speed._drop_polyfill()
    speed._drop_dash_table()
    assert scripts() == before


def test_every_script_asks_to_be_compiled_on_load(client):
    """Each script the page loads (Dash's and the app's assets) starts with V8's explicit
    compile hint, byte for byte the file after it (the whole script is still served)."""
    html = client.get("/relu?lang=en").get_data(as_text=True)
    scripts = re.findall(r'<script src="([^"]+)"', html)
    assert len([s for s in scripts if "/_dash-component-suites/" in s]) >= 7 and len([s for s in scripts if "/assets/" in s]) >= 2
    for s in scripts:
        body = client.get(s).data
        assert body.startswith(b"//# allFunctionsCalledOnLoad\n"), s
    plotly = next(s for s in scripts if "plotly-basic" in s)
    assert client.get(plotly).data == b"//# allFunctionsCalledOnLoad\n" + (ASSETS / "vendor" / "plotly-basic.min.js").read_bytes()
