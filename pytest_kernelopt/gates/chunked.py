"""Whole-tensor statistics a chunk at a time: aligned flat slices of same-sized tensors.

The gates' statistics (max differences, L2 norms, means) are taken over every element of outputs that can be
gigabytes; a float64 copy, a difference or a mask of the whole tensor is as large again.  Here tensors are
read in row-major order, at most :data:`CHUNK` elements at a time, so the temporaries of a statistic stay the
size of a chunk.  A tensor that cannot be viewed as flat (a transposed or sliced one: ``reshape(-1)`` would
copy all of it) is read as views of whole rows along dim 0 (or parts of one row, recursively), copying only a
chunk's worth.  Slices are computed where the data lives: a host tensor read alongside a device one is moved
to that device a chunk at a time.
"""

from __future__ import annotations

from typing import Any, Iterator

#: at most this many elements of each tensor are read at a time: float64 temporaries of 128 MiB each, of which
#: one statistic holds about eight at once (about 1 GiB, whatever the tensor's size)
CHUNK = 1 << 24


def spans(numel: int) -> Iterator[tuple[int, int]]:
    """(lo, hi) flat index ranges covering ``0 .. numel - 1`` in order, at most :data:`CHUNK` long."""
    step = max(1, int(CHUNK))
    for lo in range(0, numel, step):
        yield lo, min(numel, lo + step)


def _views(t: Any, lo: int, hi: int) -> Iterator[Any]:
    """Views of ``t`` covering its row-major elements ``lo .. hi - 1``, in order: one flat slice where ``t``
    can be viewed as flat, else blocks of whole rows along dim 0 and parts of single rows."""
    if lo >= hi:
        return
    try:
        flat = t.view(-1)
    except RuntimeError:  # not viewable as flat: a dim >= 2 tensor with at least one row
        flat = None
    if flat is not None:
        yield flat[lo:hi]
        return
    row = t[0].numel()
    while lo < hi:
        r, off = divmod(lo, row)
        if off == 0 and hi - lo >= row:
            k = (hi - lo) // row
            yield t[r:r + k]
            lo += k * row
        else:
            end = min(hi, (r + 1) * row)
            yield from _views(t[r], off, end - r * row)
            lo = end


def piece(t: Any, lo: int, hi: int) -> Any:
    """Elements ``lo .. hi - 1`` of ``t`` in row-major order, as a 1-D tensor (a view, or a copy of at most
    twice ``hi - lo`` elements)."""
    import torch

    parts = [v.reshape(-1) for v in _views(t.detach(), lo, hi)]
    return parts[0] if len(parts) == 1 else torch.cat(parts)


def put(t: Any, lo: int, values: Any) -> None:
    """Write the 1-D ``values`` into elements ``lo .. lo + len(values) - 1`` of ``t`` (row-major order)."""
    off = 0
    for v in _views(t, lo, lo + values.numel()):
        n = v.numel()
        v.copy_(values[off:off + n].view(v.shape))
        off += n


def chunks(*tensors: Any, device: Any = None) -> Iterator[tuple]:
    """Aligned 1-D slices of same-numel ``tensors``, at most :data:`CHUNK` elements each, all on ``device``
    (default: the first one's device that is not the host; for host tensors alone, the GPU where this process
    already uses one, else the host); dtypes are kept."""
    n = tensors[0].numel()
    if any(t.numel() != n for t in tensors):
        raise ValueError(f"chunks: sizes differ ({[t.numel() for t in tensors]})")
    if device is None:
        device = compute_device(*tensors)
    for lo, hi in spans(n):
        yield tuple(piece(t, lo, hi).to(device) for t in tensors)


def compute_device(*tensors: Any) -> Any:
    """Where :func:`chunks` puts its slices (and so where a statistic's accumulators belong): the first tensor's
    device that is not the host; for host tensors alone, the current GPU if this process has already
    initialised CUDA (a record of several GiB is a hundred chunks: seconds on the host, a few transfers to the
    device), else the host (a judge that has not touched the GPU does not start to)."""
    import torch

    dev = next((t.device for t in tensors if t.device.type != "cpu"), None)
    if dev is not None:
        return dev
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        return torch.device("cuda", torch.cuda.current_device())
    return torch.device("cpu")
