"""Causal multi-head self-attention written out: QKV projection, scaled scores, masked softmax, output projection.

The GEMMs are vendor calls; the scale, causal mask and softmax over the
(batch, heads, seq, seq) scores are Triton kernels.
"""

import torch
import torch.nn as nn

from _scale import pick

batch, seq, d_model, heads = pick((32, 1024, 1024, 16), (2, 16, 32, 4))


class Model(nn.Module):
    def __init__(self, d_model: int, heads: int, seq: int):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.out = nn.Linear(d_model, d_model)
        self.register_buffer("causal", torch.ones(seq, seq).tril().bool(), persistent=False)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(x).view(b, s, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        scores = (q @ k.transpose(-2, -1)) * (d // self.heads) ** -0.5
        scores = scores.masked_fill(~self.causal[:s, :s], float("-inf"))
        y = torch.softmax(scores, dim=-1) @ v
        return self.out(y.transpose(1, 2).reshape(b, s, d))


def get_inputs():
    return [torch.randn(batch, seq, d_model)]


def get_init_inputs():
    return [d_model, heads, seq]
