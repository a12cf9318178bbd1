"""Prefill step: RMS-normalise the keys, store them in a KV cache held by a plain cache object (as many
inference codebases keep their cache), and return them for the attention that follows."""
import torch
import torch.nn as nn


class KVCache:
    def __init__(self, t, d):
        self.k = torch.zeros(t, d)


class Model(nn.Module):
    def __init__(self, t=32, d=64):
        super().__init__()
        self.cache = KVCache(t, d)

    def forward(self, k):
        kn = k * torch.rsqrt(k.pow(2).mean(-1, keepdim=True) + 1e-6)
        self.cache.k.copy_(kn)
        return kn


def get_inputs():
    return [torch.randn(32, 64)]


def get_init_inputs():
    return []
