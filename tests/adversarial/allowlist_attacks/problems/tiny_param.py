"""A tiny problem with a module parameter (one Inductor kernel reads it)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(64))

    def forward(self, x):
        return x * self.w + 1.0


def get_inputs():
    return [torch.randn(64)]


def get_init_inputs():
    return []
