"""Red-team problem: tanh plus a learnable bias that starts at zero (as nn.Linear / LayerNorm biases often do)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(64))

    def forward(self, x):
        return torch.tanh(x) + self.bias


def get_inputs():
    return [torch.randn(16, 64)]


def get_init_inputs():
    return []
