"""One step of a diagonal state-space layer (as in Mamba/S4-style streaming decoding): the recurrent state
`h` (a registered buffer, zero at the start of every sequence: `reset()`) is updated in place every token,
h = exp(-softplus(a)) * h + x * b, and the output is y = sum_n c * h."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, batch=4, d=64, n=16):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.a = nn.Parameter(torch.randn(d, n, generator=g) - 3.0)    # slow decays, ~0.95
        self.b = nn.Parameter(torch.randn(d, n, generator=g) * 0.3)
        self.c = nn.Parameter(torch.randn(d, n, generator=g) * 0.3)
        self.register_buffer("h", torch.zeros(batch, d, n))

    def reset(self):
        self.h.zero_()

    def forward(self, x):                       # x: (batch, d), one token
        decay = torch.exp(-F.softplus(self.a))
        h = decay * self.h + x.unsqueeze(-1) * self.b
        self.h.copy_(h)
        return (h * self.c).sum(-1)


def get_inputs():
    return [torch.randn(4, 64)]


def get_init_inputs():
    return []
