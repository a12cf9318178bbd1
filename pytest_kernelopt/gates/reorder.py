"""Is a candidate Inductor's own kernel under another launch configuration?

Such a candidate computes exactly Inductor's arithmetic; only the order of a
reduction's terms (how many a thread accumulates before the tree, how the
tree is shaped) can change.  On a long reduction that order alone moves the
result by hundreds of float32 epsilons from the truth -- a group norm over 2M
values per group: Inductor's config 1 eps, another config of the same kernel
163 eps (measured on an H200) -- so the float64 gate's precision check, which
exists to catch lower-precision *arithmetic*, does not apply to it; the
tolerance against the baseline, the bias test and the fallback still do.
That holds for an order whose sequential chains are no longer than the
baseline's: every reduction block at least the baseline's own
(:func:`pytest_kernelopt.launch_space.longer_chains`).  A smaller block adds
more terms in sequence into each lane's partial result: a softmax over rows of
16384 under ``R0_BLOCK=4``, a config Inductor's own max-autotune list holds,
lands 255 float32 epsilons from the truth where the baseline's order lands 0.5,
within tolerance.  :func:`longer_chain` names such a config, and the judge then
applies the precision check with the float64 truth on every seed
(:data:`.provenance.LONGER_CHAIN`).

This is an allowlist, decided by the judge from the candidate's data and the
captured graph, never from what the candidate says about itself: one kernel,
no launch spec of its own, a source identical to the captured kernel's
(:func:`certifiable_text`: only the kernel's own name, which Inductor numbers per graph,
and the value of its backend hash may differ; every other byte, metadata included, is compared), and exactly one launch
configuration: the baseline's own launch, or one the tuner's own search space
admits for that kernel or Inductor's own max-autotune list holds for it
(:func:`pytest_kernelopt.launch_space.certified_config`: the kernel's own block
keys, block and grid limits, unmasked dimensions; a persistent reduction's block stays whole).

:func:`mechanical_edit` certifies the tuner's one edit of Inductor's source the same way: the candidate's syntax
tree is the captured kernel's but for its reduction loop ``for r0_offset in range(...)`` written
``tl.range(..., num_stages=S)`` (S one of :data:`~pytest_kernelopt.launch_space.LOOP_STAGES`), under a launch
config the kernel's space admits.  The loop's schedule changes; its arithmetic does not.

Neither class is run twice on the same inputs (:mod:`.provenance`: the rerun defends against code only a
proposer writes), so a split scan, whose decoupled look-back adds the earlier blocks' prefixes in the order they
become visible and can round differently from one run to the next, is judged like any other reorder: against the
baseline's tolerance and the float64 truth.
"""
from __future__ import annotations

import ast
import re
from typing import Any

from ..candidate import Candidate
from ..launch_space import LOOP_STAGES, baseline_config, certified_config, longer_chains, trace_of

#: the one metadata value that differs between identical compiles on other environments: its key stays in place
_BACKEND_HASH = re.compile(r"'backend_hash': '[0-9A-Fa-f]*'")


def certifiable_text(source: str, name: str) -> str:
    """The text a certification compares: ``source`` with the kernel's own name ``name`` written ``KERNEL``, the
    backend hash's value emptied where it is written, and trailing blanks gone.  Stricter than the cache's
    :func:`pytest_kernelopt.graph.normalize_kernel_source`, which drops metadata entries wherever they appear:
    a certified kernel differs from Inductor's in nothing that reaches its compile or its metadata."""
    text = _BACKEND_HASH.sub("'backend_hash': ''", source.replace(name, "KERNEL"))
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


def inductor_reorder(candidate: Candidate, graph: Any, name: str) -> str | None:
    """A one-line description when ``candidate`` is the captured kernel ``name`` of ``graph`` (the kernel it
    replaces, resolved) under another valid launch config, else None."""
    found = _config_of(candidate, graph, name)
    if found is None:
        return None
    kernel, cfg = found
    if certifiable_text(candidate.source, name) != certifiable_text(kernel.source, kernel.name):
        return None
    return f"Inductor's own {name} under launch config " + ", ".join(f"{k}={v}" for k, v in cfg.items())


def longer_chain(candidate: Candidate, graph: Any, name: str) -> str | None:
    """Where ``candidate`` is certified (:func:`inductor_reorder`, :func:`mechanical_edit`: one kernel under one
    valid launch config of the kernel ``name`` captured in ``graph``): a one-line description of its reduction
    blocks smaller than the baseline's own (:func:`~pytest_kernelopt.launch_space.longer_chains`), else None."""
    found, trace = _config_of(candidate, graph, name), trace_of(graph, name)
    longer = longer_chains(trace, found[1]) if found is not None and trace is not None else {}
    if not longer:
        return None
    return ", ".join(f"{k}={v} below the baseline's {b}" for k, (v, b) in longer.items()) + \
        ": a longer sequential chain of rounding than the baseline's order"


def inductor_source(candidate: Candidate, graph: Any, name: str) -> bool:
    """Whether ``candidate`` is one kernel whose source is the captured kernel ``name``'s (normalized), under
    whatever launch: no code of a proposer's, though not certified as a reorder unless its launch is one
    :func:`inductor_reorder` admits."""
    kernel = getattr(graph, "kernels", {}).get(name)
    return kernel is not None and len(candidate.replaces) == 1 and candidate.launch is None and \
        certifiable_text(candidate.source, name) == certifiable_text(kernel.source, kernel.name)


def _config_of(candidate: Candidate, graph: Any, name: str) -> tuple[Any, dict[str, int]] | None:
    """The captured kernel ``name`` and the candidate's one launch config, where that config is the baseline's own
    launch or one the kernel's launch space admits and the candidate names no launch spec of its own; else
    None."""
    if candidate.launch is not None or len(candidate.replaces) != 1 or len(candidate.configs) != 1:
        return None
    kernel = getattr(graph, "kernels", {}).get(name)
    trace = next((t for t in getattr(graph, "traces", ()) if t.kernel == name), None)
    if kernel is None or trace is None:
        return None
    cfg = dict(candidate.configs[0])
    if cfg == baseline_config(trace):  # the launch Inductor itself made
        return kernel, cfg
    try:
        return (kernel, cfg) if certified_config(kernel, trace, cfg) else None
    except (KeyError, TypeError, ValueError):
        return None


class _PipelinedLoops(ast.NodeTransformer):
    """Rewrites every ``for r0_offset in range(...)`` / ``tl.range(...)`` loop as ``tl.range(...)`` without a
    ``num_stages``, counting the loops that named one of :data:`LOOP_STAGES` (``edited``) and any other keyword
    or value (``other``)."""

    def __init__(self) -> None:
        self.edited = 0
        self.other = 0

    def visit_For(self, node: ast.For) -> ast.AST:
        self.generic_visit(node)
        it = node.iter
        if not (isinstance(node.target, ast.Name) and node.target.id == "r0_offset" and isinstance(it, ast.Call)):
            return node
        func = it.func
        plain = isinstance(func, ast.Name) and func.id == "range"
        tl_range = (isinstance(func, ast.Attribute) and func.attr == "range" and isinstance(func.value, ast.Name)
                    and func.value.id == "tl")
        if not (plain or tl_range):
            return node
        for kw in it.keywords:
            if kw.arg == "num_stages" and isinstance(kw.value, ast.Constant) and type(kw.value.value) is int \
                    and kw.value.value in LOOP_STAGES and tl_range:
                self.edited += 1
            else:
                self.other += 1
        node.iter = ast.Call(func=ast.Attribute(value=ast.Name(id="tl", ctx=ast.Load()), attr="range",
                                                ctx=ast.Load()), args=it.args, keywords=[])
        return node


def _loops_normalized(source: str, name: str) -> tuple[str, int, int] | None:
    """The normalized source's syntax tree with its reduction loops written alike (:class:`_PipelinedLoops`), as
    text, with the counts of pipelined and of other loop keywords; None where it does not parse."""
    try:
        tree = ast.parse(certifiable_text(source, name))
    except SyntaxError:
        return None
    loops = _PipelinedLoops()
    tree = loops.visit(tree)
    return ast.dump(tree, include_attributes=False), loops.edited, loops.other


def mechanical_edit(candidate: Candidate, graph: Any, name: str) -> str | None:
    """A one-line description when ``candidate`` is the captured kernel ``name`` of ``graph`` with exactly one
    edit, its one reduction loop software-pipelined to one of :data:`LOOP_STAGES`, under a valid launch config;
    else None (a candidate that is the kernel unedited is :func:`inductor_reorder`'s)."""
    found = _config_of(candidate, graph, name)
    if found is None:
        return None
    kernel, cfg = found
    mine, theirs = _loops_normalized(candidate.source, name), _loops_normalized(kernel.source, kernel.name)
    if mine is None or theirs is None:
        return None
    if mine[1:] != (1, 0) or theirs[1:] != (0, 0) or mine[0] != theirs[0]:
        return None
    return (f"Inductor's own {name}, its reduction loop software-pipelined, under launch config "
            + ", ".join(f"{k}={v}" for k, v in cfg.items()))
