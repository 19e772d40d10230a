"""A small decoder-only character Transformer whose FFN activation is a parameter.

nanoGPT-shaped: token + position embeddings, n_layer pre-LayerNorm blocks

    x = x + Attn(LN(x))
    x = x + FFN(LN(x))

then a final LayerNorm and a head tied to the token embedding. The FFN is a
variant of :mod:`gelu_lab.nn.variants` (``activation`` names it): ungated

    FFN(u) = act(u W1 + b1) W2 + b2,                   W1: d x 4d

for any activation of :mod:`gelu_lab.activations`, or gated

    FFN(u) = (act(u W + b) ⊙ (u V + c)) W2 + b2,       W, V: d x h, h ~ 8d/3

(GLU, bilinear, ReGLU, GEGLU, SwiGLU) with the parameter count of the ungated one.
W and V are one Linear of width 2h (``c_fc``, W first), as LLaMA-style code fuses
them. Training uses PyTorch's native kernels for speed (``torch_activation``), with
``precise=True`` swapping in :class:`gelu_lab.torch.GELU` (correctly rounded,
computed through NumPy, slow).

Init (nanoGPT): every weight N(0, 0.02), the residual projections
N(0, 0.02/sqrt(2 n_layer)), biases 0 -- except W1 (gated: W and V), whose std is
``fc_init_std``. Because LN(x) has unit-variance components, the FFN
pre-activations start with std ~= fc_init_std * sqrt(d): 0.02 at d=64 gives
~0.16 (the region where GELU and SiLU are almost linear), 1/sqrt(d) gives ~1.
``fc_init_std="unit"`` means 1/sqrt(d).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import torch
from torch import nn
from torch.nn import functional as F

from ..activations import APPROXIMATE, canonical
from ..torch import GELU, Registry, NATIVE, native
from . import variants


def torch_activation(name: str, precise: bool = False) -> nn.Module:
    """The nn.Module for a registry name (aliases accepted); ValueError if unknown.

    torch's own kernels (gelu_lab.torch.NATIVE), else gelu_lab.torch.Registry; precise=True gives the GELU
    forms as gelu_lab.torch.GELU (correctly rounded, computed through NumPy).
    """
    key = canonical(name)
    if precise and key in APPROXIMATE:
        return GELU(APPROXIMATE[key])
    return native(key) if key in NATIVE else Registry(key)  # a registry activation torch has no kernel of: through NumPy


@dataclass
class GPTConfig:
    vocab_size: int = 84
    block_size: int = 64  # context length
    n_layer: int = 2
    n_head: int = 4
    n_embd: int = 64
    activation: str = "gelu"  # an FFN variant (gelu_lab.nn.variants): an activation, or a gated one
    fc_init_std: float | str = 0.02  # std of W1; "unit" = 1/sqrt(n_embd)
    precise: bool = False

    def fc_std(self) -> float:
        if self.fc_init_std == "unit":
            return 1.0 / math.sqrt(self.n_embd)
        return float(self.fc_init_std)

    def to_dict(self) -> dict:
        return asdict(self)


class SelfAttention(nn.Module):
    def __init__(self, cfg: GPTConfig):
        super().__init__()
        assert cfg.n_embd % cfg.n_head == 0, "n_embd must be a multiple of n_head"
        self.n_head = cfg.n_head
        self.c_attn = nn.Linear(cfg.n_embd, 3 * cfg.n_embd)
        self.c_proj = nn.Linear(cfg.n_embd, cfg.n_embd)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.c_attn(x).split(C, dim=2)
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))


class FFN(nn.Module):
    """Ungated act(x W1 + b1) W2 + b2, hidden width 4d; gated (act(x W + b) ⊙ (x V + c)) W2 + b2,
    hidden width h (variants.hidden_width). `c_fc` is W1, or [W | V]; `c_proj` is W2."""

    def __init__(self, cfg: GPTConfig):
        super().__init__()
        self.gated = variants.is_gated(cfg.activation)
        self.hidden = variants.hidden_width(cfg.n_embd, self.gated)
        self.c_fc = nn.Linear(cfg.n_embd, (2 if self.gated else 1) * self.hidden)
        self.act = torch_activation(variants.gate_activation(cfg.activation), cfg.precise)
        self.c_proj = nn.Linear(self.hidden, cfg.n_embd)

    def pre(self, fc_out):
        """The pre-activations (what act sees) in the output of c_fc: for a gated FFN its first half, x W + b."""
        return fc_out[..., : self.hidden]

    def forward(self, x):
        u = self.c_fc(x)
        if self.gated:
            gate, value = u.split(self.hidden, dim=-1)
            return self.c_proj(self.act(gate) * value)
        return self.c_proj(self.act(u))


class Block(nn.Module):
    def __init__(self, cfg: GPTConfig):
        super().__init__()
        self.ln_1 = nn.LayerNorm(cfg.n_embd)
        self.attn = SelfAttention(cfg)
        self.ln_2 = nn.LayerNorm(cfg.n_embd)
        self.ffn = FFN(cfg)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.ffn(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, cfg: GPTConfig):
        super().__init__()
        self.cfg = cfg
        self.wte = nn.Embedding(cfg.vocab_size, cfg.n_embd)
        self.wpe = nn.Embedding(cfg.block_size, cfg.n_embd)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layer))
        self.ln_f = nn.LayerNorm(cfg.n_embd)
        self.lm_head = nn.Linear(cfg.n_embd, cfg.vocab_size, bias=False)
        self.lm_head.weight = self.wte.weight  # weight tying, as in GPT-2
        self.apply(self._init)
        for name, p in self.named_parameters():
            if name.endswith("c_proj.weight"):  # residual projections, GPT-2 scaling
                nn.init.normal_(p, 0.0, 0.02 / math.sqrt(2 * cfg.n_layer))
        for b in self.blocks:  # the one init scale the lab varies
            nn.init.normal_(b.ffn.c_fc.weight, 0.0, cfg.fc_std())

    @staticmethod
    def _init(m):
        if isinstance(m, (nn.Linear, nn.Embedding)):
            nn.init.normal_(m.weight, 0.0, 0.02)
        if isinstance(m, nn.Linear) and m.bias is not None:
            nn.init.zeros_(m.bias)

    def n_params(self) -> int:
        return sum(p.numel() for p in self.parameters())

    def forward(self, idx, targets=None):
        """Logits (B, T, vocab) and, with targets, the mean cross-entropy."""
        B, T = idx.shape
        if T > self.cfg.block_size:
            raise ValueError(f"sequence of {T} tokens is longer than the context {self.cfg.block_size}")
        pos = torch.arange(T, device=idx.device)
        x = self.wte(idx) + self.wpe(pos)
        for b in self.blocks:
            x = b(x)
        logits = self.lm_head(self.ln_f(x))
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        return logits, loss
