"""Serving a module's cached kernels: each cache entry found for its kernels (a fused run's first) is re-verified
and applied, served as a decision to keep the baseline, or left to the search.

A cached kernel is untrusted input the first time this machine sees it: :class:`CacheIsolation` judges it in a
worker process before the test process loads it (:mod:`pytest_kernelopt.trust`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from ..cache_keys import current_environment
from ..config import Settings
from ..gates.cascade import static_gate_result
from ..gates.provenance import FREE_FORM, classify
from ..isolate import IsolatedEvaluator
from ..optimize import LocalEvaluator, ProgressFn
from ..records import KernelRecord, numbers_text, passed
from ..trust import gate_settings, is_trusted, mark_trusted, state_digest, trust_context
from .decisions import Decisions
from .keys import cache_key
from .proposer import search_conditions

if TYPE_CHECKING:
    from ..cache import KernelCache
    from ..cache_entry import CacheEntry
    from ..cache_keys import CacheKey, Environment
    from ..candidate import Candidate
    from ..gates.results import CascadeResult
    from ..graph import KernelGraph
    from ..optimize import Evaluator


@dataclass(frozen=True)
class Found:
    """A cache entry found for the kernels ``names`` of graph ``graph`` (one kernel, or a fused run's)."""

    entry: CacheEntry
    key: CacheKey
    graph: int
    names: tuple[str, ...]
    kind: str  # the kernel's kind, or "fusion"

    @property
    def label(self) -> str:
        return "+".join(self.names)


def serve_cached(evaluator: Evaluator, settings: Settings, cache: KernelCache, device: str, *, on_gpu: bool,
                 proposer: str, searches: bool, name: str, problem_id: str, say: ProgressFn) -> Decisions:
    """The cache's decisions for one module: what it applies, what it keeps, what failed its re-check.  An entry
    left to the search (``searches``: this run searches) is not among them."""
    server = CacheServer(evaluator, settings, on_gpu=on_gpu, proposer=proposer, searches=searches, name=name,
                         problem_id=problem_id, say=say)
    try:
        for graph in evaluator.graphs:
            server.serve_graph(graph, cache, device)
    finally:
        server.isolation.close()
    return server.decisions


class CacheServer:
    """Serves one module's cache entries to one run, collecting the decisions."""

    def __init__(self, evaluator: Evaluator, settings: Settings, *, on_gpu: bool, proposer: str, searches: bool,
                 name: str, problem_id: str, say: ProgressFn) -> None:
        self.evaluator = evaluator
        self.settings = settings
        self.on_gpu = on_gpu
        self.proposer = proposer
        self.searches = searches
        self.name = name
        self.say = say
        self.env = current_environment() if any(g.kernels for g in evaluator.graphs) else None
        self.isolation = CacheIsolation(evaluator, settings, self.env, say, name, problem_id)
        self.decisions = Decisions()

    def serve_graph(self, graph: KernelGraph, cache: KernelCache, device: str) -> None:
        """A fused entry (one kernel for a contiguous run) first: when it applies, its kernels are not looked up
        alone.  A kept fused decision covers only the fusion: each kernel may still have an entry of its own."""
        replaced: set[str] = set()
        for names in [*graph.contiguous_runs(), *((n,) for n in graph.kernels)]:
            if replaced.intersection(names):
                continue
            key = cache_key(graph, names, self.evaluator.inputs, device, self.settings.compile_mode)
            entry = cache.lookup(key)
            if entry is None:
                continue
            kind = graph.kernels[names[0]].kind if len(names) == 1 else "fusion"
            found = Found(entry, key, graph.index, names, kind)
            if entry.is_baseline_kept:
                self.serve_kept(found)
            elif self.serve_accepted(found):
                replaced.update(names)

    def serve_kept(self, found: Found) -> None:
        """A decision to keep the baseline: served, unless this run searches under other conditions."""
        why = search_again(found.entry, self.settings, self.proposer, self.searches, self.env)
        if why is not None:
            self.say(f"{self.name}: the cached decision to keep {found.label} is searched again ({why})")
            return
        note = "cache: no candidate beat this kernel"
        self.decisions.add(found.graph, found.label,
                           KernelRecord(found.label, found.graph, found.kind, "baseline_kept", "cache", note=note))

    def serve_accepted(self, found: Found) -> bool:
        """An accepted kernel: judged in isolation where this machine has not judged it, then re-verified here;
        whether it was applied."""
        cand = found.entry.candidate(replaces=found.names)
        stale = found.entry.stale_reasons(self.env) if self.env is not None else ["environment unknown"]
        # an entry accepted by a run with a lower bar, or recorded on another environment (another GPU of the
        # same kind, torch, triton), is timed again (on a GPU).  One that passes everything but this run's
        # performance gate is not applied, and is not a regression: the baseline runs (this run's choice), and
        # a run that searches searches the kernel again
        bar = found.entry.below_bar(self.settings.min_speedup)
        why = bar or (f"recorded on another environment ({'; '.join(stale)})" if stale else None)
        if bar is not None:
            stale.append(bar)
        refused = self.isolation.judge(cand, found.label, stale, found.graph, found.kind, found.key, below_bar=why)
        if refused is None:
            return self.reverify(found, cand, stale, why, self.isolation.judged)
        if refused.failed_gates == ["performance"] and refused.decision == "baseline_kept" and self.searches:
            self.say(f"{self.name}: {found.label} is searched again")
        else:
            self.decisions.add(found.graph, found.label, refused)
        return False

    def reverify(self, found: Found, cand: Candidate, stale: list[str], why: str | None,
                 judged: CascadeResult | None = None) -> bool:
        """The re-check in this process: an entry recorded on this very environment gets a quick one, a stale one
        the full cascade (--kernelopt-perf judges regressions of the whole module, against its own floor).  An
        entry the isolated judge has just passed through the full cascade in this run (``judged``: timed there
        on this GPU when stale) gets the quick one, and the isolated judge's timing stands."""
        label, settings = found.label, self.settings
        self.say(f"{self.name}: re-verifying cached kernel for {label}"
                 + (f" (stale: {'; '.join(stale)})" if stale else ""))
        full = bool(stale) and judged is None
        if self.isolation.judged_here and judged is not None:
            res = judged  # judged in this very process a moment ago, every seed: that is its re-check
        else:
            res = self.evaluator.evaluate(cand, perf=self.on_gpu and full,
                                          seeds=None if full else settings.verify_seeds, aot=full or not self.on_gpu)
        perf_gate = res.gate("performance") or (judged.gate("performance") if judged is not None else None)
        spd = perf_gate.numbers.get("speedup") if perf_gate is not None else found.entry.speedup
        ci = measured_ci(perf_gate.numbers) if perf_gate is not None else None
        if ci is None:
            ci = found.entry.speedup_ci
        if passed(res):
            note = f"cache entry {found.entry.digest[:12]} re-verified"
            self.decisions.apply(found.graph, found.names, cand, KernelRecord(
                label, found.graph, found.kind, "cached", "cache", spd, ci,
                numbers={g.gate: g.numbers for g in (*res.gates, *([perf_gate] if perf_gate is not None else []))},
                note=note))
            return True
        kept = below_bar_record(res, label, why, found.graph, found.kind, settings)
        if kept is not None and self.searches:
            self.say(f"{self.name}: {kept.note}; searched again")
        elif kept is not None:
            self.say(f"{self.name}: {kept.note}")
            self.decisions.add(found.graph, label, kept)
        else:
            msg = f"cached kernel for {label} (entry {found.entry.digest[:12]}) " + numbers_text(res, settings)
            self.decisions.add(found.graph, label, KernelRecord(
                label, found.graph, found.kind, "regression", "cache", spd, ci,
                [res.failed_gate.gate] if res.failed_gate else [], note=msg))
        return False


def search_again(entry: CacheEntry, settings: Settings, proposer: str, searching: bool,
                 env: Environment | None = None) -> str | None:
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

    def __init__(self, evaluator: Evaluator, settings: Settings, env: Environment | None, say: ProgressFn, name: str,
                 problem_id: str = "") -> None:
        self.evaluator = evaluator
        self.problem_id = problem_id or name
        self.settings = settings
        self.env = env
        self.say = say
        self.name = name
        self.worker: IsolatedEvaluator | None = None
        #: the result of the entry :meth:`judge` judged last, where it judged one (in a worker, or here:
        #: ``judged_here``) and passed it
        self.judged: CascadeResult | None = None
        self.judged_here = False
        self._state: str | None = None
        self.active = isinstance(evaluator, LocalEvaluator) and settings.isolate

    def judge(self, cand: Candidate, label: str, stale: list[str], graph_index: int, kind: str,
              key: CacheKey | None = None, below_bar: str | None = None) -> KernelRecord | None:
        """None when the entry may be re-checked in-process; else the record of why it is not applied.  ``key``:
        the cache key the entry was found under (trust is per key and problem, :mod:`pytest_kernelopt.trust`);
        ``below_bar``: why its recorded speedup does not clear this run's bar (:meth:`CacheEntry.below_bar`)."""
        self.judged, self.judged_here = None, False
        if not self.active or self.env is None:
            return None
        context = trust_context(key, self.problem_id, self.state(), gate_settings(self.settings))
        if is_trusted(cand, self.env, context):
            return None
        if self.carries_no_code(cand):
            return self.judge_here(cand, label, stale, graph_index, kind, context, below_bar)
        spec = self.evaluator.spec
        if spec is None:
            note = (f"cached kernel for {label} not applied: it has not been judged in isolation on this machine, "
                    "and this module cannot be sent to a worker process (it does not pickle); the compiled baseline "
                    "runs")
            self.say(f"{self.name}: {note}")
            return KernelRecord(label, graph_index, kind, "baseline_kept", "cache", note=note)
        if self.worker is None:
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
        return self.verdict(res, cand, context, label, graph_index, kind, below_bar, here=False)

    def carries_no_code(self, cand: Candidate) -> bool:
        """Whether the judge certifies ``cand``, from the captured graph of the module in this process, as
        Inductor's own kernel under another launch config or the tuner's certified edit of it
        (:mod:`pytest_kernelopt.gates.provenance`): nothing of it is code of the proposer's, so loading it here is
        loading Inductor's kernel, and it needs no worker."""
        ev = self.evaluator
        if not isinstance(ev, LocalEvaluator):
            return False
        static = static_gate_result(cand, ev.session.captured, None, aot=False)
        return static.passed and classify([static]) != FREE_FORM

    def judge_here(self, cand: Candidate, label: str, stale: list[str], graph_index: int, kind: str,
                   context: dict[str, str], below_bar: str | None) -> KernelRecord | None:
        """A cache entry that carries no code of its own (:meth:`carries_no_code`), judged the first time this
        machine sees it in this process: every seed, the checks its class needs, and the performance gate on a
        GPU when it is stale; trusted afterwards as an isolated judgement would make it."""
        self.say(f"{self.name}: judging cached kernel for {label} in this process (first time on this machine; "
                 "Inductor's own code under another launch config)")
        res = self.evaluator.evaluate(cand, perf=self.evaluator.measures_time and bool(stale), aot=True)
        return self.verdict(res, cand, context, label, graph_index, kind, below_bar, here=True)

    def verdict(self, res: CascadeResult, cand: Candidate, context: dict[str, str], label: str, graph_index: int,
                kind: str, below_bar: str | None, *, here: bool) -> KernelRecord | None:
        """An entry's first judgement on this machine (``here``: in this process, else in a worker): None and
        trusted where it passed; else the record of why it is not applied."""
        if passed(res):
            mark_trusted(cand, self.env, context,
                         f"{res.decision} in {'this process' if here else 'isolation'} for {self.name}")
            self.judged, self.judged_here = res, here
            return None
        kept = below_bar_record(res, label, below_bar, graph_index, kind, self.settings)
        if kept is not None:
            self.say(f"{self.name}: {kept.note}")
            return kept
        check = "its first check on this machine" if here else "the isolated check"
        msg = f"cached kernel for {label} refused by {check}: " + numbers_text(res, self.settings)
        return KernelRecord(label, graph_index, kind, "regression", "cache",
                            failed_gates=[res.failed_gate.gate] if res.failed_gate else [], note=msg)

    def state(self) -> str:
        """The digest of the module's state as this run found it (once a run)."""
        if self._state is None:
            ev = self.evaluator
            self._state = state_digest(ev.session.state.pristine) if isinstance(ev, LocalEvaluator) else ""
        return self._state

    def close(self) -> None:
        if self.worker is not None:
            self.worker.close()
            self.worker = None


def below_bar_record(res: CascadeResult, label: str, bar: str | None, graph_index: int, kind: str,
                     settings: Settings) -> KernelRecord | None:
    """A cached kernel that failed only this run's performance gate, having been accepted at a lower bar or on
    another environment (``bar``: why, else None): recorded as a kept baseline, not a regression (every other
    gate passed)."""
    failed = res.failed_gate
    if bar is None or failed is None or failed.gate != "performance":
        return None
    spd = failed.numbers.get("speedup")
    ci = measured_ci(failed.numbers)
    note = (f"cached kernel for {label} not applied: {bar}; timed again here: " + numbers_text(res, settings)
            + "; the compiled baseline runs")
    return KernelRecord(label, graph_index, kind, "baseline_kept", "cache", spd, ci, ["performance"], note=note)


def measured_ci(numbers: dict[str, Any]) -> tuple[float, float] | None:
    """The interval a performance gate measured (its ``ci_low`` and ``ci_high``), or None where it measured none."""
    if not numbers.get("measured"):
        return None
    return cast("tuple[float, float]", (numbers.get("ci_low"), numbers.get("ci_high")))
