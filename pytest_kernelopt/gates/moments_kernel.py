"""The moments of a candidate's and the baseline's errors against the float64 truth in one pass on the GPU: the
judge's own Triton kernel behind :func:`pytest_kernelopt.gates.fp64._error_moments` (the bias check).

The torch path takes, per chunk, float64 copies of the three tensors, boolean gathers (a host sync each), two
weighted ``bincount`` s and five reductions read back one by one.  This kernel reads each tensor once: each program
merges its tiles' count, mean and sum of squared deviations of each error (Chan et al.'s pairwise formula; a
tile's deviations are taken from its own mean, so no sum of squares cancels), the sum of ``|t|``, and the count
and error sums of the (at most two) bias batches its span meets; the programs' moments are merged the same way
on the host.  Only for tensors of at least ``SPAN * batches`` elements, so that no program's span meets more than
two batches; smaller ones are cheap in torch.  Counts are the torch path's exactly, the rest up to rounding.
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

    @triton.jit(do_not_specialize=["n", "batches"])
    def error_moments(c_ptr, b_ptr, t_ptr, part_ptr, n, batches, SPAN: tl.constexpr, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        base = pid.to(tl.int64) * SPAN
        first = base * batches // n  # the bias batch of the span's first position
        zero = tl.sum(tl.zeros([BLOCK], dtype=tl.float64), axis=0)  # a float64 scalar: every carried sum is one
        cnt = zero
        mean_c = zero
        m2_c = zero
        mean_b = zero
        m2_b = zero
        abs_t = zero
        k0 = zero
        sc0 = zero
        sb0 = zero
        k1 = zero
        sc1 = zero
        sb1 = zero
        for s in range(0, SPAN, BLOCK):
            offs = base + s + tl.arange(0, BLOCK).to(tl.int64)
            inside = offs < n
            c = tl.load(c_ptr + offs, mask=inside, other=0.0).to(tl.float64)
            b = tl.load(b_ptr + offs, mask=inside, other=0.0).to(tl.float64)
            t = tl.load(t_ptr + offs, mask=inside, other=0.0).to(tl.float64)
            ok = inside & (tl.abs(c) < float("inf")) & (tl.abs(b) < float("inf")) & (tl.abs(t) < float("inf"))
            ec = tl.where(ok, c - t, 0.0)
            eb = tl.where(ok, b - t, 0.0)
            one = tl.where(ok, 1.0, 0.0)
            k = tl.sum(one, axis=0)
            kk = tl.maximum(k, 1.0)
            tm_c = tl.sum(ec, axis=0) / kk
            tm_b = tl.sum(eb, axis=0) / kk
            dc = tl.where(ok, ec - tm_c, 0.0)
            db = tl.where(ok, eb - tm_b, 0.0)
            t2_c = tl.sum(dc * dc, axis=0)
            t2_b = tl.sum(db * db, axis=0)
            total = tl.maximum(cnt + k, 1.0)
            delta_c = tm_c - mean_c
            delta_b = tm_b - mean_b
            mean_c = mean_c + delta_c * k / total
            mean_b = mean_b + delta_b * k / total
            m2_c = m2_c + t2_c + delta_c * delta_c * cnt * k / total
            m2_b = m2_b + t2_b + delta_b * delta_b * cnt * k / total
            cnt = cnt + k
            abs_t = abs_t + tl.sum(tl.where(ok, tl.abs(t), 0.0), axis=0)
            second = (offs * batches // n) > first
            k0 += tl.sum(tl.where(second, 0.0, one), axis=0)
            sc0 += tl.sum(tl.where(second, 0.0, ec), axis=0)
            sb0 += tl.sum(tl.where(second, 0.0, eb), axis=0)
            k1 += tl.sum(tl.where(second, one, 0.0), axis=0)
            sc1 += tl.sum(tl.where(second, ec, 0.0), axis=0)
            sb1 += tl.sum(tl.where(second, eb, 0.0), axis=0)
        out = part_ptr + pid.to(tl.int64) * 12
        tl.store(out + 0, cnt)
        tl.store(out + 1, mean_c)
        tl.store(out + 2, m2_c)
        tl.store(out + 3, mean_b)
        tl.store(out + 4, m2_b)
        tl.store(out + 5, abs_t)
        tl.store(out + 6, k0)
        tl.store(out + 7, sc0)
        tl.store(out + 8, sb0)
        tl.store(out + 9, k1)
        tl.store(out + 10, sc1)
        tl.store(out + 11, sb1)

    return error_moments


KERNEL = judge_kernels.JudgeKernel(_build)
disable = KERNEL.disable
status = KERNEL.status


def usable(c: Any, b: Any, t: Any, batches: int) -> bool:
    """Whether the kernel takes these (contiguous same-numel tensors on one GPU, of floating dtypes it loads, at
    least ``SPAN * batches`` elements) in this process."""
    return (KERNEL.ready() and c.numel() == b.numel() == t.numel() >= SPAN * batches
            and all(v.device.type == "cuda" and v.device == c.device and v.is_contiguous()
                    and str(v.dtype).removeprefix("torch.") in _DTYPES for v in (c, b, t)))


def launch(c: Any, b: Any, t: Any, batches: int) -> tuple[int, tuple, tuple, float, tuple]:
    """:func:`.fp64._error_moments` of ``c`` (candidate), ``b`` (baseline) and ``t`` (truth) over ``batches`` bias
    batches.  Raises where the kernel cannot run (the caller falls back to torch and :func:`disable` s it)."""
    import torch

    cf, bf, tf = (v.detach().reshape(-1) for v in (c, b, t))
    n = tf.numel()
    programs = -(-n // SPAN)
    parts = torch.empty((programs, 12), dtype=torch.float64, device=tf.device)
    KERNEL.jit()[(programs,)](cf, bf, tf, parts, n, batches, SPAN=SPAN, BLOCK=BLOCK, num_warps=8)
    p = parts.cpu()
    count = p[:, 0]
    total = float(count.sum())
    moments = []
    for j in (1, 3):  # the programs' (count, mean, M2) merged: the mean of means, then the spread between them
        mean = float((count * p[:, j]).sum()) / total if total else 0.0
        m2 = float(p[:, j + 1].sum() + (count * (p[:, j] - mean) ** 2).sum()) if total else 0.0
        moments.append((mean, m2))
    first = torch.arange(programs, dtype=torch.int64) * SPAN * batches // n
    per_batch = []
    for j in (6, 7, 8):  # count, candidate's error sum, baseline's: into each program's first batch and the next
        acc = torch.zeros(batches + 1, dtype=torch.float64)
        acc.index_add_(0, first, p[:, j])
        acc.index_add_(0, first + 1, p[:, j + 3])
        per_batch.append(acc[:batches])
    abs_sum = float(p[:, 5].sum())
    return int(total), moments[0], moments[1], abs_sum / total if total else 0.0, tuple(per_batch)
