"""y = (x + M*mask) - M*mask : exact (y == x) where mask is 0 (98% of positions),
ill-conditioned (fp32 loses x's digits) where mask is 1 (2% of positions)."""
import torch
import torch.nn as nn

N_ROWS, N_COLS = 64, 1024

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        mask = (torch.rand(N_ROWS, N_COLS, generator=g) < 0.02).to(torch.int32)
        self.register_buffer("mask", mask)
    def forward(self, x):
        b = self.mask * 1.0e8
        return (x + b) - b

def get_inputs():
    return [torch.randn(N_ROWS, N_COLS)]

def get_init_inputs():
    return []
