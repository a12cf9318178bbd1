"""Repository-level pytest configuration for pytest-kernelopt's own test suite.

On a machine without a GPU the suite runs Inductor's Triton output in the
Triton interpreter; that needs ``TRITON_INTERPRET=1`` before triton decorates
any kernel, so it is set here, before any test module imports torch.
"""

import os

from pytest_kernelopt.backends import prepare

prepare(os.environ.get("KERNELOPT_BACKEND", "auto"))

pytest_plugins = ["pytester"]
