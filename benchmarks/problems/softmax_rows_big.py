"""Row softmax over 4096 x 393216 fp32: a 6 GiB input, rows too long for one block (issue 13's big softmax)."""

import torch
import torch.nn as nn

from _scale import pick

rows, cols = pick((4096, 393216), (8, 3000))


class Model(nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=1)


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
