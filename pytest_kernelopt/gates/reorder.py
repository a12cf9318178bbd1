"""Is a candidate Inductor's own kernel under another launch configuration?

Such a candidate computes exactly Inductor's arithmetic; only the order of a
reduction's terms (how many a thread accumulates before the tree, how the
tree is shaped) can change.  On a long reduction that order alone moves the
result by hundreds of float32 epsilons from the truth -- a group norm over 2M
values per group: Inductor's config 1 eps, another config of the same kernel
163 eps (measured on an H200) -- so the float64 gate's precision check, which
exists to catch lower-precision *arithmetic*, does not apply to it; the
tolerance against the baseline, the bias test and the fallback still do.

This is an allowlist, decided by the judge from the candidate's data and the
captured graph, never from what the candidate says about itself: one kernel,
no launch spec of its own, a source identical to the captured kernel's
(:func:`pytest_kernelopt.graph.normalize_kernel_source`: only Inductor's
per-graph numbering and backend hash differ), and exactly one launch
configuration that the tuner's own search space admits for that kernel
(:func:`pytest_kernelopt.launch_space.valid`: the kernel's own block keys, block and
grid limits; a persistent reduction's block stays whole).

A split scan is the one kernel of Inductor's whose own code is not
reproducible bit for bit: its decoupled look-back adds the earlier blocks'
prefixes in the order they become visible (a block's inclusive prefix when it
is ready, else its aggregate), so two runs of the same launch can round
differently.  :func:`arrival_order` says so for a certified reorder, and the
correctness gate then asks of its second run what it asks of the first (within
tolerance of the baseline) instead of the same bits.
"""
from __future__ import annotations

from typing import Any

from ..candidate import Candidate
from ..graph import normalize_kernel_source
from ..launch_space import valid

#: the helper of Inductor's split scans that combines block prefixes in arrival order
LOOKBACK = "exclusive_scan_decoupled_lookback"


def inductor_reorder(candidate: Candidate, graph: Any, name: str) -> str | None:
    """A one-line description when ``candidate`` is the captured kernel ``name`` of ``graph`` (the kernel it
    replaces, resolved) under another valid launch config, else None."""
    if candidate.launch is not None or len(candidate.replaces) != 1 or len(candidate.configs) != 1:
        return None
    kernel = getattr(graph, "kernels", {}).get(name)
    trace = next((t for t in getattr(graph, "traces", ()) if t.kernel == name), None)
    if kernel is None or trace is None:
        return None
    if normalize_kernel_source(candidate.source, name) != normalize_kernel_source(kernel.source, kernel.name):
        return None
    cfg = dict(candidate.configs[0])
    try:
        ok = valid(kernel, trace, cfg)
    except (KeyError, TypeError, ValueError):
        return None
    if not ok:
        return None
    return f"Inductor's own {name} under launch config " + ", ".join(f"{k}={v}" for k, v in cfg.items())


def arrival_order(graph: Any, name: str) -> bool:
    """Whether Inductor's own kernel ``name`` is a split scan (it calls the look-back helper): a certified reorder
    of it (:func:`inductor_reorder`, which the caller has established) may differ between runs in rounding, never
    in anything else."""
    kernel = getattr(graph, "kernels", {}).get(name)
    return kernel is not None and LOOKBACK + "(" in kernel.source
