"""Optimize one module: profile, propose, judge, keep the winners -- or keep the baseline.

The proposer is the offline tuner (no LLM), the LLM agents, or none, chosen by the
workflow (:mod:`pytest_kernelopt.workflow.proposer`); which one ran is recorded on
every kernel.  Kernels are attacked hottest first.  Each
candidate goes through the full cascade at the module level; when several
kernels got winners they are checked together once more, and if the
combination fails only the best single winner is kept.  When nothing passes,
the compiler's baseline stays and that is recorded as a decision.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Protocol, Sequence

from .candidate import Candidate
from .config import Settings
from .gates.results import CascadeResult, stopped_in
from .graph import KernelGraph
from .launch_space import baseline_config as _baseline
from .profile import ModuleProfile, profile_module
from .records import SearchDecision
from .time_limit import TimeLimitExceeded, time_limit
from .tuner import (
    AUTOTUNE_OPTIONS,
    autotune_picks,
    capture_variant_graphs,
    iter_kernels,
    looped_variants,
    pipelined_variants,
    propose_configs,
    search,
)

if TYPE_CHECKING:
    from .agents import AgentOptimizer
    from .gates.cascade import EvaluationSession
    from .problems import InputSig, ProblemSpec
    from .tuner import SearchResult

ProgressFn = Callable[[str], None]

#: the tuner's screened candidates that clear ``min_speedup`` in screening and go through the whole cascade, fastest
#: first, the best that passes kept: screening times each config 10 times beside the baseline, and configs within a
#: few percent of each other swap places from one screening to the next, so the fastest alone would lose a win
#: whenever screening put a slower one first; all three are launch-config candidates (or the certified pipelined
#: loop), judged in the clean worker with the checks their class needs (gates/provenance.py)
GATED_PER_KERNEL = 3


class Evaluator(Protocol):
    """What judges candidates for one module: in this process (:class:`LocalEvaluator`) or in workers
    (:class:`pytest_kernelopt.isolate.IsolatedEvaluator`)."""

    @property
    def graphs(self) -> list[KernelGraph]: ...

    @property
    def inputs(self) -> list[InputSig]: ...

    @property
    def spec(self) -> ProblemSpec | None: ...  # what a worker rebuilds the module from (None: it cannot)

    @property
    def backend_name(self) -> str: ...

    @property
    def measures_time(self) -> bool: ...

    def evaluate(self, candidate: Candidate | list[Candidate], perf: bool = True,
                 seeds: int | None = None, aot: bool = True) -> CascadeResult: ...

    def rank(self, candidates: Sequence[Candidate]) -> tuple[float | None, list[float | None]]: ...

    def profile(self, ncu: bool = True) -> ModuleProfile: ...

    def close(self) -> None: ...


class LocalEvaluator:
    """In-process evaluation over an :class:`EvaluationSession` (no isolation)."""

    def __init__(self, session: EvaluationSession) -> None:
        self.session = session
        self.spec = session.problem.spec  # what an isolated worker would rebuild the module from (None: cannot)
        self.graphs = session.captured.graphs
        self.inputs = session.problem.signature()
        self.backend_name = session.backend.name
        self.measures_time = session.backend.measures_time
        self._profile: ModuleProfile | None = None

    def evaluate(self, candidate: Candidate | list[Candidate], perf: bool = True, seeds: int | None = None,
                 aot: bool = True) -> CascadeResult:
        """The cascade in this process, under the isolated judge's time limit (the ``timeout`` setting,
        :mod:`pytest_kernelopt.time_limit`): a candidate that outruns it is rejected in the gate it was in.  The
        baseline's own runs (the user's module, collected once a session), with every seed's float64 truth where the
        candidate's class needs them all, are collected first, outside the limit, as the isolated judge bounds them
        apart (each seed's truth); where their records do not
        fit at once, the cascade collects them round by round (:meth:`.gates.cascade.EvaluationSession.
        seeds_per_round`)."""
        from .gates import provenance
        from .gates.cascade import static_gate_result

        session = self.session
        plan = session.plan if seeds is None else session.plan.first(seeds)
        cands = [candidate] if isinstance(candidate, Candidate) else list(candidate)
        statics = [static_gate_result(c, session.captured, None, aot=False) for c in cands]
        passed = all(g.passed for g in statics)
        kind = provenance.classify(statics)
        with self._records_where(passed and kind != provenance.FREE_FORM):
            # the float64 truths up front only where the cascade will want every seed's (free-form code, longer
            # chains): Inductor's own arithmetic in another order gets them on the seeds that ask
            # (Judge.truth_seeds), most often none
            every = passed and provenance.runs("fp64_every_seed", kind)
            if session.seeds_per_round(plan, truths=every)[0] >= len(plan.seeds):
                session.baseline_record(plan, truths=every)
            return self._cascade(candidate, cands, perf, seeds, aot)

    def _records_where(self, code_free: bool) -> Any:
        """Where this judgement keeps its records: for candidates that carry no code of their own (Inductor's
        kernel under another launch config, its certified edits: :mod:`.gates.provenance`), where they are made
        (on a GPU, the device: compared there, nothing copied to the host), as the clean worker's judge does; for
        free-form code, host copies no kernel of the candidate's can reach, with any device records an earlier
        judgement kept let go first
        (tests/test_provenance.py::test_the_in_process_judge_keeps_records_on_the_device_only_for_code_free_candidates)."""
        import contextlib

        from .gates.digests import records_on_device

        if code_free:
            return records_on_device()
        if self.session.holds_device_records():
            self.session.drop_records()
        return contextlib.nullcontext()

    def _cascade(self, candidate: Candidate | list[Candidate], cands: list[Candidate], perf: bool,
                 seeds: int | None, aot: bool) -> CascadeResult:
        session = self.session
        stage = ["static"]

        def seen(msg: str) -> None:
            if isinstance(msg, str) and msg.startswith("gate:"):
                stage[0] = msg.split(":", 1)[1]

        t0 = time.perf_counter()
        limit = session.settings.timeout
        try:
            with time_limit(limit):
                return session.evaluate(candidate, seen, perf=perf, seeds=seeds, aot=aot)
        except TimeLimitExceeded:
            return stopped_in(stage[0], f"timed out after {limit:g}s in the {stage[0]} gate (hang or runaway "
                              "kernel); stopped in this process", cands, time.perf_counter() - t0,
                              {"in_process": True, "timed_out": True})

    def rank(self, candidates: Sequence[Candidate]) -> tuple[float | None, list[float | None]]:
        return self.session.rank(candidates)

    def close(self) -> None:
        return None

    def profile(self, ncu: bool = True) -> ModuleProfile:
        if self._profile is None:
            self._profile = profile_module(self.session, ncu=ncu)
        return self._profile


@dataclass
class KernelOutcome:
    kernel: str
    graph: int
    kind: str
    decision: SearchDecision
    proposer: str
    winner: Candidate | None = None
    result: CascadeResult | None = None
    tried: list[CascadeResult] = field(default_factory=list)
    note: str = ""
    screened: int = 0  # candidates timed in the tuner's screening (a search happened even when none was gated)
    error: str = ""  # the proposer could not run for this kernel (the LLM endpoint unreachable, say)
    phases: dict[str, float] = field(default_factory=dict)  # seconds per phase of the tuner's search

    @property
    def speedup(self) -> float | None:
        return self.result.speedup if self.result is not None else None


@dataclass
class ProblemOutcome:
    name: str
    backend: str
    proposer: str
    kernels: list[KernelOutcome]
    seconds: float
    joint: CascadeResult | None = None
    profile: ModuleProfile | None = None
    note: str = ""
    measures_time: bool | None = None  # None: as the backend (a GPU measures)
    profile_s: float = 0.0  # of ``seconds``: the profile (before any kernel is searched)

    @property
    def accepted(self) -> list[KernelOutcome]:
        return [k for k in self.kernels if k.decision == "accepted"]

    @property
    def proposer_errors(self) -> list[str]:
        """Why the proposer could not run (each distinct error once; empty when it ran)."""
        return list(dict.fromkeys(k.error for k in self.kernels if k.error))

    @property
    def measured(self) -> bool:
        """Whether performance was measured (a GPU): otherwise :attr:`speedup` is no measurement."""
        return self.measures_time if self.measures_time is not None else self.backend == "cuda"

    @property
    def speedup(self) -> float:
        """Module speedup of everything kept (1.0 when the baseline stays)."""
        if self.joint is not None and self.joint.accepted and self.joint.speedup:
            return float(self.joint.speedup)
        best = max((k.speedup or 1.0 for k in self.accepted), default=1.0)
        return float(best)


class Optimizer:
    """One module's search with ``proposer`` (the run's: :func:`pytest_kernelopt.workflow.proposer.choose_proposer`
    chose it); ``agent_factory`` makes the agents when the proposer is ``agents``."""

    def __init__(self, evaluator: Evaluator, settings: Settings, *, proposer: str, name: str = "module",
                 progress: ProgressFn | None = None,
                 agent_factory: Callable[[], AgentOptimizer] | None = None) -> None:
        self.ev = evaluator
        self.settings = settings
        self.name = name
        self.say = progress or (lambda _m: None)
        self.agent_factory = agent_factory
        self.proposer = proposer
        self._tuned_graphs: list | None = None  # the module compiled with Inductor's autotuning (_autotune_picks)
        self.autotune_note = ""

    def run(self, skip: Callable[[KernelGraph, str], str | None] | None = None) -> ProblemOutcome:
        t0 = time.perf_counter()
        proposer = self.proposer
        reasons = {(g.index, n): skip(g, n) if skip else None for g, n in iter_kernels(self.ev.graphs)}
        fuse = proposer == "agents" and self.agent_factory is not None and any(
            not (skip and skip(g, "+".join(run))) for g in self.ev.graphs for run in g.contiguous_runs())
        # the profile costs timed runs (and, for the agents, a child process under ncu, whose metrics only the
        # agents read): only worth it when something is searched
        searching = proposer != "none" and (fuse or any(r is None for r in reasons.values()))
        prof = self.ev.profile(ncu=proposer == "agents") if searching else None
        profile_s = round(time.perf_counter() - t0, 2)
        order = [k.kernel for k in prof.hottest_first()] if prof is not None else None
        deadline = t0 + self.settings.problem_time_budget
        outcomes: list[KernelOutcome] = []
        for graph, name in iter_kernels(self.ev.graphs, order):
            kind = graph.kernels[name].kind
            reason = reasons[(graph.index, name)]
            if reason:
                outcomes.append(KernelOutcome(name, graph.index, kind, "skipped", proposer, note=reason))
                continue
            if proposer == "none":
                outcomes.append(KernelOutcome(name, graph.index, kind, "baseline_kept", "none",
                                              note="no proposer configured"))
                continue
            failed = next((o.error for o in outcomes if o.error), "")
            if failed:  # the proposer could not run (an unreachable LLM endpoint): not asked again per kernel
                outcomes.append(KernelOutcome(name, graph.index, kind, "skipped", proposer,
                                              note=f"not searched: the {proposer} could not run ({failed})"))
                continue
            if time.perf_counter() > deadline:
                outcomes.append(KernelOutcome(name, graph.index, kind, "skipped", proposer,
                                              note=f"problem time budget ({self.settings.problem_time_budget:.0f}s) "
                                                   "spent"))
                continue
            self.say(f"{self.name}: {name} ({kind}) with the {proposer}")
            if proposer == "agents":
                outcomes.append(self._agents(graph, name, prof))
            else:
                kp = prof.for_kernel(name) if prof is not None else None
                outcomes.append(self._tune(graph, name, min(deadline, time.perf_counter()
                                                            + self.settings.kernel_time_budget),
                                           kp.share if kp is not None else None))
        if fuse and not any(o.error for o in outcomes):
            outcomes.extend(self._fusions(prof, deadline, skip))
        outcomes, joint = self._joint(outcomes)
        note = "" if self.ev.measures_time else ("CPU backend: correctness verified, performance not measured; "
                                                 "nothing accepted for speed")
        if not searching and proposer != "none":
            note = "; ".join(filter(None, (note, "nothing to search: every kernel is in the cache")))
        return ProblemOutcome(self.name, self.ev.backend_name, proposer, outcomes, time.perf_counter() - t0,
                              joint, prof, note, measures_time=bool(self.ev.measures_time), profile_s=profile_s)

    # -- proposers -----------------------------------------------------------------------
    def _tune(self, graph: KernelGraph, name: str, deadline: float, share: float | None = None) -> KernelOutcome:
        kind = graph.kernels[name].kind
        s = self.settings
        phases: dict[str, float] = {}  # where the kernel's time went (a compile in a child process, timing, gates)
        clock = time.perf_counter()
        # an isolated judge's seconds by activity (isolate.SPENT), across the phases: their part of this kernel
        spent = dict(getattr(self.ev, "spent", None) or {})

        def lap(phase: str) -> None:
            nonlocal clock
            now = time.perf_counter()
            phases[phase] = round(phases.get(phase, 0.0) + now - clock, 2)
            clock = now
            for what, before in spent.items():
                # only an isolated judge has spent, and only then is there anything to loop over
                phases[what] = round(self.ev.spent.get(what, 0.0) - before, 2)  # type: ignore[attr-defined]

        if not self.ev.measures_time:
            # No timings: check that the tuner's path is sound on a couple of configs, accept nothing.
            cands = propose_configs(graph, name, limit=min(2, s.max_candidates))
            cands += [v.candidate(name, _baseline(v.trace)) for v in pipelined_variants(graph, name)[:1]]
            tried = [self.ev.evaluate(c) for c in cands]
            ok = sum(r.decision == "verified" for r in tried)
            lap("gates")
            return KernelOutcome(name, graph.index, kind, "baseline_kept", "tuner", tried=tried,
                                 note=f"{ok}/{len(tried)} configs verified correct; performance not measured",
                                 phases=phases)
        # round 1: Inductor's own list and the nearest configs; then coordinate descent around the best point.
        # A kernel whose whole share of the call cannot reach the bar gets round 1 only (time goes where it is).
        hopeless = share is not None and share < 1 - 1 / max(1.0, s.min_speedup)
        picks = [] if hopeless else self._autotune_picks(graph, name, deadline)
        lap("autotune_picks")
        variants = [] if hopeless else self._looped_variants(graph, name, deadline)
        variants += [] if hopeless else pipelined_variants(graph, name, variants)
        lap("looped_variants")
        found = search(graph, name, self.ev.rank, limit=8 if hopeless else max(s.max_candidates * 3, 8),
                       deadline=deadline, descent_rounds=0 if hopeless else 3, variants=variants, picks=picks)
        lap("screening")
        if not found.rounds:
            return KernelOutcome(name, graph.index, kind, "baseline_kept", "tuner",
                                 note="no launch configuration to search for this kernel kind", phases=phases)
        base_ms, cands = found.base_ms, [c for _, c in found.screened]
        # only candidates whose screening time already clears the acceptance bar get the full cascade: on the
        # H200, configs screened 1% faster almost never cleared a 1.02 lower bound, and gating them cost minutes
        ranked = found.faster_than(1 / max(1.0, s.min_speedup)) if base_ms else []
        tried = []
        best: tuple[CascadeResult, Candidate] | None = None
        for _, cand in ranked[: max(1, min(GATED_PER_KERNEL, s.max_candidates))]:
            if time.perf_counter() > deadline:
                break
            res = self.ev.evaluate(cand)
            tried.append(res)
            if res.accepted and (best is None or (res.speedup or 0) > (best[0].speedup or 0)):
                best = (res, cand)
        lap("gates")
        if base_ms is None:
            return KernelOutcome(name, graph.index, kind, "baseline_kept", "tuner",
                                 note="screening could not time the candidates (worker failure); baseline kept",
                                 phases=phases)
        rounds = (f" in {found.rounds} rounds ({found.descent_rounds} of coordinate descent)"
                  if found.rounds > 1 else "")
        pick_note = self._pick_note(found, picks)
        note = (f"{len(cands)} configs screened{rounds} (baseline {base_ms:.4f} ms), {len(ranked)} at least "
                f"{s.min_speedup:g}x faster, {len(tried)} gated{pick_note}"
                + ("; the kernel's share of the call cannot reach the bar: no descent" if hopeless else ""))
        if best is None:
            return KernelOutcome(name, graph.index, kind, "baseline_kept", "tuner", tried=tried, note=note,
                                 screened=len(cands), phases=phases)
        return KernelOutcome(name, graph.index, kind, "accepted", "tuner", best[1], best[0], tried, note,
                             screened=len(cands), phases=phases)

    def _pick_note(self, found: SearchResult, picks: list[dict[str, int]]) -> str:
        """What became of max-autotune's pick for the kernel, for the outcome's note."""
        if self.settings.compile_mode != "default":
            return ""
        pick = next(((r, c) for r, c in found.screened if c.description.startswith("max-autotune's pick")), None)
        if pick is not None:
            return (f"; max-autotune's pick screened at {1 / pick[0]:.3f}x" if pick[0]
                    else "; max-autotune's pick could not be timed")
        if picks:
            return "; max-autotune picks the baseline's own config"
        if self._tuned_graphs:
            return "; max-autotune's compile has no such kernel"
        return f"; max-autotune's picks not known ({self.autotune_note or 'no compile'})"

    def _autotune_picks(self, graph: KernelGraph, name: str, deadline: float) -> list[dict[str, int]]:
        """The launch config max-autotune's autotuner picks for this kernel, from a compile under
        :data:`~pytest_kernelopt.tuner.AUTOTUNE_OPTIONS` in a process of its own (once a run); none where the
        baseline already is max-autotune's compile (``compile_mode``)."""
        if self.settings.compile_mode != "default":
            return []
        if self._tuned_graphs is None:
            s = self.settings
            self._tuned_graphs, self.autotune_note = capture_variant_graphs(
                getattr(self.ev, "spec", None), backend=s.backend, training=s.training, options=AUTOTUNE_OPTIONS,
                timeout=min(180.0, max(0.0, deadline - time.perf_counter()) / 3))
        return autotune_picks(graph, name, self._tuned_graphs)

    def _looped_variants(self, graph: KernelGraph, name: str, deadline: float) -> list:
        """Inductor's looped reduction for a persistent one, from a second compile (in a process of its own,
        once a run, only when a persistent reduction is searched)."""
        if graph.kernels[name].kind != "persistent_reduction":
            return []
        if getattr(self, "_variant_graphs", None) is None:
            s = self.settings
            self._variant_graphs, self.variant_note = capture_variant_graphs(
                getattr(self.ev, "spec", None), backend=s.backend, training=s.training,
                timeout=min(120.0, max(0.0, deadline - time.perf_counter()) / 3), mode=s.torch_compile_mode)
        return looped_variants(graph, name, self._variant_graphs)

    def _agents(self, graph: KernelGraph, name: str, prof: ModuleProfile | None) -> KernelOutcome:
        kind = graph.kernels[name].kind
        if self.agent_factory is None:
            return KernelOutcome(name, graph.index, kind, "baseline_kept", "agents", note="no agent configured")
        agent = self.agent_factory()
        assert prof is not None  # run() profiles the module before it searches any kernel
        kp = prof.for_kernel(name)
        profile = kp.__dict__ if kp is not None else {"note": prof.note}
        out = agent.optimize_kernel(graph, name, profile, prof.hardware)
        results = out.results
        if out.candidate is not None and out.result is not None and out.result.accepted:
            return KernelOutcome(name, graph.index, kind, "accepted", "agents", out.candidate, out.result, results,
                                 out.note)
        error = out.model_error
        # the model could not be reached before any candidate was judged: the kernel was not searched
        return KernelOutcome(name, graph.index, kind, "skipped" if error and not results else "baseline_kept",
                             "agents", tried=results, note=out.note or "no candidate passed every gate", error=error)

    def _fusions(self, prof: ModuleProfile | None, deadline: float,
                 skip: Callable[[KernelGraph, str], str | None] | None) -> list[KernelOutcome]:
        """The fusion specialist: one kernel for each contiguous run of Triton launches (agents only)."""
        if self.agent_factory is None:
            return []
        assert prof is not None  # run() profiles the module before it fuses
        out: list[KernelOutcome] = []
        for graph in self.ev.graphs:
            for run in graph.contiguous_runs():
                label = "+".join(run)
                if time.perf_counter() > deadline:
                    out.append(KernelOutcome(label, graph.index, "fusion", "skipped", "agents",
                                             note="problem time budget spent"))
                    continue
                if skip is not None and skip(graph, label):
                    continue
                self.say(f"{self.name}: fusing {len(run)} kernels ({label[:60]}) with the agents")
                res = self.agent_factory().optimize_fusion(graph, run, {"note": prof.note}, prof.hardware)
                if res.candidate is not None and res.result is not None and res.result.accepted:
                    out.append(KernelOutcome(label, graph.index, "fusion", "accepted", "agents", res.candidate,
                                             res.result, res.results, res.note))
                else:
                    out.append(KernelOutcome(label, graph.index, "fusion", "baseline_kept", "agents",
                                             tried=res.results, note=res.note or "no fused kernel passed every gate",
                                             error=res.model_error))
                    if out[-1].error:  # the model could not be reached: the other runs are not tried
                        return out
        return out

    # -- combination ---------------------------------------------------------------------
    def _joint(self, outcomes: list[KernelOutcome]) -> tuple[list[KernelOutcome], CascadeResult | None]:
        """Winners of several kernels checked together; when the combination fails only the best one stays (the
        others become baseline_kept in the list returned)."""
        winners = [o for o in outcomes if o.decision == "accepted" and o.winner is not None]
        if len(winners) < 2:
            return outcomes, None
        self.say(f"{self.name}: checking {len(winners)} accepted kernels together")
        joint = self.ev.evaluate([o.winner for o in winners if o.winner is not None])  # all are (above)
        if joint.accepted:
            return outcomes, joint
        best = max(winners, key=lambda o: o.speedup or 0.0)
        dropped = f"; dropped: the combination with other winners failed ({joint.reason})"
        return [dataclasses.replace(o, decision="baseline_kept", note=o.note + dropped)
                if o is not best and any(o is w for w in winners) else o for o in outcomes], joint
