"""`gelu-lab table`: values against mpmath, formats, one-line errors."""

import csv
import io
import json
import subprocess
import sys

import mpmath
import pytest

pytestmark = pytest.mark.mpmath_dps(30)  # the precision of every mpmath oracle here, test by test (tests/conftest.py)


def run(*args):
    return subprocess.run([sys.executable, "-m", "gelu_lab", "table", *args], capture_output=True, text=True)


def test_default_table_matches_mpmath():
    r = run("--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    xs = [row["x"] for row in doc["rows"]]
    assert xs == [-3, -1, -0.5, 0, 0.5, 1, 3]
    for row in doc["rows"]:
        t = mpmath.mpf(row["x"])
        exact = t * mpmath.ncdf(t)
        tanh = t / 2 * (1 + mpmath.tanh(mpmath.sqrt(2 / mpmath.pi) * (t + mpmath.mpf("0.044715") * t**3)))
        sig = t / (1 + mpmath.exp(-mpmath.mpf("1.702") * t))
        assert row["gelu"] == pytest.approx(float(exact), rel=1e-15, abs=1e-300)
        assert row["gelu_tanh"] == pytest.approx(float(tanh), rel=1e-14, abs=1e-300)
        assert row["gelu_sigmoid"] == pytest.approx(float(sig), rel=1e-14, abs=1e-300)
        assert row["tanh_abs_err"] == pytest.approx(float(abs(tanh - exact)), rel=1e-9, abs=1e-17)
        assert row["relu"] == max(0.0, row["x"])


def test_custom_x_negative_first_csv_and_dtype():
    r = run("--x", "-2,0,2", "--dtype", "float32", "--format", "csv")
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert [float(x["x"]) for x in rows] == [-2, 0, 2]
    assert float(rows[2]["gelu"]) == pytest.approx(1.9545, abs=5e-5)


def test_text_format_has_a_header_and_a_row_per_x():
    r = run("--x", "1,2")
    lines = r.stdout.strip().splitlines()
    assert r.returncode == 0 and len(lines) == 3 and "gelu_tanh" in lines[0]


@pytest.mark.parametrize("args", [["--x", "abc"], ["--dtype", "foo"], ["--x", ""], ["--format", "xml"], ["--bogus"]])
def test_bad_input_is_one_line_and_exit_2(args):
    r = run(*args)
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "Traceback" not in r.stderr
