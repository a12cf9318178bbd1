"""RMSNorm over the last dimension of a (batch, sequence, hidden) activation, with a learned weight."""

import torch
import torch.nn as nn

from _scale import pick

batch, seq, hidden = pick((32, 2048, 4096), (2, 24, 256))


class Model(nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-6):
        super().__init__()
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(hidden))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def get_inputs():
    return [torch.randn(batch, seq, hidden)]


def get_init_inputs():
    return [hidden]
