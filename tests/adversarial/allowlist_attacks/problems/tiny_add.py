"""A tiny pointwise problem (one Inductor kernel) for cheap allowlist attacks."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return x * 2.0 + y


def get_inputs():
    return [torch.randn(64), torch.randn(64)]


def get_init_inputs():
    return []
