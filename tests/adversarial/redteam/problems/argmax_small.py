"""Red-team problem: argmax over rows (an int64 output, which the judge poisons with max-int)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.argmax(x, dim=-1)


def get_inputs():
    return [torch.randn(16, 64)]


def get_init_inputs():
    return []
