"""Masked mean pooling with the padding mask given as (B, T, 1) floats (attention_mask.unsqueeze(-1), as
sentence-transformers' mean pooling and many encoders pass it): sum of real tokens' states over their count."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, h, mask):  # (B, T, C), (B, T, 1)
        return (h * mask).sum(1) / mask.sum(1).clamp(min=1e-9)


def get_inputs():
    return [torch.randn(4, 16, 32), (torch.rand(4, 16, 1) < 0.8).float()]


def get_init_inputs():
    return []
