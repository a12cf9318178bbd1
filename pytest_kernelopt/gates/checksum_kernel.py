"""The timed calls' output checksums in one pass on the GPU: the judge's own Triton kernel.

:func:`pytest_kernelopt.gates.timing.checksums` weighs every element of an
output by a pseudo-random weight of its position (splitmix64 of the position,
:func:`pytest_kernelopt.gates.digests.position_hash`) and sums in float64.  In
torch that is about twenty elementwise launches per chunk of the output, and
the weights of a large output were made again on every call: on the H200 a
64M-element output cost about 8 ms of checks per timed call, a hundred times
the call itself, which made the sequential performance gate slow.  This
kernel computes the same weights in registers and reads the output once:
per block of ``BLOCK`` elements the weighted sum, the weighted sum of
magnitudes and the NaN count, in float64; the blocks' partial sums are then
added by torch (a fixed order: deterministic).

The weights are bit for bit those of the torch path (``tests/test_checksum_kernel.py`` checks it
under the Triton interpreter); the sums differ from the torch path's only in the order of addition.  Both
the baseline's and the candidate's calls use the same path, so the comparison never mixes them.
"""

from __future__ import annotations

from typing import Any

from . import judge_kernels

#: elements per program: the partial sums of a 64M-element output are 32K triples
BLOCK = 2048


def _build() -> Any:
    import triton
    import triton.language as tl

    @triton.jit
    def weighted_sums(x_ptr, part_ptr, n, key, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float64)
        # splitmix64 of the position under ``key``, as digests.position_hash computes it (wrapping uint64)
        z = offs.to(tl.uint64) * 0x9E3779B97F4A7C15 + key.to(tl.uint64)
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) * 0x94D049BB133111EB
        z = z ^ (z >> 31)
        w = (z >> 11).to(tl.float64) * (1.0 / 9007199254740992.0) + 0.5  # top 53 bits: [0.5, 1.5)
        nan = x != x
        x = tl.where(nan | ~mask, 0.0, x)
        w = tl.where(mask, w, 0.0)
        tl.store(part_ptr + pid * 3, tl.sum(w * x, axis=0))
        tl.store(part_ptr + pid * 3 + 1, tl.sum(w * tl.abs(x), axis=0))
        tl.store(part_ptr + pid * 3 + 2, tl.sum(nan.to(tl.float64), axis=0))

    return weighted_sums


KERNEL = judge_kernels.JudgeKernel(_build)
disable = KERNEL.disable
status = KERNEL.status


def usable(t: Any) -> bool:
    """Whether the kernel sums ``t`` (a floating tensor on a GPU of a dtype Triton loads) in this process."""
    import torch

    return (KERNEL.ready() and t.device.type == "cuda"
            and t.dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64))


def launch(t: Any) -> Any:
    """A float64 device tensor (weighted sum, weighted sum of magnitudes, NaN count) of ``t``; no host sync.
    Raises where the kernel cannot run (the caller falls back to torch and :func:`disable` s it)."""
    import torch

    flat = t.detach().reshape(-1)
    if not flat.is_contiguous():
        flat = flat.contiguous()
    n = flat.numel()
    programs = -(-n // BLOCK)
    parts = torch.empty((programs, 3), dtype=torch.float64, device=flat.device)
    KERNEL.jit()[(programs,)](flat, parts, n, n, BLOCK=BLOCK, num_warps=4)
    return parts.sum(0)
