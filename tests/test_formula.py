"""Your own activation: the whitelist parser refuses hostile input with one line, evaluates
against mpmath, differentiates exactly (against torch autograd and mpmath.diff), fits a
against an independent brute-force search, and the CLI answers with exit codes 0 / 2."""

from __future__ import annotations

import functools
import json
import math

import mpmath
import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from gelu_lab.analysis import user_formula as F
from gelu_lab.analysis import custom

X = np.linspace(-6.0, 6.0, 97) + 0.0137  # off the kinks of relu/abs/max at round numbers

# ---------------------------------------------------------------------------
# hostile and malformed input: refused before anything is computed, one line each

HOSTILE = {
    "__import__('os')": "unknown name '__import__'",
    "x + __import__('os')": "unknown name '__import__'",
    "x*'os'": "strings",
    "x.__class__": "attribute access",
    "x.__class__.__mro__": "attribute access",
    "lambda: 1": "unknown name 'lambda'",
    "x if x else 1": "unexpected 'if'",
    "x[::-1]": "indexing",
    "lambda x: x": "unknown name 'lambda'",
    "9**9**9": "exponent",
    "x**(9**9)": "exponent",
    "2**2**2**2**2": "exponent",  # 2**65536: refused before it is computed
    "x**exp(exp(10))": "exponent",
    "(" * 10_000 + "x" + ")" * 10_000: "too long",
    "(" * 60 + "x" + ")" * 60: "nested too deeply",
    "-" * 80 + "x": "nested too deeply",
    "ｘ": "U+FF58",  # full-width x
    "х": "U+0445",  # Cyrillic ha, looks like x
    "x*sіgmoid(x)": "U+0456",  # Cyrillic i inside a name
    "x − 1": "U+2212",  # the minus sign
    "x" + "+x" * 300: "too long",
    "x" + "+x" * 120: "too large",
    "sin(x)": "allowed: x, a, pi",
    "open(x)": "unknown name 'open'",
    "x; 1": "one expression",
    "x, 1": "commas",
    "exp(x, 1)": "takes 1 argument",
    "max(x)": "takes 2 arguments",
    "x[0]": "indexing",
    "x = 1": "assignment",
    "2x": "write *",
    "exp x": "needs parentheses",
    "1e999": "too large",
    "": "empty",
    "   ": "empty",
    "x +": "ends too early",
    "(x": "expected ')'",
    "x)": "unexpected ')'",
    "x\x00": "control character",
    "b": "unknown name 'b'",
}


@pytest.mark.parametrize("text", list(HOSTILE), ids=[repr(t[:24]) for t in HOSTILE])
def test_hostile_and_bad_input_is_refused_with_one_line(text):
    with pytest.raises(F.FormulaError) as e:
        F.parse(text)
    msg = str(e.value)
    assert HOSTILE[text] in msg
    assert "\n" not in msg and 10 < len(msg) < 400


def test_formula_error_is_a_value_error_so_the_cli_says_one_line():
    assert issubclass(F.FormulaError, ValueError)


def test_overflow_is_handled_not_raised():
    y = F.parse("exp(1000*x)").eval(X)
    assert np.isinf(y[X > 0.71]).all() and np.isfinite(y[X < 0.70]).all()
    c = custom.compare_with_gelu("exp(1000*x)", (-4, 4))
    assert c.max_abs_error == math.inf and 0.70 < c.argmax < 0.72 and c.nonfinite > 0


def test_evaluation_is_capped_in_size():
    with pytest.raises(F.FormulaError, match="at most"):
        F.parse("x").eval(np.zeros(F.MAX_POINTS + 1))


def test_free_constant_must_be_given_or_fitted():
    with pytest.raises(F.FormulaError, match="free constant a"):
        F.parse("a*x").eval(X)
    with pytest.raises(F.FormulaError, match="no free constant"):
        custom.fit_parameter(F.parse("x"))


# ---------------------------------------------------------------------------
# values against mpmath


def _mp(f, xs, dps=30):
    with mpmath.workdps(dps):
        return np.array([float(f(mpmath.mpf(float(t)))) for t in xs])


SAMPLES = {
    "x*Phi(x)": lambda t: t * mpmath.ncdf(t),
    "0.5*x*(1+erf(x/sqrt(2)))": lambda t: t * mpmath.ncdf(t),
    "x*sigmoid(1.702*x)": lambda t: t / (1 + mpmath.exp(-mpmath.mpf("1.702") * t)),
    "0.5*x*(1+tanh(sqrt(2/pi)*(x+0.044715*x**3)))": lambda t: t / 2 * (1 + mpmath.tanh(mpmath.sqrt(2 / mpmath.pi) * (t + mpmath.mpf("0.044715") * t**3))),
    "softplus(x) - log(1 + exp(x))": lambda t: mpmath.mpf(0),
    "x*tanh(softplus(x))": lambda t: t * mpmath.tanh(mpmath.log1p(mpmath.exp(t))),
    "max(x, 0) + min(x, 0)/10": lambda t: max(t, 0) + min(t, 0) / 10,
    "phi(x)*erfc(-x) + abs(x)**1.5 - relu(-x)": lambda t: mpmath.npdf(t) * mpmath.erfc(-t) + abs(t) ** 1.5 - max(-t, 0),
    "2^-x + e**(-x/2)": lambda t: 2 ** (-t) + mpmath.exp(-t / 2),
    "-x**2/2 + 3/4/x": lambda t: -(t**2) / 2 + mpmath.mpf(3) / 4 / t,
}


@pytest.mark.parametrize("text", list(SAMPLES))
def test_values_match_mpmath(text):
    y = F.parse(text).eval(X)
    ref = _mp(SAMPLES[text], X)
    np.testing.assert_allclose(y, ref, rtol=2e-15 * 64, atol=1e-14)


def test_x_phi_x_is_gelu_to_a_few_ulp():
    y = F.parse("x*Phi(x)").eval(X)
    ref = _mp(lambda t: t * mpmath.ncdf(t), X, dps=40)
    assert np.max(np.abs(y - ref) / np.abs(ref)) < 5 * 2.2e-16  # Phi (a few ulp), then one product


# ---------------------------------------------------------------------------
# derivative: exact, against closed forms by mpmath.diff and against torch autograd

DERIVS = ["x*Phi(x)", "x*sigmoid(1.702*x)", "0.5*x*(1+tanh(0.8*(x+0.03*x**3)))", "x**x", "sqrt(1+x*x)*erf(x)", "x/(1+abs(x))", "log(softplus(x))"]


@pytest.mark.parametrize("text", DERIVS)
def test_derivative_matches_mpmath_diff(text):
    f = F.parse(text)
    mpf = {
        "x*Phi(x)": lambda t: t * mpmath.ncdf(t),
        "x*sigmoid(1.702*x)": lambda t: t / (1 + mpmath.exp(-mpmath.mpf("1.702") * t)),
        "0.5*x*(1+tanh(0.8*(x+0.03*x**3)))": lambda t: t / 2 * (1 + mpmath.tanh(mpmath.mpf("0.8") * (t + mpmath.mpf("0.03") * t**3))),
        "x**x": lambda t: t**t,
        "sqrt(1+x*x)*erf(x)": lambda t: mpmath.sqrt(1 + t * t) * mpmath.erf(t),
        "x/(1+abs(x))": lambda t: t / (1 + abs(t)),
        "log(softplus(x))": lambda t: mpmath.log(mpmath.log1p(mpmath.exp(t))),
    }[text]
    xs = X[X > 0.1] if text == "x**x" else X
    d = F.diff(f).eval(xs)
    with mpmath.workdps(30):
        ref = np.array([float(mpmath.diff(mpf, mpmath.mpf(float(t)))) for t in xs])
    np.testing.assert_allclose(d, ref, rtol=1e-13, atol=1e-15)


def test_derivative_text_is_the_textbook_one():
    assert F.to_text(F.diff(F.parse("x*Phi(x)"))) == "Phi(x) + x*phi(x)"
    assert F.to_text(F.diff(F.parse("x**3"))) == "3*x**2"


def _torch_eval(e: F.Expr, x: torch.Tensor, a: float | None = None) -> torch.Tensor:
    """An independent evaluator of the tree in torch (float64), for autograd."""
    r2 = math.sqrt(2.0)
    fns = {
        "exp": torch.exp, "log": torch.log, "tanh": torch.tanh, "sigmoid": torch.sigmoid, "erf": torch.erf,
        "erfc": torch.erfc, "Phi": lambda u: 0.5 * torch.erfc(-u / r2), "phi": lambda u: torch.exp(-u * u / 2) / math.sqrt(2 * math.pi),
        "sqrt": torch.sqrt, "abs": torch.abs, "relu": torch.relu, "softplus": torch.nn.functional.softplus,
        "sign": torch.sign, "step": lambda u: (u > 0).to(u.dtype), "max": torch.maximum, "min": torch.minimum,
    }

    def go(n):
        if n.op == "num":
            return torch.tensor(n.value, dtype=torch.float64)
        if n.op == "x":
            return x
        if n.op == "a":
            return torch.tensor(a, dtype=torch.float64)
        args = [go(c) for c in n.args]
        if n.op == "neg":
            return -args[0]
        if n.op in ("+", "-", "*", "/", "**"):
            u, v = args
            return {"+": u + v, "-": u - v, "*": u * v, "/": u / v, "**": torch.pow(u, v)}[n.op]
        return fns[n.op](*args)

    return go(e)


def _torch_grad(e, xs):
    t = torch.tensor(xs, dtype=torch.float64, requires_grad=True)
    y = _torch_eval(e, t)
    (g,) = torch.autograd.grad(y.sum(), t, allow_unused=True)
    return np.zeros_like(xs) if g is None else g.detach().numpy()


@pytest.mark.parametrize("text", DERIVS + ["max(x, x*x)", "min(relu(x), 1)", "exp(-x*x)*x**3"])
def test_derivative_matches_torch_autograd(text):
    xs = X[X > 0.1] if text == "x**x" else X
    np.testing.assert_allclose(F.diff(F.parse(text)).eval(xs), _torch_grad(F.parse(text), xs), rtol=1e-12, atol=1e-14)


# ---------------------------------------------------------------------------
# hypothesis: random trees printed to text parse back to the same values

UNARY = [n for n, k in F.FUNCTIONS.items() if k == 1]
BINARY = ["+", "-", "*", "/"]


def trees(max_leaves=20, num=st.floats(0, 1e6, allow_nan=False)):
    leaves = st.one_of(st.just(F.X), st.just(F.A), num.map(F.num), st.integers(0, 9).map(F.num))

    def extend(sub):
        return st.one_of(
            st.tuples(st.sampled_from(BINARY), sub, sub).map(lambda t: F.Expr(t[0], (t[1], t[2]))),
            st.tuples(st.sampled_from(UNARY), sub).map(lambda t: F.Expr(t[0], (t[1],))),
            st.tuples(st.sampled_from(["max", "min"]), sub, sub).map(lambda t: F.Expr(t[0], (t[1], t[2]))),
            sub.map(lambda u: F.Expr("neg", (u,))),
            # exponents free of x and a stay small, as the parser requires
            st.tuples(sub, st.one_of(st.integers(0, 4).map(F.num), st.just(F.X), sub.filter(lambda s: F.uses(s, "x")))).map(
                lambda t: F.Expr("**", t)
            ),
        )

    return st.recursive(leaves, extend, max_leaves=max_leaves)


def _same(u, v):
    np.testing.assert_array_equal(np.asarray(u), np.asarray(v))


@given(trees())
def test_printed_tree_parses_back_to_the_same_values(e):
    text = F.to_text(e)
    back = F.parse(text)
    _same(back.eval(X, a=1.25), e.eval(X, a=1.25))
    assert F.to_text(back) == text


@given(trees(max_leaves=10, num=st.floats(0, 5, allow_nan=False)))
def test_derivative_of_random_trees_matches_autograd(e):
    t = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    y = _torch_eval(e, t, a=1.25)
    if not y.requires_grad:  # the tree does not depend on x
        ref = np.zeros_like(X)
    else:
        ref = torch.autograd.grad(y.sum(), t, allow_unused=True)[0]
        ref = np.zeros_like(X) if ref is None else ref.detach().numpy()
    ours = F.diff(e).eval(X, a=1.25)
    # compare where the function itself is defined (max(x, log(x)) is nan for x < 0; its "gradient" is not)
    ok = np.isfinite(e.eval(X, a=1.25)) & np.isfinite(ours) & np.isfinite(ref) & (np.abs(ref) < 1e12)
    np.testing.assert_allclose(ours[ok], ref[ok], rtol=1e-6, atol=1e-9)


ALPHABET = "x a e pi ( ) + - * / ** ^ , . 0 1 2.5 1e3 exp log max Phi sigmoid __import__ lambda : ' ; [ ]".split(" ")


@given(st.one_of(st.text(max_size=60), st.lists(st.sampled_from(ALPHABET), max_size=40).map("".join)))
def test_any_text_parses_or_is_refused_with_one_line(text):
    try:
        e = F.parse(text)
    except F.FormulaError as err:
        assert "\n" not in str(err) and str(err)
        return
    with np.errstate(all="raise"):  # evaluation itself must never warn or raise
        e.eval(X, a=0.5)
        F.diff(e).eval(X, a=0.5)


def test_printing_keeps_precedence_and_associativity():
    for text in ["(x - 1) - (x - 2)", "x - (1 - x)", "x/(2/x)", "(x/2)/x", "2**3**x", "(2**3)**x", "-x**2", "(-x)**2", "2**-x", "-(x + 1)*x", "--x"]:
        e = F.parse(text)
        _same(F.parse(F.to_text(e)).eval(X), e.eval(X))


# ---------------------------------------------------------------------------
# fitting a: against the sigmoid-form fit and an independent brute-force search


@functools.cache
def _brute_force_best_beta(lo, hi):
    """argmin over beta of max |x sigmoid(beta x) - GELU(x)|: nested grids, mpmath-free but gelu_lab-free too."""
    from scipy import special

    xs = np.linspace(lo, hi, 40001)
    gelu = xs * 0.5 * special.erfc(-xs / math.sqrt(2))
    best = None
    for width in (0.5, 0.01, 2e-4):
        center = 1.7 if best is None else best
        betas = np.linspace(center - width, center + width, 201)
        errs = [np.max(np.abs(xs * special.expit(b * xs) - gelu)) for b in betas]
        best = float(betas[int(np.argmin(errs))])
    return best, min(errs)


def test_fitted_a_matches_brute_force_and_the_sigmoid_form_fit():
    a, m, at = custom.fit_parameter(F.parse("x*sigmoid(a*x)"), (-4, 4))
    beta, bm = _brute_force_best_beta(-4, 4)
    assert abs(a - beta) < 1e-5
    assert m <= bm * (1 + 1e-9)  # the located optimum is at least as good as the grid's
    assert abs(m - bm) < 1e-6 * bm + 1e-10


def test_fitted_a_beats_the_sigmoid_form_fit_or_ties():
    """The same minimax problem as analysis.fits' sigmoid form, solved by another route."""
    from gelu_lab.analysis import fits

    f = F.parse("x*sigmoid(a*x)")
    a, m, _ = custom.fit_parameter(f, (-4, 4))
    beta = fits.fit("sigmoid", (-4, 4)).params["beta"]
    assert abs(a - beta) < 1e-7
    assert m <= custom.sup_error(f, F.diff(f), beta, -4, 4)[0] * (1 + 1e-9)


def test_fitted_a_recovers_an_exact_constant():
    a, m, _ = custom.fit_parameter(F.parse("x*Phi(a*x)"), (-3, 3))
    assert abs(a - 1) < 1e-9 and m < 1e-10


def test_compare_reports_gelu_itself_as_exact():
    c = custom.compare_with_gelu("x*Phi(x)", (-4, 4), n=101)
    assert c.a is None and c.max_abs_error < 1e-15 and c.max_grad_error < 1e-15
    assert c.x.shape == c.y.shape == c.dy.shape == (101,)


# ---------------------------------------------------------------------------
# CLI


def cli(capsys, *args):
    """(exit code, stdout, stderr) of `gelu-lab custom ARGS`, in process (the subprocess path is tested in test_cli_table)."""
    from gelu_lab.cli import main

    rc = main(["custom", *args])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_cli_json_reports_fitted_a_and_located_maximum(capsys):
    rc, out, err = cli(capsys, "x*sigmoid(a*x)", "--interval", "-4", "4", "--format", "json")
    assert rc == 0, err
    doc = json.loads(out)
    beta, bm = _brute_force_best_beta(-4, 4)
    assert doc["fitted"] and abs(doc["a"] - beta) < 1e-5
    assert abs(doc["max_abs_error"] - bm) < 1e-6 * bm


def test_cli_text_with_given_a_and_errors_exit_2(capsys):
    rc, out, _ = cli(capsys, "x*sigmoid(a*x)", "--a", "1.702")
    assert rc == 0 and "a (given)" in out and "1.702" in out
    for args in (["__import__('os')"], ["9**9**9"], ["x", "--interval", "4", "-4"], ["x.__class__"], ["x", "--interval", "0", "nan"]):
        rc, out, err = cli(capsys, *args)
        assert rc == 2, (args, out, err)
        assert err.startswith("gelu-lab: error:") and err.count("\n") == 1 and "Traceback" not in err
