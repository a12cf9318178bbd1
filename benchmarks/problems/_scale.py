"""Problem sizes for the benchmark suite: sizes that matter on an H200, tiny on the CPU interpreter.

``KERNELOPT_PROBLEM_SCALE=small`` (set by the harness on the CPU backend)
selects sizes of at most ~100k elements a problem, which the Triton
interpreter runs in seconds.  Unlike ``examples/problems/_scale.py`` the
variable is read at each call, so one process can import a problem at both
scales (``tests/test_bench_suite.py`` computes the GPU sizes without
allocating them).
"""

import os


def small() -> bool:
    return os.environ.get("KERNELOPT_PROBLEM_SCALE", "") == "small"


def pick(gpu, cpu):
    """``gpu`` shapes on a GPU, ``cpu`` shapes under ``KERNELOPT_PROBLEM_SCALE=small``."""
    return cpu if small() else gpu
