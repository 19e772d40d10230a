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
