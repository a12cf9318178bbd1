"""Per-decade sums of a chunk in one pass on the GPU: the judge's own Triton kernel.

:func:`pytest_kernelopt.gates.compare.decade_part` sorts the positions of a chunk where the truth ``t`` and every
``x`` are finite into the decades of ``|t|`` and sums, per decade, the count, each ``(x - t)^2`` and ``t^2``.  In
torch that is a boolean gather (a host sync), float64 copies of each tensor and a weighted ``bincount`` per sum:
about 0.65 s for each pass over a 6 GiB output on an H100, four passes for each seed's noise floor and more in
the float64 gate.  This kernel reads each tensor once and keeps the sums in registers.

The decade of a value is the number of powers of ten ``10^k`` (``k`` in ``DECADES``, as float64 numbers) at or
below it, so the kernel and the torch path put every value in the same decade on any device (an estimate from
``log2`` corrected against the table).  A chunk whose values span more decades than :data:`MAX_BINS` is summed
by torch.  The sums differ from torch's only in the order of addition.
"""

from __future__ import annotations

from typing import Any

from . import judge_kernels

#: the decades (and the zero slot) a chunk may span for the kernel to sum it
MAX_BINS = 64
#: elements each program reads, in tiles of ``BLOCK``
SPAN = 1 << 15
BLOCK = 256
WARPS = 4

_tables: dict[tuple, Any] = {}  # powers of ten by (decades, device)

_DTYPES = ("float16", "bfloat16", "float32", "float64")


def powers_of_ten(decades: tuple[int, int], device: Any) -> Any:
    """``10^k`` for ``k`` from ``decades[0]`` to ``decades[1] + 1`` as float64 (the last is infinite): the decade of
    ``a > 0`` is ``decades[0]`` plus the number of them after the first that are at or below ``a``, at most the
    decades' span."""
    import torch

    where = (decades, str(device))
    if where not in _tables:
        lo, hi = decades
        _tables[where] = torch.tensor([float(f"1e{k}") for k in range(lo, hi + 2)], dtype=torch.float64,
                                      device=device)
    return _tables[where]


def _build() -> Any:
    import triton
    import triton.language as tl

    @triton.jit
    def decade_sums(t_ptr, x_ptr, y_ptr, pow_ptr, part_ptr, n, lo, top, first,
                    NX: tl.constexpr, NB: tl.constexpr, SPAN: tl.constexpr, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        slots = tl.arange(0, NB)
        count = tl.zeros([NB], dtype=tl.float64)
        sx = tl.zeros([NB], dtype=tl.float64)
        sy = tl.zeros([NB], dtype=tl.float64)
        st = tl.zeros([NB], dtype=tl.float64)
        base = pid.to(tl.int64) * SPAN
        for s in range(0, SPAN, BLOCK):
            offs = base + s + tl.arange(0, BLOCK).to(tl.int64)
            ok = offs < n
            t = tl.load(t_ptr + offs, mask=ok, other=0.0).to(tl.float64)
            a = tl.abs(t)
            ok = ok & (a < float("inf"))  # finite: not infinite, not NaN (a NaN compares false)
            x = tl.load(x_ptr + offs, mask=ok, other=0.0).to(tl.float64)
            ok = ok & (tl.abs(x) < float("inf"))
            if NX == 2:
                y = tl.load(y_ptr + offs, mask=ok, other=0.0).to(tl.float64)
                ok = ok & (tl.abs(y) < float("inf"))
            # the decade's place r in the table (10^(lo + r) <= a < 10^(lo + r + 1), r in 0..top): log2's estimate,
            # then the table's own comparisons either side of it
            pos = a > 0
            est = tl.floor(tl.log2(tl.where(pos, a, 1.0)) * 0.30102999566398120) - lo
            r = tl.minimum(tl.maximum(est, 0.0), top).to(tl.int32)
            seen = ok & pos
            r = tl.where((r > 0) & (a < tl.load(pow_ptr + r, mask=seen, other=0.0)), r - 1, r)
            r = tl.where((r < top) & (a >= tl.load(pow_ptr + r + 1, mask=seen, other=float("inf"))), r + 1, r)
            slot = tl.where(pos, r + 2 - first, 0)  # the zero slot first, then the chunk's decades
            hit = (slot[:, None] == slots[None, :]) & ok[:, None]
            dx = x - t
            count += tl.sum(tl.where(hit, 1.0, 0.0), axis=0)
            sx += tl.sum(tl.where(hit, (dx * dx)[:, None], 0.0), axis=0)
            if NX == 2:
                dy = y - t
                sy += tl.sum(tl.where(hit, (dy * dy)[:, None], 0.0), axis=0)
            st += tl.sum(tl.where(hit, (t * t)[:, None], 0.0), axis=0)
        out = part_ptr + pid.to(tl.int64) * (4 * NB) + slots
        tl.store(out, count)
        tl.store(out + NB, sx)
        tl.store(out + 2 * NB, sy)
        tl.store(out + 3 * NB, st)

    return decade_sums


KERNEL = judge_kernels.JudgeKernel(_build)
disable = KERNEL.disable
status = KERNEL.status


def usable(tc: Any, xcs: tuple) -> bool:
    """Whether the kernel sums this chunk (one or two ``x``, every tensor on a GPU, of a floating dtype it loads)
    in this process."""
    return (KERNEL.ready() and 1 <= len(xcs) <= 2 and all(
        v.device.type == "cuda" and str(v.dtype).removeprefix("torch.") in _DTYPES for v in (tc, *xcs)))


def launch(tc: Any, xcs: tuple, decades: tuple[int, int]) -> Any:
    """:func:`.compare.decade_part` of the chunk (aligned 1-D tensors :func:`usable` takes) as a float64 tensor of
    one column per bin (the zero slot, then each decade of ``decades``), or None where the chunk spans more than
    :data:`MAX_BINS` slots (torch sums it then).  Raises where the kernel cannot run (the caller falls back to
    torch and :func:`disable` s it)."""
    import torch

    lo, hi = decades
    top = hi - lo
    table = powers_of_ten(decades, tc.device)
    a = tc.detach().abs()
    seen = torch.isfinite(a) & (a > 0)
    ends = torch.stack([torch.where(seen, a, float("inf")).amin(), torch.where(seen, a, 0.0).amax()]).double()
    del a, seen
    first, last = (int(g) + 1 for g in torch.bucketize(ends, table[1:top + 1], right=True).tolist())
    slots = max(1, last - first + 2)
    if slots > MAX_BINS:
        return None
    nb = max(2, 1 << (slots - 1).bit_length())
    n = tc.numel()
    programs = -(-n // SPAN)
    parts = torch.empty((programs, 4, nb), dtype=torch.float64, device=tc.device)
    x, y = xcs[0].contiguous(), xcs[-1].contiguous()
    # (lo and top as floats reach the kernel as float32: both whole numbers far below 2**24, so exact)
    KERNEL.jit()[(programs,)](tc.contiguous(), x, y, table, parts, n, float(lo), float(top), first,
                         NX=len(xcs), NB=nb, SPAN=SPAN, BLOCK=BLOCK, num_warps=WARPS)
    sums = parts.sum(0)[[0, 1, *([2] if len(xcs) == 2 else []), 3]]
    out = torch.zeros((sums.shape[0], top + 2), dtype=torch.float64, device=tc.device)
    out[:, 0] = sums[:, 0]
    width = min(nb - 1, top + 2 - first)
    out[:, first:first + width] = sums[:, 1:1 + width]
    return out
