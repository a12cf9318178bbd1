"""Argmax over a dimension (an index reduction)."""

import torch
import torch.nn as nn

from _scale import pick

batch, dim1, dim2 = pick((128, 4096, 256), (4, 32, 8))


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return torch.argmax(x, dim=self.dim)


def get_inputs():
    return [torch.randn(batch, dim1, dim2)]


def get_init_inputs():
    return [1]
