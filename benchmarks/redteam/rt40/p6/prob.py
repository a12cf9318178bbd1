"""BLOOM/MPT-style attention probabilities with three masks kept apart, as those models build them: an ALiBi bias
(H, T, T) (slope_h * (j - i) or slope_h * j), an additive causal mask (T, T) (0 on and below the diagonal, -inf
above) and the tokenizer's key-padding mask (B, T) of 0/1."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, scores, alibi, causal, key_padding_mask):  # (B, H, T, T), (H, T, T), (T, T), (B, T)
        s = scores + alibi + causal
        s = s.masked_fill(key_padding_mask[:, None, None, :] == 0, float("-inf"))
        return s.softmax(-1)


def get_inputs():
    return [torch.randn(2, 2, 16, 16), torch.randn(2, 16, 16), torch.randn(16, 16), (torch.rand(2, 16) < 0.8).float()]


def get_init_inputs():
    return []
