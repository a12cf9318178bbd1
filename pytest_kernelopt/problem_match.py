"""The problem that reproduces a cache entry, for ``kernelopt cache verify``: found by the entry's key among the
problem files the user names, never by what the entry names.

Rules (tests/test_cache_reverify.py guards them):

* An entry is untrusted input, and so is its ``problem_id``: it is shown, never opened, imported or run.  The
  problems searched are the files and folders given with ``--problems`` (else ``$KERNELOPT_VERIFY_PROBLEMS``,
  paths separated by ``os.pathsep``), collected as ``kernelopt bench`` collects them.
* A problem reproduces an entry when one of its captured graphs has the kernel (or contiguous run of kernels)
  whose cache key -- the baselines' content hashes, the input shapes and dtypes, the device, the compile mode --
  is the entry's key: the same lookup a run makes before it serves the entry.
* Files inside the cache directory are never problems (an entry's files are its own; ``cache verify`` drops them
  from the folders given).
* Each problem is imported, built and captured in a worker process (:class:`~pytest_kernelopt.isolate.
  IsolatedEvaluator`) under the time limit (``timeout``); one that fails or does not return within it is that
  problem's error (:attr:`ProblemFinder.failures`), and is not tried again.
* One problem's worker is kept open at a time, for the entries it reproduces; a problem is captured again when
  an entry of it comes after another problem's.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any, Callable, Sequence

from .backends import prepare
from .cache_keys import CacheKey
from .config import COMPILE_MODES, Settings
from .isolate import IsolatedEvaluator
from .problems import ProblemSpec

ProgressFn = Callable[[str], None]
PROBLEMS_ENV = "KERNELOPT_VERIFY_PROBLEMS"


def configured_problems(given: Sequence[str] | None) -> list[str]:
    """The problem paths a ``cache verify`` searches: ``given`` (``--problems``), else :data:`PROBLEMS_ENV`'s."""
    if given:
        return list(given)
    return [p for p in os.environ.get(PROBLEMS_ENV, "").split(os.pathsep) if p.strip()]


def reproduced(graphs: Sequence[Any], inputs: Sequence[Any], key: Any) -> tuple[str, ...] | None:
    """The names of the kernel(s) in ``graphs`` whose cache key is ``key`` (None: none is), with the entry's
    device and compile mode (the graphs were captured in that mode; the device is ``key``'s, so
    ``--any-device`` can re-verify an entry of another device kind on this one)."""
    for graph in graphs:
        for names in [*graph.contiguous_runs(), *((n,) for n in graph.kernels)]:
            found = CacheKey.from_inputs([graph.kernels[n] for n in names], inputs, key.device, key.compile_mode)
            if found.digest == key.digest:
                return tuple(names)
    return None


class ProblemFinder:
    """The problem files of one ``cache verify``, captured on demand (see the module docstring)."""

    def __init__(self, paths: Sequence[Path], settings: Settings | None = None, say: ProgressFn = print) -> None:
        self.paths = [Path(p) for p in paths]
        self.settings = settings or Settings(mode="optimize")
        self.say = say
        self._captured: dict[tuple[Path, str], tuple[list, list] | None] = {}
        self._open: tuple[tuple[Path, str], Any] | None = None
        self.failures: dict[Path, str] = {}  # a problem that could not be captured (in a mode): why

    def find(self, key: Any) -> tuple[Any, tuple[str, ...], Path] | None:
        """The evaluator of the first problem (in the order given) that reproduces ``key``, the kernel names it
        has there, and its path; None when none does (a key of a compile mode this package does not capture
        in, which no problem can reproduce, included)."""
        if key.compile_mode not in COMPILE_MODES:
            return None
        for path in self.paths:
            captured = self._capture(path, key.compile_mode)
            if captured is None:
                continue
            if reproduced(*captured, key) is not None:
                ev = self._evaluator(path, key.compile_mode)  # captured again where another problem's was open
                names = reproduced(ev.graphs, ev.inputs, key)  # this capture's names
                if names is not None:
                    return ev, names, path
        return None

    def _capture(self, path: Path, mode: str) -> tuple[list, list] | None:
        if (path, mode) not in self._captured:
            self._captured[(path, mode)] = None
            try:
                ev = self._evaluator(path, mode)
                self._captured[(path, mode)] = (list(ev.graphs), list(ev.inputs))
            except Exception as e:  # noqa: BLE001 -- the problem's error, said and kept; the others are searched
                self._close_open()
                self.failures[path] = f"{type(e).__name__}: {e}"
                self.say(f"ERROR       problem {path} could not be captured: {type(e).__name__}: {e}")
        return self._captured[(path, mode)]

    def _evaluator(self, path: Path, mode: str) -> Any:
        """The worker-backed evaluator of ``path`` captured in ``mode`` (the one kept open; another is closed)."""
        if self._open is not None and self._open[0] == (path, mode):
            return self._open[1]
        self._close_open()
        prepare(self.settings.backend)  # before torch and triton are imported here (the judge's statistics)
        settings = dataclasses.replace(self.settings, mode="optimize", compile_mode=mode)
        ev = IsolatedEvaluator(ProblemSpec.from_file(path), settings, start_timeout=settings.timeout)
        ev.prestart = False  # one worker at a time: each judgement starts its own
        self._open = ((path, mode), ev)
        return ev

    def _close_open(self) -> None:
        if self._open is not None:
            ev, self._open = self._open[1], None
            ev.close()

    def close(self) -> None:
        self._close_open()
