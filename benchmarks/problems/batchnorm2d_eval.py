"""BatchNorm2d in eval mode (running statistics): a per-channel affine pointwise kernel."""

import torch
import torch.nn as nn

from _scale import pick

batch, channels, h, w = pick((64, 64, 256, 256), (2, 8, 24, 24))


class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.norm = nn.BatchNorm2d(channels)
        with torch.no_grad():  # non-trivial running statistics and affine parameters
            self.norm.running_mean.copy_(0.1 * torch.randn(channels))
            self.norm.running_var.copy_(0.5 + torch.rand(channels))
            self.norm.weight.copy_(1.0 + 0.1 * torch.randn(channels))
            self.norm.bias.copy_(0.1 * torch.randn(channels))
        self.eval()

    def forward(self, x):
        return self.norm(x)


def get_inputs():
    return [torch.randn(batch, channels, h, w)]


def get_init_inputs():
    return [channels]
