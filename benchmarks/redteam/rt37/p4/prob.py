"""Packed-sequence (document-masked) causal self-attention probabilities: softmax(scores / sqrt(d) + mask4d).
scores (B, H, T, T), mask4d (B, 1, T, T). Real use: several documents packed in one row for pretraining / SFT
(xformers BlockDiagonalCausalMask materialised, FlexAttention document masking fallback): 0 where j <= i in the
same document, -inf elsewhere.
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
