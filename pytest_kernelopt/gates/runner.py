"""Running a module once for a gate: cloned inputs, optional backward, poisoned allocations."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any, Callable

_ALLOCATORS = ("empty_strided_cuda", "empty_strided_cpu", "empty_strided_xpu", "empty_strided")


def clone_inputs(inputs: tuple) -> tuple:
    import torch

    out = []
    for x in inputs:
        if isinstance(x, torch.Tensor):
            c = x.detach().clone()
            out.append(c.requires_grad_(x.requires_grad))
        else:
            out.append(x)
    return tuple(out)


def _poison(t):
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


def _garble(t):
    """Fill with random finite values (a stale buffer that does not hold the NaN poison)."""
    import torch

    if not isinstance(t, torch.Tensor) or t.numel() == 0:
        return t
    with torch.no_grad():
        if t.is_floating_point():
            t.uniform_(-3.0, 3.0)
        elif t.dtype == torch.bool:
            t.random_(0, 2)
        else:
            t.random_(0, 100)
    return t


@contextlib.contextmanager
def poisoned_allocations(namespaces: dict[int, dict], fill: str = "nan"):
    """Buffers Inductor allocates start as NaN / max-int (``fill="nan"``), or as random finite values
    (``fill="random"``), so reading one before writing it shows.

    Inductor's own kernels never read a buffer before writing it, so the
    baseline is unaffected; a candidate that reads uninitialised memory
    produces NaN or garbage that the comparison catches.  The random fill is
    what a kernel that does its work only where it finds the NaN poison (the
    stale-buffer trick) cannot recognise: its second run on the same inputs
    then differs from its first.
    """
    fill_fn = _poison if fill == "nan" else _garble
    saved = []
    for ns in namespaces.values():
        for name in _ALLOCATORS:
            orig = ns.get(name)
            if callable(orig) and not getattr(orig, "_kernelopt_poison", False):
                def poisoned(*a, _orig=orig, **k):
                    return fill_fn(_orig(*a, **k))

                poisoned._kernelopt_poison = True
                saved.append((ns, name, orig))
                ns[name] = poisoned
    try:
        yield
    finally:
        for ns, name, orig in reversed(saved):
            ns[name] = orig


@dataclass
class RunResult:
    outputs: Any
    grads: dict[str, Any]
    inputs_after: tuple


def run_once(fn: Callable, module: Any, inputs: tuple, *, training: bool, seed: int) -> RunResult:
    """Call ``fn`` on clones of ``inputs``; with ``training``, also backpropagate seeded gradients."""
    import torch

    from ..capture import backward_inputs

    args = clone_inputs(inputs)
    # the same random stream for every run of a seed: a module with dropout (Inductor draws its philox seeds
    # from the global generator) then gives baseline and candidate the same random numbers
    torch.manual_seed(seed + 104729)
    if not training:
        with torch.no_grad():
            out = fn(*args)
        return RunResult(out, {}, args)
    params = dict(module.named_parameters()) if hasattr(module, "named_parameters") else {}
    for p in params.values():
        p.grad = None
    out = fn(*args)
    outs, grads = backward_inputs(out, seed)
    torch.autograd.backward(outs, grads)
    collected = {f"param:{n}": p.grad.detach().clone() for n, p in params.items() if p.grad is not None}
    for i, a in enumerate(args):
        if isinstance(a, torch.Tensor) and a.grad is not None:
            collected[f"input:{i}"] = a.grad.detach().clone()
    for p in params.values():
        p.grad = None
    out = out.detach() if isinstance(out, torch.Tensor) else out
    return RunResult(out, collected, args)
