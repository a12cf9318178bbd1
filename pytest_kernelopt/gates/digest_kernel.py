"""A tensor's keyed digest in one pass on the GPU: the judge's own Triton kernel.

:func:`pytest_kernelopt.gates.digests.digest` sums, modulo 2**64, splitmix64's
mixer of each element's bits XOR a keyed hash of its position.  In torch that
is about thirty elementwise launches over int64 temporaries per chunk: a 6 GiB
input cost about 0.3 s a digest on an H100, and a free-form candidate's call
takes three (the input-mutation check, and its read-only arguments before and
after each launch), so digests were most of a structure probe's time.  This
kernel computes the position hash and the mixer in registers and reads the
tensor once; per block of ``BLOCK`` elements it stores the wrapped sum, and
torch adds the blocks' sums.  Addition modulo 2**64 does not depend on the
order, so the result is the torch path's bit for bit
(``tests/test_digest_kernel.py`` checks it under the Triton interpreter).
No mask or hash value is left in device memory: the blocks' sums are zeroed
after they are added.
"""

from __future__ import annotations

from typing import Any

from . import judge_kernels

#: elements per program
BLOCK = 2048

#: the IEEE formats whose NaNs the kernel makes canonical: (exponent bits, mantissa bits) of the element
_NAN_BITS = {"float16": (0x7C00, 0x03FF), "bfloat16": (0x7F80, 0x007F), "float32": (0x7F800000, 0x007FFFFF),
             "float64": (0x7FF0000000000000, 0x000FFFFFFFFFFFFF)}

_canon: dict[tuple, int] = {}  # the bits of the NaN torch makes, by (dtype, device)


def _build() -> Any:
    import triton
    import triton.language as tl

    # (an integer argument equal to 1 would be made a constant, which key.to() cannot take)
    @triton.jit(do_not_specialize=["key"])
    def keyed_sums(bits_ptr, part_ptr, n, key, exp_mask, mant_mask, canon,
                   CANONICAL_NAN: tl.constexpr, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
        mask = offs < n
        raw = tl.load(bits_ptr + offs, mask=mask, other=0)
        if CANONICAL_NAN:  # a NaN's payload is not part of its value: every NaN hashes as ``canon``
            nan = ((raw & exp_mask) == exp_mask) & ((raw & mant_mask) != 0)
            raw = tl.where(nan, canon, raw)
        v = raw.to(tl.int64).to(tl.uint64, bitcast=True)  # sign-extended, as torch's .to(torch.int64)
        # splitmix64 of the position under ``key`` (digests.position_hash), XOR the element's bits, mixed again
        z = offs.to(tl.uint64) * 0x9E3779B97F4A7C15 + key.to(tl.uint64)
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) * 0x94D049BB133111EB
        z = z ^ (z >> 31)
        z = z ^ v
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) * 0x94D049BB133111EB
        z = z ^ (z >> 31)
        z = tl.where(mask, z, 0)
        tl.store(part_ptr + pid, tl.sum(z, axis=0).to(tl.int64, bitcast=True))

    return keyed_sums


KERNEL = judge_kernels.JudgeKernel(_build)
disable = KERNEL.disable
status = KERNEL.status


def usable(t: Any, canonical_nan: bool) -> bool:
    """Whether the kernel hashes ``t`` (a tensor on a GPU; with ``canonical_nan``, of a floating dtype whose NaNs
    it knows) in this process."""
    return (KERNEL.ready() and t.device.type == "cuda"
            and (not canonical_nan or str(t.dtype).removeprefix("torch.") in _NAN_BITS))


def launch(flat: Any, ints: Any, key: int, canonical_nan: bool) -> Any:
    """The digest sum of ``flat`` (a flat, non-empty tensor :func:`usable` takes; ``ints``: the integer dtype of its
    element size) as an int64 device tensor of one element; no host sync.  ``canonical_nan``: NaNs hash alike
    whatever their payload, as the NaN torch makes on that device.  Raises where the kernel cannot run (the caller
    falls back to torch and :func:`disable` s it)."""
    import torch

    bits = flat.contiguous().view(ints)
    exp_mask = mant_mask = canon = 0
    if canonical_nan:
        exp_mask, mant_mask = _NAN_BITS[str(flat.dtype).removeprefix("torch.")]
        where = (flat.dtype, str(flat.device))
        if where not in _canon:
            _canon[where] = int(torch.full((1,), float("nan"), dtype=flat.dtype, device=flat.device).view(ints)[0])
        canon = _canon[where]
    programs = -(-bits.numel() // BLOCK)
    parts = torch.empty(programs, dtype=torch.int64, device=bits.device)
    KERNEL.jit()[(programs,)](bits, parts, bits.numel(), _signed64(key), exp_mask, mant_mask, canon,
                         CANONICAL_NAN=canonical_nan, BLOCK=BLOCK, num_warps=4)
    total = parts.sum().reshape(())
    parts.zero_()
    return total


def _signed64(v: int) -> int:
    v %= 2**64
    return v - 2**64 if v >= 2**63 else v
