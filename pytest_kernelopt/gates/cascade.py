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
import time
from typing import Any, Callable

from ..backends import Backend, select_backend
from ..candidate import Candidate
from ..capture import CapturedModule, capture
from ..config import Settings
from ..problems import Problem
from .compare import flatten
from .correctness import CorrectnessGate
from .fp64 import Fp64Gate
from .perf import PerfGate
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


def static_gate_result(candidate: Candidate, captured: CapturedModule, backend: Backend) -> GateResult:
    from .static import StaticGate

    graph, _ = captured.find(candidate.replaces[0])
    kernels = {n: graph.kernels[n] for n in candidate.replaces if n in graph.kernels}
    target: tuple | None = ("cuda", 90, 32)
    if backend.name == "cuda":
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
        self.dtype_name = "float32"
        first = self.baseline_run(self.seeds()[0])
        for t in flatten(first.outputs):
            if hasattr(t, "is_floating_point") and t.is_floating_point():
                self.dtype_name = str(t.dtype).replace("torch.", "")
                break

    # -- what the gates compare against -------------------------------------------------
    def seeds(self) -> list[int]:
        return [self.settings.base_seed + i + 1 for i in range(self.settings.seeds)]

    def inputs(self, seed: int) -> tuple:
        return self.problem.draw_inputs(seed)

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
    def evaluate(self, candidate: Candidate, progress: ProgressFn | None = None) -> CascadeResult:
        from ..substitute import KernelSwap

        say = progress or (lambda _msg: None)
        t0 = time.perf_counter()
        gates: list[GateResult] = []

        def done(decision: str) -> CascadeResult:
            return CascadeResult(tuple(candidate.replaces), candidate.content_hash, tuple(gates), decision,
                                 candidate.origin, time.perf_counter() - t0)

        say("gate:static")
        gates.append(static_gate_result(candidate, self.captured, self.backend))
        if not gates[-1].passed:
            return done("rejected")
        say("gate:correctness")
        try:
            swap = KernelSwap(self.captured, [candidate])
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
        say("gate:performance")
        perf = PerfGate().check(self, swap)
        gates.append(perf)
        if perf.status == "not_measured":
            return done("verified")
        return done("accepted" if perf.passed else "rejected")
