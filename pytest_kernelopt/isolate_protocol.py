"""What the isolated judge's parent (:mod:`pytest_kernelopt.isolate`) and its workers
(:mod:`pytest_kernelopt.isolate_worker`) say to each other over their pipe.

A worker's messages are ``(kind, value)`` pairs encoded as data by :mod:`pytest_kernelopt.wire` (never pickles: the
parent trusts nothing a worker sends); the parent's go to the worker is pickled (the worker trusts its parent).

The exchange:

1. the worker starts, imports what every worker imports and says :data:`IMPORTED` (or :data:`ERROR`);
2. the parent sends ``(GO, {"device_frames": bool})`` (``None``: exit at once): whether the runs the worker records
   before loading any candidate go over as device frames (:mod:`pytest_kernelopt.device_frames`), each answered by
   the parent's :data:`pytest_kernelopt.wire.COPIED` once copied; the worker builds the problem, captures the module and
   says :data:`READY` with what the parent reads of it (or :data:`ERROR`);
3. the parent sends requests ``(op, payload)`` (``None``: exit): :data:`TRUTHS`, :data:`TRIAL`, :data:`JUDGE`,
   :data:`RANK`, :data:`PROFILE`.  Every request may be answered by :data:`PROGRESS` messages, and ends with
   :data:`RESULT`, or :data:`CRASH` (the request raised) or :data:`RUN_ERROR` (the baseline itself failed: the run's
   error);
4. a :data:`TRIAL` (one candidate, or a joint set) is a conversation: the worker sends (for a round of the plan past
   the first) :data:`TRUTH` per seed, :data:`BASELINE_RUN` per seed and :data:`BASELINE` (unless the payload's
   ``baseline`` is false: the parent kept this worker's from an earlier trial), then :data:`STATIC`, then (or
   :data:`LOAD_FAILED`) :data:`CAND_RUN` per seed (with device frames, the first seed's followed by
   :data:`CAND_AGAIN`) and :data:`RUNS`; the parent judges gates 2 and 3 and answers
   :data:`TIME` or :data:`STOP`; each round of timing is a :data:`TIMING` message (with device frames, preceded by
   :data:`TIMED_LAST` per timing input set), answered by ``(MORE, pairs)`` or :data:`STOP`.  A worker whose trial
   was of a class that leaves it clean (:mod:`pytest_kernelopt.gates.provenance`) then serves the parent's next
   request.
"""

from __future__ import annotations

# --------------------------------------------------------------------------- a worker's start
#: the worker's imports are done; it waits for the parent's go
IMPORTED = "imported"
#: the parent's go: ``(GO, {"device_frames": bool})``
GO = "go"
#: the module is captured: ``{"summary", "graphs", "inputs", "backend", "measures_time", "description"}``
READY = "ready"
#: the worker could not start: the error as text
ERROR = "error"

# --------------------------------------------------------------------------- requests: ``(op, payload)``
#: the float64 truth on the plan's seeds (payload: ``{"seeds"}``, some of them, or None: all), one :data:`TRUTH`
#: message a seed, then :data:`RESULT` with the record
TRUTHS = "truths"
#: one candidate or a joint set, judged in this worker (payload: ``{"candidates", "seeds", "timing_sets", "aot",
#: "provenance", "skip", "baseline"}``: the checks the candidates' class needs, less those the judge found pointless,
#: and whether to record the baseline first; and for a round of the plan, ``"round"``, its seeds, and ``"truths"``,
#: whether to collect their float64 truths before the baseline)
TRIAL = "trial"
#: a candidate (or a joint set) that carries no code of its own (:mod:`pytest_kernelopt.gates.provenance`),
#: judged by the worker itself where its records are (payload: ``{"candidates", "seeds", "perf", "aot"}``; every
#: seed, in rounds where their records do not fit at once): answered by :data:`RESULT` with the cascade's result
JUDGE = "judge"
#: the screening: candidates as JSON, answered by :data:`RESULT` with the baseline's and each one's time
RANK = "rank"
#: the profile of the module (payload: ``{"ncu": bool}``), answered by :data:`RESULT`
PROFILE = "profile"
REQUESTS = (TRUTHS, TRIAL, JUDGE, RANK, PROFILE)

# --------------------------------------------------------------------------- answers to any request
RESULT = "result"
#: one seed's float64 truth: ``{"seed", "run", "error"}``
TRUTH = "truth"
#: the gate the worker is in now ("gate:static", ...)
PROGRESS = "progress"
#: the request raised (the candidate's error, or the worker's)
CRASH = "crash"
#: the unmodified module failed (out of memory): an error of the run, never a verdict on a candidate
RUN_ERROR = "run_error"

# --------------------------------------------------------------------------- a trial's messages, in order
#: ``(seed, run)``: one of this worker's own baseline runs, recorded before the candidate is loaded
BASELINE_RUN = "baseline_run"
#: the baseline's record (its runs came as :data:`BASELINE_RUN`)
BASELINE = "baseline"
#: gate 1's results, one per candidate
STATIC = "static"
#: the candidates could not be loaded: the error as text
LOAD_FAILED = "load_failed"
#: ``(seed, run)``: one of the candidate's runs
CAND_RUN = "cand_run"
#: the candidate's second run on the first seed (the rerun), sent as soon as its call returns where the parent takes
#: device frames (else it comes within :data:`RUNS`)
CAND_AGAIN = "cand_again"
#: the candidate's record (its runs came as :data:`CAND_RUN`)
RUNS = "runs"
#: ``(seed, outputs)``: the candidate's last output on a timing input set, sent as soon as its call returns where the
#: parent takes device frames (else it comes within :data:`TIMING`'s ``outs``)
TIMED_LAST = "timed_last"
#: a round of timing: ``{"timing", "outs", "device_peak_bytes"}``
TIMING = "timing"

# --------------------------------------------------------------------------- the parent's answers within a trial
#: after :data:`RUNS`: time the candidate
TIME = "time"
#: after :data:`RUNS`: do not; after :data:`TIMING`: no more rounds
STOP = "stop"
#: after :data:`TIMING`: ``(MORE, pairs)``, another round of this many pairs
MORE = "more"
