"""Conv2d 3x3 (a vendor call) with a ReLU, per-channel scale and sigmoid epilogue."""

import torch
import torch.nn as nn

from _scale import pick

batch, c_in, c_out, size = pick((64, 64, 128, 128), (2, 3, 8, 16))


class Model(nn.Module):
    def __init__(self, c_in: int, c_out: int):
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, 3, padding=1)
        self.scale = nn.Parameter(1.0 + 0.1 * torch.randn(c_out, 1, 1))

    def forward(self, x):
        return torch.sigmoid(torch.relu(self.conv(x)) * self.scale)


def get_inputs():
    return [torch.randn(batch, c_in, size, size)]


def get_init_inputs():
    return [c_in, c_out]
