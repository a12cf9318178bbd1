"""Max pooling 1D, kernel 4, stride 2, padding 1: overlapping windows, a pointwise kernel."""

import torch
import torch.nn as nn

from _scale import pick

batch, channels, length = pick((64, 128, 32768), (2, 4, 500))


class Model(nn.Module):
    def __init__(self, kernel_size: int, stride: int, padding: int):
        super().__init__()
        self.pool = nn.MaxPool1d(kernel_size, stride=stride, padding=padding)

    def forward(self, x):
        return self.pool(x)


def get_inputs():
    return [torch.randn(batch, channels, length)]


def get_init_inputs():
    return [4, 2, 1]
