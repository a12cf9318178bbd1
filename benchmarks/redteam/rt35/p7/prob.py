"""Per-frame soft-target cross-entropy for temporal action segmentation (MS-TCN-style), channels-first
(N, C, T) as PyTorch's Conv1d heads emit, written in Keras's order loss(y_true, logits):
per-frame loss = -sum_c y_true[n, c, t] * log_softmax(logits, dim=1)[n, c, t]. Real use: hard frame labels
y_true = F.one_hot(labels, C).permute(0, 2, 1).float() (one-hot along dim 1); get_inputs draws soft targets
(a teacher's softmax, as in distillation)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, y_true, logits):  # (N, C, T), (N, C, T)
        return -(y_true * torch.log_softmax(logits, dim=1)).sum(1)


def get_inputs():
    return [torch.randn(4, 8, 64).softmax(1), torch.randn(4, 8, 64) * 2]


def get_init_inputs():
    return []
