"""Eager attention probabilities with a Hugging Face 4-D additive mask (B, 1, T, T): the causal mask and the
key-padding mask merged into one tensor (0 = attend, finfo.min = masked), as _prepare_4d_causal_attention_mask
/ LlamaModel._update_causal_mask build it and eager_attention_forward adds it."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, scores, attention_mask):  # (B, H, T, T), (B, 1, T, T)
        return (scores + attention_mask).softmax(-1)


def get_inputs():
    return [torch.randn(2, 2, 16, 16), torch.randn(2, 1, 16, 16)]


def get_init_inputs():
    return []
