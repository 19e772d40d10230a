"""The public GELU functions: exact, tanh and sigmoid forms, and derivatives.

    gelu(x, approximate="none" | "tanh" | "sigmoid", *, out=None)
    gelu_grad(x, approximate=..., *, out=None)      dGELU/dx
    gelu_grad2(x, approximate=..., *, out=None)     d2GELU/dx2

NumPy-ufunc-like: broadcasting; float16, bfloat16, float32 and float64 inputs
keep their dtype; Python numbers, lists, bool and integer arrays compute in
float64; complex, text and object inputs raise TypeError;
``out=`` is filled and returned; nan and inf follow IEEE rules and no float
input raises. A ``torch.Tensor`` input is handed to :mod:`gelu_lab.torch` and
returns a tensor with autograd: the package's own ``gelu_lab.gelu`` hands
it to :mod:`gelu_lab.torch`; this module is NumPy only and refuses tensors.

Accuracy (exact form): ``gelu`` and ``gelu_grad`` are correctly rounded
(nearest-even) for every float16, bfloat16 and float32 input, signed zeros and
infinities included; float64 is within 2 ulp (tests/test_core_accuracy.py::
test_float64_within_bound). The approximations and ``gelu_grad2`` are evaluated in float64 and
rounded once, so they are within one ulp of the float64 value of their formula
and never overflow or produce nan for a finite input.
"""

from __future__ import annotations

import functools

import numpy as np

from . import forks  # noqa: F401  (its at-fork hook must be in place before a program forks)
from . import numerics as nm
from .floats import FORMATS, format_of, is_format, round_known, round_to_format

APPROXIMATIONS = ("none", "tanh", "sigmoid")
_F64_ULP = 2.0**-52

_F64 = {
    ("none", 0): nm.gelu_exact,
    ("none", 1): nm.gelu_exact_grad,
    ("none", 2): nm.gelu_exact_grad2,
    ("tanh", 0): nm.gelu_tanh,
    ("tanh", 1): nm.gelu_tanh_grad,
    ("tanh", 2): nm.gelu_tanh_grad2,
    ("sigmoid", 0): nm.gelu_sigmoid,
    ("sigmoid", 1): nm.gelu_sigmoid_grad,
    ("sigmoid", 2): nm.gelu_sigmoid_grad2,
}

# reference names of the functions that are correctly rounded
_CORRECT = {("none", 0): "gelu", ("none", 1): "gelu_grad"}


def is_tensor(x) -> bool:
    return type(x).__module__.startswith("torch") and hasattr(x, "requires_grad")


def check_approximate(approximate: str) -> None:
    if approximate not in APPROXIMATIONS:
        raise ValueError(
            f"approximate must be one of {', '.join(map(repr, APPROXIMATIONS))}, got {approximate!r}"
        )


def as_float_array(x) -> np.ndarray:
    """x as an array of a float dtype: float formats kept, bool/int/other floats as float64.

    Complex, text and object inputs raise TypeError (NumPy's ufuncs refuse them too).
    """
    a = np.asarray(x)
    if is_format(a.dtype) or a.dtype.name in FORMATS:  # the name: a byte-swapped float32 is float32 too
        return a
    if a.dtype.kind not in "biuf":  # complex would lose its imaginary part, text would be parsed
        raise TypeError(f"expected real numbers, got an array of {a.dtype}")
    return a.astype(np.float64)


@functools.cache
def table16(name: str, dtype_name: str) -> np.ndarray:
    """All 65 536 correctly rounded outputs of `name` for a 16-bit format."""
    from .reference import correctly_rounded

    fmt = FORMATS[dtype_name]
    x = np.arange(65536, dtype=np.uint16).view(fmt.dtype)
    return correctly_rounded(name, x)


def _float32(name: str, x: np.ndarray, out: np.ndarray | None) -> np.ndarray:
    """Correctly rounded float32 `name`(x): the kernel's values, its undecided inputs settled by the reference.

    `out`: a C-contiguous float32 array of x's shape to write into (returned).
    """
    from .kernels import raw_f32

    shape = np.shape(x)
    flat = np.ascontiguousarray(x, dtype=np.float32).ravel()
    y, idx = raw_f32(name, flat, out)
    if idx.size:
        from .reference import correctly_rounded

        y[idx] = correctly_rounded(name, flat[idx])
    return y.reshape(shape) if out is None else out


def _evaluate(x: np.ndarray, approximate: str, order: int, out=None) -> np.ndarray:
    """`out`, if given, is where the float32 kernels and 16-bit lookups may write (C-contiguous, x's shape and dtype)."""
    key = (approximate, order)
    fmt = format_of(x.dtype)
    if key in _CORRECT:
        name = _CORRECT[key]
        if fmt.p <= 11:  # float16, bfloat16: table lookup by bit pattern
            from .kernels import lookup16

            return lookup16(table16(name, fmt.name), x, out)
        if fmt.name == "float32":
            return _float32(name, x, out)
    with np.errstate(all="ignore"):
        xf = x.astype(np.float64)
        y = _F64[key](xf)
        if order == 0 and fmt.p < 53:  # near 0 every form is x/2 plus a hair: a tie at x/2 rounds up
            return round_known(y, 4 * _F64_ULP, fmt, up_where=np.abs(xf) < nm.TINY)[0]
        return round_to_format(y, fmt)


def _apply(x, approximate: str, order: int, out):
    check_approximate(approximate)
    if is_tensor(x):
        raise TypeError("use gelu_lab.gelu or gelu_lab.torch for tensors")
    a = as_float_array(x)
    if out is not None and (a.shape != out.shape or a.dtype != out.dtype):
        a = np.broadcast_to(a, np.shape(out)).astype(out.dtype, copy=False)
    # a kernel may write straight into a contiguous out that is not also the input
    # (_evaluate hands it on only where it can: the float32 kernels and the 16-bit lookups)
    direct = out is not None and out.flags.c_contiguous and not np.may_share_memory(a, out)
    y = _evaluate(np.ascontiguousarray(a), approximate, order, out if direct else None)
    if out is not None:
        if y is not out:
            out[...] = y.reshape(a.shape)
        return out
    y = y.reshape(a.shape)
    return y if y.ndim else y[()]


def gelu(x, approximate: str = "none", *, out=None):
    """GELU(x) = x Phi(x) (Hendrycks & Gimpel 2016), or one of its approximations.

    approximate="none": x Phi(x), correctly rounded for float16/bfloat16/float32.
    approximate="tanh": 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
    approximate="sigmoid": x sigmoid(1.702 x).
    Domain: all floats. GELU(+inf) = +inf, GELU(-inf) = -0, GELU(nan) = nan.
    """
    return _apply(x, approximate, 0, out)


def gelu_grad(x, approximate: str = "none", *, out=None):
    """dGELU/dx; exact form Phi(x) + x phi(x), correctly rounded below float64.

    GELU'(0) = 0.5, GELU'(+inf) = 1, GELU'(-inf) = -0; zero at x = -0.75179...
    """
    return _apply(x, approximate, 1, out)


def gelu_grad2(x, approximate: str = "none", *, out=None):
    """d2GELU/dx2; exact form (2 - x^2) phi(x), zeros at +-sqrt(2)."""
    return _apply(x, approximate, 2, out)
