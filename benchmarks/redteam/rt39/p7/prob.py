"""Attention probabilities with an ALiBi bias (H, T, T) (BLOOM / MPT: slope_h * (j - i)) and a 0/1
key-padding mask (B, T) from the tokenizer (1 = real token)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, scores, bias, key_padding_mask):  # (B, H, T, T), (H, T, T), (B, T)
        s = scores + bias
        s = s.masked_fill(key_padding_mask[:, None, None, :] == 0, float("-inf"))
        return s.softmax(-1)


def get_inputs():
    return [torch.randn(2, 2, 16, 16), torch.randn(2, 16, 16), (torch.rand(2, 16) < 0.8).float()]


def get_init_inputs():
    return []
