"""Tensor layouts and poison, shared by the problems' inputs, the gates' seeds and their runs.

A module compiled for a strided view (a transposed input, a broadcast one) is guarded on those strides: every input
the gates or a problem make must keep them, or the module recompiles for a dense copy and the captured kernels are no
longer the ones it runs.  No torch import at module level (this module is on the plugin's import path).
"""

from __future__ import annotations


def in_layout(like, t):
    """``t``'s values with ``like``'s sizes and strides (a view with gaps between its rows, say: ``clone`` and
    arithmetic make such a tensor contiguous, and a module compiled for the view would recompile for it).  The
    storage is new and its gaps hold NaN (or the dtype's largest value), so nothing a kernel leaves there
    survives into another call.  Where ``like`` is expanded (stride 0 along a dimension of size > 1), ``t``'s
    first slice along it is laid out and expanded the same way: a broadcast input's values repeat along that
    dimension, and a module compiled for a stride-0 input recompiles for a dense one (else every candidate of
    such a module is refused, "the candidate kernel never ran": tests/test_soundness.py::
    test_inputs_keep_their_layout_through_every_seed_and_clone).  ``t`` itself where the layouts
    already agree or ``like`` overlaps itself otherwise."""
    import torch

    if not (isinstance(like, torch.Tensor) and isinstance(t, torch.Tensor)) or like.shape != t.shape:
        return t
    if t.stride() == like.stride() or t.numel() == 0:
        return t
    expanded = [d for d, (n, st) in enumerate(zip(like.shape, like.stride())) if n > 1 and st == 0]
    if expanded:
        base_like, base_t = like, t
        for d in expanded:
            base_like, base_t = base_like.narrow(d, 0, 1), base_t.narrow(d, 0, 1)
        base = in_layout(base_like, base_t.detach().clone())
        return base.expand(like.shape).requires_grad_(t.requires_grad)  # base is a detached copy: a leaf
    try:
        out = torch.empty_strided(like.size(), like.stride(), dtype=t.dtype, device=t.device)
        whole = torch.empty(0, dtype=t.dtype, device=t.device).set_(out.untyped_storage())
        poison(whole)
        with torch.no_grad():
            out.copy_(t)
    except RuntimeError:  # a self-overlapping layout (an expanded tensor): kept as it came
        return t
    return out.requires_grad_(t.requires_grad)


def poison(t):
    """Fill with NaN (floating), True (bool) or the dtype's largest value: what no honest kernel reads before
    writing it."""
    import torch

    if not isinstance(t, torch.Tensor) or t.numel() == 0:
        return t
    with torch.no_grad():
        if t.is_floating_point():
            t.fill_(float("nan"))
        elif t.dtype == torch.bool:
            t.fill_(True)
        else:
            t.fill_(torch.iinfo(t.dtype).max if t.dtype != torch.uint8 else 255)
    return t
