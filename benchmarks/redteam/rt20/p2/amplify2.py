"""y = (((x + c) + M) - M) - c with c = 32768, M = 1e12 on a fixed ~2% mask (0 elsewhere).
Truth is x; float32 baseline returns about +-32768 + 0 at the masked positions (error ~3.3e4 there), exact elsewhere."""
import torch
import torch.nn as nn

N, D = 128, 128

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(99)
        self.register_buffer("mask", (torch.rand(N, D, generator=g) < 0.02).to(torch.int32))

    def forward(self, x):
        m = self.mask.to(torch.float32)
        c = m * 32768.0
        big = m * 1e12
        return (((x + c) + big) - big) - c

def get_inputs():
    return [torch.randn(N, D)]

def get_init_inputs():
    return []
