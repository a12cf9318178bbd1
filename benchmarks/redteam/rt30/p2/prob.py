"""Pre-norm of a transformer block: LayerNorm over the hidden size of a (batch, tokens, hidden) activation."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, d=64):
        super().__init__()
        self.norm = nn.LayerNorm(d)

    def forward(self, x):
        return self.norm(x)


def get_inputs():
    return [torch.randn(4, 16, 64)]


def get_init_inputs():
    return []
