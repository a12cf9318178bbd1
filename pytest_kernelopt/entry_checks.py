"""Checks of a committed cache entry, for ``kernelopt cache verify`` (:mod:`pytest_kernelopt.cli_cache`): judged
again in isolation, re-run through the full cascade when stale, the allowlist on its source alone, and the static
gate with the compile for the GPU it was recorded on."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from .config import Settings

ProgressFn = Callable[[str], None]


def rejudge_entry(entry: Any, settings: Settings | None = None, say: ProgressFn = print) -> Any:
    """Judge a current accepted entry again, gates 1-3 in isolation (``kernelopt cache verify``); None where it
    cannot be judged here (not recorded from a problem file that exists: a test's fixture judges it)."""
    path = Path(entry.problem_id)
    if not entry.is_accepted or not path.is_file():
        return None
    return reverify_entry(entry, settings, say, perf=False)


def reverify_entry(entry: Any, settings: Settings | None = None, say: ProgressFn = print, *,
                   perf: bool = True) -> Any:
    """Re-run a stale accepted cache entry through the full cascade on this machine.

    Possible only for entries recorded from a problem file that still exists:
    the module is rebuilt and captured, the baseline kernel(s) found again by
    content hash, and the cached candidate judged by every gate (performance
    too, on a GPU).  Returns the CascadeResult, or None when it cannot be
    re-run here (the caller then leaves the entry stale and says so).
    """
    settings = settings or Settings(mode="verify")
    path = Path(entry.problem_id)
    if not entry.is_accepted:
        say(f"            {entry.digest[:12]}: a kept baseline is re-decided by running the search again "
            "(pytest --kernelopt or kernelopt bench), not by verify")
        return None
    if not path.is_file():
        say(f"            {entry.digest[:12]}: recorded from {entry.problem_id!r}, not a problem file here; "
            "re-verify it by running that test")
        return None
    from .backends import prepare, select_backend

    prepare(settings.backend)
    backend = select_backend(settings.backend)
    from dataclasses import replace

    from .isolate import IsolatedEvaluator
    from .problems import ProblemSpec

    # the entry is untrusted input (a pull request can put anything there): judged in workers, decided here
    with IsolatedEvaluator(ProblemSpec.from_file(path), replace(settings, mode="optimize")) as evaluator:
        by_hash = {k.content_hash: (g, n) for g in evaluator.graphs for n, k in g.kernels.items()}
        found = [by_hash.get(h) for h in entry.key.baseline_hashes]
        if any(f is None for f in found):
            say(f"            {entry.digest[:12]}: this torch generates different code for {path.name}; the "
                "baseline kernel it replaced no longer exists")
            return None
        cand = entry.candidate(replaces=tuple(n for _, n in found))
        return evaluator.evaluate(cand, perf=perf)


def allowlist_check_entry(entry: Any) -> Any:
    """Gate 1 without the compile (the allowlist and the signature checks) on an accepted entry, against the
    baseline kernel(s) it records: nothing of the entry is loaded."""
    from .gates.static import CHECKS, StaticGate, check_compiles
    from .parse import parse_kernel_source

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

    from .gates.results import GateResult

    ctx = mp.get_context("spawn")
    with ctx.Pool(1) as pool:
        job = pool.apply_async(_compile_check_child, (cand.to_json(), sources, target))
        try:
            return GateResult.from_json(job.get(timeout))
        except mp.TimeoutError:
            pool.terminate()
            return GateResult("static", "fail", f"the compile for {':'.join(map(str, target))} did not finish "
                              f"within {timeout:.0f}s (a compile-time unroll?)", {"compiled": False})


def _compile_check_child(cand_json: dict, sources: dict, target: tuple) -> dict:
    from .candidate import Candidate
    from .gates.static import StaticGate
    from .parse import parse_kernel_source

    kernels = {name: parse_kernel_source(name, src, "cuda") for name, src in sources.items()}
    return StaticGate().check(Candidate.from_json(cand_json), kernels, compile_target=target).to_json()
