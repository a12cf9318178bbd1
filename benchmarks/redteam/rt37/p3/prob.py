"""Attention probabilities with an additive per-head position bias: softmax(scores / sqrt(d) + bias).
scores (B, H, T, T), bias (H, T, T). Real use: ALiBi (BLOOM, MPT, Falcon-RW): bias[h, i, j] = -slope_h * (i - j)
for j <= i, -inf above the diagonal; learned relative-position biases (T5-style) otherwise.
get_inputs draws a learned-style bias."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, head_dim=32):
        super().__init__()
        self.scale = head_dim ** -0.5

    def forward(self, scores, bias):
        return torch.softmax(scores * self.scale + bias, dim=-1)


def get_inputs():
    return [torch.randn(2, 4, 16, 16) * 4, torch.randn(4, 16, 16)]


def get_init_inputs():
    return [32]
