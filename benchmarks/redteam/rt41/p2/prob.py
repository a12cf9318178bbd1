"""Token embeddings plus learned absolute position embeddings (GPT-2's wpe) looked up by position_ids
(B, T) int64. With a KV cache (generate() after the prompt, chunked prefill, speculative decoding's verify
pass) GPT-2 passes position_ids = arange(past_length, past_length + T)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.wpe = nn.Embedding(64, 16)

    def forward(self, h, position_ids):  # (B, T, D) float, (B, T) int64
        return h + self.wpe(position_ids)


def get_inputs():
    return [torch.randn(4, 8, 16), torch.randint(0, 64, (4, 8))]


def get_init_inputs():
    return []
