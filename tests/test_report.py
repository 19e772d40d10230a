"""`gelu-lab report`: one HTML file that opens from file:// in Chromium with no request leaving
it, every page and the measurements present, figures drawn, formulas typeset, in both languages."""

from __future__ import annotations

import json
import re
from urllib.parse import urlparse

import pytest

from app_browser import browser  # noqa: F401  (Debian's Chromium, one per session)
from gelu_lab.app import report
from gelu_lab.analysis import accuracy
from gelu_lab.app import content, registry
from gelu_lab.app.mathml import mathml
from gelu_lab.cli import main
from gelu_lab.results import shipped
from gelu_lab.results.store import Store

pytestmark = pytest.mark.xdist_group("report")
BUILT = registry.PAGES


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Both languages, from a store holding one real (small) accuracy run and nothing else."""
    d = tmp_path_factory.mktemp("report")
    store = Store(d / "runs.sqlite")
    summary = accuracy.measure("gelu", "float32", mode="sample", sample=1 << 12, store=store, progress=False, command="test")
    out = {lang: report.build(d / f"gelu-lab-{lang}.html", lang, store=store, progress=False) for lang in content.LANGS}
    store.close()
    return out, summary


@pytest.mark.parametrize("lang", content.LANGS)
def test_report_opens_offline_with_every_section_and_figure(built, browser, lang):
    info, summary = built
    info = info[lang]
    print(f"report {lang}: {info['bytes'] / 1e6:.2f} MB, {info['figures']} figures, built in {info['seconds']} s")
    page = browser.new_page()
    requests, errors = [], []
    page.on("request", lambda r: requests.append(r.url))
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda e: errors.append(str(e)))
    url = f"file://{info['path']}"
    page.goto(url)
    page.wait_for_function("document.body.getAttribute('data-figures') !== null", timeout=60_000)
    # nothing but the file itself was asked for
    assert [u for u in requests if u != url and urlparse(u).scheme not in ("data", "blob")] == []
    assert errors == []
    assert page.evaluate("!window.MathJax && !document.querySelector('mjx-container')")  # formulas are the app's MathML, drawn by the browser
    for p in BUILT:
        t = content.text(lang, p.slug)
        sec = page.locator(f"section#page-{p.slug}")
        assert sec.count() == 1
        assert sec.locator("h1").first.inner_text().strip() == t["title"].strip()
        if "$$" in "".join(t.values()):  # the formulas, as MathML (gelu_lab.app.mathml)
            assert sec.locator(".math-display math").count() == "".join(t.values()).count("$$") // 2, p.slug
            assert "$$" not in sec.inner_text()
    # every figure drawn by plotly.js: one svg plot per figure div
    n = info["figures"]
    assert n >= len(BUILT) and page.locator(".report-figure").count() == n
    assert page.locator(".report-figure.js-plotly-plot .main-svg").count() >= n
    assert page.locator(".report-figure .scatterlayer .trace").count() >= n
    # measurements: the stored one shown with its numbers and provenance beside the shipped sweeps,
    # any missing one with its command
    acc = page.locator("section.measurement[data-key=accuracy]")
    assert acc.count() == 1 and "missing" not in (acc.get_attribute("class") or "")
    text = acc.inner_text()
    assert summary["impl"] in text and str(summary["max_ulp"]) in text and str(summary["n"]) in text
    assert content.text(lang, "report")["source.both"] in text
    assert f"{content.text(lang, 'report')['key.command']}: test" in acc.locator("details").inner_text() or acc.locator("details").count() == 1
    for key, _, command in report.MEASUREMENTS:
        if key in info["missing"]:
            sec = page.locator(f"section.measurement.missing[data-key={key}]")
            assert sec.count() == 1 and command in sec.inner_text()
    assert "accuracy" not in info["missing"]
    page.close()


def _section(doc: str, key: str) -> str:
    m = re.search(rf'<section class="card measurement( missing)?" data-key="{key}">(.*?)</section>', doc, re.S)
    assert m, key
    return m.group(0)


def _rows(section: str) -> list[dict]:
    """The rows of the first table of a section, as {column key: cell text} (a cell's code tags left out)."""
    head = re.findall(r'<th data-key="(.*?)">', section.split("</thead>")[0])
    body = section.split("<tbody>")[1].split("</tbody>")[0]
    return [dict(zip(head, (re.sub(r"</?code>", "", c) for c in re.findall(r"<td>(.*?)</td>", tr)))) for tr in re.findall(r"<tr>(.*?)</tr>", body)]


def test_report_cli_json_and_bad_language(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("GELU_LAB_STORE", str(tmp_path / "empty.sqlite"))
    assert main(["report", "--lang", "xx", "--out", str(tmp_path / "r.html")]) == 2
    assert "invalid choice" in capsys.readouterr().err
    assert main(["report", "--lang", "en", "--out", str(tmp_path / "r.html"), "--no-progress", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["sections"] == [p.slug for p in BUILT] + ["measured"]
    assert (tmp_path / "r.html").stat().st_size == doc["bytes"]
    assert not (tmp_path / "empty.sqlite").exists()  # reading never creates a store
    assert main(["report", "--out", str(tmp_path / "no" / "such" / "dir" / "r.html"), "--no-progress"]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_a_fresh_install_reports_the_shipped_measurements(tmp_path, capsys, monkeypatch):
    """With no runs store every measured table is the shipped one, said so, with its provenance:
    nothing is "missing" that gelu_lab/data holds."""
    monkeypatch.setenv("GELU_LAB_DATA", str(tmp_path / "fresh"))
    monkeypatch.delenv("GELU_LAB_STORE", raising=False)
    out = tmp_path / "r.html"
    assert main(["report", "--lang", "en", "--out", str(out), "--no-progress"]) == 0
    assert "missing" not in capsys.readouterr().err
    html = out.read_text(encoding="utf-8")
    w = content.text("en", "report")
    measured = shipped.doc("measured.json")
    for key, _, _ in report.MEASUREMENTS:
        sec = _section(html, key)
        assert "missing" not in sec.split(">", 1)[0] and w["source.shipped"] in sec, key
        assert f"{w['key.processor']}: AMD EPYC" in sec, key  # the provenance of the shipped run, its keys in words
    rows = _rows(_section(html, "accuracy"))  # every shipped sweep (ours, and the frameworks'), with its numbers
    sweeps = [*measured["accuracy"].values(), *shipped.doc("frameworks.json")["accuracy"].values()]
    assert sorted((r["impl"], r["n"], r["max_ulp"]) for r in rows) == sorted((s["impl"], str(s["n"]), str(s["max_ulp"])) for s in sweeps)
    assert {"copy", "numpy:erf", "numpy:tanh"} <= {r["case"] for r in _rows(_section(html, "cost"))}
    assert "--store" not in html  # no machine path in what the provenance shows
    assert not (tmp_path / "fresh").exists()


def test_markdown_renders_formulas_as_the_app_and_escapes_html():
    out = report.markdown("Area $x_1 * y_2$ and\n\n$$\n\\Phi(x) = \\int_{-\\infty}^x \\phi_t\\,dt\n$$\n\n<script>alert(1)</script> [a](javascript:alert(1))")
    assert "$x_1 * y_2$" in out  # inline TeX stays as written, as in the app (untouched by emphasis rules)
    assert '<div class="math-display"' in out and mathml("\\Phi(x) = \\int_{-\\infty}^x \\phi_t\\,dt") in out  # app.mathml's, as the app draws it
    assert "<script>" not in out and "&lt;script&gt;" in out and 'href="javascript' not in out


def test_links_go_to_sections_or_stay_outside():
    routes = {"/": "page-overview", "/relu": "page-relu"}
    assert [report.link(h, routes) for h in ["/relu?lang=en", "/?lang=zh", "https://arxiv.org/abs/1606.08415", "javascript:alert(1)", "/nope"]] == [
        "#page-relu", "#page-overview", "https://arxiv.org/abs/1606.08415", "#", "#"]
