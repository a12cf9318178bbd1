import functools
import torch
import torch.nn as nn

N = 64

class Ema:                      # the running statistic
    def __init__(self):
        self.mean = torch.zeros(N)
class Monitor:                  # a monitor holding its statistics
    def __init__(self):
        self.ema = Ema()
class Runtime:                  # runtime context the model keeps
    def __init__(self):
        self.monitor = Monitor()


class Model(nn.Module):
    """Keeps an exponential moving average of the per-feature batch mean (three_levels)."""
    def __init__(self):
        super().__init__()
        self.rt = Runtime()

    def forward(self, x):
        m = x.mean(0)
        self.rt.monitor.ema.mean.mul_(0.9).add_(m, alpha=0.1)
        return torch.relu(x) * 2.0


def get_inputs():
    return [torch.randn(32, 64)]


def get_init_inputs():
    return []
