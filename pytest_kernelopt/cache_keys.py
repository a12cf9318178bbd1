"""What a cache entry is keyed by: the environment it was measured in, and the key that must match for it to be used.

Importing this module never imports torch; only :func:`current_environment` does.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from typing import Any, Mapping, Sequence, cast

#: salts every key's digest: a new schema never reads old keys
SCHEMA_VERSION = 1


# --------------------------------------------------------------------------- environment


_ENV_FIELDS = ("torch", "triton", "cuda", "gpu_name", "compute_capability", "device")


@dataclass(frozen=True)
class Environment:
    """Where an entry was measured.  A kernel's speed (and Inductor's baseline) depends on all of it."""

    torch: str | None = None
    triton: str | None = None
    cuda: str | None = None
    gpu_name: str | None = None
    compute_capability: str | None = None
    device: str = "cpu"

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "Environment":
        if not isinstance(d, Mapping):
            raise TypeError("environment must be an object")
        return cls(**{f: (None if d.get(f) is None else str(d.get(f))) for f in _ENV_FIELDS[:-1]},
                   device=str(d.get("device", "cpu")))

    def differences(self, current: "Environment") -> list[str]:
        return [f"{f}: recorded {getattr(self, f)}, now {getattr(current, f)}"
                for f in _ENV_FIELDS if getattr(self, f) != getattr(current, f)]


def device_kind(capability: tuple[int, int] | None) -> str:
    """``'cuda:sm90'`` for compute capability (9, 0), ``'cpu'`` without a GPU: part of every key."""
    return "cpu" if capability is None else f"cuda:sm{capability[0]}{capability[1]}"


def current_environment() -> Environment:
    """The environment of this process (imports torch, and triton if installed)."""
    import torch

    try:
        import triton

        triton_version = triton.__version__
    except ImportError:
        triton_version = None
    cuda = getattr(torch.version, "cuda", None)
    if torch.cuda.is_available():
        cap = cast("tuple[int, int]", tuple(torch.cuda.get_device_capability()))
        return Environment(torch.__version__, triton_version, cuda, torch.cuda.get_device_name(),
                           f"{cap[0]}.{cap[1]}", device_kind(cap))
    return Environment(torch.__version__, triton_version, cuda, None, None, "cpu")


# --------------------------------------------------------------------------- keys


def _shape(s: Any) -> tuple[int, ...]:
    return tuple(int(d) for d in s)


@dataclass(frozen=True)
class CacheKey:
    """What must match for a cached kernel to be used: anything different is a miss.

    ``baseline_hashes`` are :func:`pytest_kernelopt.graph.source_hash` of the
    replaced kernel(s), in launch order (a fusion replaces several);
    ``input_shapes`` / ``input_dtypes`` describe the module's inputs;
    ``device`` is :func:`device_kind` of the GPU (or ``'cpu'``); ``compile_mode``
    the torch.compile mode of the baseline (a kernel's launch config, and so
    what a candidate was measured against, depends on it; ``"default"`` is left
    out of the key's JSON, so entries written before the field keep their digests).
    """

    baseline_hashes: tuple[str, ...]
    input_shapes: tuple[tuple[int, ...], ...]
    input_dtypes: tuple[str, ...]
    device: str
    compile_mode: str = "default"

    def __post_init__(self) -> None:
        object.__setattr__(self, "baseline_hashes", tuple(str(h) for h in self.baseline_hashes))
        object.__setattr__(self, "input_shapes", tuple(_shape(s) for s in self.input_shapes))
        object.__setattr__(self, "input_dtypes", tuple(str(d).replace("torch.", "") for d in self.input_dtypes))
        if not self.baseline_hashes or not all(self.baseline_hashes):
            raise ValueError("a cache key needs the content hash of at least one baseline kernel")
        if len(self.input_shapes) != len(self.input_dtypes):
            raise ValueError("a cache key needs one dtype per input shape")

    @classmethod
    def from_inputs(cls, baselines: Sequence[Any], inputs: Sequence[Any], device: str,
                    compile_mode: str = "default") -> "CacheKey":
        """Key for baseline kernels (TritonKernel or hash strings) and the module's inputs.

        Tensors are described by shape and dtype; other inputs by ``()`` and
        their type name (their values are baked into the baseline's source).
        """
        hashes = [b if isinstance(b, str) else b.content_hash for b in baselines]
        shapes = [tuple(x.shape) if hasattr(x, "shape") and hasattr(x, "dtype") else () for x in inputs]
        dtypes = [str(x.dtype) if hasattr(x, "shape") and hasattr(x, "dtype") else type(x).__name__
                  for x in inputs]
        return cls(tuple(hashes), tuple(shapes), tuple(dtypes), device, compile_mode)

    def to_json(self) -> dict[str, Any]:
        d = {"baseline_hashes": list(self.baseline_hashes), "input_shapes": [list(s) for s in self.input_shapes],
             "input_dtypes": list(self.input_dtypes), "device": self.device}
        if self.compile_mode != "default":
            d["compile_mode"] = self.compile_mode
        return d

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "CacheKey":
        return cls(tuple(d["baseline_hashes"]), tuple(d["input_shapes"]), tuple(d["input_dtypes"]), str(d["device"]),
                   str(d.get("compile_mode", "default")))

    @property
    def digest(self) -> str:
        """sha256 of the key fields salted with the schema version (a new schema never reads old keys)."""
        payload = json.dumps({"schema_version": SCHEMA_VERSION, **self.to_json()}, sort_keys=True)
        return hashlib.sha256(payload.encode()).hexdigest()
