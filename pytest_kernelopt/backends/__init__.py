"""Execution backends: a CUDA GPU, or Inductor's Triton output run by the interpreter on CPU.

``select_backend("auto")`` picks CUDA when a GPU is present and the CPU
interpreter otherwise.  Which one ran is always reported: on the CPU backend
performance is never measured and nothing is accepted for speed.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass, field
from typing import Any

from ..errors import BackendError, NoGPUError
from ..gpu_pinning import timing_refused
from . import cpu_interpret

BACKEND_CHOICES = ("auto", "cuda", "cpu")


@dataclass(frozen=True)
class Backend:
    name: str  # "cuda" or "cpu"
    device: str  # torch device string
    inductor_options: dict[str, Any] = field(default_factory=dict)
    measures_time: bool = False
    description: str = ""


def gpu_probably_present() -> bool:
    """Cheap check without importing torch (used before heavy imports)."""
    if os.environ.get("CUDA_VISIBLE_DEVICES", None) in ("", "-1"):
        return False
    return bool(glob.glob("/dev/nvidia[0-9]*")) or os.path.exists("/dev/nvidiactl")


def prepare(choice: str = "auto") -> None:
    """Set environment variables a backend needs before torch/triton import."""
    if choice not in BACKEND_CHOICES:
        raise BackendError(f"unknown backend {choice!r}; choose one of {', '.join(BACKEND_CHOICES)}")
    if choice == "cpu" or (choice == "auto" and not gpu_probably_present()):
        cpu_interpret.prepare_environment()


def select_backend(choice: str = "auto") -> Backend:
    """Resolve ``auto`` / ``cuda`` / ``cpu`` to a ready backend."""
    if choice not in BACKEND_CHOICES:
        raise BackendError(f"unknown backend {choice!r}; choose one of {', '.join(BACKEND_CHOICES)}")
    interpreting = cpu_interpret.interpreter_requested()
    if choice == "auto":
        choice = "cpu" if interpreting or not gpu_probably_present() else "cuda"
    if choice == "cuda":
        if interpreting:
            raise BackendError("TRITON_INTERPRET=1 is set, so Triton kernels cannot run on the GPU in this "
                               "process; unset it or choose the cpu backend")
        import torch

        if not torch.cuda.is_available():
            raise NoGPUError("the cuda backend was requested but torch sees no CUDA GPU "
                             f"(torch {torch.__version__}); use --kernelopt-backend=cpu or auto")
        name = torch.cuda.get_device_name()
        refused = timing_refused()  # a GPU another xdist worker uses is never timed on (gpu_pinning.py)
        if refused:
            return Backend("cuda", "cuda", {}, False, f"CUDA GPU {name}, torch {torch.__version__}; performance "
                           f"not measured: {refused}")
        return Backend("cuda", "cuda", {}, True, f"CUDA GPU {name}, torch {torch.__version__}")
    cpu_interpret.install()
    import torch
    import triton

    return Backend("cpu", "cpu", cpu_interpret.inductor_options(), False,
                   f"CPU: Inductor Triton code run by the Triton interpreter (torch {torch.__version__}, "
                   f"triton {triton.__version__}); performance is not measured")
