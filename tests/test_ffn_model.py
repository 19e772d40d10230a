"""The small Transformer: shapes, causality, init, activations, batches, unit statistics."""

import math

import numpy as np
import pytest
import torch

from gelu_lab import activations
from gelu_lab.nn.data import CharData
from gelu_lab.nn.model import GPT, GPTConfig, torch_activation
from gelu_lab.nn.train import ffn_stats
from gelu_lab.torch import NATIVE


def tiny(**kw):
    return GPTConfig(**{**dict(vocab_size=11, block_size=16, n_layer=2, n_head=2, n_embd=16), **kw})


def test_shapes_and_parameter_count():
    torch.manual_seed(0)
    cfg = tiny()
    m = GPT(cfg)
    idx = torch.randint(0, 11, (3, 16))
    logits, loss = m(idx, idx)
    assert logits.shape == (3, 16, 11) and loss.shape == ()
    d, L, V, T = 16, 2, 11, 16
    # per block: 2 LayerNorms, qkv + proj, W1 (d x 4d) + W2; embeddings; final LN; head tied to wte
    block = 2 * 2 * d + (3 * d * d + 3 * d) + (d * d + d) + (4 * d * d + 4 * d) + (4 * d * d + d)
    assert m.n_params() == V * d + T * d + L * block + 2 * d
    with pytest.raises(ValueError):
        m(torch.zeros(1, 17, dtype=torch.long))


def test_causal_future_tokens_do_not_change_the_past():
    torch.manual_seed(1)
    m = GPT(tiny()).eval()
    a = torch.randint(0, 11, (1, 16))
    b = a.clone()
    b[0, 10:] = (b[0, 10:] + 1) % 11
    with torch.no_grad():
        la, lb = m(a)[0], m(b)[0]
    assert torch.equal(la[0, :10], lb[0, :10])
    assert not torch.allclose(la[0, 10:], lb[0, 10:])


def test_same_seed_same_weights_for_every_activation():
    states = []
    for act in ("gelu", "relu", "sigmoid", "silu"):
        torch.manual_seed(5)
        states.append(GPT(tiny(activation=act)).state_dict())
    for s in states[1:]:
        assert all(torch.equal(s[k], states[0][k]) for k in s)


@pytest.mark.parametrize("fc,expect", [(0.02, 0.02 * math.sqrt(64)), ("unit", 1.0)])
def test_init_scale_sets_preactivation_std(fc, expect):
    # LN output has unit-variance components, so std(x W1) ~= fc_init_std * sqrt(d)
    torch.manual_seed(2)
    m = GPT(GPTConfig(vocab_size=20, block_size=32, n_layer=1, n_head=4, n_embd=64, fc_init_std=fc))
    x = torch.randn(4096, 64)
    h = m.blocks[0].ffn.c_fc(torch.nn.functional.layer_norm(x, (64,)))
    assert abs(h.std().item() / expect - 1) < 0.1


@pytest.mark.parametrize("name", list(NATIVE))
def test_native_activation_matches_registry(name):
    # the fast torch kernels used for training compute the registry's function
    x = np.linspace(-8, 8, 2001)
    ref = activations.get(name).fn(x)
    got = torch_activation(name)(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-14)


def test_unknown_activation_is_one_line_value_error():
    with pytest.raises(ValueError, match="unknown activation"):
        torch_activation("gleu")


def test_batches_depend_only_on_seed_and_step_and_split_over_ranks():
    text = "".join(chr(97 + (i * 7919) % 26) for i in range(5000))
    d = CharData(text, 0.1)
    assert d.decode(d.train[:50]) == text[:50] and d.decode(d.val) == text[4500:]
    x1, y1 = d.batch("train", 3, 17, 8, 12)
    x2, _ = d.batch("train", 3, 17, 8, 12)
    x3, _ = d.batch("train", 3, 18, 8, 12)
    assert torch.equal(x1, x2) and not torch.equal(x1, x3)
    assert torch.equal(x1[:, 1:], y1[:, :-1])  # targets are the next characters
    r0, _ = d.batch("train", 3, 17, 4, 12, rank=0, world=2)
    r1, _ = d.batch("train", 3, 17, 4, 12, rank=1, world=2)
    assert torch.equal(r0, x1[0::2]) and torch.equal(r1, x1[1::2])  # K ranks x B/K rows = one batch of B


def _manual_preactivation(m, idx):
    """x W1 + b1 of a one-layer model, computed by hand (no hooks)."""
    b = m.blocks[0]
    x = m.wte(idx) + m.wpe(torch.arange(idx.shape[1]))
    x = x + b.attn(b.ln_1(x))
    return b.ffn.c_fc(b.ln_2(x)).reshape(-1, 64)


@pytest.mark.parametrize("act", ["relu", "sigmoid", "gelu"])
def test_ffn_stats_known_dead_and_saturated_units(act):
    torch.manual_seed(3)
    m = GPT(tiny(activation=act, n_layer=1)).eval()
    with torch.no_grad():
        m.blocks[0].ffn.c_fc.bias[:6] = -1e3  # 6 of 64 units can never fire
        m.blocks[0].ffn.c_fc.bias[6:10] = 1e3  # 4 always far on the positive side
    idx = torch.randint(0, 11, (8, 16))
    s = ffn_stats(m, idx)
    assert s["L0.dead"] == 6 / 64
    saturated = {"relu": 6, "sigmoid": 10, "gelu": 6}[act]  # sigmoid is flat on both sides, relu/gelu only left
    assert s["L0.near_dead"] == saturated / 64
    assert s["L0.const"] == saturated / 64
    with torch.no_grad():
        h = _manual_preactivation(m, idx)
    assert s["L0.pre_mean"] == pytest.approx(h.mean().item(), rel=1e-5)
    assert s["L0.pre_std"] == pytest.approx(h.std(unbiased=False).item(), rel=1e-5)
    assert s["L0.pre_neg"] == pytest.approx((h < 0).float().mean().item())
