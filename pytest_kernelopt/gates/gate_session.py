"""The session as the gates' calls see it: what a call, a probe, a loop or a collection reads from it.

:class:`GateSession` is the protocol :class:`pytest_kernelopt.gates.cascade.EvaluationSession` fulfils (it is
defined here, below the modules that run calls, so that they can name its type without importing the cascade
above them).  :func:`target_for` is the state a gate call on a seed starts from.
"""

from __future__ import annotations

from typing import Any, Protocol

from ..backends import Backend
from ..capture import CapturedModule
from ..config import Settings
from ..problems import Problem
from .module_state import ModuleState
from .seed_plan import SeedPlan
from .trial_records import BaselineRecord


class GateSession(Protocol):
    """One captured module being judged: its problem, settings, backend, compiled module and seed plan, the module's
    state (found once, put back before every call), and each seed's inputs."""

    settings: Settings
    backend: Backend
    problem: Problem
    #: the user's module (an ``nn.Module``, or any callable a problem file builds)
    module: Any
    training: bool
    captured: CapturedModule
    plan: SeedPlan
    state: ModuleState
    #: the float64 copy of the module (or one in its own precision on another device) and its own ModuleState, by
    #: key (:mod:`.fp64_place`)
    fp64_modules: dict[str, Any]

    def inputs(self, seed: int) -> tuple:
        """The inputs of ``seed`` at its magnitude and structure (every run clones them)."""
        ...

    def baseline_record(self, plan: SeedPlan | None = None) -> BaselineRecord:
        """The baseline and the float64 truth on the seeds of ``plan`` (default: the session's)."""
        ...

    def find_counters(self, seed: int) -> None:
        """Which integer scalars of the state are counters the varied seed advances (once)."""
        ...


def target_for(session: GateSession, seed: int) -> dict[str, Any] | None:
    """The state a gate call on ``seed`` starts from: the varied one on the plan's varied-state seed, else None
    (the state as the session found it)."""
    plan = getattr(session, "plan", None)
    if plan is None:
        return None
    if not (plan.varied_state(seed) or plan.far_counters(seed)):
        return None
    if session.state.counters is None and hasattr(session, "find_counters"):
        session.find_counters(seed)
    if plan.varied_state(seed):
        return session.state.varied(seed)
    return session.state.far(seed) if session.state.far_counters else None
