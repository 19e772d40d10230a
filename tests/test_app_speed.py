"""The speed tricks (gelu_lab/app/compat/speed.py): the switch, the exact Dash pin, a clear
failure when what they count on in Dash changes, what each one does in the browser,
and none of them with the switch off."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import dash
import pytest

from app_browser import app_url, browser, context, open_page, page  # noqa: F401
from gelu_lab.app.compat import speed

ROOT = Path(__file__).resolve().parents[1]


def test_dash_is_the_pinned_version():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["app"]  # Dash is the [app] extra's
    pin = next(d for d in deps if re.match(r"dash\b", d)).split("#")[0].strip()
    assert re.fullmatch(r"dash==[\w.]+", pin), f"{pin!r}: the speed tricks need Dash pinned exactly"
    assert dash.__version__ == pin.split("==")[1], f"Dash {dash.__version__} is installed, {pin} is pinned: reinstall, or check gelu_lab/app/compat/speed.py against the new Dash"


def test_the_installed_dash_has_what_the_tricks_count_on():
    """In a fresh process: this one's Dash lists are edited by the app already."""
    subprocess.run([sys.executable, "-c", "from gelu_lab.app.compat import speed; speed.check()"], check=True, timeout=120)


@pytest.mark.parametrize("file, text, what", speed.DEPENDS, ids=[d[2] for d in speed.DEPENDS])
def test_a_changed_dash_fails_naming_what_changed(tmp_path, file, text, what):
    dash_dir = Path(dash.__file__).parent
    for f, _, _ in speed.DEPENDS:  # a copy of the bundles the tricks read, with `text` gone from one
        (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(dash_dir / f, tmp_path / f)
    speed.check(tmp_path)
    (tmp_path / file).write_text((dash_dir / file).read_text(encoding="utf-8").replace(text, "changed"), encoding="utf-8")
    with pytest.raises(speed.DashChanged, match=re.escape(f"{what} is gone from dash/{file}")) as e:
        speed.check(tmp_path)
    assert f"must be updated for Dash {dash.__version__}" in str(e.value)


# Dash's resource lists as the tricks expect them before they edit them
PRISTINE = {
    ("_dash_renderer", "_js_dist_dependencies"): [{"relative_package_path": {"prod": ["deps/polyfill@7.12.1.min.js", "deps/react@18.3.1.min.js"]}, "namespace": "dash"}],
    ("dash_table", "_js_dist"): [{"relative_package_path": "dash_table/bundle.js", "namespace": "dash"}],
}


@pytest.mark.parametrize(
    "where, changed, named",
    [
        (("_dash_renderer", "_js_dist_dependencies"), [{"relative_package_path": {"prod": ["deps/react@19.min.js"]}}], "dash._dash_renderer._js_dist_dependencies no longer lists @babel/polyfill"),
        (("_dash_renderer", "_js_dist_dependencies"), None, "dash._dash_renderer._js_dist_dependencies is no longer a list"),
        (("dash_table", "_js_dist"), [], "dash.dash_table._js_dist no longer has dash_table/bundle.js"),
    ],
)
def test_a_changed_dash_list_fails_naming_it(monkeypatch, where, changed, named):
    monkeypatch.setattr(speed, "_edited", None)  # as in a fresh process, before any edit
    for (module, attr), value in PRISTINE.items():
        monkeypatch.setattr(getattr(dash, module), attr, value)
    speed.check()  # the lists as expected
    monkeypatch.setattr(getattr(dash, where[0]), where[1], changed)
    with pytest.raises(speed.DashChanged, match=re.escape(named)) as e:
        speed.check()
    assert f"must be updated for Dash {dash.__version__}" in str(e.value)


def test_the_switch(monkeypatch):
    every = frozenset(speed.TRICKS)
    assert speed.enabled("1") == speed.enabled("") == speed.enabled(True) == every
    assert speed.enabled("0") == speed.enabled(False) == frozenset()
    assert speed.enabled("readouts, scripts") == {"readouts", "scripts"} and speed.enabled("-readouts") == every - {"readouts"}
    monkeypatch.setenv("GELU_LAB_FAST", "-ticks")
    assert speed.enabled() == every - {"ticks"}
    with pytest.raises(ValueError, match="unknown trick nope"):
        speed.enabled("nope")
    with pytest.raises(ValueError, match="not both"):
        speed.enabled("readouts,-ticks")
    assert speed.assets_ignore(every) == ""
    off = speed.assets_ignore(frozenset())
    assert all(re.fullmatch(off, f) for files in speed.TRICKS.values() for f in files) and not re.fullmatch(off, "gelu_lab.js")


def test_a_changed_dash_turns_the_tricks_off(monkeypatch, caplog):
    def changed(dash_dir=None):
        raise speed.DashChanged("window.dash_component_api is gone")

    monkeypatch.setattr(speed, "check", changed)
    assert speed.enabled("1") == frozenset()
    assert "window.dash_component_api is gone; running without them" in caplog.text


STOCK = """
import json, re
from gelu_lab.app import create_app
c = create_app().server.test_client()
scripts = re.findall(r'<script src="([^"]+)"', c.get("/relu?lang=en").get_data(as_text=True))
layout = c.get("/_dash-layout", headers={"Referer": "http://localhost/relu?lang=en"}).get_data(as_text=True)
print(json.dumps({"scripts": scripts, "heads": [c.get(s).data[:40].decode() for s in scripts], "layout": layout}))
"""


def test_with_the_switch_off_the_page_has_none_of_the_tricks():
    """GELU_LAB_FAST=0: Dash's own scripts as Dash sends them, none of the tricks' assets,
    and the first layout is the bare shell (the routing callback renders the page)."""
    out = subprocess.run([sys.executable, "-c", STOCK], capture_output=True, text=True, timeout=120, env={**os.environ, "GELU_LAB_FAST": "0"}, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    scripts = got["scripts"]
    assert any("polyfill@" in s for s in scripts) and any("dash_table/bundle" in s for s in scripts), scripts
    assert any("/assets/gelu_lab.js" in s for s in scripts) and not any("speed_" in s or "regenerator" in s for s in scripts), scripts
    assert not any(h.startswith(speed.COMPILE_HINT.decode()) for h in got["heads"]) and not any("async-graph" in s for s in scripts)
    assert "page-relu" not in got["layout"] and '"rendered"' in got["layout"]


# What Dash alone would show: the page's own clientside callback answers nothing, so
# whatever changes comes from the trick.
MUTE = "name => { const f = window.dash_clientside.gelu_lab; f[name] = function () { return window.dash_clientside.no_update; }; }"


@pytest.mark.xdist_group("app")
def test_readouts_follow_the_slider_before_dash(page, app_url):
    open_page(page, f"{app_url}/relu?s=4&lang=en")
    page.evaluate(MUTE, "relu_s")
    thumb = page.locator("#relu-s [role=slider]")
    thumb.focus()
    thumb.press("ArrowRight")
    page.wait_for_function("() => document.getElementById('relu-rs').textContent !== '4'", timeout=5_000)
    assert page.locator("#relu-s [role=slider]").get_attribute("aria-valuenow") == page.inner_text("#relu-rs")
    page.log.check()


@pytest.mark.xdist_group("app")
def test_a_tick_shows_its_row_and_curve_before_dash(page, app_url):
    open_page(page, f"{app_url}/?lang=en")
    page.evaluate(MUTE, "visible")
    page.click("#overview-show label:has-text('SiLU')")
    page.wait_for_function("() => !document.getElementById('overview-row-silu').hidden", timeout=5_000)
    opacity = """() => { const gd = document.querySelector('#overview-curves .js-plotly-plot'), i = gd.data.findIndex(t => t.meta === 'silu');
                        return gd.querySelectorAll('.scatterlayer .trace')[i].style.opacity; }"""
    assert page.evaluate(opacity) == "1"
    page.log.check()
