"""gelu_lab on torch tensors: values, autograd, the drop-in GELU module."""

import subprocess
import sys

import numpy as np
import pytest
import torch

import gelu_lab
from gelu_lab.torch import GELU
from mp_truth import correct


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
def test_tensor_in_tensor_out_same_values_as_numpy(dtype):
    t = torch.linspace(-6, 6, 101).to(dtype)
    for f in (gelu_lab.gelu, gelu_lab.gelu_grad, gelu_lab.gelu_grad2):
        y = f(t)
        assert isinstance(y, torch.Tensor) and y.dtype == dtype and y.shape == t.shape
        ref = f(gelu_lab.torch.to_numpy(t)).astype(np.float64)
        assert np.array_equal(y.to(torch.float64).numpy(), ref)


@pytest.mark.parametrize("approximate", ["none", "tanh", "sigmoid"])
def test_autograd_first_and_second_order(approximate):
    x = torch.linspace(-5, 5, 23, dtype=torch.float64, requires_grad=True)
    f = lambda t: gelu_lab.gelu(t, approximate)  # noqa: E731
    assert torch.autograd.gradcheck(f, (x,))
    assert torch.autograd.gradgradcheck(f, (x,))


def test_drop_in_for_torch_nn_gelu():
    x = torch.randn(4, 7, dtype=torch.float64)
    for a in ("none", "tanh"):
        torch.testing.assert_close(GELU(a)(x), torch.nn.GELU(approximate=a)(x), rtol=1e-14, atol=1e-15)
    with pytest.raises(ValueError):
        GELU("fast")


def test_float32_tail_where_torch_flushes_to_zero():
    x = torch.tensor([-6.0, -10.0, -14.0])
    ours = GELU()(x).numpy()
    want = np.array([correct("gelu", v, np.float32) for v in x.numpy()], dtype=np.float32)
    assert np.array_equal(ours, want) and np.all(ours < 0)
    assert torch.all(torch.nn.functional.gelu(x) == 0)  # what the naive formula gives


def test_backward_is_the_accurate_derivative():
    x = torch.tensor([-10.0, -0.7517915, 0.0, 3.0], requires_grad=True)
    gelu_lab.gelu(x).sum().backward()
    assert np.array_equal(x.grad.numpy(), gelu_lab.gelu_grad(x.detach().numpy()))


def test_importing_gelu_lab_does_not_need_torch():
    code = "import sys; sys.modules['torch'] = None; import gelu_lab, numpy as np; print(float(gelu_lab.gelu(np.float32(2))))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().startswith("1.954")


def test_native_table_has_every_activation_of_the_registry():
    from gelu_lab import activations
    from gelu_lab import torch as gtorch

    shown = activations.names()
    assert list(gtorch.NATIVE)[: len(shown)] == shown  # the pages' activations first, in their order
    assert {"relu2", "linear"} <= set(gtorch.NATIVE) <= set(activations.names(every=True))  # the FFN variants' gates too
    with pytest.raises(ValueError, match="no torch form"):
        gtorch.native("quick_gelu")  # canonical names only: aliases are the registry's business


def test_the_torch_forms_come_from_one_table(monkeypatch):
    """The model, the BERT probe's swaps, accuracy's torch:NAME and bench's torch cases all build from gelu_lab.torch.NATIVE."""
    from gelu_lab import torch as gtorch
    from gelu_lab.analysis import accuracy, bench
    from gelu_lab.nn.model import torch_activation
    from gelu_lab.nn.probe import SWAPS

    calls = []

    class Marked(torch.nn.Module):
        def forward(self, x):
            calls.append(x.numel())
            return gtorch.sigmoid_form(x)

    monkeypatch.setitem(gtorch.NATIVE, "gelu_sigmoid", Marked)
    assert isinstance(torch_activation("quick_gelu"), Marked)
    assert isinstance(SWAPS["gelu_sigmoid"](), Marked)
    x = np.linspace(-1.0, 1.0, 5)
    accuracy.resolve("torch:gelu_sigmoid")(x)
    accuracy.resolve("torch:gelu_sigmoid_grad")(x)
    bench.CASES["torch:sigmoid:fwd+bwd"].setup(8)()
    assert calls == [5, 5, 8]


def test_sigmoid_form_into_out_is_the_same():
    from gelu_lab import torch as gtorch

    x = torch.linspace(-9, 9, 1001)
    out = torch.empty_like(x)
    assert gtorch.sigmoid_form(x, out=out) is out
    assert torch.equal(out, gtorch.sigmoid_form(x)) and torch.equal(out, x * torch.sigmoid(1.702 * x))
