"""LayerNorm over token embeddings from nn.Embedding(padding_idx=0) (or over an RNN's output after
pad_packed_sequence): in a right-padded batch every padded position's row is exactly zero, a suffix of zero
rows in each sequence shorter than the batch's longest."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(16)

    def forward(self, h):  # (B, T, D)
        return self.norm(h)


def get_inputs():
    return [torch.randn(4, 8, 16)]


def get_init_inputs():
    return []
