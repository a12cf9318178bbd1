"""z = 3*x + 1 (exact baseline up to rounding)."""
import torch
import torch.nn as nn

N, D = 128, 128

class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x * 3.0 + 1.0

def get_inputs():
    return [torch.randn(N, D)]

def get_init_inputs():
    return []
