"""LayerNorm over the last dimension of 8192 features (a row reduction with an affine epilogue)."""

import torch
import torch.nn as nn

from _scale import pick

rows, features = pick((32768, 8192), (40, 384))


class Model(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.norm = nn.LayerNorm(features)
        with torch.no_grad():
            self.norm.weight.add_(0.1 * torch.randn(features))
            self.norm.bias.add_(0.1 * torch.randn(features))

    def forward(self, x):
        return self.norm(x)


def get_inputs():
    return [torch.randn(rows, features)]


def get_init_inputs():
    return [features]
