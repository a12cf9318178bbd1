"""Gather rows by an index tensor and add a residual: out = x[idx] + y.  idx (N,) int64 indexes x's rows:
restoring a batch's order (PackedSequence.unsorted_indices), un-permuting MoE tokens, a shuffle."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, idx, y):  # (N, C), (N,), (N, C)
        return x[idx] * 2.0 + y


def get_inputs():
    return [torch.randn(16, 32), torch.randint(0, 16, (16,)), torch.randn(16, 32)]


def get_init_inputs():
    return []
