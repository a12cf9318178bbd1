"""What a proposer (agent, tuner, user, cache) hands to the gates: a candidate replacement."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any

#: the fields of a launch spec's JSON form (anything else is refused: a field silently ignored reads as obeyed)
LAUNCH_KEYS = ("kernel", "args", "grid", "num_warps", "num_stages", "constexprs")


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
        """From its JSON form; a field of the wrong type is a ``ValueError`` naming it (a grid given as a list,
        say), never a failure deeper in the judge."""
        if not isinstance(d, dict):
            raise ValueError(f"a launch spec is a JSON object, got {type(d).__name__}")
        unknown = sorted(str(k) for k in d if k not in LAUNCH_KEYS)
        if unknown:
            raise ValueError(f"launch spec: unknown field(s) {unknown} (the fields are {', '.join(LAUNCH_KEYS)})")
        kernel, args, grid = d.get("kernel"), d.get("args"), d.get("grid")
        constexprs = d.get("constexprs", {})
        if not isinstance(kernel, str):
            raise ValueError(f"launch spec: 'kernel' must be a string (the @triton.jit function), got {kernel!r}")
        if not isinstance(args, (list, tuple)) or not all(isinstance(a, str) for a in args):
            raise ValueError(f"launch spec: 'args' must be a list of argument names, got {args!r}")
        if not isinstance(grid, str):
            raise ValueError(f"launch spec: 'grid' must be a string expression such as \"(cdiv(xnumel, XBLOCK),)\", "
                             f"got {grid!r}")
        if not isinstance(constexprs, dict) or not all(isinstance(k, str) for k in constexprs):
            # the values are the static gate's to judge (a value that is code is a rejected candidate)
            raise ValueError(f"launch spec: 'constexprs' must be an object mapping names to values, got {constexprs!r}")
        for key in ("num_warps", "num_stages"):
            v = d.get(key, 1)
            if not isinstance(v, int) or isinstance(v, bool):
                raise ValueError(f"launch spec: {key!r} must be an integer, got {v!r}")
        return cls(kernel=kernel, args=tuple(args), grid=grid, num_warps=int(d.get("num_warps", 4)),
                   num_stages=int(d.get("num_stages", 1)), constexprs=dict(constexprs))


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
        """From its JSON form (a candidate file, a worker's message, a cache entry).  Every field is type-checked
        here: one of the wrong type is a ``ValueError`` naming it (``kernelopt judge``: a usage error, exit 2),
        never a failure deeper in the judge (a ``source`` given as a number ended in a traceback)."""
        if not isinstance(d, dict):
            raise ValueError(f"a candidate is a JSON object, got {type(d).__name__}")
        if "replaces" not in d or "source" not in d:
            raise KeyError("replaces" if "replaces" not in d else "source")
        replaces, source = d["replaces"], d["source"]
        if not isinstance(replaces, (list, tuple)) or not all(isinstance(n, str) and n for n in replaces):
            raise ValueError(f"candidate: 'replaces' must be a list of kernel names (strings), got {replaces!r:.200}")
        if not isinstance(source, str):
            raise ValueError(f"candidate: 'source' must be a string (the Triton source), got "
                             f"{type(source).__name__}")
        configs = d.get("configs") or ()
        if not isinstance(configs, (list, tuple)) or not all(
                isinstance(c, dict) and all(isinstance(k, str) for k in c) for c in configs):
            raise ValueError(f"candidate: 'configs' must be a list of objects such as {{\"XBLOCK\": 64, "
                             f"\"num_warps\": 4}}, got {configs!r:.200}")
        for name in ("origin", "description"):
            if not isinstance(d.get(name, ""), str):
                raise ValueError(f"candidate: {name!r} must be a string, got {type(d[name]).__name__}")
        return cls(replaces=tuple(replaces), source=source, configs=tuple(dict(c) for c in configs),
                   launch=LaunchSpec.from_json(d["launch"]) if d.get("launch") else None,
                   origin=d.get("origin", "manual"), description=d.get("description", ""))
