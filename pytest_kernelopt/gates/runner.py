"""Running a module once for a gate: cloned inputs, optional backward, poisoned allocations."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any, Callable

from ..capture import backward_inputs
from ..tensor_layout import in_layout, poison
from .digests import digest

_ALLOCATORS = ("empty_strided_cuda", "empty_strided_cpu", "empty_strided_xpu", "empty_strided")


def clone_inputs(inputs: tuple) -> tuple:
    """Copies of the tensor inputs with their layouts (:func:`in_layout`): a module compiled for a strided view
    is called with one, not recompiled for a contiguous copy."""
    import torch

    out = []
    for x in inputs:
        if isinstance(x, torch.Tensor):
            c = in_layout(x, x.detach().clone())
            out.append(c.requires_grad_(x.requires_grad))
        else:
            out.append(x)
    return tuple(out)


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


def _zero(t):
    """Fill with zeros (freshly zeroed memory: a kernel that accumulates into its output without writing it
    first is right there and wrong everywhere else)."""
    import torch

    if isinstance(t, torch.Tensor) and t.numel():
        with torch.no_grad():
            t.zero_()
    return t


#: a run whose allocations are to be replayed as stale contents keeps references to them up to this many bytes
STALE_MAX_BYTES = 1 << 31


class Allocations:
    """The buffers one run allocated, in order (up to :data:`STALE_MAX_BYTES`; past that, none are kept); with
    ``key``, also each one's digest as it was handed out (filled), so that a buffer the call never wrote can be
    told from one it did (:func:`pytest_kernelopt.gates.digests.digest` under ``key``)."""

    def __init__(self, key: int | None = None) -> None:
        self.tensors: list = []
        self.before: list[str] = []
        self.key = key
        self.bytes = 0
        self.dropped = False

    def add(self, t) -> None:
        import torch

        if self.dropped or not isinstance(t, torch.Tensor):
            return
        self.bytes += t.numel() * t.element_size()
        if self.bytes > STALE_MAX_BYTES:
            self.tensors, self.before, self.dropped = [], [], True
            return
        self.tensors.append(t)
        if self.key is not None:
            self.before.append(str(digest(t, self.key, exact=True)))


def _staler(previous: "Allocations | None"):
    """A fill that gives the n-th allocation the contents of the previous run's n-th (same shape and dtype:
    what a caching allocator hands a loop that drops each result), random values where there is none."""
    import torch

    olds = list(previous.tensors) if previous is not None else []
    count = [0]

    def fill(t):
        i = count[0]
        count[0] += 1
        if not isinstance(t, torch.Tensor) or t.numel() == 0:
            return t
        old = olds[i] if i < len(olds) else None
        if old is not None and old.shape == t.shape and old.dtype == t.dtype and old.device == t.device:
            with torch.no_grad():
                t.copy_(old)
            return t
        return _garble(t)

    return fill


#: what each fill mode writes into the buffers Inductor allocates (see :func:`poisoned_allocations`)
FILLS = ("nan", "random", "zeros", "stale")


@contextlib.contextmanager
def poisoned_allocations(namespaces: dict[int, dict], fill: str = "nan", record: "Allocations | None" = None,
                         stale: "Allocations | None" = None):
    """Buffers Inductor allocates start as NaN / max-int (``fill="nan"``), as random finite values
    (``"random"``), as zeros (``"zeros"``) or as the contents the previous run's buffers were left with
    (``"stale"``, from ``stale``), so reading one before writing it shows; ``record`` collects this run's
    allocations for a later stale run.

    Inductor's own kernels never read a buffer before writing it, so the
    baseline is unaffected; a candidate that reads uninitialised memory
    produces NaN or garbage that the comparison catches.  The random fill is
    what a kernel that does its work only where it finds the NaN poison (the
    stale-buffer trick) cannot recognise: its second run on the same inputs
    then differs from its first.  Zeros and stale outputs are what real memory holds (a kernel wrong only
    over zeroed memory, or only over a buffer holding an earlier output of its own, passes gates that hand it
    nothing but NaN and random values: tests/test_soundness.py::
    test_the_plain_seed_runs_over_what_real_memory_holds_not_zeros).
    """
    if fill not in FILLS:
        raise ValueError(f"fill {fill!r}: one of {FILLS}")
    fill_fn = {"nan": poison, "random": _garble, "zeros": _zero}.get(fill) or _staler(stale)

    def allocate(t):
        t = fill_fn(t)
        if record is not None:
            record.add(t)
        return t

    saved = []
    for ns in namespaces.values():
        for name in _ALLOCATORS:
            orig = ns.get(name)
            if callable(orig) and not getattr(orig, "_kernelopt_poison", False):
                def poisoned(*a, _orig=orig, **k):
                    return allocate(_orig(*a, **k))

                poisoned._kernelopt_poison = True  # type: ignore[attr-defined]  # a marker on the wrapper
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


def run_once(fn: Callable, module: Any, inputs: tuple, *, training: bool, seed: int,
             clone: bool = True) -> RunResult:
    """Call ``fn`` on clones of ``inputs`` (``clone=False``: on ``inputs`` themselves, a copy the caller made for
    this call alone); with ``training``, also backpropagate seeded gradients."""
    import torch


    args = clone_inputs(inputs) if clone else tuple(inputs)
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
