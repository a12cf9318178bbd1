"""A small pre-norm transformer block: LayerNorm, causal SDPA attention, residual, LayerNorm, GELU MLP, residual.

On a GPU the attention itself is a vendor kernel (flash / memory-efficient);
the LayerNorms, residual adds and GELU are Triton kernels.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

from _scale import pick

batch, seq, d_model, heads, d_ff = pick((32, 1024, 1024, 16, 4096), (2, 16, 32, 4, 64))


class Model(nn.Module):
    def __init__(self, d_model: int, heads: int, d_ff: int):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d_model)
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        self.ln2 = nn.LayerNorm(d_model)
        self.fc1 = nn.Linear(d_model, d_ff)
        self.fc2 = nn.Linear(d_ff, d_model)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, s, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(b, s, d))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


def get_inputs():
    return [torch.randn(batch, seq, d_model)]


def get_init_inputs():
    return [d_model, heads, d_ff]
