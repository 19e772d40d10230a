"""The speed tricks (gelu_lab/app/speed.py): the switch, the exact Dash pin, a clear
failure when a Dash internal they edit changes, and stock Dash with the switch off."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import dash
import pytest

from gelu_lab.app import speed

ROOT = Path(__file__).resolve().parents[1]


def test_dash_is_the_pinned_version():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    pin = next(d for d in deps if re.match(r"dash\b", d))
    assert re.fullmatch(r"dash==[\w.]+", pin), f"{pin!r}: the speed tricks need Dash pinned exactly"
    assert dash.__version__ == pin.split("==")[1], f"Dash {dash.__version__} is installed, {pin} is pinned: reinstall, or check gelu_lab/app/speed.py against the new Dash"


def test_the_installed_dash_has_what_the_tricks_edit():
    """Checked in a fresh process: this one's Dash lists are already edited by the app."""
    subprocess.run([sys.executable, "-c", "from gelu_lab.app import speed; speed.check()"], check=True, timeout=120)


# Dash's lists as the tricks expect them before any edit
PRISTINE = {
    ("dcc", "_js_dist"): [{"relative_package_path": p, "namespace": "dash", "async": True} for p in speed.EAGER_CHUNKS],
    ("_dash_renderer", "_js_dist_dependencies"): [{"relative_package_path": {"prod": ["deps/polyfill@7.12.1.min.js", "deps/react@18.3.1.min.js"]}, "namespace": "dash"}],
    ("dash_table", "_js_dist"): [{"relative_package_path": "dash_table/bundle.js", "namespace": "dash"}],
}


@pytest.mark.parametrize(
    "where, changed, named",
    [
        (("dcc", "_js_dist"), [], "dash.dcc._js_dist no longer has dcc/async-graph.js"),
        (("dcc", "_js_dist"), [{"relative_package_path": p, "namespace": "dash"} for p in speed.EAGER_CHUNKS], "dash.dcc._js_dist no longer has dcc/async-graph.js as an async resource"),
        (("_dash_renderer", "_js_dist_dependencies"), [{"relative_package_path": {"prod": ["deps/react@19.min.js"]}}], "dash._dash_renderer._js_dist_dependencies no longer lists @babel/polyfill"),
        (("_dash_renderer", "_js_dist_dependencies"), None, "dash._dash_renderer._js_dist_dependencies is no longer a list"),
        (("dash_table", "_js_dist"), [], "dash.dash_table._js_dist no longer has dash_table/bundle.js"),
    ],
)
def test_a_changed_dash_internal_fails_with_its_name(monkeypatch, where, changed, named):
    monkeypatch.setattr(speed, "_applied", None)  # as in a fresh process, before any edit
    for (module, attr), value in PRISTINE.items():
        monkeypatch.setattr(getattr(dash, module), attr, value)
    speed.check()  # the lists as expected
    monkeypatch.setattr(getattr(dash, where[0]), where[1], changed)
    with pytest.raises(speed.DashChanged, match=re.escape(named)) as e:
        speed.check()
    assert f"must be updated for Dash {dash.__version__}" in str(e.value)


def test_the_switch():
    every = frozenset(speed.TRICKS)
    assert speed.enabled("1") == speed.enabled("") == speed.enabled(True) == every
    assert speed.enabled("0") == speed.enabled(False) == frozenset()
    assert speed.enabled("polyfill, compile_hint") == {"polyfill", "compile_hint"}
    assert speed.enabled("-polyfill") == every - {"polyfill"}
    with pytest.raises(ValueError, match="unknown trick nope"):
        speed.enabled("nope")
    with pytest.raises(ValueError, match="not both"):
        speed.enabled("polyfill,-compile_hint")
    assert speed.assets_ignore(every) == ""
    assert all(re.fullmatch(speed.assets_ignore(frozenset()), f) for files in speed.ASSETS.values() for f in files)
    assert not re.fullmatch(speed.assets_ignore(frozenset()), "gelu_lab.js")


STOCK = """
import json, re
from gelu_lab.app import create_app
app = create_app()
c = app.server.test_client()
html = c.get("/relu?lang=en").get_data(as_text=True)
scripts = re.findall(r'<script src="([^"]+)"', html)
first = c.get(next(s for s in scripts if "dash_renderer" in s)).data[:40].decode()
layout = c.get("/_dash-layout", headers={"Referer": "http://localhost/relu?lang=en"}).get_data(as_text=True)
print(json.dumps({"scripts": scripts, "html": html, "first": first, "layout": layout}))
"""


def test_with_the_switch_off_the_app_is_stock_dash():
    """GELU_LAB_FAST=0: Dash's own scripts, none of the tricks' assets, no hint, no preload,
    and the first layout is the bare shell (the routing callback renders the page)."""
    out = subprocess.run([sys.executable, "-c", STOCK], capture_output=True, text=True, timeout=120, env={**os.environ, "GELU_LAB_FAST": "0"}, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    scripts = got["scripts"]
    assert any("polyfill@" in s for s in scripts) and any("dash_table/bundle" in s for s in scripts)
    assert not any("regenerator" in s or "speed_" in s or "async-graph" in s for s in scripts), scripts
    assert any("/assets/vendor/plotly-basic" in s for s in scripts)  # the bundle is an asset, not a trick
    assert 'rel="preload"' not in got["html"] and not got["first"].startswith("//# allFunctionsCalledOnLoad")
    assert "page-relu" not in got["layout"] and '"rendered"' in got["layout"]
