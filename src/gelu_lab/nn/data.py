"""A text as character ids, and batches that depend only on (seed, step).

Batch `step` of a run is drawn from a generator seeded with (seed, step), so
the data order is the same for every activation with the same seed, a resumed
run continues exactly where it stopped (the data position is the step), and
under DDP rank r of K takes rows r::K of the global batch -- K processes with
batch B see the same data as one process with batch K*B.
"""

from __future__ import annotations

import hashlib

import numpy as np
import torch


class CharData:
    """Train and val token ids of a text, split by position (last val_frac is val)."""

    def __init__(self, text: str, val_frac: float = 0.1):
        from .corpus import split

        if len(text) < 1000:
            raise ValueError(f"text has {len(text)} characters; need at least 1000 to train on")
        codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
        self.vocab = np.unique(codes)  # sorted code points: the vocabulary
        self.chars = "".join(map(chr, self.vocab))
        ids = np.searchsorted(self.vocab, codes).astype(np.int64)
        train, _ = split(text, val_frac)
        cut = len(train)
        self.train = torch.from_numpy(ids[:cut])
        self.val = torch.from_numpy(ids[cut:])
        self.sha256 = hashlib.sha256(text.encode("utf-8")).hexdigest()

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    def encode(self, s: str) -> torch.Tensor:
        codes = np.frombuffer(s.encode("utf-32-le"), dtype=np.uint32)
        idx = np.searchsorted(self.vocab, codes)
        idx = np.clip(idx, 0, len(self.vocab) - 1)
        if not np.all(self.vocab[idx] == codes):
            raise ValueError("text has characters outside the vocabulary")
        return torch.from_numpy(idx.astype(np.int64))

    def decode(self, ids) -> str:
        return "".join(self.chars[int(i)] for i in ids)

    def batch(self, split: str, seed: int, step: int, batch_size: int, block: int, rank: int = 0, world: int = 1):
        """(x, y) of shape (batch_size, block): rows rank::world of global batch `step`."""
        data = self.train if split == "train" else self.val
        if len(data) <= block + 1:
            raise ValueError(f"{split} split has {len(data)} tokens; needs more than context {block} + 1")
        g = torch.Generator().manual_seed(_mix(seed, step, split))
        ix = torch.randint(len(data) - block - 1, (batch_size * world,), generator=g)[rank::world]
        x = torch.stack([data[i : i + block] for i in ix.tolist()])
        y = torch.stack([data[i + 1 : i + 1 + block] for i in ix.tolist()])
        return x, y

    def windows(self, split: str, block: int):
        """Every non-overlapping window of the split: (x, y) of shape (n, block), for a full eval."""
        data = self.val if split == "val" else self.train
        n = (len(data) - 1) // block
        x = data[: n * block].view(n, block)
        y = data[1 : n * block + 1].view(n, block)
        return x, y


def _mix(seed: int, step: int, split: str) -> int:
    """A 63-bit generator seed for (seed, step, split); val batches never repeat train ones."""
    h = hashlib.blake2b(f"{seed}/{step}/{split}".encode(), digest_size=8).digest()
    return int.from_bytes(h, "little") >> 1
