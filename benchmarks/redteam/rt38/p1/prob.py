"""Masked mean pooling (sentence-transformers style) with a Hugging Face attention_mask (int64 0/1, B x T)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, attention_mask):  # (B, T, D) float, (B, T) int64
        m = attention_mask.unsqueeze(-1).to(x.dtype)
        return (x * m).sum(1) / m.sum(1).clamp(min=1e-9)


def get_inputs():
    return [torch.randn(4, 16, 32), (torch.rand(4, 16) < 0.8).long()]


def get_init_inputs():
    return []
