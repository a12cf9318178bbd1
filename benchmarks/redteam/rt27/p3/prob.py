"""Exponential moving average of the batch mean kept in a plain config object (not a registered buffer),
subtracted from the input."""
import torch
import torch.nn as nn


class Stats:
    def __init__(self, n):
        self.ema = torch.zeros(n)


class Model(nn.Module):
    def __init__(self, n=64):
        super().__init__()
        self.st = Stats(n)

    def forward(self, x):
        self.st.ema.mul_(0.9).add_(x.mean(0), alpha=0.1)
        return x - self.st.ema


def get_inputs():
    return [torch.randn(32, 64)]


def get_init_inputs():
    return []
