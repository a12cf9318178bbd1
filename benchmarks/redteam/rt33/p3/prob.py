"""Per-pixel soft-target cross-entropy for semantic segmentation (NCHW), as used with soft labels
(distillation, mixup/cutmix, label smoothing done by the data pipeline) and with hard labels given as one-hot
masks along the channel dimension (`F.one_hot(mask, C).permute(0, 3, 1, 2).float()`, MONAI's `to_onehot_y`):
loss[n, h, w] = -sum_c target[n, c, h, w] * log_softmax(logits, dim=1)[n, c, h, w]."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, logits, target):  # both (N, C, H, W)
        return -(target * torch.log_softmax(logits, dim=1)).sum(1)


def get_inputs():
    logits = torch.randn(2, 5, 8, 8)
    target = torch.softmax(torch.randn(2, 5, 8, 8), dim=1)
    return [logits, target]


def get_init_inputs():
    return []
