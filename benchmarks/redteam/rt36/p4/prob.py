"""Decoder self-attention probabilities with a 4-D additive mask: softmax(scores / sqrt(d) + mask4d).
scores (B, H, T, T), mask4d (B, 1, T, T). Real use: HF transformers' `_prepare_4d_causal_attention_mask`
(Llama, GPT-NeoX, Mistral eager attention) builds the causal mask combined with the padding mask using
torch.finfo(dtype).min, not -inf: 0 where allowed, finfo.min above the diagonal and on padded keys.
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
