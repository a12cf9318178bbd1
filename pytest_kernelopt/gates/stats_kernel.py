"""A candidate's output against the baseline's in one pass on the GPU: the judge's own Triton kernel behind
:func:`pytest_kernelopt.gates.compare._float_stats`.

The torch path takes about thirty float64 elementwise passes a chunk (NaN and Inf masks, float64 copies, the
distance, its relative form, the sums and maxima); this kernel reads each tensor once.  Per program it stores the
counts, the sums and the maxima; torch adds the programs' counts and sums in a fixed order and takes the largest
of their maxima.  The counts and maxima are the torch path's exactly, the sums up to the order of addition.  A NaN
the candidate returns where the baseline's value is finite makes torch's maxima of the distance, of its relative
form and of ``|x|`` NaN, and the sum of squared distances: the kernel counts such positions and makes those
figures NaN where there is one.  Only
for ``atol > 0`` (no distance divided by zero).  The tolerances reach the kernel as float64 in memory: a Python
float argument would be rounded to float32 by Triton's launcher (a float64 difference at 1e-7 could pass).
"""

from __future__ import annotations

from typing import Any

from . import judge_kernels

#: elements each program reads, in tiles of ``BLOCK``
SPAN = 1 << 16
BLOCK = 1024


_DTYPES = ("float16", "bfloat16", "float32", "float64")


def _build() -> Any:
    import triton
    import triton.language as tl

    @triton.jit
    def float_stats(x_ptr, y_ptr, tol_ptr, part_ptr, n, SPAN: tl.constexpr, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        rtol = tl.load(tol_ptr)  # float64 from memory: a float argument would be rounded to float32
        atol = tl.load(tol_ptr + 1)
        base = pid.to(tl.int64) * SPAN
        c_xn = tl.zeros([BLOCK], dtype=tl.float64)
        c_yn = tl.zeros([BLOCK], dtype=tl.float64)
        c_nan_differs = tl.zeros([BLOCK], dtype=tl.float64)
        c_inf_differs = tl.zeros([BLOCK], dtype=tl.float64)
        c_fin = tl.zeros([BLOCK], dtype=tl.float64)
        s_diff2 = tl.zeros([BLOCK], dtype=tl.float64)
        s_y2 = tl.zeros([BLOCK], dtype=tl.float64)
        c_beyond = tl.zeros([BLOCK], dtype=tl.float64)
        c_nan_at_fin = tl.zeros([BLOCK], dtype=tl.float64)
        m_diff = tl.zeros([BLOCK], dtype=tl.float64)
        m_y = tl.zeros([BLOCK], dtype=tl.float64)
        m_rel = tl.zeros([BLOCK], dtype=tl.float64)
        m_x = tl.zeros([BLOCK], dtype=tl.float64)
        for s in range(0, SPAN, BLOCK):
            offs = base + s + tl.arange(0, BLOCK).to(tl.int64)
            inside = offs < n
            x = tl.load(x_ptr + offs, mask=inside, other=0.0).to(tl.float64)
            y = tl.load(y_ptr + offs, mask=inside, other=0.0).to(tl.float64)
            xn = x != x
            yn = y != y
            xi = tl.abs(x) == float("inf")
            yi = tl.abs(y) == float("inf")
            fin = inside & (~(yn | yi))
            c_xn += tl.where(xn, 1.0, 0.0)
            c_yn += tl.where(yn, 1.0, 0.0)
            c_nan_differs += tl.where(xn != yn, 1.0, 0.0)
            c_inf_differs += tl.where((xi != yi) | (xi & (x != y)), 1.0, 0.0)
            c_fin += tl.where(fin, 1.0, 0.0)
            ok = fin & (~xn)  # (a NaN of the candidate where the baseline is finite is counted, not compared)
            c_nan_at_fin += tl.where(fin & xn, 1.0, 0.0)
            xd = tl.where(ok, x, 0.0)
            yd = tl.where(fin, y, 0.0)
            diff = tl.abs(xd - yd)
            ya = tl.abs(yd)
            s_diff2 += diff * diff
            s_y2 += ya * ya
            c_beyond += tl.where(ok & (diff > atol + rtol * ya), 1.0, 0.0)
            m_diff = tl.maximum(m_diff, diff)
            m_y = tl.maximum(m_y, ya)
            m_rel = tl.maximum(m_rel, tl.where(ok, diff / tl.maximum(ya, atol), 0.0))
            m_x = tl.maximum(m_x, tl.abs(xd))
        out = part_ptr + pid.to(tl.int64) * 13
        tl.store(out + 0, tl.sum(c_xn, axis=0))
        tl.store(out + 1, tl.sum(c_yn, axis=0))
        tl.store(out + 2, tl.sum(c_nan_differs, axis=0))
        tl.store(out + 3, tl.sum(c_inf_differs, axis=0))
        tl.store(out + 4, tl.sum(c_fin, axis=0))
        tl.store(out + 5, tl.sum(s_diff2, axis=0))
        tl.store(out + 6, tl.sum(s_y2, axis=0))
        tl.store(out + 7, tl.sum(c_beyond, axis=0))
        tl.store(out + 8, tl.sum(c_nan_at_fin, axis=0))
        tl.store(out + 9, tl.max(m_diff, axis=0))
        tl.store(out + 10, tl.max(m_y, axis=0))
        tl.store(out + 11, tl.max(m_rel, axis=0))
        tl.store(out + 12, tl.max(m_x, axis=0))

    return float_stats


KERNEL = judge_kernels.JudgeKernel(_build)
disable = KERNEL.disable
status = KERNEL.status


def usable(x: Any, y: Any, atol: float) -> bool:
    """Whether the kernel compares ``x`` and ``y`` (contiguous same-numel tensors on one GPU, of floating dtypes it
    loads, with ``atol > 0``) in this process: another layout is compared by torch a chunk at a time, with no
    whole copy."""
    return (KERNEL.ready() and atol > 0 and x.numel() == y.numel() > 0
            and x.device.type == "cuda" and y.device == x.device and x.is_contiguous() and y.is_contiguous()
            and all(str(v.dtype).removeprefix("torch.") in _DTYPES for v in (x, y)))


def launch(x: Any, y: Any, rtol: float, atol: float) -> tuple[list, list]:
    """:func:`.compare._float_stats` of ``x`` (candidate) and ``y`` (baseline): (counts and sums, maxima).  Raises
    where the kernel cannot run (the caller falls back to torch and :func:`disable` s it)."""
    import torch

    xf, yf = x.detach().reshape(-1), y.detach().reshape(-1)
    n = xf.numel()
    programs = -(-n // SPAN)
    parts = torch.empty((programs, 13), dtype=torch.float64, device=xf.device)
    tol = torch.tensor([rtol, atol], dtype=torch.float64, device=xf.device)
    KERNEL.jit()[(programs,)](xf, yf, tol, parts, n, SPAN=SPAN, BLOCK=BLOCK, num_warps=8, enable_fp_fusion=False)
    got = torch.cat([parts[:, :9].sum(0), parts[:, 9:].amax(0)]).tolist()
    sums, nan_at_fin, maxes = got[:8], got[8], got[9:]
    if nan_at_fin:  # as torch's sums and maxima propagate it
        nan = float("nan")
        sums[5] = nan
        maxes = [nan, maxes[1], nan, nan]
    return sums, maxes
