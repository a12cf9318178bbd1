"""Masked per-token cross-entropy with soft targets (token classification with distillation / mixup; hard
labels as one-hot rows without): loss[b, t] = -mask[b, t] * sum_c target[b, t, c] * log_softmax(logits[b, t])_c.
mask: 1 for real tokens, 0 for padding."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, logits, target, mask):  # (B, T, C), (B, T, C), (B, T)
        return -(target * torch.log_softmax(logits, dim=-1)).sum(-1) * mask


def get_inputs():
    return [torch.randn(4, 16, 16) * 2, torch.randn(4, 16, 16).softmax(-1), (torch.rand(4, 16) < 0.8).float()]


def get_init_inputs():
    return []
