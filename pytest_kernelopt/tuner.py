"""The offline tuner: launch-configuration search over Inductor's own kernels, no LLM needed.

For each kernel it enumerates launch configurations Inductor's heuristics
would not try (block sizes, warps, stages; for looped reductions the reduction
block too), keeping the kernel source as Inductor wrote it.  Only keys the
baseline's chosen config already has are varied, so a candidate can never
change what a kernel computes -- only how it is split over programs.  Every
candidate is still judged by the full gate cascade at the module level.
"""

from __future__ import annotations

import itertools
from typing import Iterator

from .candidate import Candidate
from .graph import KernelGraph, LaunchTrace, TritonKernel

_POW2 = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096]
MAX_BLOCK_NUMEL = 8192


def _hint(kernel: TritonKernel, key: str, default: int = 1 << 20) -> int:
    return int(kernel.size_hints.get(key, default))


def _block_numel(cfg: dict[str, int], r_numel: int | None) -> int:
    n = 1
    for k, v in cfg.items():
        if k.endswith("BLOCK"):
            n *= v
    return n * (r_numel or 1)


def _persistent_r(kernel: TritonKernel) -> int:
    """The reduction size a persistent kernel holds in registers (its R0_BLOCK)."""
    r = 1
    for k, v in kernel.size_hints.items():
        if k.startswith("r"):
            r *= v
    return r


def config_space(kernel: TritonKernel, trace: LaunchTrace | None) -> list[dict[str, int]]:
    """Valid launch configurations for one kernel, the baseline's own excluded."""
    if trace is None or not trace.config or kernel.kind not in ("pointwise", "reduction", "persistent_reduction"):
        return []
    keys = sorted(k for k in trace.config if k.endswith("BLOCK"))
    choices: dict[str, list[int]] = {}
    for k in keys:
        dim = k[:-5].lower()  # XBLOCK -> x, R0_BLOCK -> r0_ (Inductor's size_hints keys)
        hint = _hint(kernel, dim, 4096)
        lo = 1 if kernel.kind != "pointwise" or len(keys) > 1 else 32
        choices[k] = [v for v in _POW2 if lo <= v <= max(hint, lo)]
    r_numel = _persistent_r(kernel) if kernel.kind == "persistent_reduction" else None
    base = {k: trace.config[k] for k in keys}
    base_full = (base, trace.num_warps, trace.num_stages)
    out: list[dict[str, int]] = []
    for values in itertools.product(*(choices[k] for k in keys)):
        cfg = dict(zip(keys, values))
        numel = _block_numel(cfg, r_numel)
        if numel > MAX_BLOCK_NUMEL:
            continue
        for warps in (1, 2, 4, 8, 16):
            if numel < warps * 32 and warps > 1:
                continue
            if numel > warps * 32 * 64:  # too many elements per thread: registers spill
                continue
            for stages in ((1, 2) if kernel.kind == "reduction" else (1,)):
                if (cfg, warps, stages) == base_full:
                    continue
                out.append({**cfg, "num_warps": warps, "num_stages": stages})
    return out


def _distance(cfg: dict[str, int], trace: LaunchTrace) -> float:
    import math

    d = 0.0
    for k, v in cfg.items():
        ref = trace.config.get(k) if k.endswith("BLOCK") else (trace.num_warps if k == "num_warps" else
                                                              trace.num_stages)
        if ref:
            d += abs(math.log2(max(v, 1)) - math.log2(max(ref, 1)))
    return d


def _trace(graph: KernelGraph, kernel_name: str) -> LaunchTrace | None:
    return next((t for t in graph.traces if t.kernel == kernel_name), None)


def can_search(graph: KernelGraph, kernel_name: str) -> bool:
    """Whether the tuner has any launch configuration to try for this kernel (a split scan has none)."""
    return bool(config_space(graph.kernels[kernel_name], _trace(graph, kernel_name)))


def propose_configs(graph: KernelGraph, kernel_name: str, limit: int) -> list[Candidate]:
    """Up to ``limit`` config candidates, nearest to the baseline's config first.

    Near neighbours of the chosen config are where Inductor's small heuristic
    list most often leaves time (one notch more or fewer warps, a block size
    twice as large); far-away configs come after them.
    """
    kernel = graph.kernels[kernel_name]
    trace = _trace(graph, kernel_name)
    space = config_space(kernel, trace)
    if trace is not None:
        space.sort(key=lambda c: (_distance(c, trace), sorted(c.items())))
    return [
        Candidate(replaces=(kernel_name,), source=kernel.source, configs=(cfg,), origin="tuner",
                  description="launch config " + ", ".join(f"{k}={v}" for k, v in cfg.items()))
        for cfg in space[:limit]
    ]


def iter_kernels(graphs: list[KernelGraph], order: list[str] | None = None) -> Iterator[tuple[KernelGraph, str]]:
    seen = set()
    pairs = [(g, n) for g in graphs for n in g.kernels]
    if order:
        rank = {n: i for i, n in enumerate(order)}
        pairs.sort(key=lambda p: rank.get(p[1], len(rank)))
    for g, n in pairs:
        if (g.index, n) not in seen:
            seen.add((g.index, n))
            yield g, n
