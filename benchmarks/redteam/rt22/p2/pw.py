"""Pointwise over 12288 = 3*4096 elements: Inductor drops the x mask (numel % 4096 == 0)."""
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x):
        return torch.sin(x) * 2.0 + 1.0

def get_inputs():
    return [torch.randn(96, 128)]

def get_init_inputs():
    return []
