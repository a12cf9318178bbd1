"""GroupNorm (8 groups) over 112 x 64 x 512 x 512 fp32: a 7 GiB input (issue 13's multi-GiB group norm)."""

import torch
import torch.nn as nn

from _scale import pick

batch, features, h, w, groups = pick((112, 64, 512, 512, 8), (2, 8, 12, 12, 4))


class Model(nn.Module):
    def __init__(self, features: int, groups: int):
        super().__init__()
        self.norm = nn.GroupNorm(groups, features)

    def forward(self, x):
        return self.norm(x)


def get_inputs():
    return [torch.randn(batch, features, h, w)]


def get_init_inputs():
    return [features, groups]
