"""pytest without pytest-kernelopt doing what benchmarks/plain_compile_check.py does: for each problem file
in ``$KERNELOPT_PLAIN_PROBLEMS`` (a directory), torch.compile the model, call it once and compare with eager.

The reference that separates pytest's own start-up and collection from what the plugin adds:
    KERNELOPT_PLAIN_PROBLEMS=examples/problems python -m pytest -p no:kernelopt -q benchmarks/plain_compile_test.py
"""

import os
from pathlib import Path

import pytest

PROBLEMS = sorted(Path(os.environ.get("KERNELOPT_PLAIN_PROBLEMS", "examples/problems")).glob("[a-z]*.py"))


@pytest.mark.parametrize("path", PROBLEMS, ids=[p.stem for p in PROBLEMS])
def test_plain_compile(path):
    import torch
    from plain_compile_check import compile_and_check  # benchmarks/ is on sys.path (pytest's rootdir insertion)

    compile_and_check(path, "cuda" if torch.cuda.is_available() else "cpu")
