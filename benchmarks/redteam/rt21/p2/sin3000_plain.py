"""y = x + sin(3000*x): no mask, nothing planted. The baseline rounds 3000*x (half an ulp of it, times cos):
between 0.1 and 1 tolerance from the float64 truth at many positions, so those positions are not calm."""
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x):
        return x + torch.sin(x * 3000.0)

def get_inputs():
    return [torch.randn(128, 128)]

def get_init_inputs():
    return []
