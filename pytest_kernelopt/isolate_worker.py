"""The isolated judge's worker: a process that captures the module and collects records for its parent.

A worker is spawned by :class:`pytest_kernelopt.isolate.IsolatedEvaluator` and runs :func:`worker_main`: it
imports what every worker imports (a spare does this while another worker judges), waits for its parent's go,
builds the problem and captures the module, then answers requests (:data:`~.isolate_protocol.REQUESTS`), one
handler each (:data:`HANDLERS`), until its parent ends it.  It never judges: it sends records
(:mod:`pytest_kernelopt.gates.trial_records`), as data (:mod:`pytest_kernelopt.wire`), and the parent decides.
What the messages are and in which order: :mod:`pytest_kernelopt.isolate_protocol`.
"""

from __future__ import annotations

import contextlib
import os
import time
import traceback
from typing import Any, Callable

from . import wire
from .backends import prepare, select_backend
from .candidate import Candidate
from .config import Settings
from .errors import USER_ERRORS, BaselineRunError
from .gates.cascade import EvaluationSession, static_gate_result
from .gates.digests import records_on_device, release_device_memory
from .gates.provenance import FREE_FORM
from .gates.seed_plan import SeedPlan
from .gates.trials import collect_baseline, collect_candidate, collect_timing, collect_truths, device_peak
from .isolate_protocol import (
    BASELINE,
    BASELINE_RUN,
    CAND_AGAIN,
    CAND_RUN,
    CRASH,
    ERROR,
    IMPORTED,
    JUDGE,
    LOAD_FAILED,
    MORE,
    PROFILE,
    PROGRESS,
    RANK,
    READY,
    RESULT,
    RUN_ERROR,
    RUNS,
    STATIC,
    TIME,
    TIMED_LAST,
    TIMING,
    TRIAL,
    TRUTH,
    TRUTHS,
)
from .problems import ProblemSpec, build_problem
from .profile import profile_module
from .substitute import KernelSwap

Send = Callable[[str, Any], None]
#: a request's handler: (the pipe, send, the worker's session, the request's payload)
Handler = Callable[[Any, Send, EvaluationSession, Any], None]


def _preimport() -> None:
    """What every worker imports before it can capture, done before the parent's go (no CUDA context yet).  Lazy:
    torch and triton are imported only after :func:`~pytest_kernelopt.backends.prepare` has set the environment
    they read at import (``TRITON_INTERPRET`` on the CPU backend)."""
    import torch  # noqa: F401
    import torch._inductor.compile_fx  # noqa: F401
    import triton  # noqa: F401


def worker_main(conn: Any, spec: ProblemSpec, settings: Settings, plan: SeedPlan) -> None:
    """The worker's life: imports, the parent's go, the capture, then requests until told to end."""
    def send(kind: str, value: Any = None) -> None:
        wire.send(conn, (kind, value))

    try:
        prepare(settings.backend)
        _preimport()
    except BaseException as e:  # noqa: BLE001 -- said after the parent's go, which it reads as a failed start
        send(ERROR, f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=5)}")
        return
    # A spare worker imports while another judges, and touches no GPU until the parent says go: its start then
    # costs the capture only (the imports were ~5 s of every worker's start on the H200's host).  It says when
    # its imports are done: the problem's time limit (start_timeout) counts from the go, not from the spawn.
    send(IMPORTED)
    try:
        go = conn.recv()
    except EOFError:
        return
    if go is None:
        os._exit(0)
    # the parent takes GPU tensors as device frames (it copies them on the device): the baseline's runs and the
    # float64 truths, recorded before any candidate is loaded, are then kept on the device until sent
    wire.allow_device_frames(bool(isinstance(go, tuple) and len(go) == 2 and isinstance(go[1], dict)
                                  and go[1].get("device_frames")))
    try:
        backend = select_backend(settings.backend)
        problem = build_problem(spec, backend.device, settings.base_seed or 0)
        session = EvaluationSession(problem, settings, backend, plan=plan)
        send(READY, {"summary": session.captured.summary(), "graphs": session.captured.graphs,
                     "inputs": problem.signature(), "backend": backend.name,
                     "measures_time": backend.measures_time, "description": backend.description})
    except BaseException as e:  # report why the worker could not start, then exit
        # the user's own error (the module raises, not a problem file) says all in its message: no worker frames
        send(ERROR, f"{type(e).__name__}: {e}" if isinstance(e, USER_ERRORS) else
             f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=5)}")
        return
    while True:
        try:
            msg = conn.recv()  # from the parent (trusted)
        except EOFError:
            return
        if msg is None:
            os._exit(0)  # nothing to flush; a normal interpreter shutdown takes seconds with torch loaded
        op, payload = msg
        try:
            handler = HANDLERS.get(op)
            if handler is None:
                raise ValueError(f"unknown request {op!r}")
            handler(conn, send, session, payload)
        except BaseException as e:
            # the baseline failing (out of memory) is the run's error; it happens before any candidate is loaded
            send(RUN_ERROR if isinstance(e, BaselineRunError) else CRASH, f"{type(e).__name__}: {str(e)[:1000]}")
        if not _device_healthy():
            # an illegal memory access leaves the CUDA context unusable: this worker ends
            os._exit(3)


def _sent_from_device() -> Any:
    """Within the block, the runs this worker records stay on the device until sent, where the parent takes device
    frames (:func:`pytest_kernelopt.wire.allow_device_frames`): only for what is recorded before any candidate is
    loaded here, and each is copied by the parent before this worker runs anything else."""
    return records_on_device() if wire.device_frames_allowed() else contextlib.nullcontext()


def _truths(conn: Any, send: Send, session: EvaluationSession, payload: Any) -> None:
    """Each seed's float64 truth as its own message (one seed's tensors at a time here), then the record."""
    session.drop_records()  # what a judgement here kept on the device: the truth runs where it has room
    plan = session.plan.only(payload["seeds"]) if payload else session.plan
    with _sent_from_device():
        rec = collect_truths(session, plan, emit=lambda seed, run, error: send(
            TRUTH, {"seed": seed, "run": run, "error": error}))
    release_device_memory()  # the truths the parent copied: their memory back, for its copies and the next runs
    send(RESULT, rec)


def _trial(conn: Any, send: Send, session: EvaluationSession, payload: dict) -> None:
    """One candidate (or a joint set): compile, run on the plan's seeds with the checks its class needs
    (``provenance``, :mod:`.gates.provenance`: the parent's judgement), and time when the parent says so."""
    cands = [Candidate.from_json(c) for c in payload["candidates"]]
    session.drop_records()  # what a judgement here kept on the device: the candidate's runs need the room
    plan = session.plan.trimmed(payload.get("seeds"), payload.get("timing_sets"))
    if payload.get("round"):  # a round of the plan (the judge's memory holds no more seeds' records at once)
        plan = session.plan.only(payload["round"], timing_sets=int(payload.get("timing_sets") or 0))
    truths = None
    if payload.get("truths"):  # the round's float64 truths too, before any candidate is loaded here
        with _sent_from_device():
            truths = collect_truths(session, plan, emit=lambda seed, run, error: send(
                TRUTH, {"seed": seed, "run": run, "error": error}))
        release_device_memory()  # the truths the parent copied: their memory back before the baseline runs
    # this process's own baseline, recorded and sent before the candidate is loaded: Inductor autotunes each
    # process anew, so a baseline from another process can differ from this one in kernels nobody replaced.
    # Every run is its own message, sent as soon as it is recorded: one seed's tensors at a time here.  A worker
    # that judged a candidate of a class that leaves it clean has sent its baseline before: the parent keeps it
    if payload.get("baseline", True):
        t0 = time.perf_counter()
        with _sent_from_device():
            base = collect_baseline(session, plan, truths=False,
                                    emit=lambda seed, run: send(BASELINE_RUN, (seed, run)))
        base.seconds["runs"] = round(time.perf_counter() - t0, 4)
        if truths is not None:
            base.truth_memory, base.seconds["truths"] = truths.truth_memory, truths.seconds.get("truths", 0.0)
        send(BASELINE, base)
    release_device_memory()  # the runs the parent copied: their memory back to the device, for the parent's copies
    send(PROGRESS, "gate:static")
    statics = [static_gate_result(c, session.captured, session.backend, payload.get("aot", True)) for c in cands]
    send(STATIC, statics)
    if not all(g.passed for g in statics):
        return
    send(PROGRESS, "gate:correctness")
    try:
        swap = KernelSwap(session.captured, cands)
    except Exception as e:  # noqa: BLE001
        send(LOAD_FAILED, f"{type(e).__name__}: {str(e)[:1000]}")
        return
    # each seed's run handed over as a device frame as soon as its call returns, where the parent takes them: the
    # parent has copied it before the candidate runs again
    send(RUNS, collect_candidate(session, swap, plan, emit=lambda seed, run: send(CAND_RUN, (seed, run)),
                                 provenance=payload.get("provenance", FREE_FORM),
                                 skip=tuple(payload.get("skip", ())),
                                 emit_on_device=wire.device_frames_allowed(),
                                 emit_again=lambda run: send(CAND_AGAIN, run)))
    if conn.recv() != TIME:
        return
    send(PROGRESS, "gate:performance")
    samples = None
    # where the parent takes device frames, the candidate's last output on each timing set goes over as soon as its
    # call returns (the parent copies it before the candidate runs again): no host copy, judged on the device
    emit_last = ((lambda seed, out: send(TIMED_LAST, (seed, out))) if wire.device_frames_allowed() else None)
    while True:  # a round of timing, and more while the parent's sequential gate is undecided
        timing, outs = collect_timing(session, swap, plan, samples, emit_last)
        send(TIMING, {"timing": timing, "outs": outs, "device_peak_bytes": device_peak()})
        reply = conn.recv()
        if not (isinstance(reply, tuple) and len(reply) == 2 and reply[0] == MORE):
            return
        samples = int(reply[1])


def _judge(conn: Any, send: Send, session: EvaluationSession, payload: dict) -> None:
    """A candidate that carries no code of its own, judged here: the whole cascade in this process, its records
    kept where they are made (on a GPU, the device: nothing copied to the host or sent to the parent), the
    baseline's runs and float64 truths kept for the next such candidate where they fit beside it; where they do
    not, every seed is judged in rounds (:meth:`.gates.cascade.EvaluationSession.seeds_per_round`)."""
    cands = [Candidate.from_json(c) for c in payload["candidates"]]
    seeds = payload.get("seeds")
    with records_on_device():
        result = session.evaluate(cands, lambda msg: send(PROGRESS, msg), perf=bool(payload.get("perf", True)),
                                  seeds=seeds, aot=bool(payload.get("aot", True)))
    corr = result.gate("correctness")
    if corr is not None:
        corr.numbers["judged_where"] = ("in the clean worker, its records kept where they were made "
                                        f"({session.round_note})")
    send(RESULT, result)


def _rank(conn: Any, send: Send, session: EvaluationSession, payload: Any) -> None:
    """The screening of candidates (JSON), timed interleaved; it decides nothing."""
    send(RESULT, session.rank([Candidate.from_json(c) for c in payload]))


def _profile(conn: Any, send: Send, session: EvaluationSession, payload: Any) -> None:
    """Where the module's time goes, per Triton kernel (and Nsight Compute's counters unless ``ncu`` is off)."""
    send(RESULT, profile_module(session, ncu=bool((payload or {}).get("ncu", True))))


#: one handler per request (:mod:`pytest_kernelopt.isolate_protocol`)
HANDLERS: dict[str, Handler] = {TRUTHS: _truths, TRIAL: _trial, JUDGE: _judge, RANK: _rank, PROFILE: _profile}


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
