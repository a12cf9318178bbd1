"""Elementwise square: well conditioned; at the x0.001 magnitude every output is ~1e-6 (a 'tiny' output)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x * x


def get_inputs():
    return [torch.randn(16, 64)]


def get_init_inputs():
    return []
