"""Masked mean pooling over a padded batch given sequence lengths (B,) int64 (as an RNN/packed-sequence
pipeline carries them)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, lengths):  # (B, T, D) float, (B,) int64 in [1, T]
        T = x.shape[1]
        mask = (torch.arange(T, device=x.device)[None, :] < lengths[:, None]).to(x.dtype)
        return (x * mask[..., None]).sum(1) / lengths[:, None].to(x.dtype)


def get_inputs():
    return [torch.randn(4, 32, 8), torch.randint(1, 33, (4,))]


def get_init_inputs():
    return []
