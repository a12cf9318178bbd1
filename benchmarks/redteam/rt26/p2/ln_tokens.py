"""LayerNorm over token embeddings (a batch of sequences, one row per token)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim=64):
        super().__init__()
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        return self.norm(x)


def get_inputs():
    return [torch.randn(4, 16, 64)]


def get_init_inputs():
    return []
