"""Attention probabilities with a boolean key-padding mask (B, 1, 1, T): True = real token, False = padding
(a tokenizer's attention_mask.bool()[:, None, None, :], as in torch's SDPA boolean attn_mask)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, scores, key_mask):  # (B, H, T, T) float, (B, 1, 1, T) bool
        return scores.masked_fill(~key_mask, float("-inf")).softmax(-1)


def get_inputs():
    return [torch.randn(2, 2, 16, 16), torch.rand(2, 1, 1, 16) < 0.8]


def get_init_inputs():
    return []
