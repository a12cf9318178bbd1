"""Host copies and digests of what a call leaves: the lowest pieces every layer of the gates shares.

* :func:`to_host` -- a detached host copy of every tensor in a nested value: everything the gates record is moved
  to host memory (a kernel can write device memory anywhere in its process, but not the host copies, and not
  another process); :func:`keep`, what a record holds, is that copy, or within :func:`records_on_device` a copy
  where the tensor lives; :func:`release_device_memory`, what was let go given back to the device.
* :func:`digest` -- a keyed 64-bit hash of a tensor's bits computed where it lives (the input-mutation check, module
  state, the buffers a call left), and :func:`position_hash`, the keyed per-position values behind it and behind
  the performance gate's output checksums.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

from . import digest_kernel, judge_kernels

#: set within :func:`records_on_device`
_KEEP_ON_DEVICE = False


@contextlib.contextmanager
def records_on_device() -> Iterator[None]:
    """Within the block, :func:`keep` leaves a device tensor where it is (a copy) instead of moving it to the host:
    the records of a judge that runs where the data is (a clean worker judging a candidate that carries no code of
    its own, :mod:`.provenance`; nothing in its process can write them)."""
    global _KEEP_ON_DEVICE
    before, _KEEP_ON_DEVICE = _KEEP_ON_DEVICE, True
    try:
        yield
    finally:
        _KEEP_ON_DEVICE = before


def release_device_memory() -> None:
    """Give the device memory of the tensors this process let go back to the device (PyTorch's caching allocator
    keeps it for this process otherwise, and another process's records or float64 truth then find no room there);
    nothing where CUDA was not started."""
    import sys

    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.empty_cache()


def kept_on_device() -> bool:
    """Whether :func:`keep` leaves device tensors where they are (within :func:`records_on_device`)."""
    return _KEEP_ON_DEVICE


def keep(obj: Any) -> Any:
    """What a record holds of a nested value: a detached host copy of every tensor (:func:`to_host`), or within
    :func:`records_on_device` a detached copy where it lives."""
    if not _KEEP_ON_DEVICE:
        return to_host(obj)
    return _each_tensor(obj, lambda t: t.detach().clone())


def to_host(obj: Any) -> Any:
    """A detached host copy of every tensor in a nested value."""
    return _each_tensor(obj, lambda t: t.detach().to("cpu", copy=True))


def _each_tensor(obj: Any, fn: Any) -> Any:
    """``obj`` with ``fn`` applied to every tensor in it (through tuples, lists and dicts)."""
    import torch

    if isinstance(obj, torch.Tensor):
        return fn(obj)
    if isinstance(obj, tuple):
        return tuple(_each_tensor(o, fn) for o in obj)
    if isinstance(obj, list):
        return [_each_tensor(o, fn) for o in obj]
    if isinstance(obj, dict):
        return {k: _each_tensor(v, fn) for k, v in obj.items()}
    return obj


def digest(obj: Any, key: int = 0, exact: bool = False) -> Any:
    """What the input-mutation check compares: every tensor of a nested value as its dtype, shape, strides and
    a 64-bit hash of its bits (NaN payloads made canonical) computed where the tensor lives.

    The hash is a sum, modulo 2**64, of one term per element: splitmix64's mixer applied to the element's bit
    pattern XOR a pseudo-random 64-bit mask of its position (:func:`position_hash` under ``key``, the run's
    secret :attr:`.seed_plan.SeedPlan.digest_key`: never published, not derived from the seeds).  The mixer is a
    bijection, so any change of one element changes the hash; several changes cancel with a chance of about
    2**-64, and a kernel cannot aim at a cancellation: the terms are not linear in the bits and the key is not
    in its reach.  On a GPU the judge's Triton kernel (:mod:`.digest_kernel`) computes the same sum in one read
    of the tensor; elsewhere (or where it cannot run) torch does, in chunks whose temporaries that held masks are
    zeroed before they return to the allocator.  Either way it is computed where the tensor lives: no copy to
    the host.  ``exact``: NaN payloads are hashed as they are (module state, which no honest kernel writes).
    """
    import torch

    if isinstance(obj, torch.Tensor):
        t = obj.detach()
        head = f"{t.dtype}{tuple(t.shape)}{t.stride()}"
        flat = t.reshape(-1)
        if flat.is_complex():
            flat = torch.view_as_real(flat).reshape(-1)
        if flat.numel() == 0:
            return f"tensor:{head}:empty"
        ints = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[flat.element_size()]
        canonical_nan = flat.is_floating_point() and not exact
        if digest_kernel.usable(flat, canonical_nan):
            got = judge_kernels.attempt(
                digest_kernel, lambda: int(digest_kernel.launch(flat, ints, key, canonical_nan)))
            if got is not None:
                return f"tensor:{head}:{got}"
        acc = torch.zeros((), dtype=torch.int64, device=flat.device)
        step = chunk_elements(flat.numel(), DIGEST_CHUNK)
        for lo in range(0, flat.numel(), step):
            part = flat[lo:lo + step]
            if canonical_nan:
                part = torch.where(torch.isnan(part), torch.full_like(part, float("nan")), part)
            z = position_hash(key, lo, part.numel(), flat.device)
            z.bitwise_xor_(part.contiguous().view(ints).to(torch.int64))
            scratch = torch.empty_like(z)
            _mix_(z, scratch)
            acc += z.sum()
            z.zero_()
            scratch.zero_()
            del part, z, scratch
        return f"tensor:{head}:{int(acc)}"
    if isinstance(obj, (tuple, list)):
        return tuple(digest(o, key, exact) for o in obj)
    return obj


DIGEST_CHUNK = 1 << 24  # at most this many elements hashed at a time (int64 temporaries of 128 MiB each)


def position_hash(key: int, start: int, n: int, device: Any) -> Any:
    """64-bit pseudo-random values for positions ``start .. start + n - 1`` under ``key`` (splitmix64: the
    position times the golden-ratio increment plus the key, then its mixer, in wrapping int64 arithmetic),
    computed on ``device``: unlike a seeded generator, whose CUDA stream depends on the GPU's size, the same
    on every device."""
    import torch

    z = torch.arange(start, start + n, dtype=torch.int64, device=device)
    z.mul_(-7046029254386353131).add_(_signed64(key))  # 0x9E3779B97F4A7C15 as int64
    scratch = torch.empty_like(z)
    _mix_(z, scratch)
    scratch.zero_()
    return z


def _signed64(v: int) -> int:
    v %= 2**64
    return v - 2**64 if v >= 2**63 else v


def _mix_(z: Any, scratch: Any) -> None:
    """splitmix64's mixer on int64 values, in place (``scratch``: a tensor of the same shape to work in)."""
    for shift, mult in ((30, -4658895280553007687), (27, -7723592293110705685)):  # 0xBF58..., 0x94D0...
        _shr_into(z, shift, scratch)
        z.bitwise_xor_(scratch).mul_(mult)
    _shr_into(z, 31, scratch)
    z.bitwise_xor_(scratch)


def _shr_into(z: Any, bits: int, out: Any) -> None:
    """``out`` = logical right shift of int64 ``z`` (torch's >> is arithmetic)."""
    import torch

    torch.bitwise_right_shift(z, bits, out=out)
    out.bitwise_and_((1 << (64 - bits)) - 1)


def chunk_elements(numel: int, cap: int) -> int:
    """Elements a chunked reduction over ``numel`` takes at a time: a sixteenth of them, between ``cap / 16``
    and ``cap`` (so the temporaries of a small tensor stay small and a large one needs few launches)."""
    return max(1, min(cap, max(cap // 16, -(-numel // 16))))
