"""Fuzzing every public numeric function: no exception, dtype kept, IEEE specials.

Functions: gelu_lab.gelu / gelu_grad / gelu_grad2 (every approximate=), every
registry activation's fn / grad / grad2, the torch face (values, backward,
double backward), formats.round_to_format and table.comparison_table.

Inputs: every bit pattern of float16 and bfloat16 (nan, inf, subnormals, +-0,
max and min normal included), random bit patterns and N(0, 3) values for
float32 and float64, and the special values themselves. Each output is
checked against what mathematics says, never against the code under test:
nan in -> nan out, finite in -> finite out, the limit at +-inf, a range the
function cannot leave (e.g. |GELU(x)| <= |x| with the sign of x, GELU' in
[GELU'(-sqrt2), GELU'(sqrt2)]) and, for the GELU forms, the sign of zero.
Views: f(x)[idx] == f(x[idx]) bit for bit for any basic index (strides,
reversed, 0-d, empty), and out= fills and returns the array it is given.

Integer and bool inputs are accepted and computed in float64 (as NumPy ufuncs
do); complex, string and object inputs raise TypeError instead of silently
dropping the imaginary part or parsing text.

bench/fuzz_numeric.py runs the same checks at >= 10^6 inputs per dtype and
prints the counts; this file runs a share of it (2.6 x 10^7 inputs in all).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from functools import partial
from typing import Callable

import ml_dtypes
import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import gelu_lab
from gelu_lab import activations
from gelu_lab.analysis import demo_table as table
from gelu_lab.floats import FORMATS, bfloat16, round_to_format

DTYPES = {"float16": np.dtype(np.float16), "bfloat16": bfloat16, "float32": np.dtype(np.float32), "float64": np.dtype(np.float64)}
UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}
APPROX = {"none": "gelu", "tanh": "gelu_tanh", "sigmoid": "gelu_sigmoid"}
ORDER_NAMES = ("fn", "grad", "grad2")

# --- what mathematics says ----------------------------------------------------

with mpmath.workdps(30):
    _r2 = mpmath.sqrt(2)
    G1 = (float(mpmath.ncdf(-_r2) - _r2 * mpmath.npdf(_r2)), float(mpmath.ncdf(_r2) + _r2 * mpmath.npdf(_r2)))
    G2 = (float(-2 * mpmath.npdf(2)), float(2 * mpmath.npdf(0)))  # (2 - x^2) phi(x): min at +-2, max at 0
SLACK = 2.0**-6  # room for the approximations' own extremes and for one rounding of a 16-bit format
INF = math.inf

# (value at -inf, value at +inf) for fn, grad, grad2 of each activation. For the
# GELU forms the zeros are signed: the true values are negative out there.
LIMITS = {
    "gelu": ((-0.0, INF), (-0.0, 1.0), (-0.0, -0.0)),
    "relu": ((0.0, INF), (0.0, 1.0), (0.0, 0.0)),
    "sigmoid": ((0.0, 1.0), (0.0, 0.0), (0.0, 0.0)),
    "silu": ((0.0, INF), (0.0, 1.0), (0.0, 0.0)),
    "elu": ((-1.0, INF), (0.0, 1.0), (0.0, 0.0)),
    "softplus": ((0.0, INF), (0.0, 1.0), (0.0, 0.0)),
    "mish": ((0.0, INF), (0.0, 1.0), (0.0, 0.0)),
    "leaky_relu": ((-INF, INF), (None, 1.0), (0.0, 0.0)),  # None: the slope, f'(-1)
}
LIMITS["gelu_tanh"] = LIMITS["gelu_sigmoid"] = LIMITS["gelu"]

# closed ranges no output may leave (besides nan for nan); None: unbounded on that side
RANGES = {
    "gelu": ((None, None), (G1[0] - SLACK, G1[1] + SLACK), (G2[0] - SLACK, 1.702 / 2 + SLACK)),
    "relu": ((0.0, None), (0.0, 1.0), (0.0, 0.0)),
    "sigmoid": ((0.0, 1.0), (0.0, 0.25), (-0.1, 0.1)),  # |sigma''| <= 1/(6 sqrt3) = 0.0962
    "silu": ((-0.28, None), (-0.1 - SLACK, 1.1 + SLACK), (-0.2, 0.5)),  # min x sigma(x) = -0.2785
    "elu": ((-1.0, None), (0.0, 1.0), (0.0, 1.0)),
    "softplus": ((0.0, None), (0.0, 1.0), (0.0, 0.25)),
    "mish": ((-0.31, None), (-0.2, 1.2), (-0.5, 0.7)),  # min x tanh(softplus x) = -0.3088
    "leaky_relu": ((None, None), (0.0, 1.0), (0.0, 0.0)),
}
RANGES["gelu_tanh"] = RANGES["gelu_sigmoid"] = RANGES["gelu"]


@dataclass(frozen=True)
class Case:
    label: str
    fn: Callable
    name: str  # canonical activation name
    order: int  # 0 value, 1 first derivative, 2 second


def cases() -> list[Case]:
    """Every public numeric function of one array argument."""
    out = []
    for approx, name in APPROX.items():
        for order, f in enumerate((gelu_lab.gelu, gelu_lab.gelu_grad, gelu_lab.gelu_grad2)):
            out.append(Case(f"{f.__name__}[{approx}]", partial(f, approximate=approx), name, order))
    for name in activations.names():
        a = activations.get(name)
        for order, attr in enumerate(ORDER_NAMES):
            out.append(Case(f"{name}.{attr}", getattr(a, attr), name, order))
    return out


CASES = cases()


# --- inputs -------------------------------------------------------------------


def specials(dtype) -> np.ndarray:
    """+-0, +-inf, nan, the smallest subnormal, min normal, max, their negatives, huge and tiny."""
    fi = ml_dtypes.finfo(dtype)
    v = [0.0, np.inf, np.nan, float(fi.smallest_subnormal), float(fi.smallest_normal), float(fi.max), 1e300, 1e-300, 1.0, 0.5]
    with np.errstate(over="ignore", under="ignore"):
        a = np.array(v, dtype=np.float64)
        return np.concatenate([a, -a]).astype(dtype)


def inputs(dtype, n: int, rng) -> np.ndarray:
    """16-bit formats: all 65536 patterns; wider ones: n random patterns, n N(0, 3) values, the specials."""
    dtype = np.dtype(dtype)
    if dtype.itemsize == 2:
        return np.arange(65536, dtype=np.uint16).view(dtype)
    u = UINT[dtype.itemsize]
    pat = rng.integers(0, np.iinfo(u).max, n, dtype=u, endpoint=True).view(dtype)
    return np.concatenate([pat, rng.normal(0, 3, n).astype(dtype), specials(dtype)])


# --- checks -------------------------------------------------------------------


def call(f, *args, **kw):
    """f(*args) with every warning an error: no RuntimeWarning may leak out."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return f(*args, **kw)


def _limit(case: Case, side: int, dtype):
    want = LIMITS[case.name][case.order][side]
    if want is None:  # the constant slope on the left
        want = float(np.asarray(case.fn(np.array([-1.0], dtype=dtype))[0], dtype=np.float64))
    return want


def check(case: Case, x: np.ndarray) -> list[str]:
    """What is wrong with case.fn on x (empty: nothing)."""
    dt = x.dtype.name
    try:
        y = call(case.fn, x)
    except Exception as e:  # noqa: BLE001 (the point is to catch anything)
        return [f"{case.label} {dt}: raised {type(e).__name__}: {e}"]
    if not isinstance(y, np.ndarray) or y.dtype != x.dtype or y.shape != x.shape:
        return [f"{case.label} {dt}: returned {type(y).__name__} {getattr(y, 'dtype', '')} {np.shape(y)}"]
    with np.errstate(invalid="ignore"):  # ml_dtypes warns when it widens a bfloat16 nan
        xf, yf = x.astype(np.float64), y.astype(np.float64)
    xnan, ynan = np.isnan(xf), np.isnan(yf)
    bad = {
        "nan in, not nan out": xnan & ~ynan,
        "finite in, not finite out": np.isfinite(xf) & ~np.isfinite(yf),
        "wrong limit at -inf": (xf == -np.inf) & (yf != _limit(case, 0, x.dtype)),
        "wrong limit at +inf": (xf == np.inf) & (yf != _limit(case, 1, x.dtype)),
    }
    lo, hi = RANGES[case.name][case.order]
    if lo is not None:  # a float64 result may sit an ulp or two beyond a bound it touches
        bad[f"below {lo}"] = yf < lo - 4e-16 * abs(lo)
    if hi is not None:
        bad[f"above {hi}"] = yf > hi + 4e-16 * abs(hi)
    if case.name in APPROX.values():  # the GELU forms
        if case.order == 0:  # x Phi(x): between 0 and x, zeros keep the sign of x
            bad["sign differs from x's"] = ~xnan & (np.signbit(yf) != np.signbit(xf))
            bad["|f(x)| > |x|"] = np.abs(yf) > np.abs(xf)
        elif case.order == 1:  # negative left of the root (-0.75...), -0 where it underflows
            bad["not negative for x <= -1"] = (xf <= -1) & ~np.signbit(yf)
        else:  # negative beyond the inflection points (+-1.41...)
            bad["not negative for |x| >= 2"] = (np.abs(xf) >= 2) & ~np.signbit(yf)
    if case.name == "relu" and case.order == 0:  # max(x, 0) is exact in every format
        bad["not max(x, 0)"] = ~xnan & (yf != np.maximum(xf, 0.0))
    out = []
    for what, mask in bad.items():
        idx = np.flatnonzero(mask)
        if idx.size:
            out.append(f"{case.label} {dt}: {what} at {idx.size} inputs, e.g. x={xf[idx[:3]].tolist()} -> {yf[idx[:3]].tolist()}")
    return out


def fuzz(n: int, seed: int = 0, progress=None) -> dict:
    """Every case on every dtype: counts of inputs tried and the failures found."""
    rng = np.random.default_rng(seed)
    xs = {name: inputs(dt, n, rng) for name, dt in DTYPES.items()}
    tried, failures = {name: 0 for name in DTYPES}, []
    for case in CASES:
        for name, x in xs.items():
            failures += check(case, x)
            tried[name] += x.size
            if progress:
                progress(1)
    return {"inputs": tried, "cases": len(CASES), "failures": failures}


def same(a, b) -> bool:
    """Equal as IEEE numbers: equal values, equal signs of zero, nan where nan (its sign and payload free)."""
    with np.errstate(invalid="ignore"):
        a, b = np.asarray(a).astype(np.float64), np.asarray(b).astype(np.float64)
    signs = np.signbit(a) == np.signbit(b)
    return a.shape == b.shape and np.array_equal(a, b, equal_nan=True) and bool(np.all(signs | np.isnan(a)))


# --- the tests ----------------------------------------------------------------


def test_every_function_on_every_dtype_a_million_inputs_and_more():
    r = fuzz(n=1 << 17, seed=20261130)
    assert not r["failures"], "\n".join(r["failures"][:20])
    assert sum(r["inputs"].values()) >= 10**6


@pytest.mark.parametrize("dtype", list(DTYPES), ids=list(DTYPES))
def test_specials_one_by_one(dtype):
    """The specials alone, each as a 0-d array and as a Python-like scalar result."""
    for v in specials(DTYPES[dtype]):
        x0 = np.array(v)
        for case in CASES:
            y = call(case.fn, x0)
            assert np.ndim(y) == 0 and np.asarray(y).dtype == x0.dtype, case.label
            assert same(y, case.fn(x0.reshape(1))[0]), (case.label, v)


def _dtype_strategy():
    return st.sampled_from(list(DTYPES))


@st.composite
def arrays_any_dtype(draw):
    """An array of any shape (0-d and empty too) of any of the four formats, any bit patterns."""
    dt = DTYPES[draw(_dtype_strategy())]
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5))
    bits = draw(hnp.arrays(UINT[dt.itemsize], shape))
    return bits.view(dt) if shape else bits.reshape(1).view(dt).reshape(())


@given(x=arrays_any_dtype(), data=st.data())
def test_views_give_the_values_of_copies(x, data):
    """f(x)[idx] == f(x[idx]) for any basic index: strided, reversed, 0-d, empty, new axes."""
    case = data.draw(st.sampled_from(CASES), label="case")
    idx = data.draw(hnp.basic_indices(x.shape, allow_newaxis=True), label="idx") if x.ndim else ()
    whole = call(case.fn, x)
    part = call(case.fn, x[idx])
    assert np.asarray(part).dtype == x.dtype
    assert same(part, np.asarray(whole)[idx]), case.label
    if x.ndim >= 1:  # reversed and transposed views too
        assert same(call(case.fn, x[::-1]), np.asarray(whole)[::-1])
        assert same(call(case.fn, x.T), np.asarray(whole).T)


@given(x=arrays_any_dtype(), data=st.data())
def test_out_is_filled_and_returned_even_when_strided(x, data):
    case = data.draw(st.sampled_from(CASES), label="case")
    want = np.asarray(call(case.fn, x))
    buf = np.full(x.shape + (2,), np.nan, dtype=x.dtype)
    out = buf[..., 1]  # a non-contiguous view
    got = call(case.fn, x, out=out)
    assert got is out and same(out, want), case.label
    assert np.isnan(buf[..., 0].astype(np.float64)).all()  # and nothing else written


def test_broadcast_and_size_one_inputs():
    x = np.linspace(-5, 5, 7).astype(np.float32)
    for case in CASES:
        b = call(case.fn, np.broadcast_to(x, (3, 7)))
        assert b.shape == (3, 7) and same(b, np.broadcast_to(call(case.fn, x), (3, 7))), case.label


def test_integer_and_bool_inputs_compute_in_float64():
    for case in CASES:
        for x in (np.arange(-3, 4, dtype=np.int8), np.array([True, False]), np.arange(3, dtype=np.uint64), [1, 2], 3):
            y = call(case.fn, x)
            assert np.asarray(y).dtype == np.float64 and same(y, case.fn(np.asarray(x, dtype=np.float64))), (case.label, x)


@pytest.mark.parametrize("bad", [1 + 2j, np.array([1.0 + 0j]), "1.5", np.array(["2"]), None, [1.0, None], np.array([1.0], dtype=object)],
                         ids=["complex", "complex-array", "str", "str-array", "None", "list-None", "object"])
def test_non_real_inputs_are_refused(bad):
    for case in CASES:
        with pytest.raises(TypeError, match="real"):
            call(case.fn, bad)


# --- the torch face -------------------------------------------------------------

import torch  # noqa: E402  (a declared dependency of the test environment)

from gelu_lab import torch as gtorch  # noqa: E402

TORCH_DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32, "float64": torch.float64}


@pytest.mark.parametrize("dtype", list(DTYPES), ids=list(DTYPES))
@pytest.mark.parametrize("approximate", list(APPROX))
def test_torch_values_backward_and_double_backward_match_numpy(dtype, approximate):
    x = inputs(DTYPES[dtype], 1 << 13, np.random.default_rng(7))
    t = gtorch.from_numpy(x, torch.empty(0)).requires_grad_(True)
    y = call(gelu_lab.gelu, t, approximate)
    (g,) = torch.autograd.grad(y.sum(), t, create_graph=True)
    (g2,) = torch.autograd.grad(g.sum(), t)
    assert y.dtype == g.dtype == g2.dtype == TORCH_DTYPES[dtype]
    # with an upstream gradient of 1, backward is the derivative itself, bit for bit
    assert same(gtorch.to_numpy(y), gelu_lab.gelu(x, approximate))
    assert same(gtorch.to_numpy(g), gelu_lab.gelu_grad(x, approximate))
    assert same(gtorch.to_numpy(g2), gelu_lab.gelu_grad2(x, approximate))
    assert same(gtorch.to_numpy(gtorch.GELU(approximate)(t)), gelu_lab.gelu(x, approximate))


def test_torch_shapes_views_ints_and_out():
    t = torch.linspace(-4, 4, 24, dtype=torch.float32).reshape(4, 6)
    for v in (t.t(), t[1:, 1::2], t[0, 0], t[:0]):
        for f in (gelu_lab.gelu, gelu_lab.gelu_grad, gelu_lab.gelu_grad2):
            y = call(f, v)
            assert y.shape == v.shape and y.dtype == v.dtype  # 0-d stays 0-d
            assert same(gtorch.to_numpy(y), f(gtorch.to_numpy(v)))
    assert call(gelu_lab.gelu, torch.arange(3)).dtype == torch.float64
    out = torch.empty(4, 6)
    assert call(gelu_lab.gelu, t, out=out) is out and same(gtorch.to_numpy(out), gelu_lab.gelu(gtorch.to_numpy(t)))
    with pytest.raises(TypeError, match="real"):
        call(gelu_lab.gelu, torch.tensor([1 + 1j]))


@pytest.mark.parametrize("dtype", list(DTYPES), ids=list(DTYPES))
def test_torch_numpy_round_trip_keeps_every_bit(dtype):
    x = inputs(DTYPES[dtype], 1 << 12, np.random.default_rng(3))
    for a in (x, x[::3], x[5]):  # contiguous, strided, 0-d
        back = gtorch.to_numpy(gtorch.from_numpy(a, torch.empty(0)))
        assert back.dtype == a.dtype and back.shape == np.shape(a)
        assert np.array_equal(np.asarray(back).view(UINT[a.itemsize]), np.asarray(a).view(UINT[a.itemsize]))


# --- round_to_format against brute force ----------------------------------------


def nearest_by_search(y: np.ndarray, dtype) -> np.ndarray:
    """Round float64 y to a 16-bit format by search: the two neighbours in the
    sorted list of all its finite values, the nearer by exact distance, ties to
    the even bit pattern, beyond max + half an ulp to inf. Independent of formats.py."""
    u = np.arange(65536, dtype=np.uint16)
    with np.errstate(invalid="ignore"):  # ml_dtypes warns when it widens a bfloat16 nan
        v = u.view(dtype).astype(np.float64)
    keep = np.isfinite(v) & ~((v == 0) & np.signbit(v))
    v, u = v[keep], u[keep]
    order = np.argsort(v, kind="stable")
    v, u = v[order], u[order]
    fin = np.isfinite(y)
    yc = np.where(fin, y, 0.0)
    j = np.clip(np.searchsorted(v, yc, side="right"), 1, len(v) - 1)
    lo, hi = v[j - 1], v[j]
    dlo, dhi = yc - lo, hi - yc  # exact: lo and hi are multiples of y's ulp and within one 16-bit ulp
    take_hi = (dhi < dlo) | ((dhi == dlo) & (u[j] % 2 == 0))
    r = np.where(take_hi, hi, lo)
    top, step = v[-1], v[-1] - v[-2]  # max and its ulp: from max + ulp/2 on (a tie, max is odd) IEEE gives inf
    r = np.where(np.abs(yc) > top, np.where(np.abs(yc) >= top + step / 2, np.inf, top), np.abs(r))
    r = np.copysign(r, yc)  # |r| above; zeros keep the sign of y
    with np.errstate(invalid="ignore"):
        return np.where(fin, r, y).astype(dtype)


def round_inputs(dtype, n, rng) -> np.ndarray:
    """Random float64 bit patterns, the midpoints between neighbours of `dtype` and their float64 neighbours."""
    dtype = np.dtype(dtype)
    pat = rng.integers(0, np.iinfo(np.uint64).max, n, dtype=np.uint64, endpoint=True).view(np.float64)
    u = UINT[dtype.itemsize]
    a = rng.integers(0, np.iinfo(u).max, n, dtype=u, endpoint=True)
    with np.errstate(all="ignore"):
        lo, hi = a.view(dtype).astype(np.float64), (a + u(1)).view(dtype).astype(np.float64)
        mid = (lo + hi) / 2  # exact: at most 25 significant bits
        mid = mid[np.isfinite(mid)]
    near = np.concatenate([mid, np.nextafter(mid, np.inf), np.nextafter(mid, -np.inf)])
    scale = rng.normal(0, 1, n) * 2.0 ** rng.integers(-160, 20, n)  # every exponent a 16-bit format has
    return np.concatenate([pat, near, scale, specials(np.float64)])


@pytest.mark.parametrize("dtype", list(DTYPES), ids=list(DTYPES))
def test_round_to_format_is_correct_rounding(dtype):
    dt = DTYPES[dtype]
    y = round_inputs(dt, 1 << 16, np.random.default_rng(11))
    got = call(round_to_format, y, FORMATS[dtype])
    assert got.dtype == dt
    if dt.itemsize == 2:
        want = nearest_by_search(y, dt)
    else:
        with np.errstate(over="ignore", invalid="ignore"):
            want = y.astype(dt)  # IEEE casts to float32/float64 are correctly rounded by the hardware
    bad = np.flatnonzero(got.view(UINT[dt.itemsize]) != want.view(UINT[dt.itemsize]))
    bad = bad[~(np.isnan(y[bad]))]  # nan payloads may differ; nan-ness does not
    assert np.isnan(got.astype(np.float64)[np.isnan(y)]).all()
    assert bad.size == 0, f"{bad.size} wrong, e.g. y={y[bad[:3]].tolist()} got={got[bad[:3]]} want={want[bad[:3]]}"


# --- the comparison table ----------------------------------------------------------

@given(xs=st.lists(st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True), min_size=1, max_size=30),
       dtype=_dtype_strategy())
def test_comparison_table_any_floats(xs, dtype):
    rows = call(table.comparison_table, xs, dtype)
    assert len(rows) == len(xs) and all(list(r) == table.COLUMNS for r in rows)
    with np.errstate(over="ignore"):
        xd = np.asarray(xs, dtype=np.float64).astype(DTYPES[dtype]).astype(np.float64)
    for r, x in zip(rows, xd):
        assert same(r["x"], x)
        for err, approx in (("tanh_abs_err", "gelu_tanh"), ("sigmoid_abs_err", "gelu_sigmoid")):
            if r[approx] == r["gelu"]:  # equal values, equal infinities included: no error
                assert r[err] == 0.0
            else:
                assert r[err] == abs(r[approx] - r["gelu"]) or math.isnan(x)
        assert r["relu"] == max(x, 0.0) or (math.isnan(x) and math.isnan(r["relu"]))



@pytest.mark.parametrize("dtype", list(DTYPES), ids=list(DTYPES))
def test_signed_zeros_of_the_neighbours_follow_pytorch(dtype):
    """silu, elu, mish, leaky_relu keep the sign of a zero input, as torch.nn.functional does.

    (relu(-0) is +0 by the registry's convention; elsewhere torch is no
    reference: its silu and mish give nan at -inf and are not correctly rounded.)
    """
    from test_core_api import TORCH_FN

    x = np.array([0.0, -0.0]).astype(DTYPES[dtype])
    t = gtorch.from_numpy(x, torch.empty(0))
    for name in ("silu", "elu", "mish", "leaky_relu"):
        assert same(call(activations.get(name).fn, x), gtorch.to_numpy(TORCH_FN[name](t))), name
