"""Centre readings that sit near a large reference, then scale: (x - ref) * 100.
x - ref is exact in float32 (Sterbenz), so eager and Inductor are exact up to the final product's rounding."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, ref: float):
        super().__init__()
        self.ref = ref

    def forward(self, x):
        return (x - self.ref) * 100.0


def get_inputs():
    return [1000.0 + 0.01 * torch.randn(32, 64)]


def get_init_inputs():
    return [1000.0]
