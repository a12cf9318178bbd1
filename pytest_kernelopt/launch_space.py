"""Launch-configuration facts about Inductor's Triton kernels: what a configuration of a kernel may be.

Shared by the offline tuner (:mod:`pytest_kernelopt.tuner`: the configurations it proposes), the certified-reorder
check (:mod:`pytest_kernelopt.gates.reorder`: a candidate that is Inductor's own kernel under a configuration this
space admits) and the screening (:func:`pytest_kernelopt.gates.timing.screening_reference`: the baseline's own
kernel launched with its own configuration).  Read from the kernel's source and decorator and the launch the capture
traced; nothing here runs a kernel.

* a kernel's kind (:func:`kind_of`) and its size hints, block keys, stages and register caps;
* the arguments of its ``@triton_heuristics`` decorator, read as literals (:func:`decorator_arguments`);
* the configurations Inductor's own heuristic lists for a kernel under max-autotune (:func:`inductor_configs`);
* a config's reduction blocks smaller than the baseline's (:func:`longer_chains`): a longer sequential chain of
  rounding than the baseline's order;
* :data:`LOOP_STAGES`: the depths a reduction loop may be pipelined to;
* :func:`within_bounds`: whether a configuration launches the kernel within its bounds (the allowlist's launch
  keys, block and grid limits, unmasked dimensions, a split scan's workspace); :func:`valid`: whether it is one the
  tuner may propose (within bounds, and no idle warps nor spilling blocks); :func:`certified_config`: one the
  certified-reorder check admits (valid, or within bounds and on Inductor's own list);
* the baseline's own launch (:func:`trace_of`, :func:`baseline_config`, :func:`own_candidate`).
"""

from __future__ import annotations

import ast
import functools
import re
from typing import Any

from .allowlist import check_configs
from .candidate import Candidate
from .graph import KernelGraph, LaunchTrace, TritonKernel

#: the largest block (product of every block size, and the rows a persistent reduction holds) searched
MAX_BLOCK_NUMEL = 16384
#: the largest size each block key may take (Inductor's TRITON_MAX_BLOCK: X 4096, Y/Z 1024, R0 2048 in its lists)
BLOCK_CAP = {"XBLOCK": 8192, "YBLOCK": 2048, "ZBLOCK": 2048, "R0_BLOCK": 16384, "R1_BLOCK": 16384}
#: elements a thread may hold in one block before registers surely spill
MAX_ELEMENTS_PER_THREAD = 64
WARPS = (1, 2, 4, 8, 16, 32)
#: register caps tried by the descent, in order (None: Triton's default, no cap)
MAXNREG_STEPS = (None, 128, 64, 32)
_GRID_LIMIT = {"XBLOCK": 2**31 - 1, "R0_BLOCK": 2**31 - 1, "YBLOCK": 65535, "ZBLOCK": 65535}
LAUNCH_KEYS = ("num_warps", "num_stages", "maxnreg")
SEARCHED_KINDS = ("pointwise", "reduction", "persistent_reduction", "split_scan")
#: software-pipelining depths of a looped reduction's loop, ``tl.range(..., num_stages=S)``: the tuner's one edit of
#: Inductor's source (:func:`pytest_kernelopt.tuner.pipelined_variants`), certified as such by
#: :func:`pytest_kernelopt.gates.reorder.mechanical_edit`.  Triton pipelines loads that feed no ``tl.dot`` only in a
#: loop that asks for it: the kernel-wide ``num_stages`` of a launch config leaves a reduction's loads alone.  On an
#: H100 (`benchmarks/results/h100_s23_reduction_headroom.log`) the loop at 3 stages took reduce_sum_dim1 and
#: reduce_mean_dim1 to 1.067x and 1.064x over the default compile through the whole cascade, at the baseline's own
#: launch config; at another config the same rewrite came out wrong (the fp64 gate refused it), which is why each
#: variant is a candidate like any other
LOOP_STAGES = (2, 3)

# --------------------------------------------------------------------------- the kernel's kind and limits


def kind_of(kernel: TritonKernel) -> str:
    """The tuner's kind: Inductor's heuristic name (``split_scan`` is its own kind; the graph calls it other)."""
    if kernel.heuristic == "split_scan":
        return "split_scan"
    if kernel.heuristic == "cooperative_reduction":
        return "cooperative_reduction"
    return kernel.kind


def size_hint(kernel: TritonKernel, key: str) -> int:
    """The size hint behind a block key (XBLOCK -> size_hints['x'], R0_BLOCK -> size_hints['r0_'])."""
    dim = key[:-5].lower()
    return int(kernel.size_hints.get(dim, 4096))


def _persistent_r(kernel: TritonKernel) -> int:
    """The reduction size a persistent kernel holds in registers (its R0_BLOCK)."""
    r = 1
    for k, v in kernel.size_hints.items():
        if k.startswith("r"):
            r *= v
    return r


@functools.lru_cache(maxsize=None)
def maxnreg_supported() -> bool:
    """Whether the installed Triton takes a register cap in a ``triton.Config`` and its CUDA backend compiles it."""
    try:
        import dataclasses
        import inspect

        import triton

        if "maxnreg" not in inspect.signature(triton.Config).parameters:
            return False
        from triton.backends.nvidia.compiler import CUDAOptions

        return "maxnreg" in {f.name for f in dataclasses.fields(CUDAOptions)}
    except Exception:  # noqa: BLE001 -- no Triton, or another layout: no caps
        return False


def uses_maxnreg(kernel: TritonKernel) -> bool:
    return kernel.device_str.startswith("cuda") and maxnreg_supported()


_KEY_ORDER = ("XBLOCK", "YBLOCK", "ZBLOCK", "R0_BLOCK", "R1_BLOCK")  # CoordescTuner's order of tunable fields


def block_keys(trace: LaunchTrace) -> list[str]:
    keys = [k for k in trace.config if k.endswith("BLOCK")]
    return sorted(keys, key=lambda k: (_KEY_ORDER.index(k) if k in _KEY_ORDER else len(_KEY_ORDER), k))


def stages_for(kind: str) -> tuple[int, ...]:
    # only a looped reduction has a loop to pipeline; elsewhere num_stages changes nothing but the compile
    return (1, 2, 3) if kind == "reduction" else (1,)



# --------------------------------------------------------------------------- the decorator's arguments


class _NotLiteral(ValueError):
    pass


def _value(node: ast.AST) -> Any:
    """A decorator argument as Inductor writes it: literals, ``ReductionHint.X``, ``DeviceProperties(...)``,
    ``set()``, ``__file__``.  Nothing is executed."""
    from torch._inductor.runtime import hints

    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise _NotLiteral("** in a dict")
        # no key is None (checked above): the filter only narrows the type
        return {_value(k): _value(v) for k, v in zip(node.keys, node.values) if k is not None}
    if isinstance(node, (ast.List, ast.Tuple)):
        vals = [_value(e) for e in node.elts]
        return vals if isinstance(node, ast.List) else tuple(vals)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_value(node.operand)
    if isinstance(node, ast.Name) and node.id == "__file__":
        return None
    if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id in ("ReductionHint", "TileHint", "AutotuneHint")):
        return getattr(getattr(hints, node.value.id), node.attr)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.args:
        if node.func.id == "set" and not node.keywords:
            return set()
        if node.func.id == "DeviceProperties":
            return hints.DeviceProperties(**{k.arg: _value(k.value) for k in node.keywords if k.arg})
    raise _NotLiteral(ast.dump(node)[:80])


def decorator_arguments(kernel: TritonKernel) -> tuple[str, dict[str, Any]] | None:
    """The heuristic's name and keyword arguments of the kernel's ``@triton_heuristics.X(...)`` decorator."""
    import copy

    return copy.deepcopy(_decorator_arguments(kernel.name, kernel.source))


@functools.lru_cache(maxsize=256)
def _decorator_arguments(name: str, source: str) -> tuple[str, dict[str, Any]] | None:
    try:
        tree = ast.parse(source)
        fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)
        for dec in fn.decorator_list:
            if (isinstance(dec, ast.Call) and isinstance(dec.func, ast.Attribute)
                    and isinstance(dec.func.value, ast.Name) and dec.func.value.id == "triton_heuristics"):
                kw = {k.arg: _value(k.value) for k in dec.keywords if k.arg}
                if dec.args:
                    kw.setdefault("size_hints", _value(dec.args[0]))
                return dec.func.attr, kw
    except (SyntaxError, StopIteration, _NotLiteral, TypeError, ImportError):
        return None
    return None


def inductor_meta(kernel: TritonKernel) -> dict[str, Any]:
    args = decorator_arguments(kernel)
    meta = args[1].get("inductor_meta") if args else None
    return dict(meta) if isinstance(meta, dict) else {}



def _split_scan_floor(kernel: TritonKernel, trace: LaunchTrace) -> int:
    """The smallest R0_BLOCK a split scan's workspace has room for (see :mod:`pytest_kernelopt.tuner`, split scans)."""
    meta = inductor_meta(kernel)
    if "min_split_scan_rblock" in meta:
        return int(meta["min_split_scan_rblock"])
    return int(trace.config.get("R0_BLOCK", 1 << 30))  # unknown: never below the baseline's own


#: a dimension Inductor left without a mask (``xmask = tl.full([XBLOCK], True, tl.int1)``), and a size written
#: as a literal in the body (``xnumel = 12288``)
_UNMASKED = re.compile(r"^[ \t]*(x|y|z|r0_|r1_)mask = tl\.full\(", re.M)
_NUMEL = re.compile(r"^[ \t]*(x|y|z|r0_|r1_)numel = (\d+)[ \t]*$", re.M)


def unmasked_blocks_fit(kernel: TritonKernel, trace: LaunchTrace, cfg: dict[str, int]) -> bool:
    """Whether every block of ``cfg`` along a dimension Inductor left without a mask divides that dimension's
    size.  Inductor drops a mask where every block size it would launch divides the size (12288 elements: no x
    mask, since its XBLOCK stops at 4096); a larger block reads and writes past the tensors' ends, which on a
    GPU nothing bounds and on the CPU only the interpreter's bounds check catches (XBLOCK 8192 over 12288
    elements would be certified as Inductor's own kernel under another config: tests/test_tuner_space.py::
    test_a_block_past_an_unmasked_dimension_is_never_proposed_nor_certified).  Where the size is not a literal
    of the body, the block may not exceed the baseline's own."""
    sizes = dict(_NUMEL.findall(kernel.source))
    for prefix in set(_UNMASKED.findall(kernel.source)):
        key = prefix.upper() + "BLOCK"
        if key not in cfg:
            continue  # fixed in the body (a persistent reduction's whole row)
        if prefix in sizes:
            if int(sizes[prefix]) % int(cfg[key]):
                return False
        elif int(cfg[key]) > int(trace.config.get(key, 0)):
            return False
    return True


# --------------------------------------------------------------------------- Inductor's own configs


def _as_dict(cfg: Any) -> dict[str, int]:
    d = {k: int(v) for k, v in cfg.kwargs.items()}
    d["num_warps"] = int(cfg.num_warps)
    d["num_stages"] = int(cfg.num_stages)
    if getattr(cfg, "maxnreg", None):
        d["maxnreg"] = int(cfg.maxnreg)
    return d


def inductor_configs(kernel: TritonKernel, max_autotune: bool = True) -> list[dict[str, int]]:
    """The configurations Inductor's own heuristic lists for this kernel (under ``max_autotune`` by default: the
    full list max-autotune benchmarks), from the kernel's decorator arguments; [] where they cannot be read."""
    args = decorator_arguments(kernel)
    if args is None:
        return []
    heuristic, kw = args
    meta = dict(kw.get("inductor_meta") or {})
    meta["max_autotune"] = meta["max_autotune_pointwise"] = max_autotune
    size_hints = dict(kw.get("size_hints") or {})
    triton_meta = kw.get("triton_meta")
    if not size_hints or not isinstance(triton_meta, dict):
        return []
    try:
        from torch._inductor.runtime import triton_heuristics as th

        if heuristic == "pointwise":
            cfgs = th.pointwise(size_hints, triton_meta, tile_hint=kw.get("tile_hint"),
                                min_elem_per_thread=kw.get("min_elem_per_thread", 0), inductor_meta=meta,
                                return_configs=True)
        elif heuristic in ("reduction", "persistent_reduction"):
            cfgs = getattr(th, heuristic)(size_hints, reduction_hint=kw.get("reduction_hint", False),
                                          triton_meta=triton_meta, inductor_meta=meta, return_configs=True)
        elif heuristic == "split_scan":
            # th.split_scan has no return_configs: what it does before autotuning, step for step
            meta["reduction_hint"] = kw.get("reduction_hint", False)
            if meta.get("no_x_dim"):
                size_hints["x"] = 1
            cfgs = th._reduction_configs(size_hints=size_hints, inductor_meta=meta, triton_meta=triton_meta)
            floor = meta.get("min_split_scan_rblock", 256)
            for c in cfgs:
                for var in list(c.kwargs):
                    if var.startswith("R") and c.kwargs[var] < floor:
                        c.kwargs[var] = floor
        else:
            return []
    except Exception:  # noqa: BLE001 -- another torch's heuristics: the tuner's own space still applies
        return []
    out: list[dict[str, int]] = []
    for c in cfgs:
        d = _as_dict(c)
        if d not in out:
            out.append(d)
    return out


def longer_chains(trace: LaunchTrace, cfg: dict[str, int]) -> dict[str, tuple[int, int]]:
    """The reduction blocks (``R0_BLOCK``, ``R1_BLOCK``) of ``cfg`` smaller than the traced launch's own:
    ``{key: (size, baseline's size)}``.  A looped reduction keeps one partial result per lane of its block and adds
    ``rnumel / R0_BLOCK`` terms into each in sequence before a tree combines the lanes (a split scan carries its
    prefix across ``rnumel / R0_BLOCK`` blocks the same way): a smaller block is a longer sequential chain of
    rounding than the baseline's order.  A larger block shortens that chain and lengthens another: each thread adds
    its ``R0_BLOCK / threads`` lanes in sequence before the tree, so over few warps it also lands farther from the
    truth, but within the precision check's floor (``benchmarks/chain_precision.py`` on an H100: a 32768-term row at
    ``R0_BLOCK`` 16384 over one warp 3.2x the baseline's error, 3.4 float32 epsilons; ``R0_BLOCK`` 16, 6.1x and
    6.6; 1, 25x and 28)."""
    return {k: (int(cfg[k]), int(trace.config[k])) for k in block_keys(trace)
            if k.startswith("R") and k in cfg and int(cfg[k]) < int(trace.config[k])}


def within_bounds(kernel: TritonKernel, trace: LaunchTrace, cfg: dict[str, int]) -> bool:
    """Whether ``cfg`` launches this kernel within its bounds: the kernel's own block keys and the launch keys the
    allowlist takes, power-of-two blocks within the block and grid limits, blocks that fit the dimensions Inductor
    left unmasked, a split scan's workspace, register caps only where they compile.  What any launch config of
    Inductor's own source must meet; :func:`valid` adds the tuner's taste."""
    kind = kind_of(kernel)
    if kind not in SEARCHED_KINDS or sorted(k for k in cfg if k not in LAUNCH_KEYS) != sorted(trace.config):
        return False
    if check_configs([cfg]) is not None:
        return False
    reg = cfg.get("maxnreg")
    if cfg.get("num_warps", 4) not in WARPS or (reg is not None and (
            reg not in MAXNREG_STEPS or not uses_maxnreg(kernel))):
        return False
    for k in block_keys(trace):
        v = cfg[k]
        if v < 1 or v & (v - 1) or v > BLOCK_CAP.get(k, 1024):
            return False
        if -(-size_hint(kernel, k) // v) > _GRID_LIMIT.get(k, 65535):
            return False
    if kind == "split_scan" and cfg.get("R0_BLOCK", 0) < _split_scan_floor(kernel, trace):
        return False
    return unmasked_blocks_fit(kernel, trace, cfg)


def valid(kernel: TritonKernel, trace: LaunchTrace, cfg: dict[str, int]) -> bool:
    """Whether the tuner may propose ``cfg`` for this kernel: within its bounds (:func:`within_bounds`) and to the
    tuner's taste: the kind's stages, no block larger than its dimension, at most :data:`MAX_BLOCK_NUMEL` elements
    a block (a persistent reduction's rows included), no idle warps, at most :data:`MAX_ELEMENTS_PER_THREAD`."""
    if not within_bounds(kernel, trace, cfg):
        return False
    kind = kind_of(kernel)
    warps = cfg.get("num_warps", 4)
    if cfg.get("num_stages", 1) not in stages_for(kind):
        return False
    keys = block_keys(trace)
    numel = 1
    for k in keys:
        if cfg[k] > max(1, size_hint(kernel, k)):
            return False
        numel *= cfg[k]
    if kind == "persistent_reduction":
        if cfg.get("XBLOCK", 1) > 1 and numel * _persistent_r(kernel) > MAX_BLOCK_NUMEL:
            return False  # XBLOCK=1 always stands, as in Inductor's list
        numel *= _persistent_r(kernel)
    elif numel > MAX_BLOCK_NUMEL:
        return False
    if kind == "pointwise" and len(keys) == 1 and cfg[keys[0]] < 8:
        return False
    if warps > 1 and numel < warps * 32:
        return False  # idle warps
    return numel <= warps * 32 * MAX_ELEMENTS_PER_THREAD


def certified_config(kernel: TritonKernel, trace: LaunchTrace, cfg: dict[str, int]) -> bool:
    """Whether ``cfg`` is a launch config under which Inductor's own source of this kernel stays Inductor's
    arithmetic in another order: one the tuner may propose (:func:`valid`), or one Inductor's own max-autotune list
    holds for the kernel (:func:`inductor_configs`) within the kernel's bounds (:func:`within_bounds`), idle warps
    and all."""
    return valid(kernel, trace, cfg) or (cfg in inductor_configs(kernel) and within_bounds(kernel, trace, cfg))


def baseline_config(trace: LaunchTrace) -> dict[str, int]:
    """The launch config of a traced launch, warps and stages included (Triton's defaults where unrecorded)."""
    return {**{k: int(v) for k, v in trace.config.items()}, "num_warps": int(trace.num_warps or 4),
            "num_stages": int(trace.num_stages or 1)}



def trace_of(graph: KernelGraph, kernel_name: str) -> LaunchTrace | None:
    return next((t for t in graph.traces if t.kernel == kernel_name), None)



def describe_config(cfg: dict[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in cfg.items())



def own_candidate(graph: KernelGraph, kernel_name: str, origin: str = "a/a") -> Candidate:
    """Inductor's own source of one kernel, launched with the configuration the baseline's launch used.

    Pinned on purpose: a candidate without configurations launches with the first of its decorator's list
    (:func:`~pytest_kernelopt.substitute.load_kernel_object`), and for a kernel Inductor autotunes among several
    that need not be the one the baseline runs (avgpool3d's persistent reduction on the H200: its first config
    ran 17x slower than the autotuned pick, so every screened config looked 17x faster than the baseline)."""
    trace = trace_of(graph, kernel_name)
    configs = (baseline_config(trace),) if trace is not None else ()
    return Candidate(replaces=(kernel_name,), source=graph.kernels[kernel_name].source, configs=configs,
                     origin=origin, description="Inductor's own kernel" + (
                         f", launch config {describe_config(configs[0])}" if configs else ""))
