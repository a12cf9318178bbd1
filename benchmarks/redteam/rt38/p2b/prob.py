"""Control for p2: the same attention with a FLOAT 0/1 key-padding mask (B, 1, 1, T) (1 = real token)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, scores, key_mask):  # (B, H, T, T) float, (B, 1, 1, T) float 0/1
        return scores.masked_fill(key_mask == 0, float("-inf")).softmax(-1)


def get_inputs():
    return [torch.randn(2, 2, 16, 16), (torch.rand(2, 1, 1, 16) < 0.8).float()]


def get_init_inputs():
    return []
