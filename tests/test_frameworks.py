"""gelu_lab.analysis.frameworks: torch's default is asked from torch; every row names a form whose
function is the one the framework computes (checked here against the formulas)."""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F
from scipy import special

from gelu_lab import activations
from gelu_lab.analysis import frameworks


def test_torch_row_is_what_the_installed_torch_does():
    rows = frameworks.defaults()
    first = rows[0]
    assert first.asked and first.framework == f"PyTorch {torch.__version__}"
    assert first.default == f"approximate='{torch.nn.GELU().approximate}'"
    # the form it names computes what torch's default GELU computes
    x = np.linspace(-6, 6, 1201)
    want = F.gelu(torch.from_numpy(x)).numpy()
    assert np.allclose(activations.get(first.form).fn(x), want, rtol=1e-12, atol=1e-15)
    # the other asked rows are the installed frameworks (JAX, TensorFlow, ONNX Runtime: tests/test_frameworks_accuracy.py)
    assert [r for r in rows if r.asked and r.framework.startswith("PyTorch")] == [first]


FORMULAS = {
    # the three forms, written out here
    "gelu": lambda x: x * special.ndtr(x),
    "gelu_tanh": lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))),
    "gelu_sigmoid": lambda x: x * special.expit(1.702 * x),
}


def test_every_row_names_a_form_whose_function_is_that_formula():
    x = np.linspace(-6, 6, 1201)
    seen = set()
    for r in frameworks.defaults():
        assert r.source and r.call
        assert np.allclose(activations.get(r.form).fn(x), FORMULAS[r.form](x), rtol=1e-12, atol=1e-15), r
        seen.add(r.form)
    assert seen == set(FORMULAS)
    # the approximate=True / False spelling agrees with the form
    for r in frameworks.DOCUMENTED:
        if "approximate=True" in r.default:
            assert r.form == "gelu_tanh"
        if "approximate=False" in r.default:
            assert r.form == "gelu"
    hf = {r.call: r.form for r in frameworks.DOCUMENTED if r.framework.startswith("Hugging Face")}
    assert hf == {'ACT2FN["gelu"]': "gelu", 'ACT2FN["gelu_new"]': "gelu_tanh", 'ACT2FN["gelu_pytorch_tanh"]': "gelu_tanh",
                  'ACT2FN["quick_gelu"]': "gelu_sigmoid"}
