"""Row softmax over 4096 x 524288 fp32: 8 GiB in and 8 GiB out, issue 38's size for a free-form candidate's gates
(``benchmarks/gate_activity.py``).  Outside the 51-problem suite, and at this size only: on the CPU interpreter it
would take hours (``benchmarks/problems/softmax_rows_big.py`` is the suite's 6 GiB one, with a small size)."""

import torch
import torch.nn as nn

rows, cols = 4096, 524288


class Model(nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=1)


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
