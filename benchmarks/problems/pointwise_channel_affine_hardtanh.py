"""Per-channel scale and shift on an NCHW tensor, then hardtanh (broadcast over a middle dimension)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

from _scale import pick

batch, channels, h, w = pick((64, 256, 128, 128), (2, 12, 20, 20))


class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.scale = nn.Parameter(1.0 + 0.1 * torch.randn(channels, 1, 1))
        self.shift = nn.Parameter(0.1 * torch.randn(channels, 1, 1))

    def forward(self, x):
        return F.hardtanh(x * self.scale + self.shift, -1.0, 1.0)


def get_inputs():
    return [torch.randn(batch, channels, h, w)]


def get_init_inputs():
    return [channels]
