"""URL state (parse, clamp, note) and the per-language content files."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gelu_lab.app import content, registry, state
from gelu_lab.app.state import Param

X = Param("x", 1.0, -4.0, 4.0, 0.01)
N = Param("n", 100, 10, 5000, 10, integer=True)
SHOW = Param("show", ["a"], choices=("a", "b", "c"), multi=True)


def test_read_valid_clamped_and_junk():
    s, notes = state.read([X, N], "?x=2&n=70&lang=en")
    assert s == {"x": 2.0, "n": 70} and notes == []
    s, notes = state.read([X, N], "?x=99&n=abc")
    assert s == {"x": 4.0, "n": 100}
    assert [k for k, _ in notes] == ["clamped", "bad_number"]
    s, notes = state.read([X], "?x=inf&lang=fr")
    assert s == {"x": 1.0} and [k for k, _ in notes] == ["bad_number", "bad_choice"]
    assert state.read([X], "")[0] == {"x": 1.0}


def test_snap_to_step_and_multi_choice():
    assert X.coerce("1.234")[0] == pytest.approx(1.23)
    assert N.coerce("73")[0] == 70 and isinstance(N.coerce("73")[0], int)
    assert SHOW.coerce("c,zz,a") == (["a", "c"], ("bad_choice", {"name": "show", "raw": "zz"}))



def test_encode_writes_what_read_reads():
    assert state.encode({"x": 2.0, "n": 70, "show": ["a", "c"]}, "en") == "?x=2&n=70&show=a,c&lang=en"
    assert state.encode({"x": None, "n": ""}, "zh") == "?lang=zh"  # empty values are left out
    assert state.href("/relu", "en") == "/relu?lang=en" and state.href("/", "zh") == "/?lang=zh"


@given(st.floats(-4, 4), st.integers(10, 5000), st.lists(st.sampled_from(["a", "b", "c"]), unique=True), st.sampled_from(content.LANGS))
def test_encode_then_read_is_the_same_state(x, n, show, lang):
    values = {"x": X.coerce(x)[0], "n": N.coerce(n)[0], "show": [c for c in SHOW.choices if c in show]}
    q = state.encode(values, lang)
    assert state.read([X, N, SHOW], q) == (values, []) and state.lang_of(q) == lang


@given(st.text(max_size=60))
def test_any_query_string_gives_valid_state(q):
    s, notes = state.read([X, N, SHOW], q)
    assert -4.0 <= s["x"] <= 4.0 and 10 <= s["n"] <= 5000 and set(s["show"]) <= {"a", "b", "c"}
    assert state.lang_of(q) in content.LANGS


@given(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=20), st.integers()))
def test_inputs_never_raise(raw):
    vals, msg = state.inputs([(X, raw)], "en")
    assert vals is None or -4.0 <= vals[0] <= 4.0
    assert isinstance(msg, str)


def test_content_parse_and_fill():
    blocks = content.parse("<!-- a -->\nfirst\n\n<!-- b.c -->\n$$\n\\frac{x}{2}\n$$\n")
    assert blocks == {"a": "first", "b.c": "$$\n\\frac{x}{2}\n$$"}
    assert content.fill("{keep} and \\frac{x}{2}", keep="0.9") == "0.9 and \\frac{x}{2}"


@pytest.mark.parametrize("page", ["shell"] + [p.slug for p in registry.PAGES])
def test_both_languages_have_the_same_blocks(page):
    zh, en = content.text("zh", page), content.text("en", page)
    assert set(zh) == set(en)
    for k in zh:  # same placeholders, no block left empty
        assert zh[k] and en[k]
        assert set(re.findall(r"\{(\w+)\}", zh[k])) == set(re.findall(r"\{(\w+)\}", en[k])), k


def test_shell_names_every_page():
    for lang in content.LANGS:
        t = content.text(lang, "shell")
        for p in registry.PAGES:
            assert t[f"nav.{p.slug}"] and t[f"q.{p.slug}"]


def test_registry_routes():
    assert registry.by_route("/") .slug == "overview"
    assert registry.by_route("/relu/").slug == "relu"
    assert registry.by_route("/nope") is None
    assert len({p.route for p in registry.PAGES}) == len(registry.PAGES) == 14
