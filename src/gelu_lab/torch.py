"""PyTorch face of gelu_lab: the same functions on tensors, as real torch ops.

    gelu(t, approximate="none" | "tanh" | "sigmoid", *, out=None)   also gelu_grad, gelu_grad2
    geglu(a, b, approximate="none")                                  gelu(a) * b, one pass on a GPU
    gelu_lab.gelu(t), gelu_lab.gelu_grad(t), gelu_lab.gelu_grad2(t)  the same, from the package root
    GELU(approximate=...)                                            drop-in for torch.nn.GELU
    native(name)                                                     torch's own kernel of an activation
    swap(model, to) -> Swapped; restore(swapped)                     every GELU-like activation of a model

The ops ``torch.ops.gelu_lab.gelu``, ``gelu_grad`` and ``gelu_grad2`` (arguments
``x, approximate``) are registered with ``torch.library.Library``: fake
(meta) kernels, so ``torch.compile(fullgraph=True)``, ``torch.export`` and
meta tensors see them as single ops; autograd by ``register_autograd``: the
backward of ``gelu`` is ``grad * gelu_grad(x)``, that of ``gelu_grad`` uses
``gelu_grad2`` (double backward), that of ``gelu_grad2`` a float64 formula of
the third derivative rounded to x's format. The first two backwards are one
op, ``gelu_lab::gelu_backward(grad, x, approximate, order)``: grad times the
(order + 1)-th derivative, each rounded as the two ops round them (the
derivative to x's format, then the product), in one pass on a GPU; it has an
autograd of its own, for double backward.

Where the values come from:

- CPU tensors: the NumPy core (:mod:`gelu_lab.core`), on zero-copy NumPy views
  of the input and of the output it writes into (bfloat16 through an int16
  view). The exact form and its derivative are correctly rounded in float16,
  bfloat16 and float32.
- CUDA tensors of float16, bfloat16 and float32, where Triton is installed (the
  ``[gpu]`` extra): the Triton kernels of :mod:`gelu_lab.gpu`, correctly rounded on
  the GPU for every form and order (16-bit formats: a lookup of the core's 65 536
  values, so the core's bit for bit). Setting ``TRITON_ON_CPU`` (tests, under
  ``TRITON_INTERPRET=1``) sends CPU tensors there too.
- Other devices, float64, and CUDA without Triton: ``generic`` -- a float64
  evaluation with torch ops on the device, with a bound on its error; rounded once to the tensor's format where
  both ends of [value - bound, value + bound] round alike (then the true value
  rounds the same way); the few elements where they do not, and non-finite
  ones, are computed on the CPU by the core and written back. The results are
  the core's, bit for bit, in float16, bfloat16 and float32. float64 tensors
  get the float64 formula (within the bound below), its non-finite and
  sign-uncertain zero cases settled by the core. Setting ``GENERIC_ON_CPU``
  (tests) sends CPU tensors down this path too.

The bound (``_f64``): with u = 2^-53 and a "scale" M, the sum of the absolute
values of the formula's terms (so cancellation near a zero is covered),

    exact form (x Phi(x) = x erfc(-x/sqrt2)/2, Phi + x phi, (2 - x^2) phi):
        |error| <= (64 + 4 min(x^2, 1600)) u M + 2^-1000
    tanh and sigmoid forms (x sigmoid(z), z = 2k(x + c x^3) or 1.702 x):
        |error| <= (64 + 32 min(|z|, 800)) u M + 2^-1000

The x^2 and |z| terms are the condition numbers of erfc, exp and sigmoid at
their arguments (each computed to a few u relative); past |x| = 40 (|z| = 800)
the functions underflow to exactly 0 or saturate at exactly 1, so the
condition stops mattering; the constant 64 u covers the libraries' own errors
(CUDA's erfc is within 5 ulp), the few roundings of the formula and those of
the two ends; 2^-1000 covers float64 underflow and is far below the smallest
float32. ``test_the_bound_holds_against_mpmath`` checks it. Relative to a
float32 half-ulp (2^-25) the bound is below 2^-15: of normally distributed
inputs about one in 10^5 goes back to the CPU. So does every element whose
value underflows in float64 (|x| beyond about 38 for the exact form, 21 for
the tanh form, 440 for the sigmoid form; the second derivatives on both
sides): there only the core knows the sign of the zero it rounds to.

``NATIVE`` is the one table of the activations of :mod:`gelu_lab.activations`
as torch's own kernels (every one the pages show, and ReLU², identity, tanh, ReLU6,
hardswish of the others) (fast, not correctly rounded); the small Transformer,
the BERT probe's swaps, ``accuracy`` (``torch:NAME``) and ``bench`` build from it.
Importing this module needs torch; importing ``gelu_lab`` does not.
"""

from __future__ import annotations

import functools
import math
import sys
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from . import activations, kernels
from .core import APPROXIMATIONS, _apply, check_approximate
from .core import gelu as core_gelu
from .floats import FORMATS, bfloat16
from . import numerics as nm
from .numerics import SIGMOID_BETA, SQRT_2_OVER_PI, TANH_CUBIC

_TO_NUMPY = {torch.float16: np.float16, torch.float32: np.float32, torch.float64: np.float64}
_FORMAT = {torch.float16: "float16", torch.bfloat16: "bfloat16", torch.float32: "float32", torch.float64: "float64"}

# send CPU tensors down the generic (device) path, or through the Triton kernels under
# Triton's interpreter, as well: for tests of those paths
GENERIC_ON_CPU = False
TRITON_ON_CPU = False


def to_numpy(t: torch.Tensor) -> np.ndarray:
    """A CPU NumPy array of a float tensor in the same format (a view where the tensor is on the CPU and contiguous)."""
    t = t.detach().cpu().contiguous()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(bfloat16)
    if t.dtype in _TO_NUMPY:
        return t.numpy()
    return t.to(torch.float64).numpy()


def from_numpy(a: np.ndarray, like: torch.Tensor) -> torch.Tensor:
    """A tensor holding `a`, on like's device, in a's format."""
    a = np.ascontiguousarray(a).reshape(np.shape(a))  # ascontiguousarray makes 0-d arrays 1-d
    if a.dtype == bfloat16:
        t = torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
    else:
        t = torch.from_numpy(a)
    return t.to(like.device)


def _view(t: torch.Tensor) -> np.ndarray:
    """A NumPy view (no copy, any strides) of a CPU float tensor; bfloat16 through int16."""
    t = t.detach()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(bfloat16)
    return t.numpy()


def _on_cpu(x: torch.Tensor, order: int, approximate: str, out: torch.Tensor | None = None) -> torch.Tensor:
    """The core's values of a CPU tensor, written straight into out (x's shape and dtype; None: a new tensor)."""
    if out is None:
        out = torch.empty(x.shape, dtype=x.dtype)
    if x.numel():
        with kernels.threads(torch.get_num_threads()):  # torch's setting, as for its own ops
            _apply(_view(x), approximate, order, _view(out))
    return out


# --- the generic (device) path ---------------------------------------------------------

_U = 2.0**-53
_INV_SQRT2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def _z_terms(x: torch.Tensor, approximate: str):
    """z, z', z'', z''' of the x sigmoid(z) forms (tanh: z = 2k(x + c x^3), as 1 + tanh(w) = 2 sigmoid(2w))."""
    if approximate == "tanh":
        k2 = 2.0 * SQRT_2_OVER_PI
        xx = x * x
        return k2 * (x + TANH_CUBIC * xx * x), k2 * (1.0 + 3.0 * TANH_CUBIC * xx), (6.0 * k2 * TANH_CUBIC) * x, 6.0 * k2 * TANH_CUBIC
    return SIGMOID_BETA * x, SIGMOID_BETA, 0.0, 0.0


def _f64(x: torch.Tensor, approximate: str, order: int):
    """(y, bound): the order-th derivative of a GELU form at float64 x by torch ops, and a bound on its error."""
    if approximate == "none":
        xx = x * x
        if order == 0:
            y = x * 0.5 * torch.special.erfc(x * -_INV_SQRT2)
            scale = y.abs()
        elif order == 1:
            a = 0.5 * torch.special.erfc(x * -_INV_SQRT2)
            b = x * torch.exp(-0.5 * xx) * _INV_SQRT_2PI
            y, scale = a + b, a.abs() + b.abs()
        else:
            p = torch.exp(-0.5 * xx) * _INV_SQRT_2PI
            y, scale = (2.0 - xx) * p, (2.0 + xx) * p
        rel = (nm.BOUND_BASE + nm.BOUND_X2[0] * torch.clamp(xx, max=nm.BOUND_X2[1])) * _U
    else:
        z, dz, ddz, _ = _z_terms(x, approximate)
        s = torch.sigmoid(z)
        if order == 0:
            y = x * s
            scale = y.abs()
        else:
            ss = s * torch.sigmoid(-z)  # s(1 - s) without cancelling
            if order == 1:
                b = x * dz * ss
                y, scale = s + b, s + b.abs()
            else:
                t1, t2, t3 = 2.0 * dz, x * ddz, x * dz * dz
                y = ss * (t1 + t2 + t3 * (1.0 - 2.0 * s))
                scale = ss * (abs(t1) + t2.abs() + t3.abs())
        rel = (nm.BOUND_BASE + nm.BOUND_Z[0] * torch.clamp(z.abs(), max=nm.BOUND_Z[1])) * _U
    # the floor only where x != 0: at +-0 every formula here is exact (gelu(+-0) = +-0)
    return y, rel * scale + (x != 0).to(torch.float64) * nm.BOUND_FLOOR


def _third(x: torch.Tensor, approximate: str) -> torch.Tensor:
    """The third derivative of a GELU form at float64 x (the backward of gelu_grad2; torch ops, differentiable)."""
    if approximate == "none":
        d3 = x * (x * x - 4.0) * torch.exp(-0.5 * x * x) * _INV_SQRT_2PI
    else:
        z, dz, ddz, dddz = _z_terms(x, approximate)
        s = torch.sigmoid(z)
        ss = s * torch.sigmoid(-z)
        m = 1.0 - 2.0 * s
        b = 2.0 * dz + x * ddz + x * dz * dz * m
        db = 3.0 * ddz + x * dddz + m * (dz * dz + 2.0 * x * dz * ddz) - 2.0 * x * dz**3 * ss
        d3 = ss * (dz * m * b + db)
    return torch.where(x.abs() > 1e3, 0.0, d3)  # beyond: phi and s(1-s) underflow, x^3 may overflow


def _pow2(k: torch.Tensor) -> torch.Tensor:
    """2.0**k as float64, exactly, from the bits (k an integer tensor in [-1022, 1023])."""
    return ((k.to(torch.int64) + 1023) << 52).view(torch.float64)


def _round(y: torch.Tensor, fmt) -> torch.Tensor:
    """float64 y rounded once to `fmt` (nearest, ties to even), as float64 (then exactly convertible to fmt).

    Not y.to(dtype): torch converts float64 to float16 and bfloat16 through
    float32, which rounds twice. Finite y only; the sign of zero is kept; past
    the largest finite number, +-inf.
    """
    _, e = torch.frexp(y)  # |y| = m 2^e, 1/2 <= m < 1
    step = _pow2(torch.clamp(e.to(torch.int64) - 1, min=fmt.emin) - (fmt.p - 1))
    r = torch.copysign(torch.round(y / step) * step, y)
    return torch.where(r.abs() >= 2.0 ** (2 - fmt.emin), r * math.inf, r)  # past the largest finite (emax = 1 - emin): inf


def generic(x: torch.Tensor, approximate: str = "none", order: int = 0) -> torch.Tensor:
    """The order-th derivative of a GELU form on x's device: the float64 formula rounded once, the undecided settled by the core.

    Bit for bit the core's values for float16, bfloat16 and float32 (see the module docstring).
    """
    check_approximate(approximate)
    fmt = FORMATS[_FORMAT[x.dtype]]
    x64 = x.detach().to(torch.float64)
    y, bound = _f64(x64, approximate, order)
    if fmt.p == 53:
        flagged = ~torch.isfinite(y) | (y.abs() <= bound) & (x64 != 0)  # the sign of a near-zero is in doubt
        out = y
    else:
        lo, hi = _round(y - bound, fmt), _round(y + bound, fmt)
        flagged = ~torch.isfinite(y) | (lo != hi) | (torch.signbit(lo) != torch.signbit(hi))
        out = lo.to(x.dtype)
    flagged |= ~torch.isfinite(x64)
    out = out.contiguous()
    idx = flagged.reshape(-1).nonzero().squeeze(1)
    if idx.numel():  # rare: settle them with the core on the CPU
        out.view(-1)[idx] = _on_cpu(x.detach().reshape(-1)[idx].cpu(), order, approximate).to(out.device)
    return out


# --- the ops ---------------------------------------------------------------------------


def _triton_path(x: torch.Tensor) -> bool:
    """Whether x goes to gelu_lab.gpu's Triton kernels: CUDA (or TRITON_ON_CPU), a 16- or 32-bit float, Triton there."""
    if x.dtype not in (torch.float16, torch.bfloat16, torch.float32):
        return False
    if not (x.device.type == "cuda" or x.device.type == "cpu" and TRITON_ON_CPU):
        return False
    return _gpu() is not None


@functools.cache
def _gpu():
    """gelu_lab.gpu, or None where Triton is not installed (imported on the first GPU tensor: Triton takes a second)."""
    from . import gpu

    return gpu if gpu.available() is None else None


@functools.cache
def _table16(approximate: str, order: int, dtype: torch.dtype, device: str) -> torch.Tensor:
    """The core's values at all 65 536 bit patterns of a 16-bit format, as int16 on `device` (the GPU's lookup)."""
    fmt = FORMATS[_FORMAT[dtype]]
    values = _apply(np.arange(65536, dtype=np.uint16).view(fmt.dtype), approximate, order, None)
    return torch.from_numpy(np.ascontiguousarray(values).view(np.int16)).to(device)


def _on_gpu(x: torch.Tensor, order: int, approximate: str, grad=None, out=None) -> torch.Tensor:
    table = _table16(approximate, order, x.dtype, str(x.device)) if x.dtype != torch.float32 else None
    return _gpu().apply(x, approximate, order, table, grad=grad, out=out)


def _kernel(order: int):
    def kernel(x: torch.Tensor, approximate: str = "none") -> torch.Tensor:
        check_approximate(approximate)
        if _triton_path(x):
            return _on_gpu(x, order, approximate)
        if x.device.type == "cpu" and not GENERIC_ON_CPU:
            return _on_cpu(x, order, approximate)
        if x.device.type == "mps":  # no float64 there: through the CPU
            return _on_cpu(x.cpu(), order, approximate).to(x.device)
        return generic(x, approximate, order)

    kernel.__name__ = ("gelu", "gelu_grad", "gelu_grad2")[order]
    return kernel


# Registered with torch.library.Library's define and impl rather than torch.library.custom_op: the same
# op to the dispatcher, compile and export, without custom_op's per-call Python wrappers (its aliasing
# checks and disabled-Dynamo frame cost as much as a small tensor's GELU; pytorch/pytorch#139500)
_LIB = torch.library.Library("gelu_lab", "DEF")
_PT2 = (torch.Tag.pt2_compliant_tag,)
_KERNELS = [_kernel(order) for order in range(3)]
for _k in _KERNELS:
    _LIB.define(f"{_k.__name__}(Tensor x, str approximate='none') -> Tensor", tags=_PT2)
    _LIB.impl(_k.__name__, _k, "CompositeExplicitAutograd")
_OPS = [getattr(torch.ops.gelu_lab, k.__name__).default for k in _KERNELS]


def _fake(x: torch.Tensor, approximate: str = "none") -> torch.Tensor:
    check_approximate(approximate)
    return x.new_empty(x.shape)


def _backward_kernel(grad: torch.Tensor, x: torch.Tensor, approximate: str = "none", order: int = 0) -> torch.Tensor:
    """grad * the (order + 1)-th derivative at x, each rounded as the two ops round them: on the GPU in one pass."""
    if grad.shape == x.shape and grad.dtype == x.dtype and _triton_path(x):
        return _on_gpu(x, order + 1, approximate, grad=grad)
    d = _KERNELS[order + 1](x, approximate)  # below autograd already: the kernel, not the op again
    if d.shape == grad.shape and d.dtype == grad.dtype:
        return d.mul_(grad)  # d is ours alone (contiguous): no third tensor to allocate (and page in, if large)
    return (grad * d).contiguous()  # the layout _backward_fake says


# the backward of gelu (order 0) and of gelu_grad (order 1) as one op, so that a GPU reads x and grad once
_LIB.define("gelu_backward(Tensor grad, Tensor x, str approximate='none', int order=0) -> Tensor", tags=_PT2)
_LIB.impl("gelu_backward", _backward_kernel, "CompositeExplicitAutograd")
_BACKWARD = torch.ops.gelu_lab.gelu_backward.default


@torch.library.register_fake("gelu_lab::gelu_backward", lib=_LIB)
def _backward_fake(grad, x, approximate="none", order=0):
    check_approximate(approximate)
    # contiguous, as every path of the kernel returns it, whatever grad's and x's strides
    return torch.empty(torch.broadcast_shapes(grad.shape, x.shape), dtype=torch.result_type(grad, x), device=x.device)


def _setup_context(ctx, inputs, output):
    x, approximate = inputs
    ctx.save_for_backward(x)
    ctx.approximate = approximate


def _backward(order: int):
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        if order < 2:
            return _BACKWARD(grad, x, ctx.approximate, order), None
        return grad * _third(x.to(torch.float64), ctx.approximate).to(x.dtype), None

    return backward


for _order, _op in enumerate(_OPS):
    torch.library.register_fake(_op, _fake, lib=_LIB)
    torch.library.register_autograd(_op, _backward(_order), setup_context=_setup_context, lib=_LIB)


def _backward_setup(ctx, inputs, output):
    grad, x, approximate, order = inputs
    ctx.save_for_backward(grad, x)
    ctx.approximate, ctx.order = approximate, order


def _backward_backward(ctx, up):
    """d/dgrad = the (order + 1)-th derivative; d/dx = grad times the (order + 2)-th."""
    grad, x = ctx.saved_tensors
    a, order = ctx.approximate, ctx.order
    d_grad = _BACKWARD(up, x, a, order) if ctx.needs_input_grad[0] else None
    d_x = None
    if ctx.needs_input_grad[1]:
        g = up * grad
        d_x = _BACKWARD(g, x, a, order + 1) if order == 0 else g * _third(x.to(torch.float64), a).to(x.dtype)
    return d_grad, d_x, None, None


torch.library.register_autograd(_BACKWARD, _backward_backward, setup_context=_backward_setup, lib=_LIB)


# GEGLU's product as one op: GELU(a) rounded to a's format, times b, rounded once -- the bits of
# gelu(a) * b; on a GPU one pass over a and b (the kernels' grad * value, which rounds the same way),
# after a copy of either where it is not contiguous (the halves of h.chunk(2, -1) are not)
def _check_pair(a: torch.Tensor, b: torch.Tensor) -> None:
    def what():
        return (f"geglu: a and b must have the same shape, dtype and device, got {tuple(a.shape)} {a.dtype} {a.device} "
                f"and {tuple(b.shape)} {b.dtype} {b.device}")

    if a.dtype != b.dtype or a.device != b.device or a.dim() != b.dim():
        raise RuntimeError(what())
    for sa, sb in zip(a.shape, b.shape):
        torch._check(sa == sb, what)  # as a guard on symbolic sizes (compile, export), not a Python bool


def _geglu_kernel(a: torch.Tensor, b: torch.Tensor, approximate: str = "none") -> torch.Tensor:
    check_approximate(approximate)
    _check_pair(a, b)
    if _triton_path(a):
        return _on_gpu(a, 0, approximate, grad=b)
    return _KERNELS[0](a, approximate).mul_(b)  # a new tensor of ours: the product in place


def _geglu_fake(a, b, approximate="none"):
    check_approximate(approximate)
    _check_pair(a, b)
    return torch.empty(a.shape, dtype=a.dtype, device=a.device)


def _geglu_setup(ctx, inputs, output):
    a, b, approximate = inputs
    ctx.save_for_backward(a, b)
    ctx.approximate = approximate


def _geglu_backward(ctx, up):
    """d/da = (up * b) GELU'(a), d/db = up GELU(a): torch's rounding of the unfused ops, by ops that have backwards of their own."""
    a, b = ctx.saved_tensors
    d_a = _BACKWARD(up * b, a, ctx.approximate, 0) if ctx.needs_input_grad[0] else None
    d_b = _GEGLU(a, up, ctx.approximate) if ctx.needs_input_grad[1] else None
    return d_a, d_b, None


_LIB.define("geglu(Tensor a, Tensor b, str approximate='none') -> Tensor", tags=_PT2)
_LIB.impl("geglu", _geglu_kernel, "CompositeExplicitAutograd")
_GEGLU = torch.ops.gelu_lab.geglu.default
torch.library.register_fake(_GEGLU, _geglu_fake, lib=_LIB)
torch.library.register_autograd(_GEGLU, _geglu_backward, setup_context=_geglu_setup, lib=_LIB)


def geglu(a: torch.Tensor, b: torch.Tensor, approximate: str = "none") -> torch.Tensor:
    """GEGLU's gated product GELU(a) * b (Shazeer 2020: GELU(x W) * (x V)), bit for bit ``gelu(a) * b``.

    a, b: the same shape, dtype and device (integers are taken as float64, as :func:`gelu` takes them).
    GELU(a) is this module's (correctly rounded in the exact form), rounded to a's format, then
    multiplied by b and rounded once, as the two ops round. On a GPU, one pass over a and b where
    both are contiguous; the halves of one projection (``a, b = h.chunk(2, -1)``) are not, and are
    copied first. With autograd (and double backward).
    """
    if a.is_complex() or b.is_complex():
        raise TypeError(f"expected real numbers, got tensors of {a.dtype} and {b.dtype}")
    a, b = (t if t.is_floating_point() else t.to(torch.float64) for t in (a, b))
    check_approximate(approximate)
    return _GEGLU(a, b, approximate)


def apply(x: torch.Tensor, approximate: str, order: int, out=None) -> torch.Tensor:
    """Value (order 0), derivative (1) or second derivative (2) of a GELU form, by the ops above."""
    if x.is_complex():
        raise TypeError(f"expected real numbers, got a tensor of {x.dtype}")
    if not x.is_floating_point():
        x = x.to(torch.float64)
    check_approximate(approximate)
    if out is not None:
        if torch.is_grad_enabled() and (x.requires_grad or out.requires_grad):
            raise RuntimeError("out= does not support automatic differentiation (as torch's own ops)")
        if _into_out(x, out):  # no result tensor to allocate (page faults for a large one) and copy
            if _triton_path(x):
                _on_gpu(x, order, approximate, out=out)
            else:
                _on_cpu(x, order, approximate, out)
            torch.autograd.graph.increment_version(out)  # written by the kernel: autograd must still see the write
            return out
        y = _OPS[order](x, approximate)
        if not torch.can_cast(y.dtype, out.dtype):
            raise RuntimeError(f"result type {y.dtype} can't be cast to the desired output type {out.dtype}")
        if out.shape != y.shape:
            out.resize_(y.shape)
        return out.copy_(y)
    return _OPS[order](x, approximate)


def _into_out(x: torch.Tensor, out: torch.Tensor) -> bool:
    """Whether out= can be written by the kernel itself (the CPU's, or the GPU's Triton kernels)
    rather than through the op: eager (a compiled graph keeps the op), plain tensors (a subclass,
    FakeTensor among them, has no data to write), on one device, out of x's shape and dtype,
    contiguous, and not an inference tensor (whose writes torch checks: copy_ refuses them
    outside inference mode)."""
    return (type(x) is torch.Tensor and type(out) is torch.Tensor and not out.is_inference()
            and x.device == out.device and (_triton_path(x) or x.device.type == "cpu" and not GENERIC_ON_CPU)
            and out.dtype == x.dtype and out.shape == x.shape and out.is_contiguous()
            and not torch.compiler.is_compiling())


def gelu(x: torch.Tensor, approximate: str = "none", *, out: torch.Tensor | None = None) -> torch.Tensor:
    """GELU of a tensor (torch.nn.functional.gelu's signature, plus "sigmoid" and out=); correctly rounded exact form."""
    return apply(x, approximate, 0, out)


def gelu_grad(x: torch.Tensor, approximate: str = "none", *, out: torch.Tensor | None = None) -> torch.Tensor:
    """dGELU/dx of a tensor, with autograd (its backward uses gelu_grad2)."""
    return apply(x, approximate, 1, out)


def gelu_grad2(x: torch.Tensor, approximate: str = "none", *, out: torch.Tensor | None = None) -> torch.Tensor:
    """d2GELU/dx2 of a tensor, with autograd (its backward: the third derivative in float64)."""
    return apply(x, approximate, 2, out)


class GELU(nn.Module):
    """Drop-in for torch.nn.GELU, correctly rounded in the exact form.

    approximate: "none" (x Phi(x)), "tanh" or "sigmoid" (x sigmoid(1.702 x)).
    """

    def __init__(self, approximate: str = "none"):
        super().__init__()
        check_approximate(approximate)
        self.approximate = approximate

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return apply(x, self.approximate, 0)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


def sigmoid_form(x: torch.Tensor, *, out: torch.Tensor | None = None) -> torch.Tensor:
    """x sigmoid(1.702 x) by torch's own kernels (Hugging Face ``quick_gelu``).

    out: a tensor of x's shape and dtype to write into (and to use for the
    intermediate sigmoid), for timing without allocation.
    """
    if out is None:
        return x * torch.sigmoid(SIGMOID_BETA * x)
    return torch.mul(x, torch.sigmoid(torch.mul(x, SIGMOID_BETA, out=out), out=out), out=out)


class SigmoidGELU(nn.Module):
    """x sigmoid(1.702 x), the sigmoid form of GELU, by torch's own kernels."""

    def forward(self, x):
        return sigmoid_form(x)


class ReLU2(nn.Module):
    """max(0, x)² (modded-nanogpt's FFN activation), by torch's own kernels."""

    def forward(self, x):
        return torch.square(torch.relu(x))


# canonical names of gelu_lab.activations -> a factory of torch's own nn.Module
NATIVE = {
    "gelu": lambda: nn.GELU(),
    "gelu_tanh": lambda: nn.GELU(approximate="tanh"),
    "gelu_sigmoid": SigmoidGELU,
    "relu": nn.ReLU,
    "sigmoid": nn.Sigmoid,
    "silu": nn.SiLU,
    "elu": nn.ELU,
    "softplus": nn.Softplus,
    "mish": nn.Mish,
    "leaky_relu": lambda: nn.LeakyReLU(0.01),  # activations.LEAKY_SLOPE
    "relu2": ReLU2,
    "linear": nn.Identity,  # the bilinear gated FFN's "activation"
    "tanh": nn.Tanh,
    "relu6": nn.ReLU6,
    "hardswish": nn.Hardswish,
}


def native(name: str) -> nn.Module:
    """A new nn.Module computing activation `name` (a canonical registry name) by torch's own kernels."""
    if name not in NATIVE:
        raise ValueError(f"no torch form of {name!r}; choose from {', '.join(NATIVE)}")
    return NATIVE[name]()


# --- swapping the activations of a model -----------------------------------------------


class _RegistryFunction(torch.autograd.Function):
    """A registry activation through its NumPy functions (value and first derivative)."""

    @staticmethod
    def forward(ctx, x, name):
        ctx.save_for_backward(x)
        ctx.name = name
        return from_numpy(np.asarray(activations.get(name).fn(to_numpy(x))), x)

    @staticmethod
    def backward(ctx, dy):
        (x,) = ctx.saved_tensors
        return dy * from_numpy(np.asarray(activations.get(ctx.name).grad(to_numpy(x))), x), None


class Registry(nn.Module):
    """An activation of gelu_lab.activations that torch has no kernel of in NATIVE (computed through NumPy)."""

    def __init__(self, name: str):
        super().__init__()
        self.name = activations.canonical(name)

    def forward(self, x):
        return _RegistryFunction.apply(x, self.name)

    def extra_repr(self) -> str:
        return repr(self.name)


# transformers.activations class name -> GELU form ("gelu_10", ClippedGELUActivation, clips: not a GELU)
_HF_FORMS = {
    "GELUActivation": "none",
    "NewGELUActivation": "tanh",
    "FastGELUActivation": "tanh",
    "AccurateGELUActivation": "tanh",
    "GELUTanh": "tanh",
    "PytorchGELUTanh": "tanh",
    "QuickGELUActivation": "sigmoid",
}


def _function_form(f) -> str | None:
    """The form of a GELU function an attribute may hold: torch's, gelu_lab's (the package root's wraps core's)."""
    if f is torch.nn.functional.gelu or f is gelu or getattr(f, "__wrapped__", None) is core_gelu:
        return "none"
    return "sigmoid" if f is sigmoid_form else None


def gelu_form(obj) -> str | None:
    """The GELU form ("none", "tanh", "sigmoid") of an activation module or function, None if it is not a GELU."""
    if isinstance(obj, (nn.GELU, GELU)):
        return obj.approximate
    if isinstance(obj, SigmoidGELU):
        return "sigmoid"
    hf = sys.modules.get("transformers.activations")  # a transformers module exists only if transformers is imported
    if hf is not None and isinstance(obj, nn.Module):
        for cls in type(obj).__mro__:
            if cls.__module__ == hf.__name__ and cls.__name__ in _HF_FORMS:
                return _HF_FORMS[cls.__name__]
    if isinstance(obj, functools.partial) and not obj.args:
        form = _function_form(obj.func)
        if form is not None and set(obj.keywords) <= {"approximate"}:
            return obj.keywords.get("approximate", form)
        return None
    if callable(obj) and not isinstance(obj, nn.Module):
        return _function_form(obj)
    return None


def replacement(to: str | nn.Module, form: str = "none") -> nn.Module:
    """The module that replaces a GELU of `form`: "gelu_lab" (the same form, by the gelu_lab op),
    "none" / "tanh" / "sigmoid" (that form, by the gelu_lab op: GELU's `approximate` values,
    so not the registry's tanh and logistic sigmoid -- pass nn.Tanh() or nn.Sigmoid() for
    those), a registry name or alias (torch's own kernel from NATIVE, else gelu_lab's
    Registry), or a module (itself)."""
    if isinstance(to, nn.Module):
        return to
    key = str(to).strip().lower()
    if key == "gelu_lab":
        return GELU(form)
    if key in APPROXIMATIONS:
        return GELU(key)
    name = activations.canonical(to)
    return native(name) if name in NATIVE else Registry(name)


@dataclass(frozen=True)
class Replaced:
    """One swapped site: owner.<name> held `old` (of GELU form `form`) and now holds `new`."""

    owner: nn.Module
    name: str
    old: object
    new: nn.Module
    form: str
    path: str


class Swapped(list):
    """What swap() replaced (a list of Replaced); restore(swapped) or swap(model, swapped) puts it back."""


def _set(owner: nn.Module, name: str, value) -> None:
    """owner.<name> = value, moving the name between child modules and plain attributes as needed."""
    if isinstance(value, nn.Module):
        owner.__dict__.pop(name, None)
        owner._modules[name] = value
    else:
        owner._modules.pop(name, None)
        object.__setattr__(owner, name, value)


# owner.<_SITES> = {name: GELU form}: the sites swap() has replaced on that module, so that they
# stay sites whatever they hold now (swap to ReLU, then back to GELU). A plain attribute whose
# name starts with "_": neither a child module nor state_dict, and never scanned as a site.
_SITES = "_gelu_lab_swapped_sites"

LOOKED_FOR = ("torch.nn.GELU, gelu_lab's GELU and SigmoidGELU, transformers' GELU activations "
              f"({', '.join(_HF_FORMS)}), attributes holding F.gelu or gelu_lab.gelu, "
              "and sites an earlier swap() replaced")


def sites(model: nn.Module) -> list[tuple[str, nn.Module, str, object, str]]:
    """Every site swap() replaces: (path, owner, name, object now there, GELU form), a site
    being a GELU-like activation or a place an earlier swap() replaced (with its first form)."""
    found = []
    for path, owner in list(model.named_modules()):
        if gelu_form(owner) is not None:
            continue  # a GELU's own insides (none in practice) belong to it
        swapped = vars(owner).get(_SITES, {})
        for name, obj in list(owner._modules.items()) + [(k, v) for k, v in vars(owner).items() if not k.startswith("_")]:
            form = swapped.get(name) or (gelu_form(obj) if obj is not None else None)
            if form is not None:
                found.append((f"{path}.{name}" if path else name, owner, name, obj, form))
    return found


def swap(model: nn.Module, to) -> Swapped:
    """Replace every GELU-like activation of `model` by `to`; returns what was replaced.

    Found: torch.nn.GELU, gelu_lab's GELU and SigmoidGELU, transformers' GELU
    activation modules (GELUActivation, NewGELUActivation, FastGELUActivation,
    AccurateGELUActivation, GELUTanh, PytorchGELUTanh, QuickGELUActivation;
    not ClippedGELUActivation, which clips), and attributes holding a GELU
    function (``intermediate_act_fn = F.gelu``, a partial of it with
    ``approximate``, gelu_lab's gelu). A site swap() replaced stays a site: swap
    it again to anything, back to GELU included (a name then takes the site's
    first GELU form). `to`: see ``replacement``; a new module per site for a name,
    the same module everywhere for a module. A Swapped record as `to` restores it
    (as ``restore``). Swapping back restores the model's outputs bit for bit: the
    original objects are put back. ValueError when the model has no site.
    """
    if isinstance(to, list) and all(isinstance(r, Replaced) for r in to):
        restore(to)
        return Swapped()
    found = sites(model)
    if not found:
        raise ValueError(f"swap: no GELU-like activation in {type(model).__name__}; looked for {LOOKED_FOR}")
    done = Swapped()
    for path, owner, name, obj, form in found:
        new = replacement(to, form)
        _set(owner, name, new)
        vars(owner).setdefault(_SITES, {})[name] = form
        done.append(Replaced(owner, name, obj, new, form, path))
    return done


def restore(swapped: list) -> None:
    """Put back what swap() replaced (a Swapped, or any list of its Replaced; last replaced first)."""
    for r in reversed(swapped):
        _set(r.owner, r.name, r.old)


swap_back = restore
