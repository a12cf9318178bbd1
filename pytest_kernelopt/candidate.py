"""What a proposer (agent, tuner, user, cache) hands to the gates: a candidate replacement."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class LaunchSpec:
    """A candidate that brings its own launch instead of Inductor's heuristics.

    ``kernel`` is the ``@triton.jit`` function to launch; ``args`` name, in the
    order the kernel takes them, values from the replaced launch(es): a
    parameter name of the replaced kernel (``"in_ptr0"``, ``"xnumel"``), or
    ``"<kernel>.<param>"`` when several kernels are fused.  ``grid`` is an
    expression over the candidate kernel's parameters and ``constexprs`` using
    ``cdiv``, ``min`` and ``max``, e.g. ``"(cdiv(xnumel, XBLOCK),)"``.
    """

    kernel: str
    args: tuple[str, ...]
    grid: str
    num_warps: int = 4
    num_stages: int = 1
    constexprs: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["args"] = list(self.args)
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "LaunchSpec":
        return cls(kernel=d["kernel"], args=tuple(d["args"]), grid=d["grid"], num_warps=int(d.get("num_warps", 4)),
                   num_stages=int(d.get("num_stages", 1)), constexprs=dict(d.get("constexprs", {})))


@dataclass(frozen=True)
class Candidate:
    """A proposed replacement for one kernel, or one kernel for a contiguous run (fusion).

    ``source`` is Triton code: either a whole kernel module as Inductor writes
    it, or just the ``@triton.jit`` function(s); in the second case the
    original's imports and heuristics decorator are kept.  ``configs``
    overrides the launch configurations Inductor's heuristics would try
    (``{"XBLOCK": 64, "num_warps": 4, "num_stages": 1}``).
    """

    replaces: tuple[str, ...]
    source: str
    configs: tuple[dict[str, int], ...] = ()
    launch: LaunchSpec | None = None
    origin: str = "manual"
    description: str = ""

    def __post_init__(self) -> None:
        if not self.replaces:
            raise ValueError("a candidate must name the kernel(s) it replaces")
        if len(self.replaces) > 1 and self.launch is None:
            raise ValueError("a fusion candidate (several kernels) needs a LaunchSpec")

    @property
    def is_fusion(self) -> bool:
        return len(self.replaces) > 1

    @property
    def content_hash(self) -> str:
        payload = json.dumps({"source": self.source.strip(), "configs": list(self.configs),
                              "launch": self.launch.to_json() if self.launch else None}, sort_keys=True)
        return hashlib.sha256(payload.encode()).hexdigest()

    def to_json(self) -> dict[str, Any]:
        return {"replaces": list(self.replaces), "source": self.source, "configs": [dict(c) for c in self.configs],
                "launch": self.launch.to_json() if self.launch else None, "origin": self.origin,
                "description": self.description}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Candidate":
        return cls(replaces=tuple(d["replaces"]), source=d["source"],
                   configs=tuple(dict(c) for c in d.get("configs") or ()),
                   launch=LaunchSpec.from_json(d["launch"]) if d.get("launch") else None,
                   origin=d.get("origin", "manual"), description=d.get("description", ""))
