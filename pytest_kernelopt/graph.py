"""The data model of a captured compiled graph.  Pure data: no torch import."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Literal, Union

KernelKind = Literal["pointwise", "reduction", "persistent_reduction", "template", "other"]

_HEURISTIC_KIND: dict[str, KernelKind] = {
    "pointwise": "pointwise",
    "reduction": "reduction",
    "persistent_reduction": "persistent_reduction",
    "cooperative_reduction": "reduction",
    "split_scan": "other",
    "template": "template",
    "user_autotune": "other",
    "foreach": "other",
}


def kind_of_heuristic(heuristic: str | None) -> KernelKind:
    return _HEURISTIC_KIND.get(heuristic or "", "other")


_VOLATILE = [
    (re.compile(r"'backend_hash': '[0-9A-Fa-f]*',?\s*"), ""),
    (re.compile(r"'kernel_name': '[^']*',?\s*"), ""),
]


def normalize_kernel_source(source: str, name: str) -> str:
    """Kernel source with what varies between identical compiles removed.

    Inductor numbers kernels per graph (``..._0``, ``..._1``) and stamps the
    triton backend hash into the metadata; neither changes what the kernel
    computes, so both are taken out before hashing.
    """
    text = source.replace(name, "KERNEL")
    for pattern, repl in _VOLATILE:
        text = pattern.sub(repl, text)
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


def source_hash(source: str, name: str) -> str:
    return hashlib.sha256(normalize_kernel_source(source, name).encode()).hexdigest()


@dataclass(frozen=True)
class TritonKernel:
    """One Triton kernel Inductor generated: ``name = async_compile.triton(name, source, ...)``."""

    name: str
    source: str
    kind: KernelKind
    heuristic: str | None
    params: tuple[str, ...]
    signature: dict[str, str]
    device_str: str
    size_hints: dict[str, int] = field(default_factory=dict)

    @property
    def content_hash(self) -> str:
        return source_hash(self.source, self.name)

    @property
    def runtime_params(self) -> tuple[str, ...]:
        """Parameters passed at launch (constexpr block sizes come from the config)."""
        return tuple(p for p in self.params if self.signature.get(p) != "constexpr")


@dataclass(frozen=True)
class TritonLaunch:
    """``kernel.run(args..., stream=...)`` in the wrapper's ``call()``."""

    index: int
    kernel: str
    args: tuple[str, ...]
    text: str

    kind: str = "triton"


@dataclass(frozen=True)
class ExternCall:
    """A vendor-library or ATen call kept as it is (cuBLAS, cuDNN, aten fallbacks)."""

    index: int
    target: str
    text: str

    kind: str = "extern"


Launch = Union[TritonLaunch, ExternCall]


@dataclass(frozen=True)
class LaunchTrace:
    """What one kernel launch looked like at run time."""

    kernel: str
    grid: tuple[int, ...] | None
    config: dict[str, int]
    num_warps: int | None
    num_stages: int | None
    arg_shapes: tuple[tuple[int, ...] | None, ...]
    arg_dtypes: tuple[str | None, ...]


@dataclass(frozen=True)
class KernelGraph:
    """One compiled graph (forward, backward, or one piece of a graph break)."""

    index: int
    role: str
    source: str
    torch_version: str
    device: str
    kernels: dict[str, TritonKernel]
    launches: tuple[Launch, ...]
    other_kernels: tuple[str, ...] = ()
    traces: tuple[LaunchTrace, ...] = ()

    @property
    def triton_launches(self) -> list[TritonLaunch]:
        return [x for x in self.launches if isinstance(x, TritonLaunch)]

    @property
    def extern_calls(self) -> list[ExternCall]:
        return [x for x in self.launches if isinstance(x, ExternCall)]

    def launch_count(self, kernel: str) -> int:
        return sum(1 for x in self.triton_launches if x.kernel == kernel)

    def neighbours(self, kernel: str, radius: int = 1) -> list[Launch]:
        idx = [i for i, x in enumerate(self.launches) if getattr(x, "kernel", None) == kernel]
        out: list[Launch] = []
        for i in idx:
            for j in range(max(0, i - radius), min(len(self.launches), i + radius + 1)):
                if j != i and self.launches[j] not in out:
                    out.append(self.launches[j])
        return out

    def contiguous_runs(self, min_len: int = 2) -> list[tuple[str, ...]]:
        """Runs of Triton launches with no vendor call between them (fusion candidates).

        A kernel launched more than once in the graph is never part of a run:
        fusing it would change every launch site at once.
        """
        runs: list[tuple[str, ...]] = []
        cur: list[str] = []
        for x in list(self.launches) + [None]:
            if isinstance(x, TritonLaunch) and self.launch_count(x.kernel) == 1:
                cur.append(x.kernel)
                continue
            if len(cur) >= min_len:
                runs.append(tuple(cur))
            cur = []
        return runs

    def summary(self) -> str:
        lines = [f"graph {self.index} ({self.role}, {self.device}, torch {self.torch_version}): "
                 f"{len(self.kernels)} Triton kernels, {len(self.extern_calls)} preserved calls"]
        traces = {t.kernel: t for t in self.traces}
        for x in self.launches:
            if isinstance(x, TritonLaunch):
                k = self.kernels[x.kernel]
                t = traces.get(x.kernel)
                extra = f" grid={t.grid} config={t.config} warps={t.num_warps}" if t else ""
                lines.append(f"  [{x.index}] triton {k.kind:<20} {x.kernel}{extra}")
            else:
                lines.append(f"  [{x.index}] kept   {x.target}")
        return "\n".join(lines)
