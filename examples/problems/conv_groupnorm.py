"""Conv2d (cuDNN, kept) followed by scale, sigmoid and GroupNorm (Triton reductions)."""

import torch
import torch.nn as nn

from _scale import pick

batch, c_in, c_out, size, groups = pick((64, 32, 64, 64, 8), (2, 3, 8, 6, 2))


class Model(nn.Module):
    def __init__(self, c_in: int, c_out: int, groups: int):
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, 3, padding=1)
        self.scale = nn.Parameter(torch.ones(c_out, 1, 1) * 0.5)
        self.norm = nn.GroupNorm(groups, c_out)

    def forward(self, x):
        return self.norm(torch.sigmoid(self.conv(x) * self.scale))


def get_inputs():
    return [torch.randn(batch, c_in, size, size)]


def get_init_inputs():
    return [c_in, c_out, groups]
