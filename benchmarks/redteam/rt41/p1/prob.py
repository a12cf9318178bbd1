"""Eager attention probabilities with a Hugging Face 4-D mask (B, 1, T, S) when a cache is in use:
T new queries over S = past + T keys (chunked prefill, speculative decoding's verify pass, a multi-token
step after a prompt cache). The mask is causal with an offset: query i sees keys 0 .. past + i, finfo.min
beyond (transformers' _prepare_4d_causal_attention_mask_with_cache_position)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, scores, mask):  # (B, H, T, S), (B, 1, T, S)
        return torch.softmax(scores + mask, dim=-1)


def get_inputs():
    return [torch.randn(2, 2, 8, 24), torch.randn(2, 1, 8, 24)]


def get_init_inputs():
    return []
