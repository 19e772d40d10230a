"""The JavaScript checks of gelu_lab/app/compat (assets/compat/*.js, window.gelu_lab_compat),
run in Chromium on pages that use each entry: each fails, naming the library, when what it
counts on in Dash or plotly.js is gone."""

from __future__ import annotations

import pytest

from app_browser import app_url, browser, context, open_page, page  # noqa: F401
from gelu_lab.app import compat

# pages that between them use every JavaScript entry (a slider table, a checklist with a
# figure, a dropdown, formulas, figures with a legend)
PAGES = ["/definition?lang=en", "/?lang=en", "/demo?lang=en", "/relu?lang=en"]
JS = sorted(n for n, e in compat.ENTRIES.items() if e.js)
RUN = "() => Object.fromEntries(Object.entries(window.gelu_lab_compat).map(([k, e]) => [k, e.check()]))"


@pytest.fixture(scope="module")
def results(context, app_url):  # noqa: F811
    from app_browser import _new_tab

    page = _new_tab(context)  # noqa: F811
    out = {}
    url = app_url
    for path in PAGES:
        open_page(page, f"{url}{path}", full=True)
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        out[path] = page.evaluate(RUN)
    page.close()
    return out


def test_every_js_entry_registers_a_check(results):
    for path, got in results.items():
        assert set(JS) <= set(got), f"{path}: window.gelu_lab_compat lacks {sorted(set(JS) - set(got))}"
        assert set(got) <= set(compat.ENTRIES), f"{path}: not in gelu_lab/app/compat: {sorted(set(got) - set(compat.ENTRIES))}"


@pytest.mark.parametrize("name", JS)
def test_the_check_holds_where_the_entry_is_used(results, name):
    used = {path: got[name] for path, got in results.items() if got.get(name) is not None}
    assert used, f"{name}: no page of {PAGES} uses it, so nothing checked it"
    failed = {path: r for path, r in used.items() if r}
    assert not failed, f"{name} ({compat.ENTRIES[name].depends}): {failed}"


@pytest.mark.parametrize("name, breaks, named", [
    ("readouts", "delete window.dash_component_api.getLayout", "dash_component_api.getLayout"),
    ("phone_fit", "document.querySelectorAll('.js-plotly-plot').forEach(gd => { gd._fullLayout = undefined; })", "_fullLayout"),
    ("plotly_gd", "document.querySelectorAll('.js-plotly-plot').forEach(gd => gd.classList.remove('js-plotly-plot'))", "js-plotly-plot"),
    ("a11y", "document.querySelectorAll('.dash-options-list').forEach(l => l.classList.remove('dash-options-list'))", "dash-options-list"),
    ("dash_css", "document.querySelectorAll('.dash-slider-thumb').forEach(l => l.classList.remove('dash-slider-thumb'))", "dash-slider-thumb"),
    ("figure_text", "document.querySelectorAll('.js-plotly-plot').forEach(gd => { gd._context = {}; })", "_context"),
])
def test_a_changed_library_fails_naming_it(page, app_url, name, breaks, named):  # noqa: F811
    open_page(page, f"{app_url}/?lang=en" if name == "a11y" else f"{app_url}/definition?lang=en", full=True)
    assert not page.evaluate(f"() => window.gelu_lab_compat.{name}.check()")
    page.evaluate(f"() => {{ {breaks}; }}")
    got = page.evaluate(f"() => window.gelu_lab_compat.{name}.check()")
    assert got and any(named in m for m in got), got
