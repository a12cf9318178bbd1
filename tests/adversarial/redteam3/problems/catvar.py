"""Ill-conditioned variance (E[z^2]-E[z]^2 with a large offset) concatenated with a well-conditioned pointwise part."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, offset: float):
        super().__init__()
        self.offset = offset

    def forward(self, x, y):
        z = x + self.offset
        v = (z * z).mean(dim=1, keepdim=True) - z.mean(dim=1, keepdim=True) ** 2
        w = y * 2.0
        return torch.cat([v, w], dim=1)


def get_inputs():
    return [torch.randn(8, 256), torch.randn(8, 64)]


def get_init_inputs():
    return [1000.0]
