"""One decode step of single-query attention with a KV cache (autoregressive generation): the new token's
key and value are written into the cache at `pos`, the query attends to cache rows 0..pos, and `pos`
advances by one. Build (or reset) the module, then call it once per generated token (up to 8 tokens: e.g. the depth decoder of a residual-quantisation model, one code per codebook, 8 codebooks)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, heads=4, max_len=8, d=16):
        super().__init__()
        self.max_len = max_len
        self.register_buffer("k_cache", torch.zeros(heads, max_len, d))
        self.register_buffer("v_cache", torch.zeros(heads, max_len, d))
        self.register_buffer("pos", torch.zeros((), dtype=torch.long))
        self.scale = d ** -0.5

    def forward(self, q, k, v):  # (heads, d) each: one token
        idx = self.pos.view(1)
        self.k_cache.index_copy_(1, idx, k.unsqueeze(1))
        self.v_cache.index_copy_(1, idx, v.unsqueeze(1))
        scores = torch.einsum("hd,hld->hl", q, self.k_cache) * self.scale
        valid = torch.arange(self.max_len, device=q.device) <= self.pos
        scores = scores.masked_fill(~valid, float("-inf"))
        p = scores.softmax(-1)
        out = torch.einsum("hl,hld->hd", p, self.v_cache)
        self.pos += 1
        return out


def get_inputs():
    return [torch.randn(4, 16), torch.randn(4, 16), torch.randn(4, 16)]


def get_init_inputs():
    return []
