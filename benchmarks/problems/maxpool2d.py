"""Max pooling 2D, kernel 3, stride 2, padding 1: overlapping windows, a pointwise kernel."""

import torch
import torch.nn as nn

from _scale import pick

batch, channels, h, w = pick((64, 64, 256, 256), (2, 4, 30, 30))


class Model(nn.Module):
    def __init__(self, kernel_size: int, stride: int, padding: int):
        super().__init__()
        self.pool = nn.MaxPool2d(kernel_size, stride=stride, padding=padding)

    def forward(self, x):
        return self.pool(x)


def get_inputs():
    return [torch.randn(batch, channels, h, w)]


def get_init_inputs():
    return [3, 2, 1]
