"""Recording a search's decisions in the cache: each accepted kernel, and each kernel searched whose baseline
stayed (so the next optimize run does not search it again under the same conditions)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from .keys import cache_key

if TYPE_CHECKING:
    from ..cache import KernelCache
    from ..graph import KernelGraph
    from ..optimize import ProblemOutcome
    from ..problems import InputSig


def store_decisions(cache: KernelCache, graphs: Sequence[KernelGraph], inputs: Sequence[InputSig],
                    outcome: ProblemOutcome, device: str, problem_id: str, compile_mode: str = "default",
                    searched: dict[str, Any] | None = None) -> set[tuple[int, str]]:
    """Write the run's decisions to the cache (``searched``: how the run searched, kept with a baseline's
    decision); returns the (graph, kernel or fused label) pairs written."""
    by_index = {g.index: g for g in graphs}
    written: set[tuple[int, str]] = set()
    for k in outcome.kernels:
        g = by_index[k.graph]
        if k.decision == "accepted" and k.winner is not None and k.result is not None:
            names = tuple(k.winner.replaces)
            key = cache_key(g, names, inputs, device, compile_mode)
            # (no trust record here: the module's state it was judged with is in the worker; the first verify
            # run judges the entry in isolation once, with the state and settings it then has)
            cache.store_accepted(key, k.winner, [g.kernels[n] for n in names], k.result, problem_id=problem_id)
            written.update((k.graph, n) for n in names)  # a fused winner replaces each kernel of its run
        elif k.decision == "baseline_kept" and (k.tried or k.screened):
            # searched and lost: candidates gated, or screened and none came close to the bar
            names = tuple(k.kernel.split("+"))
            cache.store_baseline_kept(cache_key(g, names, inputs, device, compile_mode), [g.kernels[n] for n in names],
                                      problem_id=problem_id, attempts=k.tried, reason=k.note, searched=searched)
        else:
            continue
        written.add((k.graph, "+".join(names)))
    return written
