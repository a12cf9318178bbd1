"""Reversed cumulative sum over 4 rows of 64M elements: too few rows to fill the GPU, so Inductor splits the scan.

The split scan (a ``triton_spl_`` kernel) has no launch configuration the
plain tuner searches; this problem is there to show whether ours does.
"""

import torch
import torch.nn as nn

from _scale import pick

rows, length = pick((4, 67108864), (1, 32768))


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
