"""The FFN family: ungated act(xW1)W2 for every activation, gated (act(xW) ⊙ xV)W2 at the
ungated parameter count; forward and backward against a reference written out by hand."""

import numpy as np
import pytest
import torch

from gelu_lab import activations
from gelu_lab.nn import variants
from gelu_lab.nn.model import FFN, GPT, GPTConfig
from gelu_lab.nn.train import TrainConfig, ffn_stats

GATED = ["glu", "bilinear", "reglu", "geglu", "swiglu"]


def cfg(act, d=16, **kw):
    return GPTConfig(**{**dict(vocab_size=11, block_size=8, n_layer=1, n_head=2, n_embd=d, activation=act), **kw})


def n_params(module):
    return sum(p.numel() for p in module.parameters())


@pytest.mark.parametrize("d", [8, 16, 64, 128, 384])
@pytest.mark.parametrize("act", ["gelu", "relu2", *GATED])
def test_every_ffn_has_the_ungated_4d_parameter_count_within_1_percent(act, d):
    ungated = (d * 4 * d + 4 * d) + (4 * d * d + d)  # W1 and b1, W2 and b2
    got = n_params(FFN(cfg(act, d)))
    assert abs(got - ungated) <= 0.01 * ungated
    if act in GATED:  # three matrices of about 2/3 the width, Shazeer's d_ff
        assert FFN(cfg(act, d)).c_fc.weight.shape == (2 * variants.hidden_width(d, True), d)
        assert abs(variants.hidden_width(d, True) - 8 * d / 3) < 1
        assert got == variants.ffn_params(act, d)


def _reference(act, x, w, v, b, c, w2, b2, dy):
    """out = (g(x W + b) ⊙ (x V + c)) W2 + b2 and its gradients, by hand, in NumPy float64
    (g and g' from the registry); v is None for the ungated act(x W + b) W2 + b2."""
    g = activations.get(act)
    a = x @ w + b
    gate = g.fn(a)
    val = x @ v + c if v is not None else 1.0
    z = gate * val
    out = z @ w2 + b2
    dz = dy @ w2.T
    da = dz * val * g.grad(a)
    grads = {"w2": z.T @ dy, "b2": dy.sum(0), "w": x.T @ da, "b": da.sum(0)}
    dx = da @ w.T
    if v is not None:
        dv = dz * gate
        grads.update(v=x.T @ dv, c=dv.sum(0))
        dx = dx + dv @ v.T
    return out, {**grads, "x": dx}


@pytest.mark.parametrize("act", ["gelu", "relu", "relu2", "silu", "sigmoid", "gelu_tanh", "mish", *GATED])
def test_forward_and_backward_match_the_hand_written_reference(act):
    torch.manual_seed(3)
    ffn = FFN(cfg(act, d=8)).double()
    for p in ffn.parameters():  # biases too: not zero, so their gradients are tested
        torch.nn.init.normal_(p, 0.0, 0.5)
    x = torch.randn(32, 8, dtype=torch.float64, requires_grad=True)
    dy = torch.randn(32, 8, dtype=torch.float64)
    out = ffn(x)
    out.backward(dy)
    h = ffn.hidden
    W, B = ffn.c_fc.weight.detach().numpy().T, ffn.c_fc.bias.detach().numpy()
    gated = act in GATED
    ref, grads = _reference(variants.gate_activation(act), x.detach().numpy(), W[:, :h], W[:, h:] if gated else None, B[:h],
                            B[h:] if gated else None, ffn.c_proj.weight.detach().numpy().T, ffn.c_proj.bias.detach().numpy(), dy.numpy())
    np.testing.assert_allclose(out.detach().numpy(), ref, rtol=1e-9, atol=1e-12)
    gw, gb = ffn.c_fc.weight.grad.numpy().T, ffn.c_fc.bias.grad.numpy()
    np.testing.assert_allclose(x.grad.numpy(), grads["x"], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(gw[:, :h], grads["w"], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(gb[:h], grads["b"], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ffn.c_proj.weight.grad.numpy().T, grads["w2"], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ffn.c_proj.bias.grad.numpy(), grads["b2"], rtol=1e-9, atol=1e-12)
    if gated:
        np.testing.assert_allclose(gw[:, h:], grads["v"], rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(gb[h:], grads["c"], rtol=1e-9, atol=1e-12)


def test_a_gated_ffn_is_negative_and_unbounded_on_both_sides_where_its_gate_is_not():
    """ReLU's output is never negative; ReGLU's product relu(xW) ⊙ xV takes either sign, and grows without bound either way."""
    ffn = FFN(cfg("reglu", d=8)).double()
    with torch.no_grad():
        for p in ffn.parameters():
            p.zero_()
        h = ffn.hidden
        ffn.c_fc.weight[0, 0] = 1.0  # gate unit 0 = x0
        ffn.c_fc.weight[h, 0] = 1.0  # value unit 0 = x0 ...
        ffn.c_fc.weight[h, 1] = -3.0  # ... - 3 x1
        ffn.c_proj.weight[0, 0] = 1.0
    x = torch.zeros(3, 8, dtype=torch.float64)
    x[:, 0], x[:, 1] = torch.tensor([10.0, 10.0, -10.0]), torch.tensor([0.0, 100.0, 0.0])
    y = ffn(x)[:, 0].detach().numpy()
    assert y.tolist() == [100.0, 10.0 * (10.0 - 300.0), 0.0]  # +100, -2900, and a closed gate gives 0


def test_stats_of_a_gated_ffn_are_of_the_gate_and_the_config_takes_its_name():
    torch.manual_seed(0)
    model = GPT(cfg("swiglu", d=16, n_layer=2))
    stats = ffn_stats(model, torch.randint(0, 11, (4, 8)))
    assert set(stats) >= {"L0.dead", "L1.pre_std"} and 0 < stats["L0.pre_std"] < 1
    assert TrainConfig.make("tiny", activation="SwiGLU").activation == "swiglu"
    assert TrainConfig.make("tiny", activation="swish").activation == "silu"  # aliases still mean the activation
    with pytest.raises(ValueError, match="unknown FFN variant 'bogus'"):
        TrainConfig.make("tiny", activation="bogus")


def test_every_registry_activation_builds_an_ungated_ffn():
    x = torch.randn(5, 8)
    for name in activations.names(every=True):
        out = FFN(cfg(name, d=8))(x)
        assert out.shape == (5, 8) and torch.isfinite(out).all(), name


def test_the_page_s_run_control_can_start_a_gated_run(monkeypatch, tmp_path):
    from gelu_lab.nn import ffn_view, train_job

    seen = {}
    monkeypatch.setattr(train_job.jobs, "start", lambda path, kind, args, meta, **kw: seen.update(args=args) or {"state": "started"})
    ffn_view.start_run(tmp_path / "s.sqlite", {"act": "swiglu", "fc": "0.02", "preset": "tiny", "steps": 100})
    assert seen["args"][:3] == ["train", "--activations", "swiglu"]
    with pytest.raises(ValueError, match="not a run this page offers"):
        ffn_view.start_run(tmp_path / "s.sqlite", {"act": "bilinear2", "fc": "0.02", "preset": "tiny", "steps": 100})
