"""A chain of pointwise operations Inductor fuses into one kernel."""

import torch
import torch.nn as nn

from _scale import pick

batch, dim = pick((8192, 8192), (16, 64))


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.tanh(torch.relu(x * 2.0 + 1.0)) * torch.sigmoid(x)


def get_inputs():
    return [torch.randn(batch, dim)]


def get_init_inputs():
    return []
