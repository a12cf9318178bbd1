"""Token embeddings plus learned absolute position embeddings (GPT-2's wpe) looked up by position_ids
(B, T) int64; callers usually pass torch.arange(T).expand(B, T)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.wpe = nn.Embedding(32, 16)

    def forward(self, h, position_ids):  # (B, T, D) float, (B, T) int64
        return h + self.wpe(position_ids)


def get_inputs():
    return [torch.randn(4, 16, 16), torch.randint(0, 32, (4, 16))]


def get_init_inputs():
    return []
