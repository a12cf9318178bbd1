"""Whether the judge's own Triton kernels (:mod:`.checksum_kernel`, :mod:`.digest_kernel`, :mod:`.decade_kernel`,
:mod:`.stats_kernel`, :mod:`.moments_kernel`, :mod:`.level_kernel`) compute its statistics on a GPU:
``KERNELOPT_JUDGE_KERNELS=0`` has torch compute them instead, as on the host (slower at size; the same digests,
counts, codes and maxima, the sums up to the order of addition)."""

from __future__ import annotations

import contextlib
import os
from typing import Any, Callable, Iterator, TypeVar

T = TypeVar("T")

_TORCH_ONLY = False  # set within :func:`torch_only`


def enabled() -> bool:
    return not _TORCH_ONLY and os.environ.get("KERNELOPT_JUDGE_KERNELS", "1") != "0"


@contextlib.contextmanager
def torch_only() -> Iterator[None]:
    """Within the block, torch computes what the kernels would (the reference their tests and benchmarks compare
    them with)."""
    global _TORCH_ONLY
    before, _TORCH_ONLY = _TORCH_ONLY, True
    try:
        yield
    finally:
        _TORCH_ONLY = before


class JudgeKernel:
    """One of the judge's kernels in this process: compiled at its first launch, set aside for the rest of the
    process once it failed to build or launch (torch computes instead).  ``build()`` returns the ``triton.jit``
    function."""

    def __init__(self, build: Callable[[], Any]) -> None:
        self._build = build
        self._jit: Any = None
        self.failed = ""  # why the kernel could not be used in this process

    def ready(self) -> bool:
        """Whether the kernel may be launched: it has not failed here and torch is not asked to compute."""
        return not self.failed and enabled()

    def jit(self) -> Any:
        if self._jit is None:
            self._jit = self._build()
        return self._jit

    def disable(self, why: str) -> None:
        """Compute with torch from now on in this process; the first reason is kept."""
        if not self.failed:
            self.failed = why

    def status(self) -> str:
        """'' while the kernel is in use, else why torch computes instead."""
        return self.failed


def attempt(kernel: Any, run: Callable[[], T]) -> T | None:
    """``run()``: a launch of ``kernel`` 's (one of the kernel modules) and what reads its result back; None where it
    raised: the kernel is set aside for the process (``kernel.disable``) and the caller computes with torch."""
    try:
        return run()
    except Exception as exc:  # noqa: BLE001 -- the kernel could not build or launch: torch computes instead
        kernel.disable(f"{type(exc).__name__}: {exc}")
        return None
