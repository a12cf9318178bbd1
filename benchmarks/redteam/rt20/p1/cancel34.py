"""y = (x + 1e8*mask) - 1e8*mask ; mask on ~34% of positions (fixed)."""
import torch
import torch.nn as nn

N, D = 128, 128

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(1234)
        self.register_buffer("mask", (torch.rand(N, D, generator=g) < 0.34).to(torch.int32))

    def forward(self, x):
        big = self.mask.to(torch.float32) * 1e8
        return (x + big) - big

def get_inputs():
    return [torch.randn(N, D)]

def get_init_inputs():
    return []
