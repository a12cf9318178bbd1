"""Checks of a committed cache entry, for ``kernelopt cache verify`` (:mod:`pytest_kernelopt.cli_cache`): judged
again in isolation on the problem that reproduces its key (:mod:`pytest_kernelopt.problem_match`), re-run through
the full cascade when stale, the allowlist on its source alone, and the static gate with the compile for the GPU
it was recorded on."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Callable, Sequence

from .candidate import Candidate
from .config import Settings
from .gates.results import GateResult
from .gates.static import CHECKS, StaticGate, check_compiles
from .interrupts import workers_ignore_interrupts
from .parse import parse_kernel_source
from .problem_match import ProblemFinder

ProgressFn = Callable[[str], None]

#: ``cache verify --timeout``'s default: the seconds each problem's import and capture, each judgement and each
#: compile check may take (the ``timeout`` setting's default)
DEFAULT_TIMEOUT = Settings().timeout


class NotJudged(Exception):
    """An entry that could not be judged here, and why (no problem given reproduces its key)."""


class EntryJudge:
    """Judges entries on the problems of a :class:`~pytest_kernelopt.problem_match.ProblemFinder`: what
    ``kernelopt cache verify`` hands :func:`~pytest_kernelopt.cli_cache.run_cache`.  Nothing an entry names is
    run: its problem is found by its key among ``problems`` (the paths the user gave)."""

    def __init__(self, problems: Sequence[Path], timeout: float = DEFAULT_TIMEOUT, say: ProgressFn = print,
                 settings: Settings | None = None) -> None:
        self.settings = dataclasses.replace(settings or Settings(mode="verify"), timeout=timeout)
        self.timeout = timeout
        self.say = say
        self.finder = ProblemFinder(problems, self.settings, say)

    @property
    def failures(self) -> dict[Path, str]:
        """Problems that could not be captured: why."""
        return self.finder.failures

    def _found(self, entry: Any) -> tuple[Any, tuple[str, ...], Path]:
        found = self.finder.find(entry.key)
        if found is None:
            given = len(self.finder.paths)
            failed = len(self.failures)
            where = ("no problem files were given (name them with --problems PATH)" if not given else
                     f"none of the {given} problem file(s) given reproduces it"
                     + (f"; {failed} could not be captured (see above)" if failed else ""))
            raise NotJudged(f"no problem reproduces its key: {where}")
        return found

    def rejudge(self, entry: Any) -> Any:
        """Judge a current accepted entry again, gates 1-3 in isolation; NotJudged where no problem reproduces
        it."""
        if not entry.is_accepted:
            raise NotJudged("a kept baseline has no kernel to judge")
        evaluator, names, _ = self._found(entry)
        return evaluator.evaluate(entry.candidate(replaces=names), perf=False)

    def reverify(self, entry: Any) -> Any:
        """Re-run a stale accepted entry through the full cascade (performance too, on a GPU) on the problem that
        reproduces its key; None where it cannot be re-run here (said)."""
        if not entry.is_accepted:
            self.say(f"            {entry.digest[:12]}: a kept baseline is re-decided by running the search again "
                     "(pytest --kernelopt or kernelopt bench), not by verify")
            return None
        try:
            evaluator, names, _ = self._found(entry)
        except NotJudged as e:
            self.say(f"            {entry.digest[:12]}: not judged: {e}")
            return None
        return evaluator.evaluate(entry.candidate(replaces=names), perf=True)

    def compile_check(self, entry: Any) -> Any:
        return compile_check_entry(entry, self.timeout)

    def close(self) -> None:
        self.finder.close()

    def __enter__(self) -> "EntryJudge":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def allowlist_check_entry(entry: Any) -> Any:
    """Gate 1 without the compile (the allowlist and the signature checks) on an accepted entry, against the
    baseline kernel(s) it records: nothing of the entry is loaded."""
    device = "cpu" if entry.key.device == "cpu" else "cuda"
    sources = entry.baseline_sources
    kernels = {name: parse_kernel_source(name, src, device) for name, src in sources.items()}
    cand = entry.candidate(replaces=tuple(sources))
    return StaticGate(tuple(c for c in CHECKS if c is not check_compiles)).check(cand, kernels, compile_target=None)


COMPILE_CHECK_TIMEOUT = 300.0


def compile_check_entry(entry: Any, timeout: float = COMPILE_CHECK_TIMEOUT) -> Any:
    """The static gate, AOT compile included, on an accepted entry for the GPU it was recorded on.

    What a machine without that GPU can still check of a committed kernel:
    it is on the allowlist, matches the baseline's signature, and still
    compiles for the recorded architecture with the triton installed here.
    The allowlist runs here; the compile (which builds the kernel module) runs
    in a child process with a time limit, so a committed kernel can neither
    run code in this process nor hang it.
    """
    import re

    m = re.fullmatch(r"cuda:sm(\d+)", entry.key.device)
    if m is None:
        return None
    sources = entry.baseline_sources
    cand = entry.candidate(replaces=tuple(sources))
    target = ("cuda", int(m.group(1)), 32)
    first = allowlist_check_entry(entry)
    if not first.passed:
        return first
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    with workers_ignore_interrupts():
        pool = ctx.Pool(1)  # its worker starts here
    with pool:
        job = pool.apply_async(_compile_check_child, (cand.to_json(), sources, target))
        try:
            return GateResult.from_json(job.get(timeout))
        except mp.TimeoutError:
            pool.terminate()
            return GateResult("static", "fail", f"the compile for {':'.join(map(str, target))} did not finish "
                              f"within {timeout:.0f}s (a compile-time unroll?)", {"compiled": False})


def _compile_check_child(cand_json: dict, sources: dict, target: tuple) -> dict:
    kernels = {name: parse_kernel_source(name, src, "cuda") for name, src in sources.items()}
    return StaticGate().check(Candidate.from_json(cand_json), kernels, compile_target=target).to_json()
