"""gelu_lab.torch.swap: every GELU-like activation of a model replaced, and put back bit for bit."""

import functools
import sys

import numpy as np
import pytest
import torch
import transformers.activations as hf
from torch import nn

import gelu_lab
from gelu_lab import activations
from gelu_lab import torch as gtorch

F = torch.nn.functional


class Block(nn.Module):
    """A layer holding its activation as a plain attribute (``intermediate_act_fn``), as BERT does for a callable hidden_act."""

    def __init__(self, fn):
        super().__init__()
        self.dense = nn.Linear(4, 4)
        self.intermediate_act_fn = fn

    def forward(self, x):
        return self.intermediate_act_fn(self.dense(x))


GELUS = {  # the module or function, its form
    "nn.GELU": (nn.GELU(), "none"),
    "nn.GELU tanh": (nn.GELU("tanh"), "tanh"),
    "gelu_lab GELU sigmoid": (gtorch.GELU("sigmoid"), "sigmoid"),
    "SigmoidGELU": (gtorch.SigmoidGELU(), "sigmoid"),
    "GELUActivation": (hf.GELUActivation(), "none"),
    "gelu_python": (hf.GELUActivation(use_gelu_python=True), "none"),
    "NewGELUActivation": (hf.NewGELUActivation(), "tanh"),
    "FastGELUActivation": (hf.FastGELUActivation(), "tanh"),
    "AccurateGELUActivation": (hf.AccurateGELUActivation(), "tanh"),
    "GELUTanh": (hf.GELUTanh(), "tanh"),
    "QuickGELUActivation": (hf.QuickGELUActivation(), "sigmoid"),
    "F.gelu": (F.gelu, "none"),
    "partial F.gelu tanh": (functools.partial(F.gelu, approximate="tanh"), "tanh"),
    "gelu_lab.gelu": (gelu_lab.gelu, "none"),
}
NOT_GELUS = [nn.ReLU(), nn.SiLU(), hf.ClippedGELUActivation(-10, 10), F.relu, torch.tanh, functools.partial(F.leaky_relu, negative_slope=0.2)]


def model():
    torch.manual_seed(0)
    blocks = [Block(fn) for fn, _ in GELUS.values()] + [Block(fn) for fn in NOT_GELUS]
    shared = nn.GELU()  # one module at two sites: both are found
    return nn.Sequential(*blocks, nn.Sequential(nn.Linear(4, 4), shared, nn.Linear(4, 4), shared))


def test_finds_every_gelu_with_its_form_and_nothing_else():
    for name, (fn, form) in GELUS.items():
        assert gtorch.gelu_form(fn) == form, name
    for fn in NOT_GELUS + [functools.partial(F.gelu, approximate="tanh", scale=2)]:  # a partial with more: not a GELU
        assert gtorch.gelu_form(fn) is None, fn
    m = model()
    done = gtorch.swap(m, "gelu_lab")
    assert [r.form for r in done] == [form for _, form in GELUS.values()] + ["none", "none"]
    assert done[0].path == "0.intermediate_act_fn" and [r.path for r in done[-2:]] == [f"{len(m) - 1}.1", f"{len(m) - 1}.3"]
    assert all(isinstance(r.new, gtorch.GELU) and r.new.approximate == r.form for r in done)
    assert len(gtorch.swap(m, "relu")) == len(done)  # gelu_lab's GELUs are GELUs too
    again = gtorch.swap(m, "tanh")  # a swapped site stays a site, with its first form
    assert [r.path for r in again] == [r.path for r in done] and all(isinstance(r.old, nn.ReLU) for r in again)
    for fn, block in zip(NOT_GELUS, m[len(GELUS) :]):
        assert block.intermediate_act_fn is fn


def test_swap_back_restores_outputs_bit_for_bit():
    m = model()
    x = torch.randn(16, 4, dtype=torch.float32)
    before = m(x)
    originals = [b.intermediate_act_fn for b in m[:-1]]
    for to in ["gelu_lab", "tanh", "relu", "quick_gelu", nn.Tanh()]:
        done = gtorch.swap(m, to)
        assert len(done) == len(GELUS) + 2 and not torch.equal(m(x), before)
        if to == "relu":
            assert gtorch.swap(m, done) == []  # swap(model, record) puts it back
        else:
            gtorch.restore(done)
        assert torch.equal(m(x), before)
        assert [b.intermediate_act_fn for b in m[:-1]] == originals
    # a function put back is a plain attribute again, not a child module
    block = m[list(GELUS).index("F.gelu")]
    assert "intermediate_act_fn" not in block._modules and block.__dict__["intermediate_act_fn"] is F.gelu
    assert gtorch.swap_back is gtorch.restore


def test_a_swapped_site_swaps_again_to_anything_and_back():
    """swap(model, "relu") then swap(model, "gelu") gives GELU back (the second call used to find
    no GELU-like site and leave ReLU in place), each site in its first form; restoring the
    first record still puts the original objects back, bit for bit."""
    m = model()
    x = torch.randn(16, 4, dtype=torch.float32)
    before = m(x)
    first = gtorch.swap(m, "relu")
    assert not torch.equal(m(x), before)
    back = gtorch.swap(m, "gelu_lab")
    assert [r.form for r in back] == [r.form for r in first] and all(isinstance(r.old, nn.ReLU) for r in back)
    torch.testing.assert_close(m(x), before, rtol=1e-6, atol=1e-7)  # gelu_lab's op in each site's form
    gtorch.swap(m, nn.Tanh())
    assert all(isinstance(b.intermediate_act_fn, nn.Tanh) for b in m[: len(GELUS)])
    gtorch.restore(first)
    assert torch.equal(m(x), before)


def test_a_swap_that_finds_no_site_says_what_it_looked_for():
    plain = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), Block(F.relu))
    with pytest.raises(ValueError, match=r"no GELU-like activation in Sequential; looked for torch\.nn\.GELU.*GELUActivation"):
        gtorch.swap(plain, "relu")
    assert isinstance(plain[1], nn.ReLU) and plain[2].intermediate_act_fn is F.relu  # left as it was


@pytest.mark.parametrize("name", activations.names(every=True) + ["none", "tanh", "sigmoid", "gelu_new", "swish"])
def test_every_registry_name_computes_its_activation(name):
    m = Block(nn.GELU())
    (r,) = gtorch.swap(m, name)
    x = torch.linspace(-6, 6, 97, dtype=torch.float64)
    got = r.new(x)
    key = {"none": "gelu", "tanh": "gelu_tanh", "sigmoid": "gelu_sigmoid"}.get(name, name)
    want = torch.from_numpy(np.asarray(activations.get(key).fn(x.numpy())))
    torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-15)
    canonical = activations.canonical(key)
    if name in ("none", "tanh", "sigmoid"):
        assert isinstance(r.new, gtorch.GELU)
    elif canonical in gtorch.NATIVE:
        assert type(r.new) is type(gtorch.native(canonical))  # torch's own kernel
    else:
        assert isinstance(r.new, gtorch.Registry)


def test_registry_fallback_for_a_name_torch_has_no_kernel_of(monkeypatch):
    monkeypatch.setattr(gtorch, "NATIVE", {k: v for k, v in gtorch.NATIVE.items() if k != "mish"})
    (r,) = gtorch.swap(Block(nn.GELU()), "mish")
    assert isinstance(r.new, gtorch.Registry) and repr(r.new) == "Registry('mish')"
    x = torch.linspace(-3, 3, 13, dtype=torch.float64, requires_grad=True)
    y = r.new(x)
    (g,) = torch.autograd.grad(y.sum(), x)
    assert np.array_equal(y.detach().numpy(), activations.get("mish").fn(x.detach().numpy()))
    assert np.array_equal(g.numpy(), activations.get("mish").grad(x.detach().numpy()))
    with pytest.raises(ValueError, match="unknown activation"):
        gtorch.swap(Block(nn.GELU()), "no_such_thing")


def test_swap_without_transformers_does_not_import_it(monkeypatch):
    for name in [k for k in sys.modules if k == "transformers" or k.startswith("transformers.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "transformers", None)  # an import of it would now fail
    m = nn.Sequential(nn.Linear(2, 2), nn.GELU(), Block(F.gelu))
    done = gtorch.swap(m, "relu")
    assert len(done) == 2 and isinstance(m[1], nn.ReLU) and isinstance(m[2].intermediate_act_fn, nn.ReLU)
    gtorch.restore(done)
    assert isinstance(m[1], nn.GELU) and m[2].intermediate_act_fn is F.gelu
    assert "transformers.activations" not in sys.modules
