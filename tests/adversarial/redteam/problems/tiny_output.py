"""Red-team problem: outputs far below atol (the judge checks such outputs relatively)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.sin(x) * 1e-6


def get_inputs():
    return [torch.randn(16, 64)]


def get_init_inputs():
    return []
