"""What an evaluation worker may send its parent: data, decoded without running any of it.

A worker that has loaded a candidate is not trusted, so its messages are not
pickles.  :func:`dumps` turns a value into nested dicts, lists, tuples,
primitives and CPU tensors, with this project's record dataclasses tagged by
name; :func:`loads` reads it back with ``torch.load(weights_only=True)`` (which
refuses any other type) and rebuilds only the dataclasses of :func:`_registry`.
Any other object is sent as its ``repr``.
"""

from __future__ import annotations

import dataclasses
import io
from typing import Any

_TAG = "__kernelopt_record__"


def _registry() -> dict[str, type]:
    from .gates.results import CascadeResult, GateResult
    from .gates.trials import BaselineRecord, CandidateRecord, Run, SeedPlan
    from .graph import ExternCall, KernelGraph, LaunchTrace, TritonKernel, TritonLaunch
    from .ncu import NcuReport
    from .problems import InputSig
    from .profile import KernelProfile, ModuleProfile

    classes = (CascadeResult, GateResult, BaselineRecord, CandidateRecord, Run, SeedPlan, ExternCall, KernelGraph,
               LaunchTrace, TritonKernel, TritonLaunch, NcuReport, InputSig, KernelProfile, ModuleProfile)
    return {c.__name__: c for c in classes}


def _encode(obj: Any) -> Any:
    import torch

    if obj is None or type(obj) in (bool, int, float, str, bytes):
        return obj
    for plain in (bool, int, float, str, bytes):  # subclasses (TorchVersion, IntEnum, numpy scalars) as plain values
        if isinstance(obj, plain):
            return plain(obj)
    if isinstance(obj, torch.Tensor):
        return obj.detach().to("cpu")
    if isinstance(obj, torch.Size):
        return tuple(obj)
    if isinstance(obj, torch.dtype):
        return str(obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        if type(obj).__name__ not in _registry():
            return repr(obj)
        return {_TAG: type(obj).__name__,
                "fields": {f.name: _encode(getattr(obj, f.name)) for f in dataclasses.fields(obj)}}
    if isinstance(obj, tuple):
        return tuple(_encode(o) for o in obj)
    if isinstance(obj, list):
        return [_encode(o) for o in obj]
    if isinstance(obj, dict):
        return {k if isinstance(k, (str, int, float, bool)) or k is None else repr(k): _encode(v)
                for k, v in obj.items()}
    if isinstance(obj, (set, frozenset)):
        return [_encode(o) for o in obj]
    return repr(obj)


def _decode(obj: Any, registry: dict[str, type]) -> Any:
    if isinstance(obj, dict):
        if _TAG in obj:
            cls = registry.get(obj[_TAG])
            if cls is None:
                raise ValueError(f"worker sent an unknown record type {obj[_TAG]!r}")
            return cls(**{k: _decode(v, registry) for k, v in obj["fields"].items()})
        return {k: _decode(v, registry) for k, v in obj.items()}
    if isinstance(obj, tuple):
        return tuple(_decode(o, registry) for o in obj)
    if isinstance(obj, list):
        return [_decode(o, registry) for o in obj]
    return obj


def dumps(obj: Any) -> bytes:
    import torch

    buf = io.BytesIO()
    torch.save(_encode(obj), buf)
    return buf.getvalue()


def loads(data: bytes) -> Any:
    import torch

    return _decode(torch.load(io.BytesIO(data), weights_only=True), _registry())
