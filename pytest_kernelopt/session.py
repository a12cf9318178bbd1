"""The workflows shared by the CLI and the plugin: optimize a problem, apply and re-verify cached kernels."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from .backends import Backend
from .config import Settings
from .optimize import KernelOutcome, LocalEvaluator, Optimizer, ProblemOutcome, agent_factory_for

ProgressFn = Callable[[str], None]


def device_key(backend: Backend) -> str:
    """``cuda:sm90``-style device kind for cache keys, or ``cpu``."""
    if backend.name != "cuda":
        return "cpu"
    import torch

    from .cache import device_kind

    return device_kind(torch.cuda.get_device_capability())


def make_evaluator(spec: Any, settings: Settings, backend: Backend) -> Any:
    """An isolated worker-process evaluator, or an in-process one with ``isolate=False``."""
    if settings.isolate:
        from .isolate import IsolatedEvaluator

        return IsolatedEvaluator(spec, settings)
    from .gates.cascade import EvaluationSession
    from .problems import build_problem

    return LocalEvaluator(EvaluationSession(build_problem(spec, backend.device, settings.base_seed), settings, backend))


def cache_key(graph: Any, names: tuple[str, ...], inputs: list, device: str) -> Any:
    from .cache import CacheKey

    return CacheKey.from_inputs([graph.kernels[n] for n in names], inputs, device)


def optimize_with_cache(evaluator: Any, settings: Settings, backend: Backend, *, name: str, problem_id: str,
                        use_cache: bool = True, progress: ProgressFn | None = None) -> ProblemOutcome:
    """Optimize the kernels that have no cache entry; record accepted kernels (and, on a GPU, kept baselines)."""
    cache = None
    device = device_key(backend)
    if use_cache:
        from .cache import KernelCache

        cache = KernelCache(settings.cache_dir, strict=settings.strict_cache)
    hits: dict[tuple[int, str], Any] = {}

    def skip(graph: Any, kname: str) -> str | None:
        if cache is None:
            return None
        entry = cache.lookup(cache_key(graph, (kname,), evaluator.inputs, device))
        if entry is None:
            return None
        hits[(graph.index, kname)] = entry
        if entry.is_baseline_kept:
            return "cache: no candidate beat this kernel before (baseline kept)"
        return f"cache: accepted kernel on record ({entry.summary()})"

    transcripts = str(Path(settings.cache_dir).parent / ".kernelopt" / "transcripts" / name)
    opt = Optimizer(evaluator, settings, name=name, progress=progress,
                    agent_factory=agent_factory_for(evaluator, settings, transcripts))
    outcome = opt.run(skip=skip)
    if cache is not None and backend.measures_time:
        _record(cache, evaluator, outcome, device, problem_id)
    return outcome


def _record(cache: Any, evaluator: Any, outcome: ProblemOutcome, device: str, problem_id: str) -> None:
    graphs = {g.index: g for g in evaluator.graphs}
    for k in outcome.kernels:
        g = graphs[k.graph]
        if k.decision == "accepted" and k.winner is not None and k.result is not None:
            names = tuple(k.winner.replaces)
            cache.store_accepted(cache_key(g, names, evaluator.inputs, device), k.winner,
                                 [g.kernels[n] for n in names], k.result, problem_id=problem_id)
        elif k.decision == "baseline_kept" and k.tried:
            cache.store_baseline_kept(cache_key(g, (k.kernel,), evaluator.inputs, device), [g.kernels[k.kernel]],
                                      problem_id=problem_id, attempts=k.tried, reason=k.note)


def optimize_problem_file(path: str | Path, settings: Settings, backend: Backend, *, use_cache: bool = True,
                          progress: ProgressFn | None = None) -> ProblemOutcome:
    from .problems import ProblemSpec

    spec = ProblemSpec.from_file(path)
    evaluator = make_evaluator(spec, settings, backend)
    try:
        return optimize_with_cache(evaluator, settings, backend, name=spec.name, problem_id=str(path),
                                   use_cache=use_cache, progress=progress)
    finally:
        evaluator.close()


__all__ = ["KernelOutcome", "ProblemOutcome", "cache_key", "device_key", "make_evaluator", "optimize_problem_file",
           "optimize_with_cache"]
