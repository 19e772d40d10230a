"""The hand-written backward pass of gelu_lab.analysis.gradflow against torch autograd."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from gelu_lab.analysis import gradflow

TORCH_ACT = {"gelu": torch.nn.functional.gelu, "relu": torch.relu, "sigmoid": torch.sigmoid, "silu": torch.nn.functional.silu}


def torch_flow(name, depth, arch, width=16, batch=8, seed=3):
    rng = np.random.default_rng(seed + 1)
    h0 = torch.tensor(rng.normal(size=(batch, width)), requires_grad=True)
    G = torch.tensor(rng.normal(size=(batch, width)))
    weights = [[torch.tensor(w) for w in ws] for ws in gradflow.init_weights(gradflow.MAX_DEPTH, width, arch, seed)][:depth]
    act = TORCH_ACT[name]
    hs, h = [h0], h0
    for ws in weights:
        if arch == "mlp":
            h = act(h @ ws[0])
        elif arch == "preln":
            u = torch.nn.functional.layer_norm(h, (width,), eps=gradflow.LN_EPS)
            h = h + act(u @ ws[0]) @ ws[1]
        else:  # postln, as BERT: LayerNorm after the residual sum
            h = torch.nn.functional.layer_norm(h + act(h @ ws[0]) @ ws[1], (width,), eps=gradflow.LN_EPS)
        h.retain_grad()
        hs.append(h)
    ((h * G).sum() / batch).backward()
    norms = np.array([float(t.grad.pow(2).mean().sqrt()) for t in hs])
    return norms / norms[-1]


@pytest.mark.parametrize("arch", gradflow.ARCHS)
@pytest.mark.parametrize("name", sorted(TORCH_ACT))
@pytest.mark.parametrize("depth", [1, 5])
def test_matches_torch_autograd(name, arch, depth):
    ours = gradflow.gradient_flow(name, depth, arch, width=16, batch=8, seed=3)
    assert ours.shape == (depth + 1,)
    np.testing.assert_allclose(ours, torch_flow(name, depth, arch), rtol=1e-9)


def test_depth_is_a_prefix_of_one_stack_and_sigmoid_vanishes():
    deep = gradflow.gradient_flow("sigmoid", 24, "mlp")
    assert deep[0] < 1e-4 < gradflow.gradient_flow("sigmoid", 2, "mlp")[0]
    assert gradflow.gradient_flow("sigmoid", 24, "preln")[0] > 0.1  # the residual path carries it
    assert gradflow.ARCHS == ("mlp", "preln", "postln")


def test_bad_arguments():
    with pytest.raises(ValueError):
        gradflow.gradient_flow("gelu", 0)
    with pytest.raises(ValueError):
        gradflow.gradient_flow("gelu", 25)
    with pytest.raises(ValueError):
        gradflow.gradient_flow("gelu", 3, "cnn")
