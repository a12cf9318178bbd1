"""Attention probabilities with an additive attention bias: softmax(scores / sqrt(d) + attn_bias).
scores (B, H, T, T) = q @ k^T, attn_bias (T, T). Real use: a decoder passes the causal mask
nn.Transformer.generate_square_subsequent_mask(T) (0 on and below the diagonal, -inf above); an encoder
passes a relative-position (T5/ALiBi-style) bias, which is what get_inputs draws."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, head_dim=32):
        super().__init__()
        self.scale = head_dim ** -0.5

    def forward(self, scores, attn_bias):
        return torch.softmax(scores * self.scale + attn_bias, dim=-1)


def get_inputs():
    return [torch.randn(2, 2, 16, 16) * 4, torch.randn(16, 16)]


def get_init_inputs():
    return [32]
