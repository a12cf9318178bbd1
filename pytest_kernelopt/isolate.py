"""Evaluate candidates in a separate process, so a bad kernel costs one candidate, never the session.

A worker process captures the module once and then judges candidates sent to
it over a pipe, reporting which gate it is in.  If the worker dies (segfault,
illegal memory access, out of memory) or a candidate runs past the timeout,
the candidate is rejected with that reason and the gate it was in, the worker
is killed, and a fresh one is started for the next candidate.
"""

from __future__ import annotations

import multiprocessing as mp
import signal
import time
import traceback
from dataclasses import dataclass
from typing import Any, Callable

from .candidate import Candidate
from .config import Settings
from .gates.results import CascadeResult, GateResult
from .problems import ProblemSpec

ProgressFn = Callable[[str], None]


def _worker_main(conn: Any, spec: ProblemSpec, settings: Settings) -> None:
    try:
        from .backends import prepare, select_backend

        prepare(settings.backend)
        backend = select_backend(settings.backend)
        from .gates.cascade import EvaluationSession
        from .problems import build_problem

        problem = build_problem(spec, backend.device, settings.base_seed)
        session = EvaluationSession(problem, settings, backend)
        conn.send(("ready", session.captured.summary()))
    except BaseException as e:  # report why the worker could not start, then exit
        conn.send(("error", f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=5)}"))
        return
    while True:
        try:
            msg = conn.recv()
        except EOFError:
            return
        if msg is None:
            return
        cand = Candidate.from_json(msg)
        try:
            result = session.evaluate(cand, progress=lambda stage: conn.send(("progress", stage)))
            conn.send(("result", result.to_json()))
        except BaseException as e:
            conn.send(("crash", f"{type(e).__name__}: {e}"))


@dataclass
class WorkerInfo:
    summary: str
    started: float


class IsolatedEvaluator:
    """Judges candidates for one problem in a worker process with a per-candidate timeout."""

    def __init__(self, spec: ProblemSpec, settings: Settings, *, start_timeout: float | None = None) -> None:
        self.spec = spec
        self.settings = settings
        self.start_timeout = start_timeout or max(600.0, settings.timeout)
        self._ctx = mp.get_context("spawn")
        self._proc: Any = None
        self._conn: Any = None
        self.info: WorkerInfo | None = None
        self.restarts = 0

    # -- worker lifecycle ----------------------------------------------------------------
    def _start(self) -> None:
        parent, child = self._ctx.Pipe()
        proc = self._ctx.Process(target=_worker_main, args=(child, self.spec, self.settings), daemon=True)
        proc.start()
        child.close()
        if not parent.poll(self.start_timeout):
            proc.kill()
            raise RuntimeError(f"evaluation worker for {self.spec.name} did not start within {self.start_timeout:.0f}s")
        try:
            kind, payload = parent.recv()
        except EOFError:
            proc.join(5)
            raise RuntimeError(f"evaluation worker for {self.spec.name} died while starting "
                               f"({_describe_exit(proc.exitcode)})") from None
        if kind != "ready":
            proc.join(5)
            raise RuntimeError(f"evaluation worker for {self.spec.name} failed to start: {payload}")
        self._proc, self._conn = proc, parent
        self.info = WorkerInfo(payload, time.time())

    def _kill(self) -> None:
        if self._proc is not None:
            if self._proc.is_alive():
                self._proc.kill()
            self._proc.join(10)
        self._proc = self._conn = None

    def close(self) -> None:
        if self._conn is not None:
            try:
                self._conn.send(None)
            except (BrokenPipeError, OSError):
                pass
        if self._proc is not None:
            self._proc.join(10)
        self._kill()

    def __enter__(self) -> "IsolatedEvaluator":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- evaluation ----------------------------------------------------------------------
    def evaluate(self, candidate: Candidate, progress: ProgressFn | None = None) -> CascadeResult:
        if self._proc is None or not self._proc.is_alive():
            if self._proc is not None:
                self.restarts += 1
            self._start()
        t0 = time.perf_counter()
        gate = "static"
        self._conn.send(candidate.to_json())
        deadline = t0 + self.settings.timeout
        while True:
            remaining = deadline - time.perf_counter()
            if remaining <= 0 or not self._conn.poll(min(remaining, 1.0)):
                if remaining <= 0:
                    self._kill()
                    return self._rejected(candidate, gate, f"timed out after {self.settings.timeout:.0f}s in the "
                                          f"{gate} gate (hang or runaway kernel); worker restarted", t0)
                if not self._proc.is_alive():
                    code = self._proc.exitcode
                    self._kill()
                    return self._rejected(candidate, gate, f"the evaluation process died in the {gate} gate "
                                          f"({_describe_exit(code)}); worker restarted", t0)
                continue
            try:
                kind, payload = self._conn.recv()
            except (EOFError, ConnectionResetError):
                self._proc.join(5)
                code = self._proc.exitcode
                self._kill()
                return self._rejected(candidate, gate, f"the evaluation process died in the {gate} gate "
                                      f"({_describe_exit(code)}); worker restarted", t0)
            if kind == "progress":
                gate = payload.split(":", 1)[1]
                if progress:
                    progress(payload)
            elif kind == "result":
                return CascadeResult.from_json(payload)
            elif kind == "crash":
                self._kill()
                return self._rejected(candidate, gate, f"evaluation raised {payload}", t0)

    def _rejected(self, cand: Candidate, gate: str, reason: str, t0: float) -> CascadeResult:
        gates = [GateResult(g, "pass", "passed before the crash") for g in _before(gate)]
        gates.append(GateResult(gate, "fail", reason, {"isolated": True}))
        return CascadeResult(tuple(cand.replaces), cand.content_hash, tuple(gates), "rejected", cand.origin,
                             time.perf_counter() - t0)


def _before(gate: str) -> list[str]:
    order = ["static", "correctness", "fp64", "performance"]
    return order[: order.index(gate)] if gate in order else []


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "still running"
    if code < 0:
        try:
            return f"killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"
