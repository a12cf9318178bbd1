"""The four-gate cascade, run over one captured compiled module.

:class:`EvaluationSession` captures the module once and keeps what every
candidate is compared against (baseline outputs per seed, float64 truths), so
judging a candidate costs only its own runs.  Gates run in order and stop at
the first failure; every result carries its numbers.  ``decision`` is
``accepted`` only when the performance gate passed on a GPU; a CPU run can at
most say ``verified``.
"""

from __future__ import annotations

import copy
import hashlib
import time
from typing import Any, Callable, Sequence

from ..backends import Backend, select_backend
from ..candidate import Candidate
from ..capture import CapturedModule, capture
from ..config import Settings
from ..problems import Problem
from .compare import flatten
from .correctness import CorrectnessGate
from .fp64 import Fp64Gate
from .perf import PerfGate, rank_candidates
from .results import CascadeResult, GateResult
from .runner import RunResult, poisoned_allocations, run_once

ProgressFn = Callable[[str], None]


def _to_double(x: Any) -> Any:
    import torch

    if isinstance(x, torch.Tensor) and x.is_floating_point():
        return x.detach().double().requires_grad_(x.requires_grad)
    if isinstance(x, (list, tuple)):
        return type(x)(_to_double(v) for v in x)
    return x


# drawn inputs kept per session (the gates re-use a seed's inputs; a multi-GB problem keeps fewer seeds)
INPUT_CACHE_BYTES = 2 * 2**30


def _nbytes(inputs: tuple) -> int:
    return sum(x.numel() * x.element_size() for x in inputs if hasattr(x, "element_size"))


def static_gate_result(candidate: Candidate, captured: CapturedModule, backend: Backend,
                       aot: bool = True) -> GateResult:
    from .static import StaticGate

    graph, _ = captured.find(candidate.replaces[0])
    kernels = {n: graph.kernels[n] for n in candidate.replaces if n in graph.kernels}
    target: tuple | None = ("cuda", 90, 32)
    if not aot:
        target = None
    elif backend.name == "cuda":
        from ..backends.aot import gpu_target_of_current_device

        target = gpu_target_of_current_device()
    return StaticGate().check(candidate, kernels, compile_target=target)


class EvaluationSession:
    """Everything needed to judge candidates for one module, captured once."""

    def __init__(self, problem: Problem, settings: Settings, backend: Backend | str | None = None,
                 captured: CapturedModule | None = None) -> None:
        self.settings = settings
        self.backend = backend if isinstance(backend, Backend) else select_backend(backend or settings.backend)
        self.problem = problem
        self.module = problem.module
        self.training = settings.training
        self.captured = captured or capture(problem.module, problem.example_inputs, training=self.training,
                                            backend=self.backend)
        self._baseline: dict[int, RunResult] = {}
        self._truth: dict[int, RunResult] = {}
        self._fp64_module: Any = None
        self._seeds_override: int | None = None
        self._aot = True
        self._dtype_name: str | None = None
        self._drawn: dict[int, tuple] = {}  # seed -> inputs, oldest first, bounded by INPUT_CACHE_BYTES
        # nothing else runs here: a verify run whose module has no cached kernel pays for the capture alone

    @property
    def dtype_name(self) -> str:
        """The dtype of the first floating output of the baseline (the tolerance table's key)."""
        if self._dtype_name is None:
            self._dtype_name = "float32"
            for t in flatten(self.baseline_run(self.seeds()[0]).outputs):
                if hasattr(t, "is_floating_point") and t.is_floating_point():
                    self._dtype_name = str(t.dtype).replace("torch.", "")
                    break
        return self._dtype_name

    # -- what the gates compare against -------------------------------------------------
    def seeds(self) -> list[int]:
        n = self._seeds_override or self.settings.seeds
        return [self.settings.base_seed + i + 1 for i in range(n)]

    def inputs(self, seed: int) -> tuple:
        """The inputs of ``seed``, drawn once and kept while they fit (every run clones them first).

        Drawing is the problem's own ``get_inputs()`` and can take a second for a
        large problem; the gates ask for the same seed several times per candidate.
        """
        hit = self._drawn.get(seed)
        if hit is not None:
            return hit
        drawn = self.problem.draw_inputs(seed)
        size = _nbytes(drawn)
        if size <= INPUT_CACHE_BYTES:
            while self._drawn and size + sum(map(_nbytes, self._drawn.values())) > INPUT_CACHE_BYTES:
                self._drawn.pop(next(iter(self._drawn)))
            self._drawn[seed] = drawn
        return drawn

    def baseline_run(self, seed: int, fresh: bool = False) -> RunResult:
        if fresh or seed not in self._baseline:
            with poisoned_allocations(self.captured.namespaces):
                res = run_once(self.captured.compiled, self.module, self.inputs(seed), training=self.training,
                               seed=seed)
            if fresh:
                return res
            self._baseline[seed] = res
        return self._baseline[seed]

    def truth(self, seed: int) -> RunResult:
        """The original eager module in float64 on the same inputs."""
        if seed not in self._truth:
            if self._fp64_module is None:
                m = self.module
                self._fp64_module = copy.deepcopy(m).double() if hasattr(m, "double") else m
            self._truth[seed] = run_once(self._fp64_module, self._fp64_module, _to_double(self.inputs(seed)),
                                         training=self.training, seed=seed)
        return self._truth[seed]

    # -- the cascade ----------------------------------------------------------------------
    def evaluate(self, candidate: Candidate | Sequence[Candidate], progress: ProgressFn | None = None,
                 *, perf: bool = True, seeds: int | None = None, aot: bool = True) -> CascadeResult:
        """``seeds`` overrides the number of correctness seeds; ``aot=False`` skips the ahead-of-time compile
        in the static gate (for a cached kernel compiled on this very environment before: the correctness
        gate compiles it again anyway when it runs it)."""
        self._seeds_override = seeds
        self._aot = aot
        try:
            return self._evaluate(candidate, progress, perf=perf)
        finally:
            self._seeds_override = None

    def _evaluate(self, candidate: Candidate | Sequence[Candidate], progress: ProgressFn | None = None,
                  *, perf: bool = True) -> CascadeResult:
        """Run the cascade on one candidate, or on several together (the final joint check).

        ``perf=False`` stops after the float64 gate (used to screen candidates
        before timing them); such a result is never ``accepted``.
        """
        from ..substitute import KernelSwap

        cands = [candidate] if isinstance(candidate, Candidate) else list(candidate)
        say = progress or (lambda _msg: None)
        t0 = time.perf_counter()
        gates: list[GateResult] = []
        kernels = tuple(n for c in cands for n in c.replaces)
        chash = cands[0].content_hash if len(cands) == 1 else hashlib.sha256(
            "".join(c.content_hash for c in cands).encode()).hexdigest()
        origin = cands[0].origin if len(cands) == 1 else "joint"

        def done(decision: str) -> CascadeResult:
            return CascadeResult(kernels, chash, tuple(gates), decision, origin, time.perf_counter() - t0)

        say("gate:static")
        statics = [static_gate_result(c, self.captured, self.backend, self._aot) for c in cands]
        failed = next((g for g in statics if not g.passed), None)
        if failed is not None or len(statics) == 1:
            gates.append(failed or statics[0])
        else:
            gates.append(GateResult("static", "pass", f"all {len(statics)} candidates pass",
                                    {"candidates": len(statics)}))
        if not gates[-1].passed:
            return done("rejected")
        say("gate:correctness")
        try:
            swap = KernelSwap(self.captured, cands)
        except Exception as e:
            gates.append(GateResult("correctness", "fail", f"candidate could not be loaded: {type(e).__name__}: {e}"))
            return done("rejected")
        gates.append(CorrectnessGate().check(self, swap))
        if not gates[-1].passed:
            return done("rejected")
        say("gate:fp64")
        gates.append(Fp64Gate().check(self, swap, gates[-1]))
        if not gates[-1].passed:
            return done("rejected")
        if not perf:
            return done("verified")
        say("gate:performance")
        result = PerfGate().check(self, swap)
        gates.append(result)
        if result.status == "not_measured":
            return done("verified")
        return done("accepted" if result.passed else "rejected")

    def rank(self, candidates: Sequence[Candidate], samples: int = 10) -> tuple[float | None, list[float | None]]:
        """Quick interleaved timing of candidates against the baseline (ms; None = failed to load).

        Only a ranking aid for choosing which candidates get the full cascade;
        it decides nothing.  Without a GPU nothing is timed.
        """
        if not self.backend.measures_time:
            return None, [None] * len(candidates)
        return rank_candidates(self, candidates, samples)
