"""How the cache names what a run looks up and writes: the device kind, the key of a kernel (or of a fused run
of kernels) on the module's inputs, and a problem file's id."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Sequence

import torch

from ..backends import Backend
from ..cache_keys import CacheKey, device_kind

if TYPE_CHECKING:
    from ..graph import KernelGraph
    from ..problems import InputSig


def device_key(backend: Backend) -> str:
    """``cuda:sm90``-style device kind for cache keys, or ``cpu``."""
    if backend.name != "cuda":
        return "cpu"
    return device_kind(torch.cuda.get_device_capability())


def cache_key(graph: KernelGraph, names: tuple[str, ...], inputs: Sequence[InputSig], device: str,
              compile_mode: str = "default") -> CacheKey:
    """The key of the kernels ``names`` of ``graph`` (one, or a fused run's) on inputs of this signature."""
    return CacheKey.from_inputs([graph.kernels[n] for n in names], inputs, device, compile_mode)


def problem_id_for(path: str | Path, root: str | Path) -> str:
    """How the cache records a problem file: relative to ``root`` (pytest's rootdir) when under it, so a
    committed entry names the file the same way in every checkout; otherwise the path as given."""
    try:
        return Path(path).resolve().relative_to(Path(root).resolve()).as_posix()
    except ValueError:
        return str(path)
