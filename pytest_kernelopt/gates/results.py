"""Result records of the gates and the cascade (frozen, JSON-serialisable)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

GateName = Literal["static", "correctness", "fp64", "performance"]
GATE_ORDER: tuple[GateName, ...] = ("static", "correctness", "fp64", "performance")
Status = Literal["pass", "fail", "not_run", "not_measured"]


@dataclass(frozen=True)
class GateResult:
    """One gate's verdict on one candidate, with the numbers behind it.

    ``status``: ``pass`` / ``fail``; ``not_run`` when the gate could not run
    here (it never counts as a pass); ``not_measured`` for the performance
    gate without a GPU.
    """

    gate: GateName
    status: Status
    reason: str = ""
    numbers: dict[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return self.status == "pass"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "GateResult":
        return cls(gate=d["gate"], status=d["status"], reason=d.get("reason", ""), numbers=dict(d.get("numbers", {})))


#: what the cascade decides for one candidate ("baseline_kept" is a search's outcome, records.SearchDecision, not a
#: verdict)
Decision = Literal["accepted", "rejected", "verified"]


@dataclass(frozen=True)
class CascadeResult:
    """The cascade's outcome for one candidate.

    ``accepted`` is True only when every gate that applies passed, including
    the performance gate on a GPU.  ``verified`` (correct, speed not measured)
    is what a CPU run can say; it never makes a kernel accepted for speed.
    """

    kernels: tuple[str, ...]
    candidate_hash: str
    gates: tuple[GateResult, ...]
    decision: Decision
    origin: str = "manual"
    seconds: float = 0.0

    @property
    def accepted(self) -> bool:
        return self.decision == "accepted"

    @property
    def failed_gate(self) -> GateResult | None:
        return next((g for g in self.gates if g.status == "fail"), None)

    def gate(self, name: str) -> GateResult | None:
        return next((g for g in self.gates if g.gate == name), None)

    @property
    def speedup(self) -> float | None:
        g = self.gate("performance")
        return g.numbers.get("speedup") if g is not None else None

    @property
    def reason(self) -> str:
        f = self.failed_gate
        if f is not None:
            return f"{f.gate}: {f.reason}"
        nr = next((g for g in self.gates if g.status in ("not_run", "not_measured")), None)
        return f"{nr.gate}: {nr.reason}" if nr is not None else ""

    def to_json(self) -> dict[str, Any]:
        return {"kernels": list(self.kernels), "candidate_hash": self.candidate_hash,
                "gates": [g.to_json() for g in self.gates], "decision": self.decision, "origin": self.origin,
                "seconds": self.seconds}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "CascadeResult":
        return cls(kernels=tuple(d["kernels"]), candidate_hash=d["candidate_hash"],
                   gates=tuple(GateResult.from_json(g) for g in d["gates"]), decision=d["decision"],
                   origin=d.get("origin", "manual"), seconds=float(d.get("seconds", 0.0)))


def stopped_in(gate: str, reason: str, candidates: Any, seconds: float, numbers: dict[str, Any]) -> CascadeResult:
    """The rejection of ``candidates`` (one or a joint set) whose judgement was stopped in ``gate`` (a worker that
    died or hung, an in-process time limit): the gates before it read "passed before the stop", ``gate`` fails
    with ``reason`` and ``numbers``."""
    order = list(GATE_ORDER)
    before = order[: order.index(gate)] if gate in order else []
    gates = [GateResult(g, "pass", "passed before the stop") for g in before]
    # gate is the stage a progress message named: a str, not narrowed to GateName
    gates.append(GateResult(gate, "fail", reason, dict(numbers)))  # type: ignore[arg-type]
    cands = list(candidates)
    return CascadeResult(tuple(n for c in cands for n in c.replaces), cands[0].content_hash, tuple(gates),
                         "rejected", cands[0].origin, seconds)
