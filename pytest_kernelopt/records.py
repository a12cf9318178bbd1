"""What a run records: each kernel's decision (:class:`KernelRecord`) and one module's run (:class:`RunRecord`),
the one JSON shape of a record (the pytest report and an xdist worker's results both use it), and the text of a
failed gate's numbers.  Plain data: nothing here imports torch."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from .config import Settings

if TYPE_CHECKING:
    from .candidate import Candidate
    from .gates.results import CascadeResult
    from .optimize import ProblemOutcome

# what happened to a kernel in a run (each value is one the workflow writes):
#   cached        a cache entry, re-verified here and applied
#   accepted      searched in this run and a candidate passed every gate (performance too, on a GPU)
#   baseline_kept searched (or decided so in the cache) and Inductor's kernel stays
#   skipped       not searched (the cache covers it, the budget ran out, the proposer could not run)
#   regression    a cached kernel failed its re-check (the test fails)
KernelDecision = Literal["cached", "accepted", "baseline_kept", "skipped", "regression"]
# the optimizer's decision for a kernel it was given (optimize.KernelOutcome)
SearchDecision = Literal["accepted", "baseline_kept", "skipped"]
# the cascade's decisions that let a candidate stand: "accepted" (every gate, performance included) and, on a
# machine that does not time, "verified" (gates 1-3)
PASSED = ("accepted", "verified")


def passed(result: CascadeResult) -> bool:
    """Whether a CascadeResult passed every gate that applies where it was judged."""
    return result.decision in PASSED


@dataclass
class KernelRecord:
    """What happened to one kernel in a test: from the cache, optimized, kept, or failed re-verification."""

    kernel: str
    graph: int
    kind: str
    decision: KernelDecision
    source: str  # cache | tuner | agents | baseline
    speedup: float | None = None
    ci: tuple[float, float] | None = None
    failed_gates: list[str] = field(default_factory=list)
    numbers: dict[str, Any] = field(default_factory=dict)
    note: str = ""
    phases: dict[str, float] = field(default_factory=dict)  # seconds per phase of the search (optimize mode)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "KernelRecord":
        return cls(**{**d, "ci": tuple(d["ci"]) if d.get("ci") else None})


@dataclass
class RunRecord:
    name: str
    backend: str
    mode: str
    kernels: list[KernelRecord]
    applied: list[Candidate]  # now in place in the compiled module
    regressions: list[str]
    seconds: float
    perf: dict[str, Any] | None = None
    proposer: str = ""
    outcome: ProblemOutcome | None = None  # the optimizer's, in optimize mode
    setup_seconds: float | None = None  # building the problem and capturing (compiling) it, before ``seconds``
    triton_kernels: int = 0  # Triton kernels in the compiled module (vendor calls not counted)
    # what has no cache entry: kernels, and contiguous runs of kernels (which only the agents' fusion searches)
    uncached: list[str] = field(default_factory=list)
    uncached_runs: list[str] = field(default_factory=list)
    untunable: list[str] = field(default_factory=list)  # uncached kernels the offline tuner has no config for
    ignored_entries: list[str] = field(default_factory=list)  # unusable cache entries ignored (path: why)
    proposer_errors: list[str] = field(default_factory=list)  # why the chosen proposer could not run (LLM errors)
    settings: dict[str, Any] | None = None  # the test's own settings (marker and fixture keywords applied)

    def left_to_search(self, proposer: str) -> int:
        """What an optimize run with ``proposer`` would search in this module (0: nothing, e.g. all cached)."""
        if proposer == "agents":
            return len(self.uncached) + len(self.uncached_runs)
        if proposer == "tuner":
            return len(self.uncached) - len(self.untunable)
        return 0

    # what a record is in JSON (the pytest report's tests, an xdist worker's results): every field but the
    # candidates in place and the optimizer's outcome (objects of this process)
    LOCAL_ONLY = ("applied", "outcome")

    def to_json(self) -> dict[str, Any]:
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name not in self.LOCAL_ONLY}
        d["kernels"] = [dataclasses.asdict(k) for k in self.kernels]
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "RunRecord":
        known = {f.name for f in dataclasses.fields(cls)} - set(cls.LOCAL_ONLY)
        return cls(**{k: v for k, v in d.items() if k in known and k != "kernels"},
                   kernels=[KernelRecord.from_json(k) for k in d["kernels"]], applied=[])


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
        failed, numbers={g.gate: g.numbers for g in shown.gates} if shown is not None else {}, note=note,
        phases=dict(getattr(k, "phases", None) or {}))


def numbers_text(result: CascadeResult, settings: Settings) -> str:
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


__all__ = ["KernelDecision", "KernelRecord", "PASSED", "RunRecord", "SearchDecision", "numbers_text",
           "outcome_record", "passed"]
