"""The one workflow of a module's run, for both entry points -- the ``kernelopt`` fixture
(:meth:`pytest_kernelopt.harness.Harness.run_module`) and problem files (``pytest --kernelopt-problems``,
``kernelopt bench``): :func:`run_workflow` verifies in this process and starts a worker only if something is left
to search; :func:`run_kernelopt` re-verifies a module's cached kernels and, in optimize mode, searches the rest and
writes the decisions to the cache.  The records it returns are in :mod:`pytest_kernelopt.records`; the checks of
committed cache entries (``kernelopt cache verify``) in :mod:`pytest_kernelopt.entry_checks`."""

from __future__ import annotations

import dataclasses
import os
import re
import time
from pathlib import Path
from typing import Any, Callable

from .backends import Backend
from .config import Settings
from .optimize import LocalEvaluator, Optimizer, ProblemOutcome, agent_factory_for, choose_proposer
from .records import KernelRecord, RunRecord, numbers_text, outcome_record, passed

ProgressFn = Callable[[str], None]


def device_key(backend: Backend) -> str:
    """``cuda:sm90``-style device kind for cache keys, or ``cpu``."""
    if backend.name != "cuda":
        return "cpu"
    import torch

    from .cache import device_kind

    return device_kind(torch.cuda.get_device_capability())


def make_evaluator(spec: Any, settings: Settings, backend: Backend) -> Any:
    """A worker-process evaluator for optimize mode (untrusted candidates), else an in-process one.

    Verify mode only re-checks kernels this cache already accepted, so it runs
    in-process (``isolate=False`` forces that for optimize mode too).
    """
    if settings.isolate and settings.mode == "optimize":
        from .isolate import IsolatedEvaluator

        return IsolatedEvaluator(spec, settings)
    from .gates.cascade import EvaluationSession
    from .problems import build_problem

    return LocalEvaluator(EvaluationSession(build_problem(spec, backend.device, settings.base_seed or 0), settings,
                                            backend))


def problem_id_for(path: str | Path, root: str | Path) -> str:
    """How the cache records a problem file: relative to ``root`` (pytest's rootdir) when under it, so a
    committed entry names the file the same way in every checkout; otherwise the path as given."""
    try:
        return Path(path).resolve().relative_to(Path(root).resolve()).as_posix()
    except ValueError:
        return str(path)


def cache_key(graph: Any, names: tuple[str, ...], inputs: list, device: str, compile_mode: str = "default") -> Any:
    from .cache import CacheKey

    return CacheKey.from_inputs([graph.kernels[n] for n in names], inputs, device, compile_mode)


def search_conditions(settings: Settings, proposer: str) -> dict[str, Any]:
    """How this run searches, as a kept-baseline cache entry records it (``CacheEntry.searched``)."""
    from .tuner import SEARCH_SPACE

    model = None
    if proposer == "agents":
        from .agents import LLMConfigError, resolve_model

        try:
            model = resolve_model(settings.model)
        except LLMConfigError:
            model = None
    return {"proposer": proposer, "model": model, "min_speedup": float(settings.min_speedup),
            "search_space": SEARCH_SPACE}


def search_again(entry: Any, settings: Settings, proposer: str, searching: bool, env: Any = None) -> str | None:
    """Why a cached decision to keep the baseline is not served to this run but searched again, or None: this
    run would search differently (a lower ``min_speedup``, another proposer, the agents with another model, a
    tuner whose search space has grown since), or on another environment than ``env`` (another GPU of the same
    kind: what is fastest there is not what is fastest here).
    Only in a run that searches (``searching``: optimize mode), with a proposer that searches."""
    if not searching or proposer not in ("tuner", "agents"):
        return None
    stale = entry.stale_reasons(env) if env is not None else []
    if stale:
        return f"kept on another environment: {'; '.join(stale)}"
    was, now = entry.searched, search_conditions(settings, proposer)
    if settings.min_speedup < was["min_speedup"]:
        return f"kept at min_speedup {was['min_speedup']:g}, this run's is {settings.min_speedup:g}"
    if proposer != was["proposer"]:
        return f"kept by the {was['proposer']} proposer, this run's is the {proposer}"
    if proposer == "agents" and now["model"] != was["model"]:
        return f"kept with model {was['model']}, this run's is {now['model']}"
    if proposer == "tuner" and was["search_space"] < now["search_space"]:
        return (f"kept by the tuner's search space {was['search_space']}, this run's tuner searches space "
                f"{now['search_space']}")
    return None


def _record(cache: Any, evaluator: Any, outcome: ProblemOutcome, device: str, problem_id: str,
            compile_mode: str = "default", searched: dict[str, Any] | None = None) -> set[tuple[int, str]]:
    """Write the run's decisions to the cache; returns the (graph, kernel or fused label) pairs written."""
    graphs = {g.index: g for g in evaluator.graphs}
    written: set[tuple[int, str]] = set()
    for k in outcome.kernels:
        g = graphs[k.graph]
        if k.decision == "accepted" and k.winner is not None and k.result is not None:
            names = tuple(k.winner.replaces)
            key = cache_key(g, names, evaluator.inputs, device, compile_mode)
            # (no trust record here: the module's state it was judged with is in the worker; the first verify
            # run judges the entry in isolation once, with the state and settings it then has)
            cache.store_accepted(key, k.winner,
                                 [g.kernels[n] for n in names], k.result, problem_id=problem_id)
            written.update((k.graph, n) for n in names)  # a fused winner replaces each kernel of its run
        elif k.decision == "baseline_kept" and (k.tried or k.screened):
            # searched and lost: candidates gated, or screened and none came close to the bar
            names = tuple(k.kernel.split("+"))
            cache.store_baseline_kept(cache_key(g, names, evaluator.inputs, device, compile_mode),
                                      [g.kernels[n] for n in names],
                                      problem_id=problem_id, attempts=k.tried, reason=k.note, searched=searched)
        else:
            continue
        written.add((k.graph, "+".join(names)))
    return written


def optimize_problem_file(path: str | Path, settings: Settings, backend: Backend, *, use_cache: bool = True,
                          progress: ProgressFn | None = None) -> ProblemOutcome:
    """``kernelopt bench``: verify cached kernels and optimize the rest of one problem file."""
    from .problems import ProblemSpec

    spec = ProblemSpec.from_file(path)
    try:
        record = run_problem_spec(spec, settings, backend, name=spec.name, problem_id=str(path), progress=progress,
                                  use_cache=use_cache)
    finally:
        release_memory()
    if record.regressions:
        raise RuntimeError("; ".join(record.regressions))
    return record.outcome


def run_workflow(build: Callable[[], Any], spec: Any, settings: Settings, backend: Backend, *, name: str,
                 problem_id: str, progress: ProgressFn | None = None, use_cache: bool = True,
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
    say = progress or (lambda _m: None)
    proposer = choose_proposer(settings)  # the one choice of proposer for the whole run
    local: LocalEvaluator | None = None
    setup = 0.0

    def in_process() -> LocalEvaluator:
        nonlocal local, setup
        if local is None:
            from .gates.cascade import EvaluationSession

            t0 = time.perf_counter()
            local = LocalEvaluator(EvaluationSession(build(), settings, backend))
            setup = time.perf_counter() - t0
        return local

    def run_here() -> RunRecord:
        return run_kernelopt(in_process(), settings, backend, name=name, problem_id=problem_id, progress=progress,
                             use_cache=use_cache, proposer=proposer)

    try:
        left: int | None = None  # kernels left to search after the check here (None: not checked)
        record: RunRecord | None = None
        if settings.mode == "optimize" and settings.isolate and use_cache:
            record, left = cache_precheck(in_process(), settings, backend, proposer=proposer, name=name,
                                          problem_id=problem_id, progress=progress)
        if not (settings.mode == "optimize" and settings.isolate):
            record = run_here()
        elif left != 0 and spec is None:
            say(f"{name}: module does not pickle, so candidates are evaluated in this process (no isolation)")
            record = run_here()
        elif left != 0:
            if not keep and local is not None:
                local.close()
                local = None
                release_memory()  # the check's tensors go before the worker allocates its own
            if left:
                say(searching_note(name, left))
            try:
                record, setup = _run_in_worker(spec, settings, backend, name=name, problem_id=problem_id,
                                               progress=progress, use_cache=use_cache, proposer=proposer)
            except RuntimeError as e:  # the worker could not start (the module's class not importable there)
                if not keep:
                    raise
                say(f"{name}: isolated worker unavailable ({str(e)[:200]}); evaluating in this process")
                record = run_here()
            else:
                if keep:
                    record = recheck_worker_winners(record, in_process(), settings)
        assert record is not None
        record = dataclasses.replace(record, setup_seconds=setup, settings=dataclasses.asdict(settings))
        if keep and record.applied:
            from .substitute import apply_permanently

            apply_permanently(in_process().session.captured, record.applied)
        return record, local
    finally:
        if not keep and local is not None:
            local.close()


def _run_in_worker(spec: Any, settings: Settings, backend: Backend, **kw: Any) -> tuple[RunRecord, float]:
    """The search in a worker process (a crashing candidate costs one candidate); returns the record and the
    seconds the worker took to start (build and capture the module)."""
    from .isolate import IsolatedEvaluator

    t0 = time.perf_counter()
    evaluator = IsolatedEvaluator(spec, settings)
    setup = time.perf_counter() - t0
    try:
        record = run_kernelopt(evaluator, settings, backend, **kw)
    except BaseException:  # an interrupt above all: its workers are killed, not waited for
        evaluator.close(wait=False)
        raise
    evaluator.close()
    return record, setup


def recheck_worker_winners(record: RunRecord, evaluator: Any, settings: Settings) -> RunRecord:
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


def cache_precheck(evaluator: Any, settings: Settings, backend: Backend, *, proposer: str, name: str,
                   problem_id: str, progress: ProgressFn | None = None) -> tuple[RunRecord, int]:
    """Optimize mode, before a worker process is started: a verify run here, and what ``proposer`` would have
    left to search.  When nothing is left (every kernel has a cache entry, re-verified here), the verify run's
    record, as an optimize run's, stands for the optimize run: no worker, no profile."""
    from .optimize import KernelOutcome

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


def searching_note(name: str, left: int) -> str:
    return f"{name}: {left} kernel(s) with no cache entry; searching them in a worker process"


def run_problem_spec(spec: Any, settings: Settings, backend: Backend, *, name: str, problem_id: str,
                     progress: ProgressFn | None = None, use_cache: bool = True) -> RunRecord:
    """One problem file through :func:`run_workflow`: re-verify its cached kernels and, in optimize mode, search
    the rest in a worker process started only when something is left to search."""
    from .problems import build_problem

    record, _ = run_workflow(lambda: build_problem(spec, backend.device, settings.base_seed or 0), spec, settings,
                             backend, name=name, problem_id=problem_id, progress=progress, use_cache=use_cache)
    return record


RELEASE_COLLECT_BYTES = 256 * 2**20


def release_memory() -> None:
    """One problem's tensors at a time: a benchmark problem's inputs can be gigabytes."""
    import gc

    import torch

    torch._dynamo.reset()
    if torch.cuda.is_available():
        # a full collection costs a tenth of a second per problem; it is needed only when reference cycles
        # still hold device memory worth returning before the next problem
        if torch.cuda.memory_allocated() > RELEASE_COLLECT_BYTES:
            gc.collect()
        torch.cuda.empty_cache()
    else:
        gc.collect()


def run_kernelopt(evaluator: Any, settings: Settings, backend: Backend, *, name: str, problem_id: str,
                  progress: ProgressFn | None = None, use_cache: bool = True, proposer: str | None = None,
                  searching: bool | None = None) -> RunRecord:
    """Verify cached kernels (and, in optimize mode, search for new ones) for one module.

    Accepted kernels, and on a GPU the decisions to keep a baseline, are written
    to the cache; ``use_cache=False`` neither reads nor writes it.  ``proposer``
    is the run's (:func:`run_workflow` chooses it once); None: chosen here.  ``searching``: whether the run
    this one stands for searches (None: optimize mode; :func:`cache_precheck` verifies for an optimize run),
    which decides whether a kept baseline searched under other conditions is served (:func:`search_again`).
    """
    from .cache import KernelCache

    t0 = time.perf_counter()
    say = progress or (lambda _m: None)
    device = device_key(backend)
    cache = KernelCache(settings.cache_dir, strict=settings.strict_cache) if use_cache else None
    records: list[KernelRecord] = []
    applied: list[Any] = []
    regressions: list[str] = []
    cached_names: set[tuple[int, str]] = set()
    on_gpu = backend.measures_time
    env = None
    if evaluator.graphs and any(g.kernels for g in evaluator.graphs):
        from .cache import current_environment

        env = current_environment()
    isolation = CacheIsolation(evaluator, settings, env, say, name, problem_id)
    proposer = proposer if proposer is not None else choose_proposer(settings)
    searches = settings.mode == "optimize" if searching is None else searching
    for graph in evaluator.graphs if cache is not None else ():
        # a fused entry (one kernel for a contiguous run) first: when it applies, its kernels are not looked up
        # alone.  A kept fused decision covers only the fusion: each kernel may still have an entry of its own.
        replaced: set[str] = set()
        for names in [*graph.contiguous_runs(), *((n,) for n in graph.kernels)]:
            if replaced.intersection(names):
                continue
            key = cache_key(graph, names, evaluator.inputs, device, settings.compile_mode)
            assert cache is not None  # the loop runs only with a cache
            entry = cache.lookup(key)
            if entry is None:
                continue
            label = "+".join(names)
            kind = graph.kernels[names[0]].kind if len(names) == 1 else "fusion"
            cached_names.add((graph.index, label))
            if entry.is_baseline_kept:
                why = search_again(entry, settings, proposer, searches, env)
                if why is not None:
                    cached_names.discard((graph.index, label))
                    say(f"{name}: the cached decision to keep {label} is searched again ({why})")
                    continue
                records.append(KernelRecord(label, graph.index, kind, "baseline_kept", "cache",
                                            note="cache: no candidate beat this kernel"))
                continue
            cand = entry.candidate(replaces=names)
            stale = entry.stale_reasons(env) if env is not None else ["environment unknown"]
            # an entry accepted by a run with a lower bar, or recorded on another environment (another GPU of the
            # same kind, torch, triton), is timed again (on a GPU).  One that passes everything but this run's
            # performance gate is not applied, and is not a regression: the baseline runs (this run's choice), and
            # a run that searches searches the kernel again
            bar = entry.below_bar(settings.min_speedup)
            why = bar or (f"recorded on another environment ({'; '.join(stale)})" if stale else None)
            if bar is not None:
                stale.append(bar)
            refused = isolation.judge(cand, label, stale, graph.index, kind, key, below_bar=why)
            if refused is not None:
                if refused.failed_gates == ["performance"] and refused.decision == "baseline_kept" and searches:
                    cached_names.discard((graph.index, label))
                    say(f"{name}: {label} is searched again")
                    continue
                records.append(refused)
                if refused.decision == "regression":
                    regressions.append(refused.note)
                continue
            say(f"{name}: re-verifying cached kernel for {label}" + (f" (stale: {'; '.join(stale)})" if stale else ""))
            # an entry recorded on this very environment gets a quick re-check; a stale one the full cascade
            # (--kernelopt-perf judges regressions of the whole module below, against its own floor)
            res = evaluator.evaluate(cand, perf=on_gpu and bool(stale),
                                     seeds=None if stale else settings.verify_seeds,
                                     aot=bool(stale) or not on_gpu)
            ok = passed(res)
            perf_gate = res.gate("performance")
            spd = perf_gate.numbers.get("speedup") if perf_gate is not None else entry.speedup
            ci = ((perf_gate.numbers.get("ci_low"), perf_gate.numbers.get("ci_high"))
                  if perf_gate is not None and perf_gate.numbers.get("measured") else entry.speedup_ci)
            kept = _below_bar_record(res, label, why, graph.index, kind, settings) if not ok else None
            if kept is not None:
                if searches:
                    cached_names.discard((graph.index, label))
                    say(f"{name}: {kept.note}; searched again")
                    continue
                say(f"{name}: {kept.note}")
                records.append(kept)
                continue
            if ok:
                applied.append(cand)
                replaced.update(names)
                cached_names.update((graph.index, n) for n in names)
                records.append(KernelRecord(label, graph.index, kind, "cached", "cache", spd, ci,
                                            numbers={g.gate: g.numbers for g in res.gates},
                                            note=f"cache entry {entry.digest[:12]} re-verified"))
            else:
                msg = f"cached kernel for {label} (entry {entry.digest[:12]}) " + numbers_text(res, settings)
                regressions.append(msg)
                records.append(KernelRecord(label, graph.index, kind, "regression", "cache", spd, ci,
                                            [res.failed_gate.gate] if res.failed_gate else [], note=msg))
    outcome = None
    proposer_errors: list[str] = []
    if settings.mode == "optimize":
        def skip(graph: Any, kname: str) -> str | None:
            return "in the cache (re-verified above)" if (graph.index, kname) in cached_names else None

        # one folder per test: its id made a plain folder name ("tests/test_x.py::test_y[a]" has "::" and "/")
        safe = re.sub(r"[^\w.-]+", "_", name).strip("_") or "module"
        transcripts = str(Path(settings.cache_dir).parent / ".kernelopt" / "transcripts" / safe)
        opt = Optimizer(evaluator, settings, name=name, progress=progress, proposer=proposer,
                        agent_factory=agent_factory_for(evaluator, settings, transcripts))
        outcome = opt.run(skip=skip)
        proposer_errors = outcome.proposer_errors
        if proposer_errors:
            # said loudly, never only in a report: llm_error=fail fails the test (bench: the problem)
            endpoint = os.environ.get("OPENAI_BASE_URL")
            msg = f"the {proposer} proposer could not run: {proposer_errors[0]}" + (
                f" (OPENAI_BASE_URL={endpoint})" if endpoint and proposer == "agents" else "") + (
                f" (and {len(proposer_errors) - 1} other error(s))" if len(proposer_errors) > 1 else "")
            if settings.llm_error == "fail":
                regressions.append(f"{msg}; nothing was searched (llm_error=fail; llm_error=warn lets it pass "
                                   "with the compiled baseline)")
            else:
                say(f"WARNING: {msg}; nothing was searched, the compiled baseline runs (llm_error=warn)")
        if on_gpu and cache is not None:
            cached_names |= _record(cache, evaluator, outcome, device, problem_id, settings.compile_mode,
                                    search_conditions(settings, proposer))
        for k in outcome.kernels:
            if k.decision == "skipped" and (k.graph, k.kernel) in cached_names:
                continue
            records.append(outcome_record(k))
            if k.decision == "accepted" and k.winner is not None:
                applied.append(k.winner)
    isolation.close()
    perf = None
    if settings.perf:
        perf, found = _perf_check(evaluator, settings, applied)
        regressions += found
    from .tuner import can_search

    uncached = [(g, n) for g in evaluator.graphs for n in g.kernels if (g.index, n) not in cached_names]
    runs = ["+".join(r) for g in evaluator.graphs for r in g.contiguous_runs()
            if (g.index, "+".join(r)) not in cached_names]
    return RunRecord(name, backend.name, settings.mode, records, applied, regressions, time.perf_counter() - t0,
                     perf, proposer, outcome, triton_kernels=sum(len(g.kernels) for g in evaluator.graphs),
                     uncached=[n for _, n in uncached] if use_cache else [], uncached_runs=runs if use_cache else [],
                     untunable=[n for g, n in uncached if not can_search(g, n)] if use_cache else [],
                     proposer_errors=proposer_errors)


class CacheIsolation:
    """Verify mode's guard for cache entries: each is judged in an isolated worker the first time this machine
    sees it (:mod:`pytest_kernelopt.trust`), before the test process loads it.

    An in-process evaluator (verify mode) holds the user's module: a cached kernel
    is untrusted input until a worker that shares nothing with this process has
    run gates 1-3 on it (and gate 4 on a GPU when the entry is stale).  Entries
    this machine already judged so are re-checked in-process only.  A module
    that cannot be sent to a worker (it does not pickle) gets no cached kernel:
    the compiled baseline runs, and the record says why.
    """

    def __init__(self, evaluator: Any, settings: Settings, env: Any, say: ProgressFn, name: str,
                 problem_id: str = "") -> None:
        self.evaluator = evaluator
        self.problem_id = problem_id or name
        self.settings = settings
        self.env = env
        self.say = say
        self.name = name
        self.worker: Any = None
        self._state: str | None = None
        self.active = getattr(evaluator, "in_process", False) and settings.isolate

    def judge(self, cand: Any, label: str, stale: list[str], graph_index: int, kind: str,
              key: Any = None, below_bar: str | None = None) -> KernelRecord | None:
        """None when the entry may be re-checked in-process; else the record of why it is not applied.  ``key``:
        the cache key the entry was found under (trust is per key and problem, :mod:`pytest_kernelopt.trust`);
        ``below_bar``: why its recorded speedup does not clear this run's bar (:meth:`CacheEntry.below_bar`)."""
        from .trust import gate_settings, is_trusted, mark_trusted, trust_context

        if not self.active or self.env is None:
            return None
        context = trust_context(key, self.problem_id, self.state(), gate_settings(self.settings))
        if is_trusted(cand, self.env, context):
            return None
        spec = getattr(self.evaluator, "spec", None)
        if spec is None:
            note = (f"cached kernel for {label} not applied: it has not been judged in isolation on this machine, "
                    "and this module cannot be sent to a worker process (it does not pickle); the compiled baseline "
                    "runs")
            self.say(f"{self.name}: {note}")
            return KernelRecord(label, graph_index, kind, "baseline_kept", "cache", note=note)
        if self.worker is None:
            from .isolate import IsolatedEvaluator

            self.worker = IsolatedEvaluator(spec, self.settings)
        self.say(f"{self.name}: judging cached kernel for {label} in a worker process (first time on this machine)")
        try:
            # on the CPU the interpreter compiles nothing: the ahead-of-time compile for a GPU target is the check
            # that a kernel is Triton a GPU would take, whatever the entry says of where it was recorded
            res = self.worker.evaluate(cand, perf=self.evaluator.measures_time and bool(stale),
                                       aot=bool(stale) or not self.evaluator.measures_time)
        except RuntimeError as e:  # BaselineRunError included: the kernel is not applied, and the note says why
            note = f"cached kernel for {label} not applied: the isolated check could not run: {str(e)[:300]}"
            self.say(f"{self.name}: {note}")
            return KernelRecord(label, graph_index, kind, "baseline_kept", "cache", note=note)
        if passed(res):
            mark_trusted(cand, self.env, context, f"{res.decision} in isolation for {self.name}")
            return None
        kept = _below_bar_record(res, label, below_bar, graph_index, kind, self.settings)
        if kept is not None:
            self.say(f"{self.name}: {kept.note}")
            return kept
        msg = f"cached kernel for {label} refused by the isolated check: " + numbers_text(res, self.settings)
        return KernelRecord(label, graph_index, kind, "regression", "cache",
                            failed_gates=[res.failed_gate.gate] if res.failed_gate else [], note=msg)

    def state(self) -> str:
        """The digest of the module's state as this run found it (once a run)."""
        if self._state is None:
            from .trust import state_digest

            session = getattr(self.evaluator, "session", None)
            self._state = state_digest(session.state.pristine) if session is not None else ""
        return self._state

    def close(self) -> None:
        if self.worker is not None:
            self.worker.close()
            self.worker = None


def _below_bar_record(res: Any, label: str, bar: str | None, graph_index: int, kind: str,
                      settings: Settings) -> KernelRecord | None:
    """A cached kernel that failed only this run's performance gate, having been accepted at a lower bar or on
    another environment (``bar``: why, else None): recorded as a kept baseline, not a regression (every other
    gate passed)."""
    failed = res.failed_gate
    if bar is None or failed is None or failed.gate != "performance":
        return None
    n = failed.numbers
    spd = n.get("speedup")
    ci = (n.get("ci_low"), n.get("ci_high")) if n.get("measured") else None
    note = (f"cached kernel for {label} not applied: {bar}; timed again here: " + numbers_text(res, settings)
            + "; the compiled baseline runs")
    return KernelRecord(label, graph_index, kind, "baseline_kept", "cache", spd, ci, ["performance"], note=note)


def _perf_check(evaluator: Any, settings: Settings, applied: list[Any]) -> tuple[dict[str, Any], list[str]]:
    """--kernelopt-perf: the module with its kernels against the compiled baseline, same run; returns the numbers
    and the regressions found."""
    if not evaluator.measures_time:
        return {"measured": False, "note": "no GPU: the performance regression gate could not run"}, []
    if not applied:
        return {"measured": False, "note": "no kernels applied: the module is the compiled baseline"}, []
    res = evaluator.evaluate(applied)
    g = res.gate("performance")
    if g is None or not g.numbers.get("measured"):
        return {"measured": False, "note": res.reason}, [
            f"performance regression gate could not measure: {res.reason}"]
    n = dict(g.numbers)
    floor = 1.0 - settings.perf_regression
    if n["speedup"] < floor:
        return n, [f"performance regression: {n['speedup']:.3f}x [{n['ci_low']:.3f}, {n['ci_high']:.3f}] vs the "
                   f"compiled baseline, below the floor {floor:.3f} (perf_regression={settings.perf_regression})"]
    return n, []
