"""Problem sizes for the bundled examples: realistic on a GPU, tiny on the CPU interpreter.

``KERNELOPT_PROBLEM_SCALE=small`` (set by the harness on the CPU backend)
selects sizes the Triton interpreter runs in well under a second.
"""

import os

SMALL = os.environ.get("KERNELOPT_PROBLEM_SCALE", "") == "small"


def pick(gpu, cpu):
    return cpu if SMALL else gpu
