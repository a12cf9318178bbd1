"""An honest run's per-position levels raised in one pass on the GPU: the judge's own Triton kernel behind
:func:`pytest_kernelopt.gates.compare.raise_levels`.

Each noise-floor run (:func:`pytest_kernelopt.gates.fp64_place.noise_floor`: four a seed) raises, at every position,
the byte that keeps how far an honest run landed from the float64 truth, in tolerances (:func:`.compare.level_codes`).
In torch that is about twenty float64 passes a chunk (the copies, the distance, its tolerance, the logarithm, the
masks); this kernel reads the run, the truth and the levels once and writes the levels.

A code ``c`` below 255 stands for the distance ``bounds[c] = CALM_FRACTION * 2**(c / LEVEL_STEPS)``; the code of a
distance is the smallest ``c`` whose bound is at least it (255 where none is, or it is not finite).  The bounds are
one float64 table made on the host and copied to each device, so the kernel (a ``log2`` estimate, then the
table's own comparisons either side of it) and the torch path (``bucketize`` against the table) give every
distance the same code on any device.  The distance is the torch path's ``|q - t| / (atol + rtol * |t|)``; the
tolerances reach the kernel as float64 in memory (a Python float argument would be rounded to float32).
"""

from __future__ import annotations

from typing import Any

from . import judge_kernels

#: distances in tolerances up to this have code 0 (a *calm* position: rounding cannot move it there)
CALM_FRACTION = 0.1
#: codes per doubling of the distance above :data:`CALM_FRACTION`; 255 reads as unbounded
LEVEL_STEPS = 8
#: elements per program
BLOCK = 1024

_bounds: dict[str, Any] = {}  # the table by device

_DTYPES = ("float16", "bfloat16", "float32", "float64")


def bounds(device: Any) -> Any:
    """The distance each code stands for, float64 on ``device``: 0..254 their bounds, 255 infinite (computed on the
    host: the same numbers on every device)."""
    import torch

    key = str(device)
    if key not in _bounds:
        codes = torch.arange(256, dtype=torch.float64)
        table = CALM_FRACTION * torch.exp2(codes / LEVEL_STEPS)
        table[255] = float("inf")
        _bounds[key] = table.to(device)
    return _bounds[key]


def _build() -> Any:
    import triton
    import triton.language as tl

    @triton.jit
    def raise_levels(q_ptr, t_ptr, m_ptr, bound_ptr, tol_ptr, n, STEPS: tl.constexpr, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
        inside = offs < n
        rtol = tl.load(tol_ptr)
        atol = tl.load(tol_ptr + 1)
        q = tl.load(q_ptr + offs, mask=inside, other=0.0).to(tl.float64)
        t = tl.load(t_ptr + offs, mask=inside, other=0.0).to(tl.float64)
        allowed = atol + rtol * tl.abs(t)
        dist = tl.abs(q - t) / allowed
        # a run that is not finite is unbounded; a distance that is not finite (or beyond the table) is 255 below
        dist = tl.where(tl.abs(q) < float("inf"), dist, float("inf"))
        top = tl.load(bound_ptr + 254)
        bounded = dist <= top  # (false for NaN)
        calm = tl.load(bound_ptr)
        est = tl.ceil(STEPS * tl.log2(tl.where(bounded, tl.maximum(dist / calm, 1.0), 1.0)))
        c = tl.minimum(tl.maximum(est, 0.0), 254.0).to(tl.int32)
        for _ in tl.static_range(2):  # the smallest code whose bound is at least the distance, from either side
            c = tl.where((c < 254) & (tl.load(bound_ptr + c, mask=bounded, other=0.0) < dist), c + 1, c)
            c = tl.where((c > 0) & (tl.load(bound_ptr + c - 1, mask=bounded & (c > 0), other=0.0) >= dist),
                         c - 1, c)
        code = tl.where(bounded, c, 255)
        m = tl.load(m_ptr + offs, mask=inside, other=0).to(tl.int32)
        tl.store(m_ptr + offs, tl.maximum(m, code).to(tl.uint8), mask=inside)

    return raise_levels


KERNEL = judge_kernels.JudgeKernel(_build)
disable = KERNEL.disable
status = KERNEL.status


def usable(m: Any, q: Any, t: Any) -> bool:
    """Whether the kernel raises ``m`` (uint8) from ``q`` and ``t`` (same-numel contiguous tensors on one GPU, of
    floating dtypes it loads) in this process."""
    import torch

    return (KERNEL.ready() and m.dtype == torch.uint8 and m.numel() == q.numel() == t.numel() > 0
            and all(v.device.type == "cuda" and v.device == m.device and v.is_contiguous() for v in (m, q, t))
            and all(str(v.dtype).removeprefix("torch.") in _DTYPES for v in (q, t)))


def launch(m: Any, q: Any, t: Any, rtol: float, atol: float) -> Any:
    """``m``, raised in place to the code of each position's distance (:func:`.compare.raise_levels`).  Raises where
    the kernel cannot run (the caller falls back to torch and :func:`disable` s it)."""
    import torch

    n = m.numel()
    tol = torch.tensor([rtol, atol], dtype=torch.float64, device=m.device)
    KERNEL.jit()[(-(-n // BLOCK),)](q, t, m, bounds(m.device), tol, n, STEPS=LEVEL_STEPS, BLOCK=BLOCK, num_warps=4,
                                      enable_fp_fusion=False)
    return m
