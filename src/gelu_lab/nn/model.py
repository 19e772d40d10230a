"""A small decoder-only character Transformer whose FFN activation is a parameter.

nanoGPT-shaped: token + position embeddings, n_layer pre-LayerNorm blocks

    x = x + Attn(LN(x))
    x = x + FFN(LN(x)),      FFN(u) = act(u W1 + b1) W2 + b2,   W1: d x 4d

then a final LayerNorm and a head tied to the token embedding. The activation
is any name of :mod:`gelu_lab.activations`; training uses PyTorch's native
kernels for speed (``torch_activation``), with ``precise=True`` swapping in
:class:`gelu_lab.torch.GELU` (correctly rounded, computed through NumPy, slow).

Init (nanoGPT): every weight N(0, 0.02), the residual projections
N(0, 0.02/sqrt(2 n_layer)), biases 0 -- except W1, whose std is
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
from ..torch import GELU, native


def torch_activation(name: str, precise: bool = False) -> nn.Module:
    """The nn.Module for a registry name (aliases accepted); ValueError if unknown.

    torch's own kernels (gelu_lab.torch.NATIVE); precise=True gives the GELU
    forms as gelu_lab.torch.GELU (correctly rounded, computed through NumPy).
    """
    key = canonical(name)
    if precise and key in APPROXIMATE:
        return GELU(APPROXIMATE[key])
    return native(key)


@dataclass
class GPTConfig:
    vocab_size: int = 84
    block_size: int = 64  # context length
    n_layer: int = 2
    n_head: int = 4
    n_embd: int = 64
    activation: str = "gelu"
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
    """act(x W1 + b1) W2 + b2 with 4x hidden width; `c_fc` is W1, `c_proj` is W2."""

    def __init__(self, cfg: GPTConfig):
        super().__init__()
        self.c_fc = nn.Linear(cfg.n_embd, 4 * cfg.n_embd)
        self.act = torch_activation(cfg.activation, cfg.precise)
        self.c_proj = nn.Linear(4 * cfg.n_embd, cfg.n_embd)

    def forward(self, x):
        return self.c_proj(self.act(self.c_fc(x)))


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
