"""gelu_lab/app/compat: every use of a library's non-public behaviour is an entry there, with
exact pins, a check that names what changed, and a gain; nothing outside it touches one."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import dash
import plotly
import pytest

from gelu_lab.app import ASSETS, compat

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "src" / "gelu_lab" / "app"
# what only assets/compat may touch: a library's private field, a Dash or plotly.js class name
PRIVATE = re.compile(
    r"\._(fullLayout|fullData|context|id|effHeight|length|input|module|hoverdata|transitionData|dragging|replotting)\b"
    r"|[\"'.\s](dash-[a-z][\w-]*|js-plotly-plot|scatterlayer|xaxislayer[\w-]*|yaxislayer[\w-]*|main-svg|svg-container|gridlayer|zerolinelayer|modebar[\w-]*|rc-slider[\w-]*)\b"
)


def _pins() -> dict:
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["app"]
    return {m.group(1): m.group(2) for d in deps if (m := re.match(r"([\w-]+)==([\w.]+)", d.split("#")[0].strip()))}


def test_the_libraries_are_pinned_exactly_and_installed_so():
    pins = _pins()
    for name, version in compat.PINS.items():
        assert pins.get(name) == version, f"pyproject.toml pins {name}=={pins.get(name)}, gelu_lab/app/compat was written for {name}=={version}"
    assert dash.__version__ == compat.PINS["dash"] and plotly.__version__ == compat.PINS["plotly"], "reinstall: the installed Dash/plotly is not the pinned one"


def test_every_entry_names_its_pins_files_and_gain():
    for e in compat.ENTRIES.values():
        assert e.depends and e.gain and e.what, e.name
        for d in e.depends:
            if "==" in d:
                name, version = d.split("==")
                assert compat.PINS[name] == version, (e.name, d)
        for f in e.files:
            assert (APP / f).is_file(), f"{e.name}: {f} is not in gelu_lab/app"
        for t in re.findall(r"tests/\w+\.py", e.gain):
            assert (ROOT / t).is_file(), f"{e.name}: {t} does not exist"
        assert e.js or e.check is not None, f"{e.name} has no check"


@pytest.mark.parametrize("name", sorted(compat.ENTRIES))
def test_each_python_check_holds(name):
    compat.check(name)


def test_a_changed_library_fails_naming_it(monkeypatch):
    import argparse

    # as if argparse stopped reading the matcher a parser is given: its own, whatever is set
    own = property(lambda self: re.compile(r"^-\d+$|^-\d*\.\d+$"), lambda self, v: None)
    monkeypatch.setattr(argparse.ArgumentParser, "_negative_number_matcher", own, raising=False)
    with pytest.raises(compat.Changed, match=r"argparse .*_negative_number_matcher"):
        compat.check("argparse_negative")
    assert any(m.startswith("argparse_negative: ") for m in compat.check_all())


def test_speed_tricks_are_the_switch_entries():
    from gelu_lab.app.compat import speed

    assert set(speed.TRICKS) - speed.PUBLIC == {n for n, e in compat.ENTRIES.items() if e.switch}


def test_no_asset_outside_compat_touches_a_library_private():
    """A private field or a Dash/plotly.js class name, in JS or CSS, lives in assets/compat only."""
    bad = []
    for f in sorted(ASSETS.rglob("*")):
        rel = f.relative_to(ASSETS)
        if f.suffix not in (".js", ".css") or rel.parts[0] in ("compat", "vendor"):
            continue
        for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("//")[0] if f.suffix == ".js" else re.sub(r"/\*.*?\*/", "", line)
            if m := PRIVATE.search(code):
                bad.append(f"{rel}:{n}: {m.group(0).strip()}")
    assert not bad, "move these into an entry of gelu_lab/app/compat (assets/compat):\n" + "\n".join(bad)


def test_the_scan_sees_what_it_forbids():
    for text in ("gd._fullLayout.height", "ax._id + 'tick'", "el.querySelector('.js-plotly-plot')", ".dash-options-list-option { }", "'.scatterlayer .trace'"):
        assert PRIVATE.search(text), text
    for text in ("gd.layout.height", "gd.__fit = f", "window.gelu_lab_compat.plotly_gd.find(id)", ".figure-data { }"):
        assert not PRIVATE.search(text), text


def test_every_js_entry_registers_itself():
    """An entry with code in assets/compat registers window.gelu_lab_compat.<name> (its check:
    tests/test_compat_js.py); every file in assets/compat belongs to an entry."""
    owned = set()
    for e in compat.ENTRIES.values():
        js = [f for f in e.files if f.startswith("assets/compat/") and f.endswith(".js")]
        owned.update(f for f in e.files if f.startswith("assets/compat/"))
        if js:
            assert any(re.search(rf"\bC\.{e.name} = \{{", (APP / f).read_text(encoding="utf-8")) for f in js), f"{js} do not register gelu_lab_compat.{e.name}"
    files = {f"assets/compat/{f.name}" for f in (ASSETS / "compat").iterdir()}
    assert files == owned, f"in assets/compat but no entry's: {sorted(files - owned)}"


# the Python side: a library's private names that only an entry's files may use
PY_PRIVATE = re.compile(r"\b_js_dist\w*|\b_dash_renderer\b|\b_validate\s*=|\bsideUpdate\b|async-mathjax|webpackChunk|\b_negative_number_matcher\b")


def test_no_python_outside_compat_touches_a_library_private():
    src = ROOT / "src" / "gelu_lab"
    allowed = {(APP / f).resolve() for e in compat.ENTRIES.values() for f in e.files if f.endswith(".py")}
    bad = []
    for f in sorted(src.rglob("*.py")):
        if (APP / "compat") in f.parents or f.resolve() in allowed:
            continue
        for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#")[0]
            if (m := PY_PRIVATE.search(code)) and '"""' not in line and "``" not in line:
                bad.append(f"{f.relative_to(src)}:{n}: {m.group(0)}")
    assert not bad, "move these into an entry of gelu_lab/app/compat:\n" + "\n".join(bad)
