"""Where the time of a compiled call goes, per Triton kernel.

On a GPU: each kernel's device time from ``torch.profiler`` over a few calls,
its share of the whole call (CUDA events around the compiled module), the
bytes its tensor arguments span (a lower bound on traffic), the fraction of
the memory roofline that implies, and a bottleneck class.  Vendor calls are
listed but never targets.  On CPU the profile says it has no timings, and
kernels are ordered by the bytes they touch instead.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from .ncu import collect

# Measured on an H200 (device-to-device copy, bytes read + written).
HARDWARE = {
    "NVIDIA H200": {"mem_bw_gbs": 4300.0, "fp32_tflops": 67.0, "bf16_tflops": 790.0, "l2_mb": 60, "sms": 132},
    "NVIDIA H100": {"mem_bw_gbs": 3000.0, "fp32_tflops": 67.0, "bf16_tflops": 750.0, "l2_mb": 50, "sms": 132},
}
_DTYPE_BYTES = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2, "int64": 8, "int32": 4, "int16": 2,
                "int8": 1, "uint8": 1, "bool": 1}


@dataclass(frozen=True)
class KernelProfile:
    kernel: str
    graph: int
    kind: str
    bytes: int
    time_us: float | None = None
    share: float | None = None
    roofline_fraction: float | None = None
    bottleneck: str = "unknown"
    flops: int = 0  # estimated: arithmetic operations per element times the largest tensor's elements
    ncu: dict[str, float] | None = None  # Nsight Compute metrics (see pytest_kernelopt.ncu), when collected


@dataclass(frozen=True)
class ModuleProfile:
    device: str
    has_timings: bool
    call_us: float | None
    kernels: tuple[KernelProfile, ...]
    extern_us: float | None = None
    hardware: dict[str, Any] = field(default_factory=dict)
    note: str = ""
    ncu_note: str = ""

    def hottest_first(self) -> list[KernelProfile]:
        key = (lambda k: -(k.time_us or 0.0)) if self.has_timings else (lambda k: -k.bytes)
        return sorted(self.kernels, key=key)

    def for_kernel(self, name: str) -> KernelProfile | None:
        return next((k for k in self.kernels if k.kernel == name), None)

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["kernels"] = [asdict(k) for k in self.kernels]
        return d


def arg_bytes(trace: Any) -> int:
    total = 0
    for shape, dtype in zip(trace.arg_shapes, trace.arg_dtypes):
        if shape is not None and dtype is not None:
            total += math.prod(shape) * _DTYPE_BYTES.get(dtype, 4)
    return total


_ARITH = re.compile(r"(?<![=<>!])[-+*/](?!=)|\b(?:tl_math|libdevice|tl)\.(?:exp2?|log2?|sqrt|rsqrt|erf|tanh|sin|cos|"
                    r"sigmoid|maximum|minimum|where|fma|pow|abs)\b|triton_helpers\.(?:maximum|minimum|max2|min2)\b|"
                    r"\btl\.(?:sum|max|min|cumsum|reduce|dot)\b")


def estimate_flops(source: str, trace: Any) -> int:
    """A rough FLOP count: arithmetic operations on ``tmp`` values per element, times the largest tensor.

    Index arithmetic is excluded (only lines assigning ``tmpN`` count).  It is an
    estimate for ranking and roofline placement, not a measurement.
    """
    ops = 0
    for line in source.splitlines():
        stripped = line.strip()
        if stripped.startswith("tmp") and "=" in stripped and "tl.load" not in stripped:
            ops += len(_ARITH.findall(stripped.split("=", 1)[1]))
    largest = max((math.prod(s) for s in trace.arg_shapes if s is not None), default=0) if trace else 0
    return ops * largest


def hardware_facts(device: str) -> dict[str, Any]:
    if device != "cuda":
        return {"device": "cpu (Triton interpreter)", "note": "no GPU: timings and rooflines unavailable"}
    import torch

    name = torch.cuda.get_device_name()
    props = torch.cuda.get_device_properties(0)
    facts = {"device": name, "sms": props.multi_processor_count, "cc": f"{props.major}.{props.minor}",
             "memory_gb": round(props.total_memory / 2**30)}
    facts.update(next((v for k, v in HARDWARE.items() if k in name), {}))
    return facts


TINY_KERNEL_US = 8.0  # below this a kernel's time is mostly launch and latency


def _classify(time_us: float, roofline: float | None) -> str:
    if time_us < TINY_KERNEL_US:
        return "launch/latency-bound (tiny kernel)"
    if roofline is not None and roofline > 0.7:
        return "memory-bound, near the roofline"
    if roofline is not None and roofline > 0.3:
        return "memory-bound, partly utilised"
    return "under-utilised (occupancy, serialisation or compute)"


def _classify_ncu(m: dict[str, float]) -> str:
    """Bottleneck class from measured counters (preferred over the estimate when ncu ran)."""
    dram, sm = m.get("dram_throughput_pct", 0.0), m.get("sm_throughput_pct", 0.0)
    occ = m.get("achieved_occupancy_pct")
    if m.get("duration_ns", 1e9) / max(m.get("launches", 1.0), 1.0) < TINY_KERNEL_US * 1000:
        return "launch/latency-bound (tiny kernel)"
    if dram >= 70:
        return f"memory-bound, near the roofline (ncu: DRAM {dram:.0f}% of peak)"
    if sm >= 70:
        return f"compute-bound (ncu: SM {sm:.0f}% of peak)"
    if occ is not None and occ < 25:
        return f"under-utilised: low occupancy (ncu: {occ:.0f}% achieved, DRAM {dram:.0f}%, SM {sm:.0f}%)"
    return f"under-utilised: latency or serialisation (ncu: DRAM {dram:.0f}%, SM {sm:.0f}%)"


def with_ncu(profile: ModuleProfile, report: Any) -> ModuleProfile:
    """Attach Nsight Compute metrics: measured DRAM bytes, roofline fraction from DRAM throughput, class."""
    if not report.available:
        return replace(profile, ncu_note=report.note)
    kernels = []
    for k in profile.kernels:
        m = report.for_kernel(k.kernel)
        if m is None:
            kernels.append(k)
            continue
        roof = m["dram_throughput_pct"] / 100.0 if "dram_throughput_pct" in m else k.roofline_fraction
        kernels.append(replace(k, ncu=m, roofline_fraction=roof, bottleneck=_classify_ncu(m)))
    return replace(profile, kernels=tuple(kernels), ncu_note=report.note)


def profile_module(session: Any, iterations: int = 5, ncu: bool = True) -> ModuleProfile:
    """Profile the captured module of an :class:`EvaluationSession`; ``ncu=False``: without Nsight Compute's
    metrics (a child process under ncu, which only the LLM agents read: the offline tuner does not)."""
    cap = session.captured
    traces = {(g.index, t.kernel): t for g in cap.graphs for t in g.traces}
    facts = hardware_facts(session.backend.name)
    if not session.backend.measures_time:
        by_bytes = tuple(KernelProfile(name, g.index, g.kernels[name].kind,
                                       arg_bytes(traces[(g.index, name)]) if (g.index, name) in traces else 0,
                                       flops=estimate_flops(g.kernels[name].source, traces.get((g.index, name))))
                         for g, name in cap.triton_kernels)
        return ModuleProfile("cpu", False, None, by_bytes, None, facts,
                             "no timings on CPU: kernels ordered by the bytes they touch")
    import torch
    from torch.profiler import ProfilerActivity, profile

    inputs = session.inputs(500)

    def call():
        with torch.no_grad():
            cap.compiled(*inputs)

    for _ in range(3):
        call()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iterations):
        call()
    end.record()
    torch.cuda.synchronize()
    call_us = start.elapsed_time(end) * 1000.0 / iterations
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(iterations):
            call()
        torch.cuda.synchronize()
    per_name: dict[str, float] = {}
    for ev in prof.key_averages():
        t: Any = getattr(ev, "device_time_total", None) or getattr(ev, "cuda_time_total", 0.0)
        per_name[ev.key] = per_name.get(ev.key, 0.0) + float(t) / iterations
    bw = facts.get("mem_bw_gbs")
    kernels: list[KernelProfile] = []
    triton_total = 0.0
    for g, name in cap.triton_kernels:
        t_us = sum(v for k, v in per_name.items() if k == name or k.startswith(name + "_") or k.endswith(name))
        triton_total += t_us
        b = arg_bytes(traces[(g.index, name)]) if (g.index, name) in traces else 0
        flops = estimate_flops(g.kernels[name].source, traces.get((g.index, name)))
        peak = facts.get("fp32_tflops")
        # roofline time: the larger of moving the bytes and doing the (estimated) arithmetic
        floor_us = max(b / (bw * 1e3) if bw else 0.0, flops / (peak * 1e6) if peak else 0.0)
        roof = floor_us / t_us if (floor_us and t_us > 0) else None
        kernels.append(KernelProfile(name, g.index, g.kernels[name].kind, b, t_us,
                                     t_us / call_us if call_us else None, roof, _classify(t_us, roof), flops))
    all_kernels = sum(per_name.values())
    prof_out = ModuleProfile("cuda", True, call_us, tuple(kernels), max(0.0, all_kernels - triton_total), facts,
                             "torch.profiler device times; share = kernel time / whole compiled call (CUDA events)")
    if not session.settings.ncu:
        return replace(prof_out, ncu_note="Nsight Compute metrics switched off (ncu=false)")
    if not ncu:
        return replace(prof_out, ncu_note="Nsight Compute metrics not collected: the offline tuner does not read them")
    report = collect(session.problem.spec, [name for _, name in cap.triton_kernels], training=session.training,
                     timeout=session.settings.timeout)
    return with_ncu(prof_out, report)
