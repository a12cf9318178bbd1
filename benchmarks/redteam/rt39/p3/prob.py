"""Decoder attention probabilities with two masks in the shapes Hugging Face / SDPA users pass: an
additive causal attn_mask (T, T) and a bool key-padding mask (B, 1, 1, T) (True = real token)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, scores, attn_mask, pad_mask):  # (B, H, T, T), (T, T) float, (B, 1, 1, T) bool
        s = scores + attn_mask
        s = s.masked_fill(~pad_mask, float("-inf"))
        return s.softmax(-1)


def get_inputs():
    return [torch.randn(2, 2, 16, 16), torch.randn(16, 16), torch.rand(2, 1, 1, 16) < 0.8]


def get_init_inputs():
    return []
