"""The app serves the vendored basic plotly.js bundle, and every figure fits in it.

The partial bundle (app/assets/vendor/plotly-basic.min.js) renders only its own trace
types: a figure with any other type would silently draw nothing. So every figure of
every page (both languages, default state) is checked against that list, which
is itself read from the bundle's header, not from the code under test.
"""

from __future__ import annotations

import re

import pytest
from plotly.offline import get_plotlyjs_version

import gelu_lab.app as app_pkg
from app_browser import app_url, browser, context, open_page, page  # noqa: F401
from gelu_lab.app import page_module, registry, shell

BUNDLE = app_pkg.ASSETS / "vendor" / "plotly-basic.min.js"
VENDOR_README = BUNDLE.with_name("README.md")


def _figures(component):
    """Every dcc.Graph figure in a component tree."""
    fig = getattr(component, "figure", None)
    if fig is not None and type(component).__name__ == "Graph":
        yield fig
    children = getattr(component, "children", None)
    for child in children if isinstance(children, (list, tuple)) else [children]:
        if child is not None and not isinstance(child, (str, int, float)):
            yield from _figures(child)


def _trace_types(fig) -> set[str]:
    data = fig.data if hasattr(fig, "data") else fig.get("data", [])
    return {(t.type if hasattr(t, "type") else t.get("type")) or "scatter" for t in data}


def test_bundle_is_the_plotly_js_version_of_plotly_py():
    head = BUNDLE.read_text(encoding="utf-8")[:300]
    assert re.search(r"plotly\.js \(basic - minified\) v(\S+)", head).group(1) == get_plotlyjs_version()


def test_every_figure_uses_a_trace_type_of_the_bundle():
    listed = re.search(r"trace types\s+(.*?)\. The app", VENDOR_README.read_text(), re.S).group(1)
    in_bundle = {t.strip() for t in listed.replace("\n", " ").split(",")}
    assert in_bundle == app_pkg.BUNDLE_TRACES
    pages = {p.slug: page_module(p.slug) for p in registry.PAGES}
    seen = set()
    for p in registry.PAGES:
        for lang in ("zh", "en"):
            for fig in _figures(shell.render(p.route, f"?lang={lang}", pages)):
                types = _trace_types(fig)
                assert types <= in_bundle, f"{p.slug}: trace types {types - in_bundle} are not in the bundle"
                seen |= types
    assert "scatter" in seen


@pytest.mark.xdist_group("app")
def test_browser_loads_the_partial_bundle_not_the_full_one(page, app_url):
    open_page(page, f"{app_url}/gradients?lang=en", full=True)
    scripts = [u for u in page.log.requests if u.endswith(".js") or ".js?" in u]
    assert any("/assets/vendor/plotly-basic" in u for u in scripts), scripts
    assert not any("package_data/plotly" in u for u in scripts)
    assert page.evaluate("() => Object.keys(window.Plotly.PlotSchema.get().traces).sort()") == sorted(app_pkg.BUNDLE_TRACES)
    page.log.check()
