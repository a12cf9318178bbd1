"""Local (sliding-window) causal self-attention probabilities: softmax(scores / sqrt(d) + mask4d).
scores (B, H, T, T), mask4d (B, 1, T, T). Real use: Mistral / Gemma-2 / Longformer-style local attention,
whose additive mask is 0 where 0 <= i - j < window and -inf (or finfo.min) elsewhere.
get_inputs draws a per-example relative-position bias."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, head_dim=32):
        super().__init__()
        self.scale = head_dim ** -0.5

    def forward(self, scores, mask4d):
        return torch.softmax(scores * self.scale + mask4d, dim=-1)


def get_inputs():
    return [torch.randn(2, 2, 16, 16) * 4, torch.randn(2, 1, 16, 16)]


def get_init_inputs():
    return [32]
