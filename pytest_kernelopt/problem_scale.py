"""The problem size convention shared by problem files, the problem loader and the CPU backend.

Problem files that read ``KERNELOPT_PROBLEM_SCALE`` (the bundled examples: examples/problems/_scale.py) pick
interpreter-sized inputs when it is ``small``.  The CPU backend sets it before the collector imports problem files
(:func:`pytest_kernelopt.backends.cpu_interpret.prepare_environment`), and building a problem file for the Triton
interpreter does too (:func:`pytest_kernelopt.problems.build_problem`).
"""

from __future__ import annotations

import os

#: the environment variable problem files read, and the value that asks for interpreter-sized inputs
SCALE_VARIABLE = "KERNELOPT_PROBLEM_SCALE"
SMALL = "small"


def use_small_problems() -> None:
    """``KERNELOPT_PROBLEM_SCALE=small`` unless set."""
    os.environ.setdefault(SCALE_VARIABLE, SMALL)
