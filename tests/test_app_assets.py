"""What a cold page load fetches: Dash's own scripts and the app's assets, all from this
server, with plotly.js's basic bundle instead of the full one and no MathJax (formulas
are MathML). Fetched from the WSGI app."""

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
    bundle = [s for s in scripts if "/assets/vendor/plotly-basic" in s]
    assert len(bundle) == 1 and client.get(bundle[0]).data == (ASSETS / "vendor" / "plotly-basic.min.js").read_bytes()
    for s in scripts:  # every script from this server (no CDN), and there
        assert s.startswith("/") and client.get(s).status_code == 200, s
