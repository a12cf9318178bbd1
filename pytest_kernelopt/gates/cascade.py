"""The four-gate cascade, run over one captured compiled module.

:class:`EvaluationSession` captures the module once and keeps what every
candidate is compared against (baseline outputs per seed, float64 truths), so
judging a candidate costs only its own runs.  Gates run in order and stop at
the first failure; every result carries its numbers.  ``decision`` is
``accepted`` only when the performance gate passed on a GPU; a CPU run can at
most say ``verified``.

The top of the gates: it collects (:mod:`.trials`) and hands the records to the
judges (:mod:`.correctness`, :mod:`.fp64`, :mod:`.perf`); :class:`Judge` is the
part an isolated judge's parent runs on records a worker sent.
"""

from __future__ import annotations

import dataclasses
import hashlib
import time
from typing import Any, Callable, Iterable, Iterator, Sequence

from ..backends import Backend, select_backend
from ..backends.aot import gpu_target_of_current_device
from ..candidate import Candidate
from ..capture import CapturedModule, capture
from ..config import Settings
from ..problems import Problem
from ..substitute import KernelSwap
from . import provenance, reorder
from .compare import flatten
from .correctness import CorrectnessGate
from .counters import find_counters
from .digests import kept_on_device
from .fp64 import Fp64Gate
from .fp64_place import FREE_FRACTION, estimate_bytes, host_available, place, record_budget, truth_on
from .gate_session import GateSession, target_for
from .module_state import ModuleState, copies, put, state_items
from .perf import PerfGate, merge_timing, next_round
from .results import CascadeResult, Decision, GateResult
from .rounds import merge_correctness, merge_fp64
from .runner import RunResult, poisoned_allocations, run_once
from .seed_plan import CANDIDATE_FILLS, SeedPlan
from .seed_values import seed_inputs
from .static import StaticGate
from .timing import rank_candidates
from .trial_records import BaselineRecord
from .trials import add_truths, collect_baseline, collect_candidate, collect_timing, device_peak

ProgressFn = Callable[[str], None]


# drawn inputs kept per session (the gates re-use a seed's inputs; a multi-GB problem keeps fewer seeds): at
# most this many bytes and, on a GPU, this many seeds (every kept seed is device memory the gates hold)
INPUT_CACHE_BYTES = 2 * 2**30
INPUT_CACHE_SEEDS_ON_DEVICE = 2


def _nbytes(inputs: tuple) -> int:
    return sum(x.numel() * x.element_size() for x in inputs if hasattr(x, "element_size"))


def static_gate_result(candidate: Candidate, captured: Any, backend: Any, aot: bool = True) -> GateResult:
    """Gate 1 for one candidate against the captured graphs (``captured`` needs ``find``; ``backend`` a name)."""
    try:
        graph, name = captured.find(candidate.replaces[0])
    except KeyError as e:
        return GateResult("static", "fail", f"replaces unknown kernel {e}", {"compiled": False})
    kernels = {n: graph.kernels[n] for n in candidate.replaces if n in graph.kernels}
    target: tuple | None = ("cuda", 90, 32)
    if not aot:
        target = None
    elif backend.name == "cuda":
        target = gpu_target_of_current_device()
    result = StaticGate().check(candidate, kernels, compile_target=target)
    if result.passed:
        result.numbers["reorder_of_inductor"] = reorder.inductor_reorder(candidate, graph, name)
        if not result.numbers["reorder_of_inductor"]:
            result.numbers["mechanical_edit"] = reorder.mechanical_edit(candidate, graph, name)
        if result.numbers["reorder_of_inductor"] or result.numbers["mechanical_edit"]:
            result.numbers["longer_chain"] = reorder.longer_chain(candidate, graph, name)
        result.numbers["inductor_source"] = reorder.inductor_source(candidate, graph, name)
    return result


def memory_numbers(baseline: BaselineRecord, rec: Any) -> dict[str, Any]:
    """The gates' peak device memory against one plain call of the module (GPU only; empty elsewhere), and where
    the float64 truth ran and why."""
    out: dict[str, Any] = {}
    where = baseline.truth_memory.get("where")
    if baseline.truth_memory.get("records"):
        out["records"] = baseline.truth_memory["records"]
    if where:
        out["fp64_ran_on"] = where
        out["fp64_reason"] = baseline.truth_memory.get("reason", "")
        if baseline.truth_memory.get("device_peak_bytes"):
            out["fp64_peak_gib"] = round(baseline.truth_memory["device_peak_bytes"] / 2**30, 3)
    peak = max(rec.device_peak_bytes, baseline.baseline_peak_bytes,
               int(baseline.truth_memory.get("device_peak_bytes") or 0))
    if baseline.module_peak_bytes and peak:
        out.update(module_peak_gib=round(baseline.module_peak_bytes / 2**30, 3),
                   gate_peak_gib=round(peak / 2**30, 3),
                   gate_peak_ratio=round(peak / baseline.module_peak_bytes, 3))
    return out


def time_sequentially(session: GateSession, swap: Any, plan: SeedPlan, rec: Any) -> None:
    """Time ``rec``'s candidate in this process as the sequential gate does: a first round, then the rounds of
    :func:`.perf.next_round` while it is undecided (the isolated judge runs the same exchange across its pipe)."""
    rec.timing, rec.timed_outputs = collect_timing(session, swap, plan)
    while more := next_round(session.settings, rec):
        merge_timing(rec, *collect_timing(session, swap, plan, more))


class Judge:
    """Turns the static gate's results and the records of a trial into the cascade's result.

    It reads records only (:mod:`.trial_records`), so it runs in whichever process holds
    them: the one that collected them, or the parent of an isolated worker.
    """

    def __init__(self, settings: Settings, cands: Sequence[Candidate], t0: float) -> None:
        self.settings = settings
        self.cands = list(cands)
        self.t0 = t0
        self.gates: list[GateResult] = []
        self.kernels = tuple(n for c in self.cands for n in c.replaces)
        self.chash = self.cands[0].content_hash if len(self.cands) == 1 else hashlib.sha256(
            "".join(c.content_hash for c in self.cands).encode()).hexdigest()
        self.origin = self.cands[0].origin if len(self.cands) == 1 else "joint"
        #: set by :meth:`note_provenance` from static results this process computed (never from a worker's message)
        self.reorder: tuple[str, ...] = ()
        #: the candidates' class (:mod:`.provenance`), which decides the checks their collection makes
        self.provenance = provenance.FREE_FORM
        #: checks the candidates' code makes pointless beyond their class: the structure probes look for code that
        #: special-cases an input's structure, and a source byte for byte Inductor's (under any launch) has none
        self.exempt: tuple[str, ...] = ()

    def note_provenance(self, statics: list[GateResult]) -> None:
        """Where the candidates' code comes from (:mod:`.provenance`), and whether every one is Inductor's own
        kernel under another launch config (:mod:`.reorder`: the precision check is then reported, not applied,
        where its chains are no longer than the baseline's)."""
        found: list[Any] = [g.numbers.get("reorder_of_inductor") for g in statics]
        self.reorder = tuple(found) if found and all(found) else ()
        self.provenance = provenance.classify(statics)
        self.exempt = ("structure_probes",) if statics and all(
            g.numbers.get("inductor_source") for g in statics) else ()

    def done(self, decision: Decision) -> CascadeResult:
        return CascadeResult(self.kernels, self.chash, tuple(self.gates), decision, self.origin,
                             time.perf_counter() - self.t0)

    def add_static(self, statics: list[GateResult]) -> bool:
        failed = next((g for g in statics if not g.passed), None)
        if failed is not None or len(statics) == 1:
            self.gates.append(failed or statics[0])
        else:
            self.gates.append(GateResult("static", "pass", f"all {len(statics)} candidates pass",
                                         {"candidates": len(statics)}))
        return self.gates[-1].passed

    def load_failed(self, e: BaseException) -> CascadeResult:
        self.gates.append(GateResult("correctness", "fail", f"candidate could not be loaded: {type(e).__name__}: {e}"))
        return self.done("rejected")

    def correct(self, baseline: BaselineRecord, rec: Any, progress: ProgressFn | None = None) -> bool:
        """Gates 2 and 3 on the records; True when both passed (the caller then times, or stops)."""
        return self.correct_in_rounds([(baseline, rec)], progress)

    def truth_seeds(self, corr: GateResult, seeds: Sequence[int]) -> list[int]:
        """The seeds of a passing correctness result whose float64 truth the float64 gate needs: every seed for
        free-form code and for longer chains than the baseline's order (:mod:`.provenance`, ``fp64_every_seed``);
        for Inductor's own arithmetic in another order, only those where it differs from the baseline beyond
        tolerance or in its NaN and Inf positions."""
        if provenance.runs("fp64_every_seed", self.provenance):
            return list(seeds)
        odd = set(corr.numbers.get("seeds_beyond_tolerance") or ()) | {
            sd for sd, _, _ in corr.numbers.get("special_deferred") or ()}
        return [sd for sd in seeds if sd in odd]

    def correct_in_rounds(self, rounds: Iterable[tuple[BaselineRecord, Any]],
                          progress: ProgressFn | None = None,
                          truths: Callable[[BaselineRecord, list[int]], None] | None = None) -> bool:
        """Gates 2 and 3 over the rounds of a plan (:meth:`.seed_plan.SeedPlan.rounds`; one round where every
        seed's records fit at once), each round's records judged as they come: the first round that fails
        decides, and where every round passed their results are merged (:mod:`.rounds`).  ``rounds`` may be a
        generator that collects a round when asked: nothing here keeps a round's records past its judgement.
        ``truths(baseline, seeds)``, where given, adds the float64 truths the float64 gate needs
        (:meth:`truth_seeds`) to a record collected without them."""
        corrs: list[GateResult] = []
        fp64s: list[GateResult] = []
        seeds: list[list[int]] = []
        checks: list[str] = []
        seconds: dict[str, float] = {}
        whole: tuple[int, ...] = ()
        for baseline, rec in rounds:
            whole = baseline.plan.all_seeds
            seeds.append(list(baseline.plan.seeds))
            checks += getattr(rec, "checks_run", ())
            for k, v in {**{f"baseline_{k}": v for k, v in baseline.seconds.items()},
                         **getattr(rec, "check_seconds", {})}.items():
                seconds[k] = round(seconds.get(k, 0.0) + v, 4)
            corr = CorrectnessGate().judge(self.settings, baseline, rec, reorder=bool(self.reorder))
            corrs.append(corr)
            if not corr.passed:
                break
            if progress is not None:
                progress("gate:fp64")
            needed = self.truth_seeds(corr, baseline.plan.seeds)
            if truths is not None:
                truths(baseline, needed)
            fp = Fp64Gate().judge(self.settings, baseline, rec, corr, reorder=self.reorder,
                                  longer_chain=self.provenance == provenance.LONGER_CHAIN)
            fp.numbers.update(memory_numbers(baseline, rec), truth_seeds=needed)
            if len(needed) < len(baseline.plan.seeds):
                fp.numbers["truth_not_needed"] = (
                    "within tolerance of the baseline, with its NaN and Inf positions, on the other seeds: Inductor's "
                    "own arithmetic in another order (a launch config or the pipelined loop) differs from it there by "
                    "rounding alone, which the tolerance bounds")
            fp64s.append(fp)
            del baseline, rec
            if not fp.passed:
                break
        corr = corrs[-1] if not corrs[-1].passed else merge_correctness(corrs, seeds)
        # (a plan too short for the stale-buffer seed has that check made of no candidate)
        stale = [i for i, fill in CANDIDATE_FILLS.items() if fill == "stale"]
        exempt = self.exempt + (("stale_buffers",) if all(i >= len(whole) for i in stale) else ())
        lacking = provenance.missing(self.provenance, checks, exempt)
        if corr.passed and lacking:  # a check this class needs that was not made fails the gate: never passes unmade
            self.gates.append(GateResult("correctness", "fail", f"the collection did not make the checks {lacking} "
                                         f"a {self.provenance.replace('_', '-')} candidate needs",
                                         {"provenance": self.provenance, "checks_missing": lacking}))
            return False
        corr.numbers.update(provenance=self.provenance,
                            checks_skipped=list(dict.fromkeys(provenance.skipped(self.provenance) + list(self.exempt))),
                            check_seconds=seconds)
        self.gates.append(corr)
        if not corr.passed:
            return False
        fp = fp64s[-1] if not fp64s[-1].passed else merge_fp64(fp64s, seeds)
        self.gates.append(fp)
        return fp.passed

    def finish(self, baseline: BaselineRecord, rec: Any, *, perf: bool, measures_time: bool,
               backend_name: str) -> CascadeResult:
        """The decision after gates 2-3 passed: gate 4 on the timing records, where timing was asked for."""
        if not perf:
            return self.done("verified")
        corr = self.gates[-2] if len(self.gates) >= 2 else None
        result = PerfGate().judge(self.settings, baseline, rec, measures_time, backend_name, corr)
        if result.status != "not_measured":
            result.numbers.update(memory_numbers(baseline, rec))
            if getattr(rec, "timing", None):  # the rounds' wall time in the process that timed them
                result.numbers["timing_seconds"] = round(float(rec.timing.get("seconds") or 0.0), 3)
        self.gates.append(result)
        if result.status == "not_measured":
            return self.done("verified")
        return self.done("accepted" if result.passed else "rejected")


class EvaluationSession:
    """Everything needed to judge candidates for one module, captured once.

    ``plan`` fixes the seeds and input magnitudes (drawn from the OS unless
    ``base_seed`` is set); an isolated worker is handed its parent's plan, so
    baseline and candidate see the same inputs in different processes.
    """

    def __init__(self, problem: Problem, settings: Settings, backend: Backend | str | None = None,
                 captured: CapturedModule | None = None, plan: SeedPlan | None = None) -> None:
        self.settings = settings
        self.backend = backend if isinstance(backend, Backend) else select_backend(backend or settings.backend)
        self.problem = problem
        self.module = problem.module
        self.training = settings.training
        if captured is None:
            # the capture calls the module once: its state (a recurrent state, a running mean, a cache) is put
            # back as the user built it, so that "as found" is the module before any call (a kernel wrong only
            # from a zero recurrent state, as every sequence starts after reset(), passes calls that start from the
            # state the capture call left: tests/test_read_only_args.py::
            # test_every_judged_call_starts_from_the_state_as_built_not_as_the_capture_call_left_it)
            items = dict(state_items(problem.module))
            found = copies(items)
            captured = capture(problem.module, problem.example_inputs, training=self.training,
                               backend=self.backend, mode=settings.torch_compile_mode)
            put(items, found)
            del items, found
        self.captured = captured
        # the gates draw their own inputs per seed: a problem file's example inputs are let go (drawn again
        # if anyone asks), so a 2 GiB input is not carried through every phase as a third copy
        problem.release_example()
        self.plan = plan or SeedPlan.make(settings.seeds, settings.base_seed)
        # the module's state as found (the capture's call undone): every gate call starts from it (module_state).  Made
        # here, before any other call (a module-peak measurement, a screening) could move it, so every process
        # judging this problem starts from the same state
        self.state = ModuleState(self.module, self.plan.digest_key)
        self._baseline_record: BaselineRecord | None = None
        self._record_bytes: tuple[int, int] | None = None  # see seeds_per_round
        self.round_note = ""  # the last evaluation's seeds_per_round: how many seeds' records it held at once, why
        # the float64 copy of the module and its own ModuleState, by device (fp64_place)
        self.fp64_modules: dict[str, Any] = {}
        self._drawn: dict[int, tuple] = {}  # seed -> inputs, oldest first, bounded by INPUT_CACHE_BYTES
        self._last_size = 0  # bytes of the last seed drawn
        self.state_note = ""  # integer state the varied seed could not advance (find_counters)
        # nothing else runs here: a verify run whose module has no cached kernel pays for the capture alone

    def find_counters(self, seed: int) -> None:
        """Which integer scalars of the state are counters the varied seed advances (once, when it is first
        needed): those one call of the compiled module changes, kept only if the eager module, copied to the
        host, runs with them advanced (a position used as an index may not, and on a GPU an index out of range
        is a device-side assert that ends the process's CUDA context; on the host it is an exception).  What
        was left out, and why, is in ``self.state_note``."""
        self.state.counters = ()  # looked for: the calls below start from the state as found
        near, far, self.state_note, caps, limits = find_counters(self, seed)
        self.state.set_counters(near, far, caps)
        self.state.margin, self.state.per_call = limits.get("margin"), dict(limits.get("per_call") or {})

    @property
    def dtype_name(self) -> str:
        """The dtype of the first floating output of the baseline (the tolerance table's key)."""
        return self.baseline_record().dtype_name

    # -- what the gates compare against -------------------------------------------------
    def seeds(self) -> list[int]:
        return list(self.plan.seeds)

    def inputs(self, seed: int) -> tuple:
        """The inputs of ``seed`` at its magnitude, drawn once and kept while they fit (every run clones them).

        Drawing is the problem's own ``get_inputs()`` and can take a second for a
        large problem; the gates ask for the same seed several times per candidate.
        """
        hit = self._drawn.get(seed)
        if hit is not None:
            return hit
        # make room before drawing (every seed of a problem has the same size as the last one drawn): a seed
        # evicted only after the next was drawn and copied had held a third input's worth of memory meanwhile
        self._make_room(self._last_size)
        drawn = seed_inputs(self.problem.draw_inputs(seed), self.plan, seed)  # copied once, edited in place
        size = self._last_size = _nbytes(drawn)
        if size <= INPUT_CACHE_BYTES:
            self._make_room(size)
            self._drawn[seed] = drawn
        return drawn

    def _make_room(self, size: int) -> None:
        """Evict the oldest cached seeds until one of ``size`` bytes fits (all of them if it never will)."""
        limit = INPUT_CACHE_SEEDS_ON_DEVICE if self.backend.measures_time else None
        while self._drawn and (size > INPUT_CACHE_BYTES
                               or size + sum(map(_nbytes, self._drawn.values())) > INPUT_CACHE_BYTES
                               or (limit is not None and len(self._drawn) >= limit)):
            self._drawn.pop(next(iter(self._drawn)))

    def baseline_record(self, plan: SeedPlan | None = None, truths: bool = True) -> BaselineRecord:
        """The baseline and the float64 truth (host copies) on the seeds of ``plan`` (default: the session's),
        each seed collected once per session; ``truths=False``: the truths only as :meth:`add_truths` asks."""
        plan = plan or self.plan
        self._counters_once(plan)
        rec = collect_baseline(self, plan, self._baseline_record, truths=truths)
        if self._baseline_record is None:
            self._baseline_record = rec
        return rec

    def _counters_once(self, plan: SeedPlan) -> None:
        if self.state.counters is None:  # before any candidate's call: the baseline alone decides the counters
            seed = next((sd for sd in plan.all_seeds if plan.varied_state(sd) or plan.far_counters(sd)), None)
            if seed is not None:
                self.find_counters(seed)

    @staticmethod
    def _without_records(rec: BaselineRecord, plan: SeedPlan) -> BaselineRecord:
        """What ``rec`` found of the module (determinism, dtype, bytes, peaks), over ``plan``, with none of its
        records."""
        return dataclasses.replace(rec, plan=plan, runs={}, truths={}, truth_errors={}, state_changed={},
                                   truth_memory={}, seconds={})

    def _round_baseline(self, part: SeedPlan, described: BaselineRecord | None, truths: bool) -> BaselineRecord:
        """The baseline and (``truths``) the float64 truths over one round of a plan, kept by no one but the
        caller; what the first round found of the module (``described``) is not measured again."""
        self._counters_once(part)
        into = None if described is None else self._without_records(described, part)
        return collect_baseline(self, part, into, truths=truths)

    def add_truths(self, baseline: BaselineRecord, seeds: list[int]) -> None:
        """The float64 truths of ``seeds`` into a baseline record collected without them (shared with the
        session's own record, which keeps them for the next candidate)."""
        add_truths(self, baseline, seeds)

    def baseline_run(self, seed: int, fresh: bool = False) -> Any:
        if fresh or seed not in self.baseline_record().runs:
            self.state.start(target_for(self, seed))
            with poisoned_allocations(self.captured.namespaces):
                return run_once(self.captured.compiled, self.module, self.inputs(seed), training=self.training,
                                seed=seed)
        return self.baseline_record().runs[seed]

    def truth(self, seed: int) -> RunResult:
        """The original eager module in float64 on the same inputs (host copies; wherever it fits)."""
        where, why = place(self)
        if where == "skipped":
            raise MemoryError(why)
        outputs, grads, _noise = truth_on(self, seed, where)
        return RunResult(outputs, grads, ())

    # -- the cascade ----------------------------------------------------------------------
    def evaluate(self, candidate: Candidate | Sequence[Candidate], progress: ProgressFn | None = None,
                 *, perf: bool = True, seeds: int | None = None, aot: bool = True) -> CascadeResult:
        """Run the cascade on one candidate, or on several together (the final joint check).

        ``seeds`` limits the correctness seeds to the plan's first ``seeds``;
        ``aot=False`` skips the ahead-of-time compile in the static gate (for a
        cached kernel compiled on this very environment before: the correctness
        gate compiles it again anyway when it runs it).  ``perf=False`` stops
        after the float64 gate; such a result is never ``accepted``.
        """
        cands = [candidate] if isinstance(candidate, Candidate) else list(candidate)
        say = progress or (lambda _msg: None)
        t0 = time.perf_counter()
        judge = Judge(self.settings, cands, t0)
        say("gate:static")
        statics = [static_gate_result(c, self.captured, self.backend, aot) for c in cands]
        judge.note_provenance(statics)
        if not judge.add_static(statics):
            return judge.done("rejected")
        say("gate:correctness")
        try:
            swap = KernelSwap(self.captured, cands)
        except Exception as e:
            return judge.load_failed(e)
        plan = self.plan if seeds is None else self.plan.first(seeds)
        # every seed's float64 truth for free-form code; for Inductor's own arithmetic, those the gate asks for
        every = provenance.runs("fp64_every_seed", judge.provenance)
        per_round, self.round_note = self.seeds_per_round(plan, truths=every)
        parts = plan.rounds(per_round)
        try:
            if len(parts) == 1:
                baseline = self.baseline_record(plan, truths=every)
                rec = collect_candidate(self, swap, plan, provenance=judge.provenance, skip=judge.exempt)
                passed = judge.correct_in_rounds([(baseline, rec)], say, self.add_truths)
            else:  # every seed judged, a round at a time; the last round's records kept for the timing
                self.drop_records()
                last: dict[str, Any] = {}

                def collected() -> Iterator[tuple[BaselineRecord, Any]]:
                    described: BaselineRecord | None = None  # what the first round found of the module
                    for part in parts:
                        last.clear()  # (the round before is referenced by no one once the judge let go of it)
                        last["baseline"] = self._round_baseline(part, described, every)
                        described = described or self._without_records(last["baseline"], part)
                        last["rec"] = collect_candidate(self, swap, part, provenance=judge.provenance,
                                                        skip=judge.exempt)
                        yield last["baseline"], last["rec"]

                passed = judge.correct_in_rounds(collected(), say, self.add_truths)
                if passed:
                    baseline, rec, plan = last["baseline"], last["rec"], parts[-1]
            if not passed:
                return judge.done("rejected")
            if perf and self.backend.measures_time:
                say("gate:performance")
                time_sequentially(self, swap, plan, rec)
                rec.device_peak_bytes = max(rec.device_peak_bytes, device_peak())
            return judge.finish(baseline, rec, perf=perf, measures_time=self.backend.measures_time,
                                backend_name=self.backend.name)
        finally:
            self.state.begin()  # the module left in the state the session found, whatever the gates' calls did

    def seeds_per_round(self, plan: SeedPlan, truths: bool = True) -> tuple[int, str]:
        """How many of ``plan``'s correctness seeds a judge in this process holds the records of at once, and why:
        the baseline's run, the float64 truth with its levels and the candidate's run a seed, beside the timing
        sets' runs and what the float64 truth needs to run, where the records are kept (the device's free memory
        within :func:`.digests.records_on_device` on a GPU; else host memory), within :func:`.fp64_place.
        record_budget`.  All of them where they fit; else the plan is judged in rounds of that many (at least
        one: :meth:`.seed_plan.SeedPlan.rounds`).  The baseline's records this session already holds count as
        held."""
        import torch

        on_gpu = self.backend.name == "cuda" and torch.cuda.is_available() and kept_on_device()
        if self._record_bytes is None:  # a call's record and a float64 truth's with its levels (once a session)
            out = self.captured.outputs  # the capture's call: the shapes every seed's call has
            if out is None:
                with torch.no_grad():
                    out = self.captured.compiled(*self.inputs(plan.seeds[0]))
            tensors = [t for t in flatten(out) if isinstance(t, torch.Tensor)]
            if self.training:
                tensors += [p for p in self.module.parameters() if p.requires_grad]
            self._record_bytes = (sum(t.numel() * t.element_size() for t in tensors),
                                  sum(t.numel() * (9 if t.is_floating_point() else t.element_size()) for t in tensors))
            del out, tensors
        run, truth = self._record_bytes
        seeds, sets = len(plan.seeds), len(plan.timing)
        rec = self._baseline_record
        held = rec is not None and all(sd in rec.runs and sd in rec.truths for sd in plan.seeds) and any(
            isinstance(t, torch.Tensor) and t.is_cuda == on_gpu for r in rec.runs.values() for t in flatten(r.outputs))
        fixed = run * (sets + 2) + (0 if held else run * sets) + estimate_bytes(self)
        per_seed = run if held else 2 * run + (truth if truths else 0)
        if on_gpu:
            free, _total = torch.cuda.mem_get_info()
            free += torch.cuda.memory_reserved() - torch.cuda.memory_allocated()
        else:
            free = host_available()
        cap = record_budget(on_device=on_gpu)
        room = FREE_FRACTION * free if cap is None else min(FREE_FRACTION * free, cap)
        gib = 2**30
        fit = seeds if fixed + per_seed * seeds <= room else max(1, int((room - fixed) // max(per_seed, 1)))
        why = (f"about {(fixed + per_seed * seeds) / gib:.2f} GiB of records and float64 working memory for "
               f"{seeds} seeds, {room / gib:.1f} GiB of room " + ("on the device" if on_gpu else "in host memory"))
        if fit < seeds:
            why += f": {fit} seeds a round"
        return min(fit, seeds), why

    def drop_records(self) -> None:
        """Let go of the baseline's records this session holds (device memory a judge in this process kept)."""
        self._baseline_record = None

    def holds_device_records(self) -> bool:
        """Whether the baseline's records this session holds keep any tensor on a GPU (a code-free judgement's,
        :func:`.digests.records_on_device`)."""
        rec = self._baseline_record
        if rec is None:
            return False
        import torch

        runs = [*rec.runs.values(), *(t for t in rec.truths.values() if t is not None)]
        return any(isinstance(t, torch.Tensor) and t.is_cuda
                   for r in runs for t in flatten((r.outputs, r.grads, r.inputs_after, r.levels)))

    def rank(self, candidates: Sequence[Candidate], samples: int = 10) -> tuple[float | None, list[float | None]]:
        """Quick interleaved timing of candidates against the baseline (ms; None = failed to load).

        Only a ranking aid for choosing which candidates get the full cascade;
        it decides nothing.  Without a GPU nothing is timed.
        """
        if not self.backend.measures_time:
            return None, [None] * len(candidates)
        return rank_candidates(self, candidates, samples)
