"""The child process :mod:`pytest_kernelopt.ncu` runs under ``ncu``: build, compile, warm up, profile one call.

Usage: ``python -m pytest_kernelopt.ncu_target SPEC.pkl`` where the file holds
``(ProblemSpec, training)``.  Only the call between ``cudaProfilerStart`` and
``cudaProfilerStop`` is profiled (``ncu --profile-from-start off``), so the
compile and the warm-up launches are not.
"""

from __future__ import annotations

import pickle
import sys

from .capture import backward_inputs
from .problems import build_problem


def main(argv: list[str]) -> int:
    with open(argv[0], "rb") as f:
        spec, training = pickle.load(f)
    import torch

    problem = build_problem(spec, "cuda")
    compiled = torch.compile(problem.module)
    x = problem.example_inputs

    def call() -> None:
        if training:
            out = compiled(*x)
            outs, grads = backward_inputs(out)
            if outs:
                torch.autograd.backward(outs, grads)
        else:
            with torch.no_grad():
                compiled(*x)

    for _ in range(3):
        call()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    call()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
