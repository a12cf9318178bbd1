"""InstanceNorm2d with affine parameters: one reduction per (sample, channel) plane of 256 x 256."""

import torch
import torch.nn as nn

from _scale import pick

batch, channels, h, w = pick((64, 64, 256, 256), (2, 6, 24, 24))


class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.norm = nn.InstanceNorm2d(channels, affine=True)
        with torch.no_grad():
            self.norm.weight.copy_(1.0 + 0.1 * torch.randn(channels))
            self.norm.bias.copy_(0.1 * torch.randn(channels))

    def forward(self, x):
        return self.norm(x)


def get_inputs():
    return [torch.randn(batch, channels, h, w)]


def get_init_inputs():
    return [channels]
