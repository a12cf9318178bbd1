"""y = sin(3000*x) + (((x + c) + M) - M) - c ; c = 32768, M = 1e12 on a fixed ~2% mask (0 elsewhere).
Truth: sin(3000 x) + x. Baseline: ~32768 off on the mask. Off the mask the baseline rounds 3000*x (error up
to half an ulp of it, times cos): between 0.1 and 1 tolerance at many positions, so they are not calm."""
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
        return ((((x + c) + big) - big) - c) + torch.sin(x * 3000.0)

def get_inputs():
    return [torch.randn(N, D)]

def get_init_inputs():
    return []
