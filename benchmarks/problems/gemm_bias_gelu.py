"""Linear layer (GEMM, a vendor call) with a bias and GELU epilogue (the Triton kernel, if any)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

from _scale import pick

rows, d_in, d_out = pick((32768, 4096, 4096), (64, 96, 128))


class Model(nn.Module):
    def __init__(self, d_in: int, d_out: int):
        super().__init__()
        self.linear = nn.Linear(d_in, d_out)

    def forward(self, x):
        return F.gelu(self.linear(x))


def get_inputs():
    return [torch.randn(rows, d_in)]


def get_init_inputs():
    return [d_in, d_out]
