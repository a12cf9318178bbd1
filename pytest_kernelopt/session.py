"""The workflows shared by the CLI and the plugin: optimize a problem, apply and re-verify cached kernels."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .backends import Backend
from .config import Settings
from .optimize import LocalEvaluator, Optimizer, ProblemOutcome, agent_factory_for

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

    return LocalEvaluator(EvaluationSession(build_problem(spec, backend.device, settings.base_seed or 0), settings, backend))


def problem_id_for(path: str | Path, root: str | Path) -> str:
    """How the cache records a problem file: relative to ``root`` (pytest's rootdir) when under it, so a
    committed entry names the file the same way in every checkout; otherwise the path as given."""
    try:
        return Path(path).resolve().relative_to(Path(root).resolve()).as_posix()
    except ValueError:
        return str(path)


def cache_key(graph: Any, names: tuple[str, ...], inputs: list, device: str) -> Any:
    from .cache import CacheKey

    return CacheKey.from_inputs([graph.kernels[n] for n in names], inputs, device)


def _record(cache: Any, evaluator: Any, outcome: ProblemOutcome, device: str, problem_id: str) -> set[tuple[int, str]]:
    """Write the run's decisions to the cache; returns the (graph, kernel or fused label) pairs written."""
    graphs = {g.index: g for g in evaluator.graphs}
    written: set[tuple[int, str]] = set()
    for k in outcome.kernels:
        g = graphs[k.graph]
        if k.decision == "accepted" and k.winner is not None and k.result is not None:
            names = tuple(k.winner.replaces)
            if not getattr(evaluator, "in_process", False):  # judged in isolation here: trusted on this machine
                from .cache import current_environment
                from .trust import mark_trusted

                mark_trusted(k.winner, current_environment(), f"accepted in isolation for {problem_id}")
            cache.store_accepted(cache_key(g, names, evaluator.inputs, device), k.winner,
                                 [g.kernels[n] for n in names], k.result, problem_id=problem_id)
            written.update((k.graph, n) for n in names)  # a fused winner replaces each kernel of its run
        elif k.decision == "baseline_kept" and (k.tried or k.screened):
            # searched and lost: candidates gated, or screened and none came close to the bar
            names = tuple(k.kernel.split("+"))
            cache.store_baseline_kept(cache_key(g, names, evaluator.inputs, device), [g.kernels[n] for n in names],
                                      problem_id=problem_id, attempts=k.tried, reason=k.note)
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


def cache_precheck(evaluator: Any, settings: Settings, backend: Backend, *, name: str, problem_id: str,
                   progress: ProgressFn | None = None) -> tuple[RunRecord, int]:
    """Optimize mode, before a worker process is started: a verify run here, and what is left to search.

    When nothing is left (every kernel has a cache entry, re-verified here), the
    verify run's record stands for the optimize run: no worker, no profile.
    """
    from .optimize import KernelOutcome, choose_proposer

    proposer = choose_proposer(settings)
    record = run_kernelopt(evaluator, replace_mode(settings, "verify"), backend, name=name, problem_id=problem_id,
                           progress=progress)
    left = record.left_to_search(proposer)
    if not left:
        record.mode, record.proposer = settings.mode, proposer
        record.outcome = ProblemOutcome(
            name, backend.name, proposer,
            [KernelOutcome(k.kernel, k.graph, k.kind, "skipped", proposer, note="in the cache (re-verified above)")
             for k in record.kernels], record.seconds, note="nothing to search: every kernel is in the cache")
    return record, left


def _precheck_spec(spec: Any, settings: Settings, backend: Backend, **kw: Any) -> tuple[RunRecord, int, float]:
    import time

    t0 = time.perf_counter()
    local = make_evaluator(spec, replace_mode(settings, "verify"), backend)
    setup = time.perf_counter() - t0
    try:
        record, left = cache_precheck(local, settings, backend, **kw)
    finally:
        local.close()
    return record, left, setup


def replace_mode(settings: Settings, mode: str) -> Settings:
    from dataclasses import replace

    return replace(settings, mode=mode)


def searching_note(name: str, left: int) -> str:
    return f"{name}: {left} kernel(s) with no cache entry; searching them in a worker process"


def run_problem_spec(spec: Any, settings: Settings, backend: Backend, *, name: str, problem_id: str,
                     progress: ProgressFn | None = None, use_cache: bool = True) -> RunRecord:
    """One problem file (or pickled module): re-verify its cached kernels and, in optimize mode, search the rest.

    The search runs in a worker process (``isolate``), started only when
    something is left to search: a module whose every kernel is in the cache
    costs one compile in this process, not a worker and a profile.
    """
    import time

    if settings.mode == "optimize" and settings.isolate and use_cache:
        record, left, setup = _precheck_spec(spec, settings, backend, name=name, problem_id=problem_id,
                                             progress=progress)
        if not left:
            record.setup_seconds = setup
            return record
        release_memory()  # the check's tensors go before the worker allocates its own
        if progress is not None:
            progress(searching_note(name, left))
    t0 = time.perf_counter()
    evaluator = make_evaluator(spec, settings, backend)
    setup = time.perf_counter() - t0
    try:
        record = run_kernelopt(evaluator, settings, backend, name=name, problem_id=problem_id, progress=progress,
                               use_cache=use_cache)
        record.setup_seconds = setup
    finally:
        evaluator.close()
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


# --------------------------------------------------------------------------- the pytest-facing run




@dataclass
class KernelRecord:
    """What happened to one kernel in a test: from the cache, optimized, kept, or failed re-verification."""

    kernel: str
    graph: int
    kind: str
    decision: str  # cached | accepted | baseline_kept | verified | skipped | regression
    source: str  # cache | tuner | agents | baseline
    speedup: float | None = None
    ci: tuple[float, float] | None = None
    failed_gates: list[str] = field(default_factory=list)
    numbers: dict[str, Any] = field(default_factory=dict)
    note: str = ""


@dataclass
class RunRecord:
    name: str
    backend: str
    mode: str
    kernels: list[KernelRecord]
    applied: list[Any]  # Candidates now in place in the compiled module
    regressions: list[str]
    seconds: float
    perf: dict[str, Any] | None = None
    proposer: str = ""
    outcome: Any = None  # the optimizer's ProblemOutcome in optimize mode
    setup_seconds: float | None = None  # building the problem and capturing (compiling) it, before ``seconds``
    triton_kernels: int = 0  # Triton kernels in the compiled module (vendor calls not counted)
    # what has no cache entry: kernels, and contiguous runs of kernels (which only the agents' fusion searches)
    uncached: list[str] = field(default_factory=list)
    uncached_runs: list[str] = field(default_factory=list)
    untunable: list[str] = field(default_factory=list)  # uncached kernels the offline tuner has no config for
    proposer_errors: list[str] = field(default_factory=list)  # why the chosen proposer could not run (LLM errors)
    settings: dict[str, Any] | None = None  # the test's own settings (marker and fixture keywords applied)

    def left_to_search(self, proposer: str) -> int:
        """What an optimize run with ``proposer`` would search in this module (0: nothing, e.g. all cached)."""
        if proposer == "agents":
            return len(self.uncached) + len(self.uncached_runs)
        if proposer == "tuner":
            return len(self.uncached) - len(self.untunable)
        return 0


def outcome_record(k: Any) -> KernelRecord:
    """A searched kernel's record (from the optimizer's KernelOutcome).

    An accepted kernel carries its winner's gate numbers; a kernel whose baseline stayed carries those of the
    candidate that came nearest (the fastest one the performance gate timed), and its note says why that one
    was turned down, so a near miss shows its speedup and interval against ``min_speedup``.
    """
    res = k.result
    timed = [r for r in k.tried if r.speedup is not None]
    shown = res if res is not None else (max(timed, key=lambda r: r.speedup) if timed else None)
    perf_gate = res.gate("performance") if res is not None else None
    failed = sorted({r.failed_gate.gate for r in k.tried if r.failed_gate is not None})
    note = k.note
    if res is None and shown is not None and shown.failed_gate is not None:
        note = "; ".join(filter(None, (note, f"nearest candidate: {shown.reason}")))
    return KernelRecord(
        k.kernel, k.graph, k.kind, k.decision, k.proposer if k.decision == "accepted" else "baseline",
        k.speedup, (perf_gate.numbers.get("ci_low"), perf_gate.numbers.get("ci_high")) if perf_gate else None,
        failed, numbers={g.gate: g.numbers for g in shown.gates} if shown is not None else {}, note=note)


def _numbers_text(result: Any, settings: Settings) -> str:
    """A failed gate's numbers next to the thresholds they were held to."""
    g = result.failed_gate
    if g is None:
        return result.reason
    n = g.numbers
    thresholds = {"correctness": f"rtol={n.get('rtol', settings.rtol)}, atol={n.get('atol', settings.atol)}",
                  "fp64": f"factor={settings.fp64_factor}", "performance": f"min_speedup={settings.min_speedup}"}
    shown = ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in n.items()
                      if not isinstance(v, (list, dict)))
    return f"{g.gate} gate failed: {g.reason} [{shown}] (thresholds: {thresholds.get(g.gate, '-')})"


def run_kernelopt(evaluator: Any, settings: Settings, backend: Backend, *, name: str, problem_id: str,
                  progress: ProgressFn | None = None, use_cache: bool = True) -> RunRecord:
    """Verify cached kernels (and, in optimize mode, search for new ones) for one module.

    Accepted kernels, and on a GPU the decisions to keep a baseline, are written
    to the cache; ``use_cache=False`` neither reads nor writes it.
    """
    import time

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
    isolation = CacheIsolation(evaluator, settings, env, say, name)
    for graph in evaluator.graphs if cache is not None else ():
        # a fused entry (one kernel for a contiguous run) first: when it applies, its kernels are not looked up
        # alone.  A kept fused decision covers only the fusion: each kernel may still have an entry of its own.
        replaced: set[str] = set()
        for names in [*graph.contiguous_runs(), *((n,) for n in graph.kernels)]:
            if replaced.intersection(names):
                continue
            entry = cache.lookup(cache_key(graph, names, evaluator.inputs, device))
            if entry is None:
                continue
            label = "+".join(names)
            kind = graph.kernels[names[0]].kind if len(names) == 1 else "fusion"
            cached_names.add((graph.index, label))
            if entry.is_baseline_kept:
                records.append(KernelRecord(label, graph.index, kind, "baseline_kept", "cache",
                                            note="cache: no candidate beat this kernel"))
                continue
            cand = entry.candidate(replaces=names)
            stale = entry.stale_reasons(env) if env is not None else ["environment unknown"]
            refused = isolation.judge(cand, label, stale, graph.index, kind)
            if refused is not None:
                records.append(refused)
                if refused.decision == "regression":
                    regressions.append(refused.note)
                continue
            say(f"{name}: re-verifying cached kernel for {label}" + (f" (stale: {'; '.join(stale)})" if stale else ""))
            # an entry recorded on this very environment gets a quick re-check; a stale one the full cascade
            # (--kernelopt-perf judges regressions of the whole module below, against its own floor)
            res = evaluator.evaluate(cand, perf=on_gpu and bool(stale),
                                     seeds=None if stale else settings.verify_seeds, aot=bool(stale))
            ok = res.decision in ("accepted", "verified")
            perf_gate = res.gate("performance")
            spd = perf_gate.numbers.get("speedup") if perf_gate is not None else entry.speedup
            ci = ((perf_gate.numbers.get("ci_low"), perf_gate.numbers.get("ci_high"))
                  if perf_gate is not None and perf_gate.numbers.get("measured") else entry.speedup_ci)
            if ok:
                applied.append(cand)
                replaced.update(names)
                cached_names.update((graph.index, n) for n in names)
                records.append(KernelRecord(label, graph.index, kind, "cached", "cache", spd, ci,
                                            numbers={g.gate: g.numbers for g in res.gates},
                                            note=f"cache entry {entry.digest[:12]} re-verified"))
            else:
                msg = f"cached kernel for {label} (entry {entry.digest[:12]}) " + _numbers_text(res, settings)
                regressions.append(msg)
                records.append(KernelRecord(label, graph.index, kind, "regression", "cache", spd, ci,
                                            [res.failed_gate.gate] if res.failed_gate else [], note=msg))
    proposer = ""
    outcome = None
    proposer_errors: list[str] = []
    if settings.mode == "optimize":
        def skip(graph: Any, kname: str) -> str | None:
            return "in the cache (re-verified above)" if (graph.index, kname) in cached_names else None

        from .optimize import choose_proposer

        proposer = choose_proposer(settings)
        # one folder per test: its id made a plain folder name ("tests/test_x.py::test_y[a]" has "::" and "/")
        safe = re.sub(r"[^\w.-]+", "_", name).strip("_") or "module"
        transcripts = str(Path(settings.cache_dir).parent / ".kernelopt" / "transcripts" / safe)
        opt = Optimizer(evaluator, settings, name=name, progress=progress,
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
            cached_names |= _record(cache, evaluator, outcome, device, problem_id)
        for k in outcome.kernels:
            if k.decision == "skipped" and (k.graph, k.kernel) in cached_names:
                continue
            records.append(outcome_record(k))
            if k.decision == "accepted" and k.winner is not None:
                applied.append(k.winner)
    isolation.close()
    perf = None
    if settings.perf:
        perf = _perf_check(evaluator, settings, applied, regressions)
    from .tuner import can_search

    uncached = [(g, n) for g in evaluator.graphs for n in g.kernels if (g.index, n) not in cached_names]
    runs = ["+".join(r) for g in evaluator.graphs for r in g.contiguous_runs() if (g.index, "+".join(r)) not in cached_names]
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

    def __init__(self, evaluator: Any, settings: Settings, env: Any, say: ProgressFn, name: str) -> None:
        self.evaluator = evaluator
        self.settings = settings
        self.env = env
        self.say = say
        self.name = name
        self.worker: Any = None
        self.active = getattr(evaluator, "in_process", False) and settings.isolate

    def judge(self, cand: Any, label: str, stale: list[str], graph_index: int, kind: str) -> KernelRecord | None:
        """None when the entry may be re-checked in-process; else the record of why it is not applied."""
        from .trust import is_trusted, mark_trusted

        if not self.active or self.env is None or is_trusted(cand, self.env):
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
            res = self.worker.evaluate(cand, perf=self.evaluator.measures_time and bool(stale), aot=bool(stale))
        except RuntimeError as e:
            note = f"cached kernel for {label} not applied: the isolated check could not run: {str(e)[:300]}"
            self.say(f"{self.name}: {note}")
            return KernelRecord(label, graph_index, kind, "baseline_kept", "cache", note=note)
        if res.decision in ("accepted", "verified"):
            mark_trusted(cand, self.env, f"{res.decision} in isolation for {self.name}")
            return None
        msg = f"cached kernel for {label} refused by the isolated check: " + _numbers_text(res, self.settings)
        return KernelRecord(label, graph_index, kind, "regression", "cache",
                            failed_gates=[res.failed_gate.gate] if res.failed_gate else [], note=msg)

    def close(self) -> None:
        if self.worker is not None:
            self.worker.close()
            self.worker = None


def _perf_check(evaluator: Any, settings: Settings, applied: list[Any], regressions: list[str]) -> dict[str, Any]:
    """--kernelopt-perf: the module with its kernels against the compiled baseline, same run."""
    if not evaluator.measures_time:
        return {"measured": False, "note": "no GPU: the performance regression gate could not run"}
    if not applied:
        return {"measured": False, "note": "no kernels applied: the module is the compiled baseline"}
    res = evaluator.evaluate(applied)
    g = res.gate("performance")
    if g is None or not g.numbers.get("measured"):
        regressions.append(f"performance regression gate could not measure: {res.reason}")
        return {"measured": False, "note": res.reason}
    n = dict(g.numbers)
    floor = 1.0 - settings.perf_regression
    if n["speedup"] < floor:
        regressions.append(f"performance regression: {n['speedup']:.3f}x [{n['ci_low']:.3f}, {n['ci_high']:.3f}] "
                           f"vs the compiled baseline, below the floor {floor:.3f} (perf_regression="
                           f"{settings.perf_regression})")
    return n


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
