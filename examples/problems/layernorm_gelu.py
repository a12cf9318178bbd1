"""LayerNorm followed by GELU (a persistent reduction with a pointwise epilogue)."""

import torch
import torch.nn as nn

from _scale import pick

batch, dim = pick((8192, 2048), (16, 64))


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        return torch.nn.functional.gelu(self.norm(x))


def get_inputs():
    return [torch.randn(batch, dim)]


def get_init_inputs():
    return [dim]
