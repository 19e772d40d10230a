"""GELU Lab: the GELU activation, correctly rounded, explained and measured.

    >>> import gelu_lab
    >>> float(gelu_lab.gelu(2.0))
    1.9544997361036416

``gelu``, ``gelu_grad`` and ``gelu_grad2`` take NumPy-like inputs (computed by
:mod:`gelu_lab.core`) and ``torch.Tensor`` inputs (handed to
:mod:`gelu_lab.torch`, with autograd). See :mod:`gelu_lab.activations` for the
registry of GELU and its neighbours.
"""

import functools

from . import core
from .core import APPROXIMATIONS

__version__ = "0.1.0"
__all__ = ["gelu", "gelu_grad", "gelu_grad2", "APPROXIMATIONS", "__version__"]


def _public(order: int, numpy_version):
    """`numpy_version` for arrays, the torch op for tensors (torch is imported only for a tensor)."""

    @functools.wraps(numpy_version)
    def f(x, approximate: str = "none", *, out=None):
        if core.is_tensor(x):
            core.check_approximate(approximate)
            from . import torch as gtorch

            return gtorch.apply(x, approximate, order, out=out)
        return numpy_version(x, approximate, out=out)

    return f


gelu = _public(0, core.gelu)
gelu_grad = _public(1, core.gelu_grad)
gelu_grad2 = _public(2, core.gelu_grad2)
