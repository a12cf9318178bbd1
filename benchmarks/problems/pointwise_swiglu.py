"""SwiGLU gate silu(a) * b on two inputs (a two-input pointwise kernel, memory bound)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

from _scale import pick

rows, cols = pick((8192, 16384), (32, 300))


class Model(nn.Module):
    def forward(self, a, b):
        return F.silu(a) * b


def get_inputs():
    return [torch.randn(rows, cols), torch.randn(rows, cols)]


def get_init_inputs():
    return []
