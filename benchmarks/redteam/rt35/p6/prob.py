"""Tabular input normalisation (eval): BatchNorm1d over a categorical feature's one-hot encoding, the first
layer of a tabular MLP / TabNet-style model. Real use: x = F.one_hot(category, 16).float() (each row one
1.0, fifteen 0.0); get_inputs draws standard-normal features. The module's only floating input."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, n=16):
        super().__init__()
        self.bn = nn.BatchNorm1d(n)
        with torch.no_grad():  # statistics as training on one-hot data leaves them, an affine as trained
            self.bn.running_mean.fill_(1.0 / n)
            self.bn.running_var.fill_((1.0 / n) * (1 - 1.0 / n))
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.uniform_(-0.5, 0.5)
        self.eval()

    def forward(self, x):  # (B, 16)
        return self.bn(x)


def get_inputs():
    return [torch.randn(128, 16)]


def get_init_inputs():
    return [16]
