"""Which import of Inductor initialises CUDA (GPU): the worker forkserver cannot preload it for GPU workers while
it does (pytest_kernelopt/worker_start.py: a child forked after CUDA's initialisation cannot use CUDA).

Prints the import's wall time, whether CUDA is initialised after it, and the stack of the first call that
initialised it.

    python benchmarks/inductor_cuda_init.py [module ...]   (default: torch._inductor.compile_fx)
"""

from __future__ import annotations

import importlib
import sys
import time
import traceback

import torch
import triton  # noqa: F401

stacks: list[str] = []
_orig = torch.cuda._lazy_init


def _spy() -> None:
    if not torch.cuda.is_initialized() and not stacks:
        stacks.append("".join(traceback.format_stack(limit=40)[:-1]))
    _orig()


torch.cuda._lazy_init = _spy
for name in sys.argv[1:] or ["torch._inductor.compile_fx"]:
    t0 = time.perf_counter()
    importlib.import_module(name)
    print(f"import {name}: {time.perf_counter() - t0:.2f} s; CUDA initialised: {torch.cuda.is_initialized()}",
          flush=True)
print(stacks[0] if stacks else "no call of torch.cuda._lazy_init initialised CUDA", flush=True)
