"""Conv3d 3x3x3 (a vendor call), GELU, then a mean over channels: a reduction epilogue."""

import torch
import torch.nn as nn
import torch.nn.functional as F

from _scale import pick

batch, c_in, c_out, depth, size = pick((32, 16, 32, 32, 64), (2, 2, 6, 6, 10))


class Model(nn.Module):
    def __init__(self, c_in: int, c_out: int):
        super().__init__()
        self.conv = nn.Conv3d(c_in, c_out, 3, padding=1)

    def forward(self, x):
        return F.gelu(self.conv(x)).mean(dim=1)


def get_inputs():
    return [torch.randn(batch, c_in, depth, size, size)]


def get_init_inputs():
    return [c_in, c_out]
