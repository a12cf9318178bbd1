import functools
import torch
import torch.nn as nn

N = 64

def track(mean, m):
    mean.mul_(0.9).add_(m, alpha=0.1)


class Model(nn.Module):
    """Keeps an exponential moving average of the per-feature batch mean (partial)."""
    def __init__(self):
        super().__init__()
        self.track = functools.partial(track, torch.zeros(N))

    def forward(self, x):
        m = x.mean(0)
        self.track(m)
        return torch.relu(x) * 2.0


def get_inputs():
    return [torch.randn(32, 64)]


def get_init_inputs():
    return []
