"""The agent loop: analyst -> planner -> writer -> gates -> repairer ... until accepted or out of budget.

Control flow follows mini-swe-agent: the loop itself is a plain ``while True``
and every way out is an exception (:class:`Passed`, :class:`BudgetExhausted`,
:class:`ModelFailed`) caught in one place, which turns it into an
:class:`AgentOutcome`.  A malformed answer is a recorded attempt, never an
exception; the only coupling to the gates is the ``evaluate`` callback.

Every message, reply, usage, candidate and gate result goes to a JSON-lines
transcript per kernel (or fused run) under ``transcript_dir``.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from ..candidate import Candidate
from ..config import Settings
from ..gates.results import CascadeResult
from ..graph import KernelGraph, TritonKernel
from ..tuner import with_baseline_config
from .client import ChatModel, ChatReply, LLMRequestError, Usage
from .parsing import parse_reply
from .roles import (
    ANALYST,
    FUSION,
    PLANNER,
    REPAIRER,
    SUBMIT_TOOL,
    WRITER,
    Attempt,
    Role,
    contract,
    describe_feedback,
    fusion_context,
    kernel_context,
    render,
    repair_context,
)

Evaluate = Callable[[Candidate], CascadeResult]
SUCCESS = ("accepted", "verified")


class StopSearch(Exception):
    """Ends the search for one kernel or run; ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Passed(StopSearch):
    """A candidate passed every gate that applies here: the cascade accepted it, or, where nothing is timed (the
    CPU), verified it (gates 1-3); the outcome's ``decision`` is the cascade's."""

    def __init__(self, attempt: Attempt) -> None:
        super().__init__(attempt.result.decision if attempt.result else "accepted")
        self.attempt = attempt


class BudgetExhausted(StopSearch):
    """A candidate, turn, time or token budget ran out."""


class ModelFailed(StopSearch):
    """The model could not be reached (after retries) or refused the request."""


@dataclass
class AgentOutcome:
    """What the agents achieved for one kernel (or fused run)."""

    kernels: tuple[str, ...]
    decision: str  # accepted | verified | baseline_kept
    stop_reason: str
    candidate: Candidate | None = None
    result: CascadeResult | None = None
    attempts: list[Attempt] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    turns: int = 0
    seconds: float = 0.0
    transcript: Path | None = None
    model_error: str = ""  # the model failed (unreachable, refusing) before answering once in the run: no search

    @property
    def baseline_kept(self) -> bool:
        return self.decision == "baseline_kept"

    # the names pytest_kernelopt.optimize.Optimizer reads
    @property
    def winner(self) -> Candidate | None:
        return self.candidate

    @property
    def winner_result(self) -> CascadeResult | None:
        return self.result

    @property
    def results(self) -> list[CascadeResult]:
        """Every gate verdict of this search, in order (rejected answers have none)."""
        return [a.result for a in self.attempts if a.result is not None]

    @property
    def note(self) -> str:
        rejected = sum(a.rejection is not None for a in self.attempts)
        return (f"agents: {self.stop_reason}; {len(self.results)} candidate(s) judged, {rejected} answer(s) "
                f"rejected before the gates, {self.turns} turn(s), {self.usage.total_tokens} tokens")

    def to_json(self) -> dict[str, Any]:
        return {"kernels": list(self.kernels), "decision": self.decision, "stop_reason": self.stop_reason,
                "candidate": self.candidate.to_json() if self.candidate else None,
                "result": self.result.to_json() if self.result else None,
                "attempts": [a.to_json() for a in self.attempts], "usage": self.usage.to_json(),
                "turns": self.turns, "seconds": self.seconds,
                "transcript": str(self.transcript) if self.transcript else None}


class Transcript:
    """Append-only JSON lines; a no-op without a directory.  Bounded: an event longer than :attr:`MAX_LINE`
    characters is kept as its first :attr:`MAX_LINE` (``"truncated"`` says how long it was), and a transcript
    stops at :attr:`MAX_FILE` characters with one last ``transcript_full`` event (a 40 MB answer made one
    kernel's transcript 234 MB in three turns; an endpoint could fill the disk: tests/test_agents.py::
    test_a_transcript_is_bounded)."""

    MAX_LINE = 1 << 20
    MAX_FILE = 32 << 20

    def __init__(self, path: Path | None, clock: Callable[[], float]) -> None:
        self.path = path
        self._clock = clock
        self._t0 = clock()
        self._written = 0
        self._full = False
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)

    def log(self, event: str, **data: Any) -> None:
        if self.path is None or self._full:
            return
        t = round(self._clock() - self._t0, 3)
        line = json.dumps({"event": event, "t": t, **data}, default=str)
        if len(line) > self.MAX_LINE:
            line = json.dumps({"event": event, "t": t, "truncated": len(line), "head": line[: self.MAX_LINE]})
        if self._written + len(line) > self.MAX_FILE:
            self._full = True
            line = json.dumps({"event": "transcript_full", "t": t, "max_chars": self.MAX_FILE,
                               "note": "later events are not written"})
        self._written += len(line) + 1
        with self.path.open("a", encoding="utf-8") as f:
            f.write(line + "\n")


class AgentOptimizer:
    """Runs the five agents against ``model``, judging candidates with ``evaluate``.

    Budgets come from ``settings``: ``max_candidates`` (evaluated candidates),
    ``max_turns`` (model calls) and ``kernel_time_budget`` per kernel;
    ``run_time_budget`` and ``max_tokens`` over this optimizer's lifetime.
    ``kernel_max_tokens`` optionally caps the tokens of one kernel too.
    """

    def __init__(self, model: ChatModel, evaluate: Evaluate, settings: Settings = Settings(),
                 transcript_dir: str | Path | None = None, *, kernel_max_tokens: int | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.model = model
        self.evaluate = evaluate
        self.settings = settings
        self.transcript_dir = Path(transcript_dir) if transcript_dir is not None else None
        self.kernel_max_tokens = kernel_max_tokens
        self.clock = clock
        self.started = clock()
        self.usage = Usage()
        self.session = uuid.uuid4().hex[:12]
        self.replies = 0  # model answers received in this run (none: the model could not be used at all)

    # ------------------------------------------------------------------ public

    def optimize_kernel(self, graph: KernelGraph, kernel_name: str, profile: Mapping[str, Any] | None = None,
                        hardware: Mapping[str, Any] | None = None) -> AgentOutcome:
        """Search for a drop-in replacement of ``graph.kernels[kernel_name]``."""
        s = _Search(self, graph, (kernel_name,), f"g{graph.index}-{graph.role}-{kernel_name}")
        base = kernel_context(graph, kernel_name, profile, hardware)
        base["contract"] = contract(False, base)
        try:
            analysis = s.ask(ANALYST, base).content or "(no analysis)"
            plan = s.ask(PLANNER, {**base, "analysis": analysis, "feedback": s.feedback}).content or "(no plan)"
            s.submit(WRITER, {**base, "analysis": analysis, "plan": plan, "feedback": s.feedback})
            s.repair_until_done(base)
        except StopSearch as stop:
            return s.finish(stop)
        raise AssertionError("unreachable: the loop ends only by StopSearch")

    def optimize_fusion(self, graph: KernelGraph, run: Sequence[str], profile: Mapping[str, Any] | None = None,
                        hardware: Mapping[str, Any] | None = None) -> AgentOutcome:
        """Search for ONE kernel (with its own LaunchSpec) replacing a contiguous ``run`` of launches."""
        run = tuple(run)
        s = _Search(self, graph, run, f"g{graph.index}-{graph.role}-fusion-{run[0]}--{run[-1]}-{len(run)}")
        base = fusion_context(graph, run, profile, hardware)
        base["contract"] = contract(True, base)
        try:
            s.submit(FUSION, {**base, "feedback": s.feedback})
            s.repair_until_done(base)
        except StopSearch as stop:
            return s.finish(stop)
        raise AssertionError("unreachable: the loop ends only by StopSearch")


class _Search:
    """The state of one search: counters, the transcript, and the budget checks."""

    def __init__(self, opt: AgentOptimizer, graph: KernelGraph, kernels: tuple[str, ...], label: str) -> None:
        self.opt = opt
        self.graph = graph
        self.names = kernels
        self.kernels: list[TritonKernel] = [graph.kernels[n] for n in kernels]
        self.t0 = opt.clock()
        self.turns = 0
        self.candidates = 0
        self.usage = Usage()
        self.attempts: list[Attempt] = []
        self.last_answer = ""
        safe = re.sub(r"[^\w.-]+", "_", label)[:150]
        path = opt.transcript_dir / f"{safe}.jsonl" if opt.transcript_dir is not None else None
        self.transcript = Transcript(path, opt.clock)
        st = opt.settings
        self.transcript.log("start", session=opt.session, kernels=list(kernels), model=getattr(opt.model, "name", "?"),
                            budgets={"max_candidates": st.max_candidates, "max_turns": st.max_turns,
                                     "kernel_time_budget": st.kernel_time_budget, "run_time_budget": st.run_time_budget,
                                     "max_tokens": st.max_tokens, "kernel_max_tokens": opt.kernel_max_tokens})

    @property
    def feedback(self) -> str:
        return describe_feedback(self.attempts)

    def check_budgets(self, writes_code: bool) -> None:
        st = self.opt.settings
        if self.turns >= st.max_turns:
            raise BudgetExhausted(f"turn budget: {self.turns} of max_turns={st.max_turns} used")
        if writes_code and self.candidates >= st.max_candidates:
            raise BudgetExhausted(f"candidate budget: {self.candidates} of max_candidates={st.max_candidates} used")
        self.check_time()
        if self.opt.usage.total_tokens >= st.max_tokens:
            raise BudgetExhausted(f"token budget: {self.opt.usage.total_tokens} of max_tokens={st.max_tokens} "
                                  "used in this run")
        cap = self.opt.kernel_max_tokens
        if cap is not None and self.usage.total_tokens >= cap:
            raise BudgetExhausted(f"token budget: {self.usage.total_tokens} of kernel_max_tokens={cap} used")

    def check_time(self) -> None:
        st, now = self.opt.settings, self.opt.clock()
        if now - self.t0 >= st.kernel_time_budget:
            raise BudgetExhausted(f"time budget: kernel_time_budget={st.kernel_time_budget}s spent")
        if now - self.opt.started >= st.run_time_budget:
            raise BudgetExhausted(f"time budget: run_time_budget={st.run_time_budget}s spent")

    def ask(self, role: Role, context: Mapping[str, Any],
            tools: Sequence[Mapping[str, Any]] | None = None) -> ChatReply:
        """One model turn for ``role``; budget checked first, usage and transcript recorded."""
        self.check_budgets(role.writes_code)
        prompt = render(role, context)
        self.turns += 1
        self.transcript.log("request", turn=self.turns, role=role.name, template=role.template,
                            version=role.version, prompt_sha256=prompt.sha256, messages=prompt.messages,
                            tools=[t["function"]["name"] for t in tools or ()])
        try:
            reply = self.opt.model.complete(prompt.messages, tools=tools)
        except LLMRequestError as e:
            self.transcript.log("model_error", turn=self.turns, role=role.name, error=str(e), attempts=e.attempts)
            raise ModelFailed(f"model error: {e}") from e
        self.usage = self.usage + reply.usage
        self.opt.usage = self.opt.usage + reply.usage
        self.opt.replies += 1
        self.transcript.log("reply", turn=self.turns, role=role.name, reply=reply.to_json(),
                            usage_kernel=self.usage.to_json(), usage_run=self.opt.usage.to_json())
        return reply

    def submit(self, role: Role, context: Mapping[str, Any]) -> Attempt:
        """Ask ``role`` for a candidate, parse it and (unless rejected) evaluate it."""
        reply = self.ask(role, context, tools=[SUBMIT_TOOL])
        self.last_answer = reply.content or "\n".join(t.arguments for t in reply.tool_calls)
        parsed = parse_reply(reply, self.kernels, origin=f"agent:{role.name}")
        number, cand = len(self.attempts) + 1, parsed.candidate
        if cand is not None:  # no configs named: the baseline's own launch config, not the decorator's first
            cand = with_baseline_config(self.graph, cand)
        if cand is None:
            attempt = Attempt(number, role.name, None, rejection=parsed.rejection)
        elif (dup := next((a for a in self.attempts if a.candidate_hash == cand.content_hash), None)) is not None:
            attempt = Attempt(number, role.name, cand, rejection=f"duplicate of attempt {dup.number}, "
                                                                 "which was already judged; change something")
        else:
            self.check_time()  # time may have run out while the model answered
            self.transcript.log("candidate", attempt=number, hash=cand.content_hash, candidate=cand.to_json())
            self.candidates += 1
            result = self.opt.evaluate(cand)
            attempt = Attempt(number, role.name, cand, result=result)
        self.attempts.append(attempt)
        if attempt.rejection is not None:
            self.transcript.log("rejected", attempt=number, hash=attempt.candidate_hash, reason=attempt.rejection)
        else:
            assert attempt.result is not None  # an attempt without a rejection was judged
            self.transcript.log("result", attempt=number, hash=attempt.candidate_hash, result=attempt.result.to_json())
            if attempt.result.decision in SUCCESS:
                raise Passed(attempt)
        return attempt

    def repair_until_done(self, base: Mapping[str, Any]) -> None:
        """Feed the last failure to the repairer until a StopSearch ends the search."""
        while True:
            last = self.attempts[-1]
            ctx = repair_context({**base, "feedback": self.feedback}, last.candidate, last, self.last_answer)
            self.submit(REPAIRER, ctx)

    def finish(self, stop: StopSearch) -> AgentOutcome:
        best = stop.attempt if isinstance(stop, Passed) else None
        decision = best.result.decision if best is not None and best.result is not None else "baseline_kept"
        out = AgentOutcome(kernels=self.names, decision=decision, stop_reason=stop.reason,
                           candidate=best.candidate if best else None, result=best.result if best else None,
                           attempts=list(self.attempts), usage=self.usage, turns=self.turns,
                           seconds=self.opt.clock() - self.t0, transcript=self.transcript.path,
                           # the model failed before it had answered once in this run: the agents could not run
                           # (a later failure, after answers, ends this search only, as the note says)
                           model_error=stop.reason if isinstance(stop, ModelFailed) and not self.opt.replies else "")
        self.transcript.log("stop", decision=decision, reason=stop.reason, turns=self.turns,
                            candidates=self.candidates, usage=self.usage.to_json(),
                            candidate_hash=best.candidate_hash if best else None)
        return out
