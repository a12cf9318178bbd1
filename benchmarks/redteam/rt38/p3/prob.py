"""Per-token cross-entropy for token classification / language modelling with Hugging Face labels:
int64 class indices, -100 where the token is ignored (padding, special tokens, later sub-words)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, logits, labels):  # (B, T, C) float, (B, T) int64
        C = logits.shape[-1]
        return F.cross_entropy(logits.reshape(-1, C), labels.reshape(-1), ignore_index=-100, reduction="none")


def get_inputs():
    return [torch.randn(4, 16, 16) * 2, torch.randint(0, 16, (4, 16))]


def get_init_inputs():
    return []
