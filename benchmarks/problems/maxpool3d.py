"""Max pooling 3D, kernel 3, stride 2, padding 1: overlapping 27-element windows (over 25: a reduction kernel)."""

import torch
import torch.nn as nn

from _scale import pick

batch, channels, d, h, w = pick((16, 32, 64, 128, 128), (2, 3, 10, 14, 14))


class Model(nn.Module):
    def __init__(self, kernel_size: int, stride: int, padding: int):
        super().__init__()
        self.pool = nn.MaxPool3d(kernel_size, stride=stride, padding=padding)

    def forward(self, x):
        return self.pool(x)


def get_inputs():
    return [torch.randn(batch, channels, d, h, w)]


def get_init_inputs():
    return [3, 2, 1]
