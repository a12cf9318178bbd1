"""Reversed inclusive cumulative sum: out[i] = sum of x[j] for j >= i (flip, scan, flip)."""

import torch
import torch.nn as nn

from _scale import pick

rows, length = pick((8192, 32768), (16, 1000))


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return torch.cumsum(x.flip(self.dim), dim=self.dim).flip(self.dim)


def get_inputs():
    return [torch.randn(rows, length)]


def get_init_inputs():
    return [1]
