"""(rt38 p5 module) Used by Mistral-style sliding-window attention on a padded batch: attn_mask a sliding-window causal band. Attention probabilities as nn.MultiheadAttention / SDPA build them with two masks at once:
an additive attn_mask (T, T) (a learned/relative bias, or a causal 0/-inf triangle) and a
key-padding mask (B, T) of 0/1 (1 = real token, 0 = padding)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, scores, attn_mask, key_padding_mask):  # (B, H, T, T), (T, T), (B, T)
        s = scores + attn_mask
        s = s.masked_fill(key_padding_mask[:, None, None, :] == 0, float("-inf"))
        return s.softmax(-1)


def get_inputs():
    return [torch.randn(2, 2, 16, 16), torch.randn(16, 16), (torch.rand(2, 16) < 0.8).float()]


def get_init_inputs():
    return []
