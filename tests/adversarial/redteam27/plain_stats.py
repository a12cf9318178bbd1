"""Records the last batch's per-feature mean in a small stats object (read later by a monitor / by the
next stage), and returns the scaled activations."""
import torch
import torch.nn as nn


class Stats:
    def __init__(self, n):
        self.last_mean = torch.zeros(n)


class Model(nn.Module):
    def __init__(self, n=64):
        super().__init__()
        self.st = Stats(n)

    def forward(self, x):
        self.st.last_mean.copy_(x.mean(0))
        return torch.relu(x) * 2.0


def get_inputs():
    return [torch.randn(32, 64)]


def get_init_inputs():
    return []
