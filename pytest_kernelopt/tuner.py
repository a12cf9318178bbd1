"""The offline tuner: launch-configuration search over Inductor's own kernels, no LLM needed.

What it searches, per kernel kind (the kernel source stays as Inductor wrote it;
only the keys the baseline's chosen config already has are varied, so a
candidate can never change what a kernel computes -- only how it is split over
programs).  Every candidate is still judged by the full gate cascade at the
module level.

* **Inductor's own list first.**  The configurations Inductor's heuristic
  (``pointwise``, ``reduction``, ``persistent_reduction``, ``split_scan``)
  produces for this very kernel under ``max_autotune`` -- called on the
  kernel's own decorator arguments (:func:`inductor_configs`) -- are screened
  before anything else.
* **Beyond it** (:func:`config_space`): every power-of-two block size from
  narrower than Inductor's smallest to wider than its largest
  (:data:`~pytest_kernelopt.launch_space.BLOCK_CAP`,
  :data:`~pytest_kernelopt.launch_space.MAX_BLOCK_NUMEL`; Inductor stops at XBLOCK 4096,
  Y/ZBLOCK 1024, R0_BLOCK 2048 and 4096 elements a persistent block),
  ``num_warps`` 1..32, ``num_stages`` 1..3 for looped reductions (Inductor
  always uses 1), and Hopper register caps (``maxnreg``) where the installed
  Triton takes them in a ``triton.Config`` and the kernel runs on CUDA
  (:func:`~pytest_kernelopt.launch_space.maxnreg_supported`).  A reduction block smaller than the baseline's
  (:func:`~pytest_kernelopt.launch_space.longer_chains`) is a longer sequential chain than the baseline's order:
  the judge gives it the precision check (:data:`pytest_kernelopt.gates.provenance.LONGER_CHAIN`).
* **Coordinate descent** (:func:`neighbours`, :func:`search`): like Inductor's
  ``CoordescTuner``, each key one notch up and one down around the best
  screened point (blocks and warps x2 / /2, stages +-1, maxnreg along
  :data:`~pytest_kernelopt.launch_space.MAXNREG_STEPS`), screened as a further round, repeated while a round
  improves and the kernel's time allows.
* **Split scans** (``triton_spl_*``): Inductor's ``split_scan`` heuristic varies
  XBLOCK, R0_BLOCK and num_warps.  XBLOCK is not a parameter of a split-scan
  kernel (Inductor generates it with ``no_x_dim``: ``XBLOCK: tl.constexpr = 1``
  in the body), so only R0_BLOCK, num_warps (and maxnreg) are searched.
  R0_BLOCK never goes below the kernel's ``min_split_scan_rblock`` (256 by
  default): the wrapper's zero-filled workspace holds one partial per
  ``min_split_scan_rblock`` elements of each row, so a smaller block would make
  more programs than it has slots for.  Wider blocks (fewer programs) are safe
  and are searched up to the row's length.
* **Persistent against looped reduction**: Inductor's looped reduction of the
  same kernel takes the same runtime arguments as the persistent one but one
  more constexpr (R0_BLOCK), which the static gate's same-signature rule for a
  config candidate refuses; so it is a :class:`~pytest_kernelopt.candidate.LaunchSpec`
  candidate (Inductor's source without its heuristics decorator, grid
  ``(cdiv(xnumel, XBLOCK),)`` as Inductor's Grid1D, its blocks as constexprs,
  no register cap).  Its source comes from a second compile of the module with
  ``triton.persistent_reductions=False`` (:func:`capture_variant_graphs`), made
  in a process of its own -- a second compile here would reset Dynamo under the
  compiled module the gates run -- once a run, when a persistent reduction is
  searched and the module has a spec to rebuild it from.  The other direction
  (a persistent variant of a looped reduction) is not searched: Inductor's
  thresholds for it are fixed (reduction size 1024 for inner reductions, 64
  otherwise); only ``triton.multi_kernel`` raises them (x16), and then every
  such reduction is launched through a MultiKernel that picks one at run time,
  a call site this capture does not parse.
"""

from __future__ import annotations

import ast
import itertools
import math
import os
import re
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterator, Sequence

from . import wire
from .allowlist import check_configs
from .backends import prepare, select_backend
from .candidate import Candidate, LaunchSpec
from .capture import capture
from .graph import KernelGraph, LaunchTrace, TritonKernel, source_hash
from .interrupts import workers_ignore_interrupts
from .launch_space import (
    BLOCK_CAP,
    LAUNCH_KEYS,
    LOOP_STAGES,
    MAXNREG_STEPS,
    SEARCHED_KINDS,
    WARPS,
    baseline_config,
    block_keys,
    describe_config,
    inductor_configs,
    inductor_meta,
    kind_of,
    size_hint,
    stages_for,
    trace_of,
    uses_maxnreg,
    valid,
)
from .problems import build_problem
from .worker_start import run_in_env, worker_context

_POW2 = [1 << i for i in range(15)]  # 1 .. 16384
#: the tuner's search space, numbered: a kept-baseline cache entry records the one it lost under, and a run whose
#: tuner searches more searches it again (``session.search_again``).  1: launch configs, coordinate descent,
#: persistent against looped reduction; 2: pipelined reduction loops (:func:`pipelined_variants`).  Raise it with
#: every change that lets the tuner find a kernel it could not before.
SEARCH_SPACE = 2


# --------------------------------------------------------------------------- the space


def _fit(kernel: TritonKernel, trace: LaunchTrace, cfg: dict[str, int]) -> dict[str, int] | None:
    """``cfg`` restricted to what this kernel takes: keys that are not its parameters dropped (Inductor's
    split-scan configs carry an XBLOCK the kernel fixes in its body); None if its block keys then differ from
    the baseline's."""
    out = {k: v for k, v in cfg.items() if k in LAUNCH_KEYS or k in kernel.params}
    if sorted(k for k in out if k not in LAUNCH_KEYS) != sorted(trace.config):
        return None
    out.setdefault("num_warps", 4)
    out.setdefault("num_stages", 1)
    return out


def _same(a: dict[str, int], b: dict[str, int]) -> bool:
    return {k: v for k, v in a.items() if v is not None} == {k: v for k, v in b.items() if v is not None}


def config_space(kernel: TritonKernel, trace: LaunchTrace | None) -> list[dict[str, int]]:
    """Every launch configuration the tuner may try for one kernel, the baseline's own excluded: Inductor's own
    (max-autotune) list for the kernel, then the power-of-two grid of block sizes x warps x stages that
    :func:`~pytest_kernelopt.launch_space.valid` admits (register caps are left to the descent: they multiply the
    space by four)."""
    if trace is None or not trace.config or kind_of(kernel) not in SEARCHED_KINDS:
        return []
    base = baseline_config(trace)
    out: list[dict[str, int]] = []

    def add(cfg: dict[str, int] | None) -> None:
        if cfg is not None and not _same(cfg, base) and cfg not in out:
            out.append(cfg)

    for cfg in inductor_configs(kernel):
        fitted = _fit(kernel, trace, cfg)
        if fitted is not None and _inductor_ok(fitted):
            add(fitted)
    keys = block_keys(trace)
    kind = kind_of(kernel)
    choices = [[v for v in _POW2 if v <= min(BLOCK_CAP.get(k, 1024), max(1, size_hint(kernel, k)))] for k in keys]
    for values in itertools.product(*choices):
        for warps in WARPS:
            for stages in stages_for(kind):
                cfg = {**dict(zip(keys, values)), "num_warps": warps, "num_stages": stages}
                if valid(kernel, trace, cfg):
                    add(cfg)
    return out


def _inductor_ok(cfg: dict[str, int]) -> bool:
    return check_configs([cfg]) is None


def _distance(cfg: dict[str, int], ref: dict[str, int]) -> float:
    d = 0.0
    a: int | None
    b: int | None
    for k in set(cfg) | set(ref):
        if k == "maxnreg":
            a, b = cfg.get(k) or 256, ref.get(k) or 256
        elif k == "num_stages":
            d += abs(cfg.get(k, 1) - ref.get(k, 1))
            continue
        else:
            a, b = cfg.get(k), ref.get(k)
        if a and b:
            d += abs(math.log2(a) - math.log2(b))
    return d


def neighbours(kernel: TritonKernel, trace: LaunchTrace, cfg: dict[str, int]) -> list[dict[str, int]]:
    """Inductor's ``CoordescTuner`` step around ``cfg``: each key one notch up, then one down, one key at a
    time (block sizes and ``num_warps`` x2 and /2, ``num_stages`` +-1, ``maxnreg`` along
    :data:`~pytest_kernelopt.launch_space.MAXNREG_STEPS`), each kept only if
    :func:`~pytest_kernelopt.launch_space.valid`.  The keys go in the tuner's order: the blocks, warps, stages,
    register cap."""
    kind = kind_of(kernel)
    out: list[dict[str, int]] = []
    keys = block_keys(trace) + ["num_warps"] + (["num_stages"] if len(stages_for(kind)) > 1 else [])
    for k in keys:
        v = cfg.get(k, 1)
        ups = (v + 1, v - 1) if k == "num_stages" else (v * 2, v // 2)
        for nv in ups:
            if nv >= 1:
                out.append({**cfg, k: nv})
    if uses_maxnreg(kernel):
        i = MAXNREG_STEPS.index(cfg.get("maxnreg")) if cfg.get("maxnreg") in MAXNREG_STEPS else 0
        for j in (i + 1, i - 1):
            if 0 <= j < len(MAXNREG_STEPS):
                n = {k: v for k, v in cfg.items() if k != "maxnreg"}
                step = MAXNREG_STEPS[j]
                if step is not None:
                    n["maxnreg"] = step
                out.append(n)
    seen: list[dict[str, int]] = []
    for n in out:
        if valid(kernel, trace, n) and not _same(n, cfg) and n not in seen:
            seen.append(n)
    return seen


# --------------------------------------------------------------------------- candidates


def can_search(graph: KernelGraph, kernel_name: str) -> bool:
    """Whether the tuner has any launch configuration to try for this kernel."""
    return bool(config_space(graph.kernels[kernel_name], trace_of(graph, kernel_name)))


def config_candidate(kernel_name: str, source: str, cfg: dict[str, int], note: str = "") -> Candidate:
    return Candidate(replaces=(kernel_name,), source=source, configs=(dict(cfg),), origin="tuner",
                     description=f"{note}launch config {describe_config(cfg)}")


def with_baseline_config(graph: KernelGraph, cand: Candidate) -> Candidate:
    """A drop-in candidate that names no configuration launches with the one the baseline's launch of the kernel
    it replaces used (Inductor's autotuned pick), not the first of the decorator's list (see
    :func:`~pytest_kernelopt.launch_space.own_candidate`); others are returned as they are."""
    if cand.configs or cand.launch is not None or len(cand.replaces) != 1:
        return cand
    trace = trace_of(graph, cand.replaces[0])
    if trace is None:
        return cand
    return replace(cand, configs=(baseline_config(trace),))


def ordered_space(kernel: TritonKernel, trace: LaunchTrace | None) -> list[dict[str, int]]:
    """:func:`config_space` in screening order: Inductor's own list first (what max-autotune would benchmark),
    then the rest nearest to the baseline's config first -- one notch more or fewer warps, a block twice as
    large -- the far, wider and narrower ones after them."""
    space = config_space(kernel, trace)
    if trace is None or not space:
        return space
    own = [c for c in (_fit(kernel, trace, i) for i in inductor_configs(kernel)) if c is not None]
    base = baseline_config(trace)
    first = [c for c in space if c in own]
    rest = sorted((c for c in space if c not in own), key=lambda c: (_distance(c, base), sorted(c.items())))
    return first + rest


def propose_configs(graph: KernelGraph, kernel_name: str, limit: int) -> list[Candidate]:
    """Up to ``limit`` config candidates in :func:`ordered_space`'s order."""
    kernel = graph.kernels[kernel_name]
    trace = trace_of(graph, kernel_name)
    return [config_candidate(kernel_name, kernel.source, cfg) for cfg in ordered_space(kernel, trace)[:limit]]


# --------------------------------------------------------------------------- the search


RankFn = Callable[[Sequence[Candidate]], "tuple[float | None, list[float | None]]"]


@dataclass
class SearchResult:
    """What the screening rounds timed: each candidate's time relative to the baseline's in its round."""

    base_ms: float | None  # the first round's baseline (None: the screening could not time it)
    screened: list[tuple[float | None, Candidate]] = field(default_factory=list)  # (time / baseline, candidate)
    rounds: int = 0
    descent_rounds: int = 0

    def faster_than(self, ratio: float) -> list[tuple[float, Candidate]]:
        return sorted(((r, c) for r, c in self.screened if r is not None and r < ratio), key=lambda p: p[0])


@dataclass(frozen=True)
class _Variant:
    """A kernel source the search may launch in place of the baseline: Inductor's own, or its looped variant.

    A variant with ``grid`` is launched through a :class:`~pytest_kernelopt.candidate.LaunchSpec` (its
    signature has constexprs the replaced kernel lacks, which a config candidate may not have): ``args`` are
    the replaced kernel's runtime parameters, the config's block sizes its constexprs."""

    kernel: TritonKernel  # the variant kernel, for its kind and keys
    trace: LaunchTrace  # the variant's own launch, for its baseline config
    source: str  # the candidate source
    label: str = ""
    args: tuple[str, ...] = ()
    grid: str = ""

    def candidate(self, replaced: str, cfg: dict[str, int]) -> Candidate:
        if not self.grid:
            return config_candidate(replaced, self.source, cfg, self.label)
        spec = LaunchSpec(kernel=self.kernel.name, args=self.args, grid=self.grid, num_warps=cfg["num_warps"],
                          num_stages=cfg["num_stages"],
                          constexprs={k: v for k, v in cfg.items() if k not in LAUNCH_KEYS})
        return Candidate(replaces=(replaced,), source=self.source, launch=spec, origin="tuner",
                         description=f"{self.label}launch {describe_config(cfg)}")

    def configs(self, cfgs: list[dict[str, int]]) -> list[dict[str, int]]:
        return [c for c in cfgs if not (self.grid and "maxnreg" in c)]  # a LaunchSpec has no register cap


def search(graph: KernelGraph, kernel_name: str, rank: RankFn, *, limit: int, deadline: float,
           descent_rounds: int = 3, improvement: float = 0.01,
           variants: Sequence[_Variant] = (), picks: Sequence[dict[str, int]] = ()) -> SearchResult:
    """Screen Inductor's list and the tuner's nearest configs (``limit`` of them), then descend.

    Round 1 is :func:`propose_configs` (plus, when given, a looped variant's own configs).  Each further round
    screens the :func:`neighbours` of the best point so far that were not screened yet, and moves there when one
    is at least ``improvement`` faster (Inductor's CoordescTuner moves on 0.1%; screening is noisier); it stops
    when none is, after ``descent_rounds``, or when the kernel's time would run out (each round's cost estimated
    from the first's).
    """
    kernel = graph.kernels[kernel_name]
    trace = trace_of(graph, kernel_name)
    # the variant stored is never None (own is stored only where it is not); the type follows own's
    points: dict[str, tuple[_Variant | None, dict[str, int]]] = {}
    own = _Variant(kernel, trace, kernel.source) if trace is not None else None
    first: list[Candidate] = []
    # the configs Inductor's own autotuner picked (``picks``: max-autotune's, see autotune_picks) come first
    for cfg in ([p for p in picks if valid(kernel, own.trace, p) and not _same(p, baseline_config(own.trace))]
                if own else []):
        c = config_candidate(kernel_name, kernel.source, cfg, "max-autotune's pick, ")
        if c.content_hash not in points:
            points[c.content_hash] = (own, cfg)
            first.append(c)
    for cfg in (ordered_space(kernel, own.trace)[:limit] if own else []):
        c = config_candidate(kernel_name, kernel.source, cfg)
        if c.content_hash not in points:
            points[c.content_hash] = (own, cfg)
            first.append(c)
    for v in variants:
        for cfg in [baseline_config(v.trace)] + ordered_space(v.kernel, v.trace)[: max(2, limit // 4)]:
            c = v.candidate(kernel_name, cfg)
            if c.content_hash not in points:
                points[c.content_hash] = (v, cfg)
                first.append(c)
    result = SearchResult(None)
    if not first:
        return result
    t0 = time.perf_counter()
    base_ms, times = rank(first)
    per = (time.perf_counter() - t0) / (len(first) + 1)
    result.base_ms, result.rounds = base_ms, 1
    if base_ms is None:
        return result
    result.screened = [(t / base_ms if t is not None else None, c) for t, c in zip(times, first)]
    best: tuple[_Variant | None, dict[str, int] | None]
    best_ratio, best = 1.0, (own, baseline_config(own.trace)) if own else (None, None)
    for r, c in result.screened:
        if r is not None and r < best_ratio * (1 - improvement):
            best_ratio, best = r, points[c.content_hash]
    for _ in range(descent_rounds):
        variant, at = best
        if variant is None:
            break
        assert at is not None  # a variant always comes with its config
        cands = []
        for n in variant.configs(neighbours(variant.kernel, variant.trace, at)):
            c = variant.candidate(kernel_name, n)
            if c.content_hash not in points and not (variant is own and _same(n, baseline_config(variant.trace))):
                points[c.content_hash] = (variant, n)
                cands.append(c)
        if not cands or time.perf_counter() + per * (len(cands) + 1) > deadline:
            break
        round_base, round_times = rank(cands)
        result.rounds += 1
        result.descent_rounds += 1
        if round_base is None:
            break
        ratios = [(t / round_base if t is not None else None, c) for t, c in zip(round_times, cands)]
        result.screened.extend(ratios)
        moved = False
        for r, c in ratios:
            if r is not None and r < best_ratio * (1 - improvement):
                best_ratio, best, moved = r, points[c.content_hash], True
        if not moved:
            break
    return result


# --------------------------------------------------------------------------- looped variants of persistent ones


def _runtime_signature(kernel: TritonKernel) -> list[tuple[str, str]]:
    return [(p, kernel.signature.get(p, "?")) for p in kernel.runtime_params]


def looped_variants(graph: KernelGraph, kernel_name: str, variant_graphs: Sequence[KernelGraph]
                    ) -> list[_Variant]:
    """Inductor's looped reduction for a persistent one, from a compile with ``triton.persistent_reductions``
    off: the kernel of the same graph whose name differs only in ``per``/``red``, whose runtime arguments
    (names and types) are the same, launched with the same arguments on a one-dimensional grid.  It takes an
    R0_BLOCK the persistent kernel does not, so it is launched by a LaunchSpec: its own source without
    Inductor's heuristics decorator, grid ``(cdiv(xnumel, XBLOCK),)`` as Inductor's Grid1D, its block sizes as
    constexprs."""
    kernel = graph.kernels.get(kernel_name)
    if kernel is None or kernel.kind != "persistent_reduction" or "_per_" not in kernel_name:
        return []
    want = kernel_name.replace("_per_", "_red_", 1)
    launches = [launch for launch in graph.triton_launches if launch.kernel == kernel_name]
    out = []
    for vg in variant_graphs:
        if vg.index != graph.index or want not in vg.kernels:
            continue
        other = vg.kernels[want]
        vtrace = trace_of(vg, want)
        if other.kind != "reduction" or vtrace is None or _runtime_signature(other) != _runtime_signature(kernel):
            continue
        vlaunches = [launch for launch in vg.triton_launches if launch.kernel == want]
        if [launch.args for launch in launches] != [launch.args for launch in vlaunches]:
            continue
        if inductor_meta(other).get("grid_type") != "Grid1D" or set(vtrace.config) != {"XBLOCK", "R0_BLOCK"}:
            continue
        source = _without_heuristics(other)
        if source is None:
            continue
        out.append(_Variant(other, vtrace, source, "looped reduction variant, ", kernel.runtime_params,
                            "(cdiv(xnumel, XBLOCK),)"))
    return out


_REDUCTION_LOOP = re.compile(r"^([ \t]+)for (r0_offset) in (?:tl\.)?range\(((?:(?!num_stages)[^\n])*)\):[ \t]*$",
                             re.M)


def pipelined_variants(graph: KernelGraph, kernel_name: str, looped: Sequence[_Variant] = ()) -> list[_Variant]:
    """The looped reduction ``kernel_name`` (and each of ``looped``, the looped variants of a persistent one),
    its one reduction loop ``for r0_offset in range(...)`` (``tl.range(...)`` in newer Inductor) written
    ``tl.range(..., num_stages=S)`` for each of :data:`LOOP_STAGES`: the same signature and launch, another loop
    schedule.  A kernel with no such loop, with more than one, or whose loop names its stages already, has none."""
    bases = []
    kernel, trace = graph.kernels.get(kernel_name), trace_of(graph, kernel_name)
    if kernel is not None and trace is not None and kernel.kind == "reduction":
        bases.append(_Variant(kernel, trace, kernel.source))
    bases += list(looped)
    out = []
    for base in bases:
        if len(_REDUCTION_LOOP.findall(base.source)) != 1:
            continue
        for stages in LOOP_STAGES:
            def pipelined(m: re.Match[str], stages: int = stages) -> str:
                return f"{m[1]}for {m[2]} in tl.range({m[3]}, num_stages={stages}):"

            source = _REDUCTION_LOOP.sub(pipelined, base.source)
            out.append(replace(base, source=source,
                               label=f"{base.label}reduction loop pipelined ({stages} stages), "))
    return out


def _without_heuristics(kernel: TritonKernel) -> str | None:
    """The kernel module's source with the ``@triton_heuristics.X(...)`` decorator lines taken out."""
    try:
        tree = ast.parse(kernel.source)
        fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == kernel.name)
    except (SyntaxError, StopIteration):
        return None
    lines = kernel.source.splitlines(keepends=True)
    drop: set[int] = set()
    for dec in fn.decorator_list:
        if ast.unparse(dec).startswith("triton_heuristics."):
            assert dec.end_lineno is not None  # ast.parse sets every node's end position
            drop.update(range(dec.lineno - 1, dec.end_lineno))
    return "".join(line for i, line in enumerate(lines) if i not in drop) if drop else None


#: the Inductor option under which it writes a looped reduction where it would write a persistent one
LOOPED_OPTIONS = {"triton.persistent_reductions": False}
#: Inductor's autotuning of its own Triton kernels, as max-autotune does it (the full config lists benchmarked,
#: then coordinate descent from the best), without the GEMM templates, which change which kernels there are
AUTOTUNE_OPTIONS = {"max_autotune_pointwise": True, "coordinate_descent_tuning": True}


def body_hash(kernel: TritonKernel) -> str:
    """The kernel's code without its decorator, whose metadata differ between compile modes."""
    src = kernel.source
    return source_hash(src[src.find("def " + kernel.name):], kernel.name)


def autotune_picks(graph: KernelGraph, kernel_name: str, tuned_graphs: Sequence[KernelGraph]) -> list[dict[str, int]]:
    """The launch config Inductor's autotuner picked for this kernel in a compile under
    :data:`AUTOTUNE_OPTIONS` (``tuned_graphs``): the same graph, the same name, the same code."""
    kernel = graph.kernels.get(kernel_name)
    if kernel is None:
        return []
    out = []
    for tg in tuned_graphs:
        other = tg.kernels.get(kernel_name)
        if tg.index != graph.index or other is None or body_hash(other) != body_hash(kernel):
            continue
        t = trace_of(tg, kernel_name)
        if t is not None and baseline_config(t) not in out:
            out.append(baseline_config(t))
    return out


def _variant_child(conn: Any, spec: Any, backend_name: str, training: bool, options: dict, seed: int,
                   mode: str | None = None) -> None:
    try:
        prepare(backend_name)
        backend = select_backend(backend_name)
        problem = build_problem(spec, backend.device, seed)
        cap = capture(problem.module, problem.example_inputs, training=training, backend=backend, options=options,
                      mode=mode)
        conn.send_bytes(wire.dumps(list(cap.graphs)))
    except BaseException as e:  # noqa: BLE001 -- no variants, said by an empty answer
        conn.send_bytes(wire.dumps(f"{type(e).__name__}: {e}"))


def capture_variant_graphs(spec: Any, *, backend: str = "auto", training: bool = False,
                           options: dict | None = None, seed: int = 0, timeout: float = 120.0,
                           mode: str | None = None) -> tuple[list[KernelGraph], str]:
    """The module's graphs compiled with other Inductor options (:data:`LOOPED_OPTIONS` by default), in a
    process of its own: a second compile in this one would reset Dynamo under the compiled module the gates run.
    Returns the graphs (data: kernel sources and launches) and, when there are none, why."""

    if spec is None:
        return [], "the module has no spec a second process could rebuild it from"
    ctx = worker_context(backend)
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=run_in_env, args=(dict(os.environ), _variant_child, child, spec, backend, training,
                                                dict(options or LOOPED_OPTIONS), seed, mode), daemon=True)
    with workers_ignore_interrupts():
        proc.start()
    child.close()
    try:
        if not parent.poll(max(1.0, timeout)):
            return [], f"the variant compile took more than {timeout:.0f}s"
        value = wire.loads(parent.recv_bytes())
    except (EOFError, OSError) as e:
        return [], f"the variant compile's process ended: {e}"
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join(10)
    if isinstance(value, str):
        return [], value
    return [g for g in value if isinstance(g, KernelGraph)], ""


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
