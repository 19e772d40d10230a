"""Which GELU form each framework computes by default.

    defaults() -> [Default]        PyTorch asked live (when installed), the others documented
    torch_default() -> dict | None  what the installed torch says

Only PyTorch is installed here, so only PyTorch is asked: the default of
``torch.nn.GELU(approximate=...)`` read by ``inspect.signature`` (``F.gelu`` is a
builtin without a signature; the module calls it with its own ``approximate``).
The other rows are data, each with the source file that defines it (paths in
the frameworks' repositories), so they can be checked by reading that file.
``form`` is a name of the activation registry; the Hugging Face ``ACT2FN``
names map through :func:`gelu_lab.activations.canonical`.
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass

from ..activations import canonical

TORCH_FORMS = {"none": "gelu", "tanh": "gelu_tanh"}  # torch's `approximate` -> registry name


@dataclass(frozen=True)
class Default:
    framework: str
    call: str  # how the function is called, with its default spelled out
    default: str  # the default argument, or the class an ACT2FN name builds
    form: str  # registry name: gelu, gelu_tanh, gelu_sigmoid
    source: str  # where it is defined ("asked" for a live answer)
    asked: bool = False


HF_NAMES = (("gelu", "GELUActivation"), ("gelu_new", "NewGELUActivation"),
            ("gelu_pytorch_tanh", "PytorchGELUTanh"), ("quick_gelu", "QuickGELUActivation"))

DOCUMENTED = (
    Default("JAX", "jax.nn.gelu(x, approximate=True)", "approximate=True", "gelu_tanh", "jax/_src/nn/functions.py"),
    Default("TensorFlow", "tf.nn.gelu(features, approximate=False)", "approximate=False", "gelu", "tensorflow/python/ops/nn_ops.py"),
    Default("Keras 3", "keras.ops.gelu(x, approximate=True)", "approximate=True", "gelu_tanh", "keras/src/ops/nn.py"),
    Default("Keras 3", "keras.activations.gelu(x, approximate=False)", "approximate=False", "gelu", "keras/src/activations/activations.py"),
    *(Default("Hugging Face transformers", f'ACT2FN["{name}"]', cls, canonical(name), "src/transformers/activations.py") for name, cls in HF_NAMES),
)


@functools.cache
def torch_default() -> dict | None:
    """{"version", "default"} of the installed torch's GELU, or None without torch."""
    try:
        import torch
    except ImportError:
        return None
    default = inspect.signature(torch.nn.GELU.__init__).parameters["approximate"].default
    return {"version": torch.__version__, "default": default}


def defaults() -> list[Default]:
    """Every row: PyTorch first (asked, when installed), then the documented ones."""
    rows = []
    td = torch_default()
    if td is not None and td["default"] in TORCH_FORMS:
        rows.append(Default(f"PyTorch {td['version']}", "torch.nn.GELU() · F.gelu(x)", f"approximate='{td['default']}'",
                            TORCH_FORMS[td["default"]], "inspect.signature(torch.nn.GELU)", asked=True))
    return rows + list(DOCUMENTED)
