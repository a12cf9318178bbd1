"""Evaluate candidates in a separate process, so a bad kernel costs one candidate, never the session.

A worker process captures the module once and then judges candidates sent to
it over a pipe, reporting which gate it is in.  If the worker dies (segfault,
illegal memory access, out of memory) or a candidate runs past the timeout,
the candidate is rejected with that reason and the gate it was in, the worker
is killed, and a fresh one is started for the next candidate.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import time
import traceback
from dataclasses import dataclass
from typing import Any, Callable

from .candidate import Candidate
from .config import Settings
from .gates.results import CascadeResult, GateResult
from .problems import ProblemSpec, input_signature

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
        conn.send(("ready", {"summary": session.captured.summary(), "graphs": session.captured.graphs,
                             "inputs": input_signature(problem.example_inputs),
                             "backend": backend.name, "measures_time": backend.measures_time,
                             "description": backend.description}))
    except BaseException as e:  # report why the worker could not start, then exit
        conn.send(("error", f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=5)}"))
        return
    while True:
        try:
            msg = conn.recv()
        except EOFError:
            return
        if msg is None:
            os._exit(0)  # nothing to flush; a normal interpreter shutdown takes seconds with torch loaded
        op, payload = msg
        try:
            if op == "evaluate":
                cands = [Candidate.from_json(c) for c in payload["candidates"]]
                value = session.evaluate(cands if len(cands) > 1 else cands[0], perf=payload.get("perf", True),
                                         seeds=payload.get("seeds"), aot=payload.get("aot", True),
                                         progress=lambda stage: conn.send(("progress", stage))).to_json()
            elif op == "rank":
                value = session.rank([Candidate.from_json(c) for c in payload])
            elif op == "profile":
                from .profile import profile_module

                value = profile_module(session)
            else:
                raise ValueError(f"unknown request {op!r}")
            reply = ("result", value)
        except BaseException as e:
            reply = ("crash", f"{type(e).__name__}: {e}")
        if _device_healthy():
            conn.send(reply)
            continue
        # an illegal memory access leaves the CUDA context unusable: every later candidate would fail for the
        # previous one's fault, so this worker answers, says it is ending, and the next request starts afresh
        conn.send(("exit_after",) + reply)
        os._exit(3)


def _device_healthy() -> bool:
    import sys

    torch = sys.modules.get("torch")
    if torch is None or not torch.cuda.is_available() or not torch.cuda.is_initialized():
        return True
    try:
        torch.cuda.synchronize()
        torch.empty(1, device="cuda").add_(1).item()
        return True
    except Exception:
        return False


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
        self._ready: dict = {}
        self._started = False
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
        self._ready = payload
        self.info = WorkerInfo(payload["summary"], time.time())

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

    # -- the Evaluator protocol ----------------------------------------------------------
    def _ensure(self) -> None:
        if self._proc is None or not self._proc.is_alive():
            if self._started:
                self.restarts += 1
            self._start()
            self._started = True

    @property
    def graphs(self):
        self._ensure()
        return self._ready["graphs"]

    @property
    def inputs(self) -> list:
        self._ensure()
        return self._ready["inputs"]

    @property
    def backend_name(self) -> str:
        self._ensure()
        return self._ready["backend"]

    @property
    def measures_time(self) -> bool:
        self._ensure()
        return self._ready["measures_time"]

    def _request(self, op: str, payload: Any, timeout: float, progress: ProgressFn | None = None):
        """Send one request; returns ("result", value) or ("died"/"timeout"/"crash", reason, last_stage)."""
        self._ensure()
        self._conn.send((op, payload))
        stage = ""
        deadline = time.perf_counter() + timeout
        while True:
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                self._kill()
                return ("timeout", f"timed out after {timeout:.0f}s", stage)
            if not self._conn.poll(min(remaining, 1.0)):
                if not self._proc.is_alive():
                    code = self._proc.exitcode
                    self._kill()
                    return ("died", f"the evaluation process died ({_describe_exit(code)})", stage)
                continue
            try:
                msg = self._conn.recv()
                kind, value = msg[0], (msg[1:] if msg[0] == "exit_after" else msg[1])
            except (EOFError, ConnectionResetError):
                self._proc.join(5)
                code = self._proc.exitcode
                self._kill()
                return ("died", f"the evaluation process died ({_describe_exit(code)})", stage)
            if kind == "exit_after":  # the worker answered and is ending (its CUDA context is broken)
                kind, value = value
                self._proc.join(10)
                self._kill()
            if kind == "progress":
                stage = value
                if progress:
                    progress(value)
            elif kind == "result":
                return ("result", value, stage)
            else:
                self._kill()
                return ("crash", f"evaluation raised {value}", stage)

    def evaluate(self, candidate: Candidate | list[Candidate], perf: bool = True, seeds: int | None = None,
                 aot: bool = True, progress: ProgressFn | None = None) -> CascadeResult:
        cands = [candidate] if isinstance(candidate, Candidate) else list(candidate)
        t0 = time.perf_counter()
        kind, value, stage = self._request("evaluate", {"candidates": [c.to_json() for c in cands], "perf": perf,
                                                        "seeds": seeds, "aot": aot},
                                           self.settings.timeout, progress)
        if kind == "result":
            return CascadeResult.from_json(value)
        gate = stage.split(":", 1)[1] if stage else "static"
        extra = " (hang or runaway kernel)" if kind == "timeout" else ""
        return self._rejected(cands, gate, f"{value} in the {gate} gate{extra}; worker restarted", t0)

    def rank(self, candidates):
        kind, value, _ = self._request("rank", [c.to_json() for c in candidates], self.settings.timeout)
        if kind == "result":
            return value
        return None, [None] * len(candidates)

    def profile(self):
        kind, value, _ = self._request("profile", None, self.settings.timeout)
        if kind != "result":
            raise RuntimeError(f"profiling failed: {value}")
        return value

    def _rejected(self, cands: list[Candidate], gate: str, reason: str, t0: float) -> CascadeResult:
        gates = [GateResult(g, "pass", "passed before the crash") for g in _before(gate)]
        gates.append(GateResult(gate, "fail", reason, {"isolated": True}))
        return CascadeResult(tuple(n for c in cands for n in c.replaces), cands[0].content_hash, tuple(gates),
                             "rejected", cands[0].origin, time.perf_counter() - t0)


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
