"""Argmax over dim 1 of a 3-D tensor: an index reduction (argmax, int64 output).

Reduces the middle dimension (dim 1: strided by the inner size).
"""

import torch
import torch.nn as nn

from _scale import pick

batch, dim1, dim2 = pick((256, 1024, 1000), (6, 20, 36))


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
