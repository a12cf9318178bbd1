"""A module's run, step by step: :func:`run_workflow` (the fixture's and the problem files') verifies in this process
and starts a worker only if something is left to search; :func:`run_kernelopt` is one evaluator's run: serve the
cached kernels, search the rest (optimize mode), record the search's decisions in the cache, check the whole
module's performance (``--kernelopt-perf``)."""

from __future__ import annotations

import dataclasses
import gc
import time
from typing import TYPE_CHECKING, Callable

import torch

from ..backends import Backend
from ..cache import KernelCache
from ..config import Settings
from ..gates.cascade import EvaluationSession
from ..isolate import IsolatedEvaluator
from ..optimize import KernelOutcome, LocalEvaluator, ProblemOutcome, ProgressFn
from ..problems import ProblemSpec, build_problem
from ..records import RunRecord, passed
from ..substitute import apply_permanently
from .decisions import Decisions
from .keys import device_key
from .perf_check import perf_check
from .proposer import choose_proposer, search_conditions
from .search import search
from .serve import serve_cached
from .store import store_decisions

if TYPE_CHECKING:
    from pathlib import Path

    from ..optimize import Evaluator
    from ..problems import Problem


def _quiet(_message: str) -> None:
    return None


def run_kernelopt(evaluator: Evaluator, settings: Settings, backend: Backend, *, name: str, problem_id: str,
                  progress: ProgressFn | None = None, use_cache: bool = True, proposer: str | None = None,
                  searching: bool | None = None) -> RunRecord:
    """Verify cached kernels (and, in optimize mode, search for new ones) for one module.

    Accepted kernels, and on a GPU the decisions to keep a baseline, are written
    to the cache; ``use_cache=False`` neither reads nor writes it.  ``proposer``
    is the run's (:func:`run_workflow` chooses it once); None: chosen here.  ``searching``: whether the run
    this one stands for searches (None: optimize mode; :func:`cache_precheck` verifies for an optimize run),
    which decides whether a kept baseline searched under other conditions is served
    (:func:`~pytest_kernelopt.workflow.serve.search_again`).
    """
    t0 = time.perf_counter()
    say = progress or _quiet
    proposer = proposer if proposer is not None else choose_proposer(settings)
    device = device_key(backend)
    cache = KernelCache(settings.cache_dir, strict=settings.strict_cache) if use_cache else None
    decisions = Decisions()
    if cache is not None:
        decisions = serve_cached(evaluator, settings, cache, device, on_gpu=backend.measures_time, proposer=proposer,
                                 searches=settings.mode == "optimize" if searching is None else searching, name=name,
                                 problem_id=problem_id, say=say)
    outcome = None
    if settings.mode == "optimize":
        outcome, failures = search(evaluator, settings, decisions.cached, proposer=proposer, name=name,
                                   progress=progress, say=say)
        decisions.regressions += failures
        if backend.measures_time and cache is not None:
            decisions.cached |= store_decisions(cache, evaluator.graphs, evaluator.inputs, outcome, device, problem_id,
                                                settings.compile_mode, search_conditions(settings, proposer))
        decisions.add_searched(outcome)
    perf = None
    if settings.perf:
        perf, found = perf_check(evaluator, settings, decisions.applied)
        decisions.regressions += found
    record = decisions.run_record(evaluator.graphs, name=name, backend=backend.name, mode=settings.mode,
                                  seconds=time.perf_counter() - t0, proposer=proposer, outcome=outcome, perf=perf,
                                  use_cache=use_cache)
    if cache is not None:
        record.ignored_entries = list(dict.fromkeys(cache.ignored))
    return record


def cache_precheck(evaluator: Evaluator, settings: Settings, backend: Backend, *, proposer: str, name: str,
                   problem_id: str, progress: ProgressFn | None = None) -> tuple[RunRecord, int]:
    """Optimize mode, before a worker process is started: a verify run here, and what ``proposer`` would have
    left to search.  When nothing is left (every kernel has a cache entry, re-verified here), the verify run's
    record, as an optimize run's, stands for the optimize run: no worker, no profile."""
    record = run_kernelopt(evaluator, dataclasses.replace(settings, mode="verify"), backend, name=name,
                           problem_id=problem_id, progress=progress, proposer=proposer,
                           searching=settings.mode == "optimize")
    left = record.left_to_search(proposer)
    if left:
        return record, left
    outcome = ProblemOutcome(
        name, backend.name, proposer,
        [KernelOutcome(k.kernel, k.graph, k.kind, "skipped", proposer, note="in the cache (re-verified above)")
         for k in record.kernels], record.seconds, note="nothing to search: every kernel is in the cache")
    return dataclasses.replace(record, mode=settings.mode, proposer=proposer, outcome=outcome), 0


def run_workflow(build: Callable[[], Problem], spec: ProblemSpec | None, settings: Settings, backend: Backend, *,
                 name: str, problem_id: str, progress: ProgressFn | None = None, use_cache: bool = True,
                 keep: bool = False) -> tuple[RunRecord, LocalEvaluator | None]:
    """One module's run, from the fixture and from problem files: verify in this process, start a worker only if
    something is left to search.

    ``build()`` makes the module and its inputs in this process (a Problem); ``spec`` is what a worker rebuilds
    them from (None: the module does not pickle, so candidates are judged in this process).  In verify mode, or
    with ``isolate`` off, everything runs here.  In optimize mode the cached kernels are re-verified here first
    (:func:`cache_precheck`); when nothing is left the verify run's record stands, with no worker and no profile.

    ``keep``: the caller keeps this process's module (the fixture returns it with its kernels in place): the
    in-process evaluator is returned open, a winner judged in the worker gets a quick re-check in it before it
    is put in place, and a worker that cannot start falls back to searching in this process.  Without it (a
    problem file) the in-process evaluator is closed before a worker starts, so its tensors go first.
    """
    run = ModuleRun(build, spec, settings, backend, name=name, problem_id=problem_id, progress=progress,
                    use_cache=use_cache, keep=keep)
    try:
        record = run.record()
        record = dataclasses.replace(record, setup_seconds=run.setup, settings=dataclasses.asdict(settings))
        if keep and record.applied:
            apply_permanently(run.in_process().session.captured, record.applied)
        return record, run.local
    finally:
        if not keep and run.local is not None:
            run.local.close()


class ModuleRun:
    """The state of one :func:`run_workflow`: the proposer (chosen once for the whole run) and the in-process
    evaluator, built on first use (``setup``: the seconds its build and capture took, or the worker's start)."""

    def __init__(self, build: Callable[[], Problem], spec: ProblemSpec | None, settings: Settings, backend: Backend,
                 *, name: str, problem_id: str, progress: ProgressFn | None, use_cache: bool, keep: bool) -> None:
        self.build, self.spec, self.settings, self.backend = build, spec, settings, backend
        self.name, self.problem_id, self.progress = name, problem_id, progress
        self.say = progress or _quiet
        self.use_cache, self.keep = use_cache, keep
        self.proposer = choose_proposer(settings)
        self.local: LocalEvaluator | None = None
        self.setup = 0.0

    def record(self) -> RunRecord:
        """In verify mode, or with isolation off, the run here; in optimize mode the cache checked here first,
        then a worker for what is left (here where the module does not pickle)."""
        s = self.settings
        if not (s.mode == "optimize" and s.isolate):
            return self.here()
        left: int | None = None  # kernels left to search after the check here (None: not checked)
        if self.use_cache:
            record, left = cache_precheck(self.in_process(), s, self.backend, proposer=self.proposer, name=self.name,
                                          problem_id=self.problem_id, progress=self.progress)
            if left == 0:
                return record
        if self.spec is None:
            self.say(f"{self.name}: module does not pickle, so candidates are evaluated in this process (no isolation)")
            return self.here()
        return self.in_worker(self.spec, left)

    def in_process(self) -> LocalEvaluator:
        if self.local is None:
            t0 = time.perf_counter()
            self.local = LocalEvaluator(EvaluationSession(self.build(), self.settings, self.backend))
            self.setup = time.perf_counter() - t0
        return self.local

    def here(self) -> RunRecord:
        return run_kernelopt(self.in_process(), self.settings, self.backend, name=self.name,
                             problem_id=self.problem_id, progress=self.progress, use_cache=self.use_cache,
                             proposer=self.proposer)

    def in_worker(self, spec: ProblemSpec, left: int | None) -> RunRecord:
        """The search in a worker process; with ``keep``, its winners re-checked here, and here the search where
        no worker starts."""
        if not self.keep and self.local is not None:
            self.local.close()
            self.local = None
            release_memory()  # the check's tensors go before the worker allocates its own
        if left:
            self.say(searching_note(self.name, left))
        try:
            record, self.setup = run_in_worker(spec, self.settings, self.backend, name=self.name,
                                               problem_id=self.problem_id, progress=self.progress,
                                               use_cache=self.use_cache, proposer=self.proposer)
        except RuntimeError as e:  # the worker could not start (the module's class not importable there)
            if not self.keep:
                raise
            self.say(f"{self.name}: isolated worker unavailable ({str(e)[:200]}); evaluating in this process")
            return self.here()
        return recheck_worker_winners(record, self.in_process(), self.settings) if self.keep else record


def run_in_worker(spec: ProblemSpec, settings: Settings, backend: Backend, *, name: str, problem_id: str,
                  progress: ProgressFn | None, use_cache: bool, proposer: str) -> tuple[RunRecord, float]:
    """The search in a worker process (a crashing candidate costs one candidate); returns the record and the
    seconds the worker took to start (build and capture the module)."""
    t0 = time.perf_counter()
    evaluator = IsolatedEvaluator(spec, settings)
    setup = time.perf_counter() - t0
    try:
        record = run_kernelopt(evaluator, settings, backend, name=name, problem_id=problem_id, progress=progress,
                               use_cache=use_cache, proposer=proposer)
    except BaseException:  # an interrupt above all: its workers are killed, not waited for
        evaluator.close(wait=False)
        raise
    evaluator.close()
    return record, setup


def recheck_worker_winners(record: RunRecord, evaluator: LocalEvaluator, settings: Settings) -> RunRecord:
    """Winners were judged in the worker; here each gets a quick re-check before it is put in place (a new record:
    the failures become regressions)."""
    kept, regressions = [], list(record.regressions)
    for cand in record.applied:
        try:
            res = evaluator.evaluate(cand, perf=False, seeds=settings.verify_seeds, aot=False)
            ok, reason = passed(res), res.reason
        except (KeyError, ValueError) as e:  # this process compiled the module differently
            ok, reason = False, f"{type(e).__name__}: {e}"
        if ok:
            kept.append(cand)
        else:
            regressions.append(f"kernel accepted in the worker failed its re-check here: {reason}")
    return dataclasses.replace(record, applied=kept, regressions=regressions)


def searching_note(name: str, left: int) -> str:
    return f"{name}: {left} kernel(s) with no cache entry; searching them in a worker process"


def run_problem_spec(spec: ProblemSpec, settings: Settings, backend: Backend, *, name: str, problem_id: str,
                     progress: ProgressFn | None = None, use_cache: bool = True) -> RunRecord:
    """One problem file through :func:`run_workflow`: re-verify its cached kernels and, in optimize mode, search
    the rest in a worker process started only when something is left to search."""
    record, _ = run_workflow(lambda: build_problem(spec, backend.device, settings.base_seed or 0), spec, settings,
                             backend, name=name, problem_id=problem_id, progress=progress, use_cache=use_cache)
    return record


def optimize_problem_file(path: str | Path, settings: Settings, backend: Backend, *, use_cache: bool = True,
                          progress: ProgressFn | None = None) -> ProblemOutcome:
    """``kernelopt bench``: verify cached kernels and optimize the rest of one problem file."""
    spec = ProblemSpec.from_file(path)
    try:
        record = run_problem_spec(spec, settings, backend, name=spec.name, problem_id=str(path), progress=progress,
                                  use_cache=use_cache)
    finally:
        release_memory()
    if record.regressions:
        raise RuntimeError("; ".join(record.regressions))
    assert record.outcome is not None  # the bench runs in optimize mode: its record has the search's outcome
    return record.outcome


def make_evaluator(spec: ProblemSpec, settings: Settings, backend: Backend) -> LocalEvaluator | IsolatedEvaluator:
    """A worker-process evaluator for optimize mode (untrusted candidates), else an in-process one.

    Verify mode only re-checks kernels this cache already accepted, so it runs
    in-process (``isolate=False`` forces that for optimize mode too).
    """
    if settings.isolate and settings.mode == "optimize":
        return IsolatedEvaluator(spec, settings)
    return LocalEvaluator(EvaluationSession(build_problem(spec, backend.device, settings.base_seed or 0), settings,
                                            backend))


RELEASE_COLLECT_BYTES = 256 * 2**20


def release_memory() -> None:
    """One problem's tensors at a time: a benchmark problem's inputs can be gigabytes."""
    torch._dynamo.reset()
    if torch.cuda.is_available():
        # a full collection costs a tenth of a second per problem; it is needed only when reference cycles
        # still hold device memory worth returning before the next problem
        if torch.cuda.memory_allocated() > RELEASE_COLLECT_BYTES:
            gc.collect()
        torch.cuda.empty_cache()
    else:
        gc.collect()
