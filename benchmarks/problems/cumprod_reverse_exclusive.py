"""Reversed exclusive cumulative product of (1 + scale * x): out[i] = prod of z[j] for j > i (out[-1] = 1)."""

import torch
import torch.nn as nn

from _scale import pick

rows, length = pick((8192, 32768), (16, 1000))


class Model(nn.Module):
    def __init__(self, dim: int, scale: float):
        super().__init__()
        self.dim = dim
        self.scale = scale

    def forward(self, x):
        z = (1.0 + self.scale * x).flip(self.dim)
        ones = torch.ones_like(z.narrow(self.dim, 0, 1))
        shifted = torch.cat([ones, z.narrow(self.dim, 0, z.size(self.dim) - 1)], dim=self.dim)
        return torch.cumprod(shifted, dim=self.dim).flip(self.dim)


def get_inputs():
    return [torch.randn(rows, length)]


def get_init_inputs():
    return [1, 1e-3]
