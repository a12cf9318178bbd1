"""Row softmax over 4096 x 524288 fp32: 8 GiB in and 8 GiB out, issue 38's size for a free-form candidate's gates
(``benchmarks/gate_activity.py``).  The suite's ``softmax_rows_big`` module at another size, outside the
51-problem suite, and at this size only: on the CPU interpreter it would take hours."""

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "problems"))  # the suite's problem and its _scale
from softmax_rows_big import Model, get_init_inputs  # noqa: E402,F401

rows, cols = 4096, 524288


def get_inputs():
    return [torch.randn(rows, cols)]
