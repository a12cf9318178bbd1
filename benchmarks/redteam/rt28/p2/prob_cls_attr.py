import functools
import torch
import torch.nn as nn

N = 64

class Stats:
    mean = torch.zeros(N)       # shared by all Stats instances


class Model(nn.Module):
    """Keeps an exponential moving average of the per-feature batch mean (cls_attr)."""
    def __init__(self):
        super().__init__()
        self.st = Stats()

    def forward(self, x):
        m = x.mean(0)
        self.st.mean.mul_(0.9).add_(m, alpha=0.1)
        return torch.relu(x) * 2.0


def get_inputs():
    return [torch.randn(32, 64)]


def get_init_inputs():
    return []
