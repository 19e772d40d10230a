"""GELU Lab: the GELU activation, correctly rounded, explained and measured.

    >>> import gelu_lab
    >>> float(gelu_lab.gelu(2.0))
    1.9544997361036416

See :mod:`gelu_lab.core` for the functions, :mod:`gelu_lab.activations` for
the registry of GELU and its neighbours, and :mod:`gelu_lab.torch` for tensors.
"""

from .core import APPROXIMATIONS, gelu, gelu_grad, gelu_grad2

__version__ = "0.1.0"
__all__ = ["gelu", "gelu_grad", "gelu_grad2", "APPROXIMATIONS", "__version__"]
