"""The seed demo (gelu_lab/analysis/seed_demo.py, plain `math`): it runs, uses only math,
prints float64-accurate values in the normal range (mpmath), and the library finds
where its 1 + erf(x/sqrt 2) cancels in the left tail: the first exact zero and the first
grid x with a relative error above 1e-6 (both checked against mpmath)."""

from __future__ import annotations

import ast
import subprocess
import sys

import mpmath
import numpy as np
import pytest

from gelu_lab.analysis import demo_table as T, seed_demo

EPS = 2.0**-53  # float64's unit roundoff


def mp_gelu(x: float) -> mpmath.mpf:
    with mpmath.workdps(40):
        t = mpmath.mpf(x)
        return t * mpmath.ncdf(t)


def mp_tanh(x: float) -> mpmath.mpf:
    with mpmath.workdps(40):
        t = mpmath.mpf(x)
        return t / 2 * (1 + mpmath.tanh(mpmath.sqrt(2 / mpmath.pi) * (t + mpmath.mpf("0.044715") * t**3)))


def test_the_seed_imports_only_math():
    tree = ast.parse(open(seed_demo.__file__, encoding="utf-8").read())
    names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert names == {"math"} and not any(isinstance(n, ast.ImportFrom) for n in ast.walk(tree))


def test_the_seed_file_holds_no_english_prose():
    """The Python demo page shows the file as it is, on the Chinese page too: no docstring, and
    no comment but the markers (1) to (5) its notes refer to (the page says what it is)."""
    source = open(seed_demo.__file__, encoding="utf-8").read()
    assert ast.get_docstring(ast.parse(source)) is None
    comments = [line.split("#", 1)[1].strip() for line in source.splitlines() if "#" in line]
    assert comments == [f"({i})" for i in range(1, 6)]


def test_the_seed_runs_and_prints_float64_accurate_values():
    r = subprocess.run([sys.executable, seed_demo.__file__], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    head, *lines = r.stdout.strip().splitlines()
    assert head.split() == ["x", "x·Φ(x)", "tanh", "≈", "|Δ|", "max(0,", "x)"]  # formulas, not words: the zh page shows it too
    rows = [[float(v) for v in line.split()] for line in lines]
    assert [row[0] for row in rows] == list(T.DEFAULT_X)  # the table's own x, row for row
    for x, gelu, tanh, diff, relu in rows:
        # 0.5 x (1 + erf): a few roundings of numbers of size 1, times x/2: a few ulp of 1, times |x|
        bound = 4 * EPS * abs(x)
        assert abs(mpmath.mpf(gelu) - mp_gelu(x)) <= bound, x
        assert abs(mpmath.mpf(tanh) - mp_tanh(x)) <= bound, x
        if x >= 0:  # no cancellation on the right: relative accuracy too
            assert abs(mpmath.mpf(gelu) - mp_gelu(x)) <= 4 * EPS * abs(gelu)
        assert diff == abs(gelu - tanh) and relu == max(0.0, x)
        assert abs(diff - float(abs(mp_gelu(x) - mp_tanh(x)))) <= 2 * bound + 2 * EPS * diff


def test_first_exact_zero_is_a_float_edge():
    z = T.seed_zero_edge()
    up = float(np.nextafter(z, 0.0))
    assert seed_demo.gelu(z) == 0 and seed_demo.gelu(up) != 0
    # below it the seed stays 0, while the true value is a normal float64, far from 0
    for x in (float(np.nextafter(z, -np.inf)), z - 0.01, -9.0, -10.0, -20.0, -37.0):
        assert seed_demo.gelu(x) == 0 and abs(float(mp_gelu(x))) >= np.finfo(np.float64).tiny, x
    # the edge is where 1 + erf(x/sqrt 2) = erfc(-x/sqrt 2) falls to about half the gap between
    # float64's numbers just below 1 (2^-53): there erf rounds to -1 (libm: within an ulp or so)
    with mpmath.workdps(40):
        q = mpmath.erfc(-mpmath.mpf(z) / mpmath.sqrt(2))
    assert 2.0**-56 < q < 2.0**-52


def mp_rel(x: float) -> float:
    exact = mp_gelu(x)
    return float(abs(mpmath.mpf(seed_demo.gelu(x)) - exact) / abs(exact))


def test_first_relative_error_above_1e_6_by_mpmath():
    tol = 1e-6
    x_r = T.seed_rel_edge(tol)
    k = -x_r / T.SCAN_STEP
    assert k == int(k) and mp_rel(x_r) > tol  # a grid point, and wrong by more than tol there
    # and at every grid point between it and 0 the seed is within tol (mpmath says so)
    grid = -np.arange(1, int(k)) * T.SCAN_STEP
    assert max(mp_rel(float(x)) for x in grid) <= tol


def test_tail_table_against_mpmath():
    rows = T.tail_table()
    assert [r["x"] for r in rows] == list(T.TAIL_X) and list(rows[0]) == T.TAIL_COLUMNS
    for r in rows:
        exact = mp_gelu(r["x"])
        assert r["true"] == float(exact)  # correctly rounded (mpmath converts to the nearest float)
        assert abs(r["gelu_lab"] - r["true"]) <= 2 * float(np.spacing(abs(r["true"])))
        assert r["seed"] == seed_demo.gelu(r["x"])
        assert r["seed_rel_err"] == pytest.approx(mp_rel(r["x"]), rel=1e-9)
        assert r["gelu_lab_rel_err"] <= 4 * EPS
    assert rows[-1]["seed"] == 0 and rows[-1]["seed_rel_err"] == 1.0  # 0 for a nonzero true value: 100 % wrong


def test_seed_agrees_with_gelu_lab_outside_the_tail():
    agree, at = T.seed_agreement()
    worst = max(mp_rel(x) for x in T.DEFAULT_X if x != 0)
    # the page's figure, gelu_lab against the seed, is the seed's own error (gelu_lab is exact here)
    assert agree == pytest.approx(worst, rel=1e-6) and at == max((mp_rel(x), x) for x in T.DEFAULT_X if x != 0)[1]
