"""Average pooling 3D, kernel 3, stride 3, padding 1 (padding not counted): a 27-element window reduction.

Stride equals kernel on purpose: Inductor hands an average pool of more than
25 elements with overlapping windows (kernel 3, stride 2) to ATen, no Triton.
"""

import torch
import torch.nn as nn

from _scale import pick

batch, channels, d, h, w = pick((16, 32, 64, 128, 128), (2, 3, 10, 14, 14))


class Model(nn.Module):
    def __init__(self, kernel_size: int, stride: int, padding: int):
        super().__init__()
        self.pool = nn.AvgPool3d(kernel_size, stride=stride, padding=padding, count_include_pad=False)

    def forward(self, x):
        return self.pool(x)


def get_inputs():
    return [torch.randn(batch, channels, d, h, w)]


def get_init_inputs():
    return [3, 3, 1]
