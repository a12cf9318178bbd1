"""Reverse cumulative sum (flip, scan, flip)."""

import torch
import torch.nn as nn

from _scale import pick

batch, length = pick((128, 32768), (4, 64))


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return torch.cumsum(x.flip(self.dim), dim=self.dim).flip(self.dim)


def get_inputs():
    return [torch.randn(batch, length)]


def get_init_inputs():
    return [1]
