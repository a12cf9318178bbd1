"""Attention probabilities with the two masks in the mixed forms real code passes: a bool causal
attn_mask (T, T) (True = may attend, as torch SDPA takes it) and Hugging Face's additive padding mask
(B, 1, 1, T) (0 for real tokens, finfo.min or -10000 for padding)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, scores, causal, pad_add):  # (B, H, T, T), (T, T) bool, (B, 1, 1, T) float
        s = (scores + pad_add).masked_fill(~causal, float("-inf"))
        return s.softmax(-1)


def get_inputs():
    return [torch.randn(2, 2, 16, 16), torch.rand(16, 16) < 0.8, torch.randn(2, 1, 1, 16)]


def get_init_inputs():
    return []
