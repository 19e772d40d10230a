"""The NumPy-ufunc-like contract of gelu_lab's functions, and the registry."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import gelu_lab
from gelu_lab import activations
from gelu_lab.floats import bfloat16

DTYPES = [np.float16, bfloat16, np.float32, np.float64]
FUNCS = [gelu_lab.gelu, gelu_lab.gelu_grad, gelu_lab.gelu_grad2]
APPROX = ["none", "tanh", "sigmoid"]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("f", FUNCS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("approximate", APPROX)
def test_dtype_kept_and_out(f, dtype, approximate):
    x = np.linspace(-4, 4, 9).astype(dtype)
    y = f(x, approximate)
    assert y.dtype == np.dtype(dtype) and y.shape == x.shape
    out = np.empty_like(x)
    r = f(x, approximate, out=out)
    assert r is out and np.array_equal(out.astype(np.float64), y.astype(np.float64))


def test_python_numbers_and_ints_are_float64():
    assert isinstance(gelu_lab.gelu(1.0), np.float64)
    assert gelu_lab.gelu([1, 2]).dtype == np.float64
    assert gelu_lab.gelu(np.arange(3)).dtype == np.float64
    assert np.isclose(gelu_lab.gelu(2), 2 * 0.9772498680518208)


@given(hnp.arrays(np.float64, hnp.array_shapes(max_dims=3, max_side=5), elements=st.floats(-50, 50)))
def test_broadcasting_and_non_contiguous(x):
    row = gelu_lab.gelu(x[..., :1])
    assert row.shape == x[..., :1].shape
    # a strided view gives the same values as a contiguous copy
    v = x[..., ::2]
    assert np.array_equal(gelu_lab.gelu(v), gelu_lab.gelu(np.ascontiguousarray(v)))
    b = gelu_lab.gelu(np.broadcast_to(x[..., :1], x.shape))
    assert b.shape == x.shape


@given(st.floats(-30, 30, allow_subnormal=False))
def test_odd_symmetry_gelu_minus_mirror_is_x(x):
    # GELU(x) - GELU(-x) = x (Phi(x) + Phi(-x) = 1), for exact and both approximations
    for a in APPROX:
        d = gelu_lab.gelu(x, a) - gelu_lab.gelu(-x, a)
        assert abs(d - x) <= 4e-16 * max(1.0, abs(x)), (a, x, d)


@given(st.floats(-8, 8))
def test_derivatives_are_finite_difference_limits(x):
    h = 1e-5
    for a in APPROX:
        fd1 = (gelu_lab.gelu(x + h, a) - gelu_lab.gelu(x - h, a)) / (2 * h)
        fd2 = (gelu_lab.gelu_grad(x + h, a) - gelu_lab.gelu_grad(x - h, a)) / (2 * h)
        assert abs(fd1 - gelu_lab.gelu_grad(x, a)) < 1e-8
        assert abs(fd2 - gelu_lab.gelu_grad2(x, a)) < 1e-8


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_no_exception_or_warning_on_any_float(dtype):
    specials = np.array([0, -0.0, np.inf, -np.inf, np.nan, 1e-300, -1e-300, 1e300, -1e300, 5e-324])
    with np.errstate(all="raise"):
        x = np.concatenate([specials, np.linspace(-1e4, 1e4, 101)])
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        x = x.astype(dtype)
    with np.errstate(all="raise"):
        for f in FUNCS:
            for a in APPROX:
                y = f(x, a).astype(np.float64)
                finite_in = np.isfinite(x.astype(np.float64))
                assert np.all(np.isfinite(y[finite_in])), (f.__name__, a)


def test_bad_approximate_is_a_value_error():
    with pytest.raises(ValueError, match="approximate"):
        gelu_lab.gelu(1.0, approximate="fast")


# --- the registry -----------------------------------------------------------

REQUIRED = ["gelu", "gelu_tanh", "gelu_sigmoid", "relu", "sigmoid", "silu", "elu", "softplus", "mish", "leaky_relu"]


def test_registry_has_the_required_names_with_labels_and_latex():
    from gelu_lab.app import content  # the display names are UI text: content/{zh,en}/activations.md

    assert set(REQUIRED) <= set(activations.names())
    for n in activations.names():
        a = activations.get(n)
        assert a.latex and content.text("zh", "activations")[n] and content.text("en", "activations")[n]


@pytest.mark.parametrize(
    "alias,name",
    [("gelu_new", "gelu_tanh"), ("gelu_fast", "gelu_tanh"), ("gelu_pytorch_tanh", "gelu_tanh"), ("quick_gelu", "gelu_sigmoid"), ("swish", "silu"), ("GELU", "gelu")],
)
def test_hugging_face_aliases(alias, name):
    assert activations.get(alias).name == name


def test_unknown_name_lists_the_valid_ones():
    with pytest.raises(ValueError) as e:
        activations.get("gleu")
    assert "relu" in str(e.value) and "gelu_new" in str(e.value)


import torch  # noqa: E402  (a declared dependency of the test environment)
TORCH_FN = {
    "gelu": lambda t: torch.nn.functional.gelu(t),
    "gelu_tanh": lambda t: torch.nn.functional.gelu(t, approximate="tanh"),
    "gelu_sigmoid": lambda t: t * torch.sigmoid(1.702 * t),
    "relu": torch.relu,
    "sigmoid": torch.sigmoid,
    "silu": torch.nn.functional.silu,
    "elu": torch.nn.functional.elu,
    "softplus": torch.nn.functional.softplus,
    "mish": torch.nn.functional.mish,
    "leaky_relu": torch.nn.functional.leaky_relu,
}


@pytest.mark.parametrize("name", REQUIRED)
def test_each_activation_and_derivatives_against_torch_autograd(name):
    """Value, first and second derivative against PyTorch's own ops + autograd (float64)."""
    x = np.concatenate([np.linspace(-6, 6, 241), [-0.3, 0.7]])
    x = x[np.abs(x) > 1e-9]  # kinks at 0 follow conventions, tested apart
    t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    y = TORCH_FN[name](t)
    (g,) = torch.autograd.grad(y.sum(), t, create_graph=True)
    (g2,) = torch.autograd.grad(g.sum(), t) if g.requires_grad else (torch.zeros_like(t),)
    a = activations.get(name)
    np.testing.assert_allclose(a.fn(x), y.detach().numpy(), rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(a.grad(x), g.detach().numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(a.grad2(x), g2.numpy(), rtol=1e-10, atol=1e-13)


def test_kink_conventions_follow_pytorch():
    z = np.array([0.0])
    assert activations.get("relu").grad(z)[0] == 0.0
    assert activations.get("leaky_relu").grad(z)[0] == 0.01
    assert activations.get("elu").grad(z)[0] == 1.0
    assert activations.get("relu").fn(np.array([-3.0]))[0] == 0 and not np.signbit(activations.get("relu").fn(np.array([-3.0]))[0])
