"""PyTorch face of gelu_lab: the same functions on tensors, with autograd.

    gelu_lab.gelu(t), gelu_lab.gelu_grad(t), gelu_lab.gelu_grad2(t)  (tensors in, tensors out)
    gelu_lab.torch.GELU(approximate="none" | "tanh" | "sigmoid")      drop-in for torch.nn.GELU
    gelu_lab.torch.native(name)                                       torch's own kernel of an activation

Values are computed by the NumPy core (so the exact form is correctly rounded
in float32, bfloat16 and float16) on the CPU and returned on the tensor's
device. The backward of ``gelu`` is ``grad_out * gelu_grad(x)`` and the
backward of that uses ``gelu_grad2``, so double backward works too.

``NATIVE`` is the one table of every activation of :mod:`gelu_lab.activations`
as torch's own kernels (fast, not correctly rounded); the small Transformer,
the BERT probe's swaps, ``accuracy`` (``torch:NAME``) and ``bench`` build from it.
Importing this module needs torch; importing ``gelu_lab`` does not.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from .core import _apply, check_approximate
from .floats import bfloat16
from .numerics import SIGMOID_BETA

_TO_NUMPY = {torch.float16: np.float16, torch.float32: np.float32, torch.float64: np.float64}


def to_numpy(t: torch.Tensor) -> np.ndarray:
    """A CPU copy of a float tensor as a NumPy array of the same format."""
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


def _values(x: torch.Tensor, approximate: str, order: int) -> torch.Tensor:
    return from_numpy(np.asarray(_apply(to_numpy(x), approximate, order, None)), x)


class _Derivative(torch.autograd.Function):
    """The order-th derivative of a GELU form (order 0: the value); its backward is the next order's."""

    @staticmethod
    def forward(ctx, x, approximate, order):
        ctx.save_for_backward(x)
        ctx.approximate, ctx.order = approximate, order
        return _values(x, approximate, order)

    @staticmethod
    def backward(ctx, dy):
        (x,) = ctx.saved_tensors
        return dy * apply(x, ctx.approximate, ctx.order + 1), None, None


def apply(x: torch.Tensor, approximate: str, order: int, out=None) -> torch.Tensor:
    """Value (order 0), derivative (1) or second derivative (2) of a GELU form."""
    if x.is_complex():
        raise TypeError(f"expected real numbers, got a tensor of {x.dtype}")
    if not x.is_floating_point():
        x = x.to(torch.float64)
    # the second derivative has no backward: GELU''' is not provided
    y = _Derivative.apply(x, approximate, order) if order < 2 else _values(x, approximate, 2)
    if out is not None:
        out.copy_(y)
        return out
    return y


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
}


def native(name: str) -> nn.Module:
    """A new nn.Module computing activation `name` (a canonical registry name) by torch's own kernels."""
    if name not in NATIVE:
        raise ValueError(f"no torch form of {name!r}; choose from {', '.join(NATIVE)}")
    return NATIVE[name]()
