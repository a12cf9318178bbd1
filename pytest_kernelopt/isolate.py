"""Judge candidates in worker processes the candidate cannot reach back from: the parent's side.

The parent process is the judge: it never loads a candidate.  A worker
(:mod:`pytest_kernelopt.isolate_worker`) captures the module and collects records
(:mod:`pytest_kernelopt.gates.trials`); the parent decides.  What they say to each
other: :mod:`pytest_kernelopt.isolate_protocol`.

* Gate 1's allowlist runs in the parent, on the source alone: a candidate that
  fails it never reaches a worker.
* The float64 truth on every seed of the run's
  :class:`~pytest_kernelopt.gates.seed_plan.SeedPlan` comes from a *clean* worker
  (one that has loaded no candidate) and is kept in the parent.
* Each free-form candidate gets a worker of its own: it records the baseline's
  runs and sends them before it loads anything, then compiles the candidate
  (gate 1's ahead-of-time compile, under the worker's time and memory limits),
  runs it on the plan's seeds and sends the raw records; the parent judges gates
  2 and 3, tells the worker whether to time it, and judges gate 4 from the
  samples and the timed outputs.  The worker is then ended: a worker that has
  loaded free-form code never serves another.
* A candidate that carries no code of its own -- Inductor's kernel under another
  launch config, or the tuner's certified edit of it, as the parent decides from
  the captured graph (:mod:`pytest_kernelopt.gates.provenance`) -- is judged the
  same way in the clean worker, with the checks its class needs, and leaves it
  clean: the next candidate, screening or truth is served there, and the
  parent keeps the worker's baseline runs for its next trial.
* Messages from a worker are data (:mod:`pytest_kernelopt.wire`), never pickles.
* A worker that dies, hangs past ``timeout``, grows past the memory limit or
  sends anything unexpected rejects the candidate, with the gate it was in.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import time
from dataclasses import dataclass
from typing import Any, Callable

from . import wire
from .candidate import Candidate
from .capture import CapturedModule
from .config import Settings
from .errors import USER_ERRORS, BaselineRunError
from .gates.cascade import Judge, static_gate_result
from .gates.compare import values
from .gates.digests import release_device_memory
from .gates.fp64_place import record_budget
from .gates.perf import merge_timing, next_round
from .gates.provenance import classify, runs
from .gates.results import CascadeResult, stopped_in
from .gates.seed_plan import SeedPlan
from .gates.trial_records import BaselineRecord, CandidateRecord
from .interrupts import workers_ignore_interrupts
from .isolate_protocol import (
    BASELINE,
    BASELINE_RUN,
    CAND_AGAIN,
    CAND_RUN,
    CRASH,
    GO,
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
    STOP,
    TIME,
    TIMED_LAST,
    TIMING,
    TRIAL,
    TRUTH,
    TRUTHS,
)
from .isolate_worker import worker_main
from .kernel_loader import private_dir
from .problems import ProblemSpec
from .worker_start import run_in_env, worker_context

ProgressFn = Callable[[str], None]

#: what :attr:`IsolatedEvaluator.spent` times, in seconds, none overlapping another: waiting for a worker to start
#: and capture the module; collecting the float64 truths (a clean worker's float64 runs and noise floors); reading
#: and decoding every message from workers (the records of outputs above all); the parent's own statistics on the
#: records (gates 2-4).  The rest of a gate's time is the workers' own work (runs, compiles, timing)
SPENT = ("worker_starts", "truths", "transfer", "judging")


#: the most of the GPU's memory the judge holds in device frames it copied (the rest go to its host memory), and the
#: share (at least DEVICE_RESERVE_MIN bytes) they leave free: a worker's runs, probes and timing need it, and a
#: worker's baseline running out of memory is an error of the run.  The reserve is what keeps the workers' room; the
#: share only keeps the judge from taking all that is free beyond it.  A frame sent to the host costs about a second
#: a GiB (two host copies, and the judge's statistics then copy it back a chunk at a time): one seed's records of a
#: 6 GiB output (its float64 truth, the baseline's and the candidate's runs, the candidate's rerun: 30 GiB) fit at 0.45
#: of an 80 GiB device, not at 0.35
DEVICE_SHARE = 0.45
DEVICE_RESERVE = 0.25
DEVICE_RESERVE_MIN = 4 << 30
HOST_FRAMES_NOTED = 16

#: seconds a worker may take to import what every worker imports (torch, triton, this package), before the
#: problem's own import, build and capture (``start_timeout``) start
IMPORT_TIMEOUT = 600.0


def _judge_on_gpu() -> bool:
    """Whether the isolated judge may take its statistics, and device frames, on the GPU (unless
    ``KERNELOPT_JUDGE_ON_GPU=0``)."""
    return os.environ.get("KERNELOPT_JUDGE_ON_GPU", "1").strip() != "0"


def max_worker_rss() -> int:
    """Bytes a worker may hold in host memory before it is killed (``KERNELOPT_WORKER_MAX_RSS_GB``, else 80% of
    this machine's memory)."""
    env = os.environ.get("KERNELOPT_WORKER_MAX_RSS_GB")
    if env:
        return int(float(env) * 2**30)
    try:
        return int(0.8 * os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 64 * 2**30


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _nbytes(run: Any) -> int:
    return sum(t.numel() * t.element_size() for t in values(run.outputs, run.grads) if hasattr(t, "element_size"))


def _level_bytes(run: Any) -> int:
    """A float64 truth's levels (a byte per position of each floating value)."""
    return sum(m.numel() * m.element_size() for m in getattr(run, "levels", None) or () if hasattr(m, "element_size"))


# --------------------------------------------------------------------------- the parent


@dataclass
class WorkerInfo:
    summary: str
    started: float


class WorkerFailure(Exception):
    """The worker died, hung, grew too large or sent something unexpected; ``stage`` is the gate it was in."""

    def __init__(self, reason: str, stage: str = "", timed_out: bool = False) -> None:
        super().__init__(reason)
        self.stage = stage
        self.timed_out = timed_out


class IsolatedEvaluator:
    """Judges candidates for one problem: collection in workers, judgement here (see the module docstring)."""

    def __init__(self, spec: ProblemSpec, settings: Settings, *, start_timeout: float | None = None) -> None:
        self.spec = spec
        self.settings = settings
        # the problem file's import, the module's build and its capture in a worker
        self.start_timeout = start_timeout or max(600.0, settings.timeout)
        self.plan = SeedPlan.make(settings.seeds, settings.base_seed)
        self.max_rss = max_worker_rss()
        self._ctx = worker_context(settings.backend)
        self._proc: Any = None
        self._conn: Any = None
        self._clean = False  # the live worker has loaded no candidate
        self.info: WorkerInfo | None = None
        self._ready: dict = {}
        self._truths: Any = None
        #: ((the worker's number, (seeds, timing sets)), its baseline record): the live worker's own baseline runs, kept
        #: while it stays clean (a candidate that is not free-form code leaves it so) for its next trial
        self._worker_baseline: tuple[Any, BaselineRecord] | None = None
        #: whether the clean worker judges candidates that carry no code of their own itself (:meth:`_judge_in_worker`);
        #: off once it could not, with why
        self.judge_here = True
        self.judge_here_note = ""
        self._judged_in = 0  # the number of the worker that last judged a candidate itself (it holds the truths)
        self._judge_device_set = False  # see _judge_on_device
        self._spare: tuple[Any, Any] | None = None  # a worker spawned ahead, importing, not yet told to go
        self.records_note = ""  # set when the plan is judged in rounds to fit the judge's memory (see truths())
        self.per_round = len(self.plan.seeds)  # correctness seeds whose records this process holds at once (_fit)
        self.prestart = True  # keep a spare worker importing for the next candidate
        self.restarts = 0  # workers started after one died or hung
        self.workers_started = 0
        # seconds by activity, summed over this evaluator's life (what a caller reads as deltas: optimize's
        # search phases): see SPENT
        self.spent: dict[str, float] = dict.fromkeys(SPENT, 0.0)
        self.received_bytes = 0  # bytes of the messages read from workers
        #: bytes of the device frames this process copied onto its GPU and into its host memory (:meth:`_on_device`)
        self.frames_kept: dict[str, int] = {"device": 0, "host": 0}
        #: why frames went to the host: (GiB of the frame, GiB this process held on the device, GiB free there), the
        #: last :data:`HOST_FRAMES_NOTED`
        self.host_frames: list[tuple[float, float, float]] = []
        # the most one message may carry (its header and frames): what the judge may hold in records at all
        self.message_limit = max(record_budget() or 0, 1 << 30)
        #: whether workers hand the runs they record at once (the baseline's and the float64 truths, before any
        #: candidate is loaded; a candidate's seeds, before it runs again) over as device frames
        #: (:mod:`pytest_kernelopt.device_frames`), copied here on the GPU where :meth:`_on_device` has room: with
        #: the judge on the GPU (:meth:`_judge_on_device`), unless ``KERNELOPT_DEVICE_FRAMES=0``
        self.device_frames = settings.backend != "cpu" and _judge_on_gpu() and \
            os.environ.get("KERNELOPT_DEVICE_FRAMES", "1").strip() != "0"

    # -- worker lifecycle ----------------------------------------------------------------
    # A worker is spawned ahead as a spare: it imports (CPU only) and waits for the parent's go before it builds
    # the problem and captures the module.  Each worker judges one candidate (or one screening) and is ended; the
    # next one is the spare, told to go, and a new spare is spawned at once to import meanwhile.
    def _spawn(self) -> tuple[Any, Any]:
        private_dir()  # the worker's folder of kernel sources goes inside this process's, removed with it
        parent, child = self._ctx.Pipe()
        proc = self._ctx.Process(target=run_in_env, args=(dict(os.environ), worker_main, child, self.spec,
                                                          self.settings, self.plan), daemon=True)
        with workers_ignore_interrupts():  # a Ctrl-C is the parent's to handle (interrupts.py)
            proc.start()
        child.close()
        return proc, parent

    def _spawn_spare(self) -> None:
        if self._spare is not None and not self._spare[0].is_alive():
            self._end(*self._spare)
            self._spare = None
        if self._spare is None:
            self._spare = self._spawn()

    def _start(self) -> None:
        """A worker that has said it is ready: the spare, told to go (a new one if there is none)."""
        self._spawn_spare()
        assert self._spare is not None  # _spawn_spare leaves one
        self._proc, self._conn = self._spare
        self._spare = None
        with self._spent("worker_starts"):
            try:
                # its own imports first (torch, triton: this package's, under IMPORT_TIMEOUT); then the problem's
                # import, the module's build and its capture, under start_timeout
                kind, payload = self._receive(IMPORT_TIMEOUT, "")
                if kind == IMPORTED:
                    try:
                        self._conn.send((GO, {"device_frames": self.device_frames}))
                    except (BrokenPipeError, OSError):
                        pass  # it has died; what it said before, or its exit, is read below
                    if self.prestart:
                        self._spawn_spare()  # the next one imports (host only) while this one captures
                    kind, payload = self._receive(self.start_timeout, "")
            except WorkerFailure as e:
                self._kill()
                raise RuntimeError(f"evaluation worker for {self.spec.name} did not start: {e}") from None
        if kind != READY:
            self._kill()
            for cls in USER_ERRORS:  # the module's or the problem file's own error, raised as such in the parent
                if str(payload).startswith(f"{cls.__name__}: "):
                    raise cls(str(payload)[len(cls.__name__) + 2:])
            raise RuntimeError(f"evaluation worker for {self.spec.name} failed to start: {payload}")
        self.workers_started += 1
        self._clean = True
        self._ready = payload
        self.info = WorkerInfo(payload["summary"], time.time())

    @staticmethod
    def _end(proc: Any, conn: Any) -> None:
        if proc is not None:
            if proc.is_alive():
                proc.kill()
            proc.join(10)
        if conn is not None:
            conn.close()

    def _kill(self) -> None:
        self._end(self._proc, self._conn)
        self._proc = self._conn = None
        self._clean = False

    def _retire(self) -> None:
        """End the worker that judged a candidate (a spare is already importing for the next one)."""
        self._kill()
        if self.prestart:
            self._spawn_spare()

    def close(self, wait: bool = True) -> None:
        """End the workers: the live one is told to finish (and waited for), the spare to exit; ``wait=False``
        (an interrupted run) kills both at once."""
        if not wait:
            self._kill()
            if self._spare is not None:
                self._end(*self._spare)
                self._spare = None
            return
        if self._conn is not None:
            try:
                self._conn.send(None)
            except (BrokenPipeError, OSError):
                pass
        if self._proc is not None:
            self._proc.join(10)
        self._kill()
        if self._spare is not None:
            proc, conn = self._spare
            self._spare = None
            try:
                conn.send(None)  # a spare waiting for its go exits at once
            except (BrokenPipeError, OSError):
                pass
            proc.join(5)
            self._end(proc, conn)

    def __enter__(self) -> "IsolatedEvaluator":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _clean_worker(self) -> None:
        """A live worker that has loaded no candidate (this one if so, else the spare, told to go)."""
        if self._proc is not None and self._proc.is_alive() and self._clean:
            return
        self._kill()
        self._start()

    def _receive(self, timeout: float, stage: str, total: float | None = None) -> tuple[str, Any]:
        """The worker's next message, decoded as data; WorkerFailure on death, hang, memory or garbage.

        ``total`` is the whole exchange's time limit (what a timeout message names)."""
        deadline = time.perf_counter() + timeout

        def wait(what: str = "") -> None:
            """Until the worker has a message (or, ``what``, a frame of one) to read; WorkerFailure when the
            deadline passes or the worker dies or outgrows its memory."""
            while True:
                remaining = deadline - time.perf_counter()
                if remaining <= 0:
                    self._kill()
                    raise WorkerFailure(f"timed out after {total or timeout:.0f}s" + (f" (sending {what})" if what
                                                                                       else ""), stage, timed_out=True)
                if self._conn.poll(min(remaining, 0.5)):
                    return
                self._check_alive(stage)

        wait()
        t0 = time.perf_counter()
        got = 0
        try:
            message, got = wire.receive(self._conn, self.message_limit, wait,
                                        self._on_device if self.device_frames else None)
            kind, value = message
        except WorkerFailure:
            raise
        except (EOFError, ConnectionError):
            self._proc.join(5)
            code = self._proc.exitcode
            self._kill()
            raise WorkerFailure(f"the evaluation process died ({_describe_exit(code)})", stage) from None
        except Exception as e:  # noqa: BLE001
            self._kill()
            raise WorkerFailure(f"the evaluation process sent something that is not data "
                                f"({type(e).__name__}: {str(e)[:160]})", stage) from None
        finally:
            self.spent["transfer"] += time.perf_counter() - t0
            self.received_bytes += got
        return kind, value

    def _check_alive(self, stage: str) -> None:
        """WorkerFailure (the worker ended) where the worker has died or grown past the memory limit."""
        if not self._proc.is_alive():
            code = self._proc.exitcode
            self._kill()
            raise WorkerFailure(f"the evaluation process died ({_describe_exit(code)})", stage)
        rss = _rss(self._proc.pid)
        if rss > self.max_rss:
            self._kill()
            raise WorkerFailure(f"the evaluation process exceeded the memory limit ({rss / 2**30:.1f} GiB > "
                                f"{self.max_rss / 2**30:.1f} GiB)", stage)

    def _request(self, op: str, payload: Any, timeout: float) -> Any:
        """One request answered by one "result" message (baseline, profile, rank)."""
        self._conn.send((op, payload))
        deadline = time.perf_counter() + timeout
        while True:
            kind, value = self._receive(max(0.0, deadline - time.perf_counter()), "", timeout)
            if kind == RESULT:
                return value
            if kind == CRASH:
                self._kill()
                raise WorkerFailure(f"evaluation raised {value}")
            if kind != PROGRESS:
                self._kill()
                raise WorkerFailure(f"unexpected message {kind!r}")

    # -- what the optimizer reads ---------------------------------------------------------
    def _ensure_info(self) -> None:
        if not self._ready:
            self._clean_worker()

    @property
    def graphs(self):
        self._ensure_info()
        return self._ready["graphs"]

    @property
    def inputs(self) -> list:
        self._ensure_info()
        return self._ready["inputs"]

    @property
    def backend_name(self) -> str:
        self._ensure_info()
        return self._ready["backend"]

    @property
    def measures_time(self) -> bool:
        self._ensure_info()
        return self._ready["measures_time"]

    def truths(self) -> Any:
        """The float64 truth on the plan's first seeds, from a clean worker (collected once per evaluator, kept for
        every candidate); each candidate's worker records the baseline runs itself.  The ``timeout`` setting bounds
        each seed's truth (and what follows the last), not all of them together.

        The first seed's truth comes alone: its size sets how many seeds' records this process holds at once
        (:meth:`_fit`): a truth with its levels, a baseline run and a candidate run per correctness seed, beside a
        baseline run and a candidate output per timing input set.  Where the plan does not fit, every seed is
        judged in rounds (:meth:`_rounds`), each round's worker recording its round's truths (an evaluation of no
        more seeds than a round too: one round), and every result says so (``records`` in the float64 gate's
        numbers); the truth collected here to size the rounds is then let go."""
        if self._truths is not None:
            return self._truths
        with self._spent("truths"):
            return self._collect_truths()

    def _collect_truths(self) -> Any:
        self._clean_worker()
        got: dict[int, Any] = {}
        errors: dict[int, str] = {}
        first = self.plan.seeds[:1]
        rec = self._truths_of(first, got, errors)
        run = got.get(first[0])
        held = self._fit(_nbytes(run), _level_bytes(run)) if run is not None else len(self.plan.seeds)
        if 1 < held == len(self.plan.seeds):  # (in rounds, each round's worker records its own: none asked here)
            rec = self._truths_of(self.plan.seeds[1:held], got, errors)
        if held < len(self.plan.seeds):
            # judged in rounds: each round's worker records its round's truths (_rounds), and the room these would
            # take on the device is the room a round's records need there: none is kept
            del run
            got = {}
            release_device_memory()
        rec.truths, rec.truth_errors = got, errors
        rec.truth_memory = dict(rec.truth_memory, records=self.records_note)
        self._truths = rec
        return rec

    def _truths_of(self, seeds: Any, got: dict[int, Any], errors: dict[int, str]) -> BaselineRecord:
        """The clean worker's float64 truths of ``seeds``, each its own message, into ``got`` and ``errors``; the
        worker's record of them (where they ran)."""
        try:
            self._conn.send((TRUTHS, {"seeds": list(seeds)}))
            deadline = time.perf_counter() + self.settings.timeout
            while True:
                kind, value = self._receive(max(0.0, deadline - time.perf_counter()), "", self.settings.timeout)
                if kind == TRUTH:
                    # the baseline's own module, making progress: the time limit applies to each seed's truth
                    # (a multi-GiB module's float64 truths of every seed together took longer than one limit)
                    deadline = time.perf_counter() + self.settings.timeout
                    got[value["seed"]] = value["run"]
                    if value["run"] is None:
                        errors[value["seed"]] = value["error"]
                elif kind == RESULT:
                    return value
                elif kind == CRASH:
                    self._kill()
                    raise WorkerFailure(f"evaluation raised {value}")
                elif kind != PROGRESS:
                    self._kill()
                    raise WorkerFailure(f"unexpected message {kind!r}")
        except WorkerFailure as e:
            raise RuntimeError(f"the float64 truth of {self.spec.name} could not be collected: {e}") from None

    def _fit(self, truth_bytes: int, level_bytes: int = 0) -> int:
        """How many correctness seeds' records this process holds at once (``per_round``: the plan is judged in
        rounds of that many where it is fewer than the plan's); the timing input sets trimmed to one where not
        even one seed fits beside them all."""
        budget = record_budget() or 0
        seeds, timing = len(self.plan.seeds), len(self.plan.timing)
        # fp64 truth and its levels + two fp32 runs; two fp32 outputs
        per_seed, per_set = 2 * truth_bytes + level_bytes, truth_bytes
        if seeds * per_seed + timing * per_set <= budget:
            self.per_round = seeds
            return seeds
        if per_seed + timing * per_set > budget and timing > 1:
            self.plan = self.plan.trimmed(None, 1)
        sets = len(self.plan.timing)
        self.per_round = max(1, min(seeds, int((budget - sets * per_set) // per_seed)))
        self.records_note = (f"every seed judged, in rounds of {self.per_round} of the {seeds} correctness seeds"
                             + (f", on {sets} of {timing} timing input sets" if sets < timing else "")
                             + f": their records take about {per_seed / 2**30:.1f} GiB a seed and the judge's budget "
                             f"is {budget / 2**30:.1f} GiB of host memory (KERNELOPT_RECORD_BUDGET_GB)")
        return self.per_round

    # -- the Evaluator protocol ----------------------------------------------------------
    def evaluate(self, candidate: Candidate | list[Candidate], perf: bool = True, seeds: int | None = None,
                 aot: bool = True, progress: ProgressFn | None = None) -> CascadeResult:
        cands = [candidate] if isinstance(candidate, Candidate) else list(candidate)
        t0 = time.perf_counter()
        judge = Judge(self.settings, cands, t0)
        # only an index of the graphs (static_gate_result calls its find): nothing here to run
        index = CapturedModule(None, None, self.graphs, None, self.settings.training, 0.0)  # type: ignore[arg-type]
        # gate 1's allowlist here, on the source alone: a candidate that fails it never reaches a worker
        allow = [static_gate_result(c, index, None, aot=False) for c in cands]
        if not all(g.passed for g in allow):
            judge.add_static(allow)
            return judge.done("rejected")
        judge.note_provenance(allow)  # decided here, from the captured graph: the worker's word is not taken
        # free-form code gets a worker of its own, ended with it; Inductor's own code under another launch config
        # (or the tuner's certified edit of it) is judged in the clean worker, which stays clean
        own = runs("own_worker", judge.provenance)
        if not own:
            judged = self._judge_in_worker(cands, perf, seeds, aot, progress, t0)
            if judged is not None:
                return judged
        self._judge_on_device()
        release_device_memory()  # what the previous candidate's records held there
        trial = _Trial(self, judge, self.truths(), perf, progress)
        n = len(self.plan.seeds) if seeds is None else min(seeds, len(self.plan.seeds))
        parts = self.plan.first(n).rounds(self.per_round)
        ended = False
        try:
            if self.per_round < len(self.plan.seeds):  # in rounds (then no truth is kept here: truths())
                result = self._rounds(cands, judge, parts, perf, aot, progress)
                ended = True
                return result
            self._clean_worker()
            plan = (n, len(self.plan.timing))
            kept = self._worker_baseline if self._worker_baseline is not None and \
                self._worker_baseline[0] == (self.workers_started, plan) else None
            self._clean = not own
            trial.baseline_reused = not own  # kept below for the clean worker's next trial
            if kept is not None:
                trial.base_runs = kept[1].runs
                trial.on_baseline(dataclasses.replace(kept[1], seconds={}))  # (its runs' time was spent before)
            self._conn.send((TRIAL, {"candidates": [c.to_json() for c in cands], "seeds": n, "aot": aot,
                                     "timing_sets": len(self.plan.timing), "provenance": judge.provenance,
                                     "skip": list(judge.exempt),
                                     "baseline": kept is None}))
            result = trial.decide()
            corr = result.gate("correctness")
            if not own and corr is not None:  # why the clean worker did not judge it itself
                corr.numbers["judged_where"] = "here, on the records the worker sent (" + (
                    self.judge_here_note or "the worker did not judge it") + ")"
            if not own and trial.baseline is not None:
                self._worker_baseline = ((self.workers_started, plan), trial.baseline)
            ended = True
            return result
        except WorkerFailure as e:
            if e.stage != "gate:static" or e.timed_out or "died" in str(e):
                self.restarts += 1
            gate = (e.stage or trial.stage).split(":", 1)[-1] or "static"
            extra = " (hang or runaway kernel)" if e.timed_out else ""
            return self._rejected(cands, gate, f"{e} in the {gate} gate{extra}; worker restarted", t0)
        finally:
            if own or not ended:  # a worker that has loaded free-form code never judges another
                self._retire()

    def _rounds(self, cands: list[Candidate], judge: Judge, parts: list[SeedPlan], perf: bool, aot: bool,
                progress: ProgressFn | None) -> CascadeResult:
        """A trial over the rounds of the plan (this process holds no more seeds' records at once: :meth:`_fit`),
        each round in a worker of its own: it records the round's float64 truths and baseline runs before it loads
        the candidate, then runs the candidate on the round's seeds (the checks that start from the first seed in
        the first round).  Each round is judged when its runs arrive and let go before the next worker starts; the
        last round's worker times the candidate."""
        state: dict[str, Any] = {}
        payload = {"candidates": [c.to_json() for c in cands], "provenance": judge.provenance,
                   "skip": list(judge.exempt), "baseline": True}
        collecting = [0.0]  # seconds within the rounds' collection (workers, transfer): the rest is judging

        def collected() -> Any:
            for i, part in enumerate(parts):
                t0 = time.perf_counter()
                self._clean_worker()
                self._clean = False  # a round's worker judges no other round or candidate
                trial = state["trial"] = _Trial(self, judge, None, perf, progress, part=part)
                self._conn.send((TRIAL, {**payload, "round": list(part.seeds), "timing_sets": len(part.timing),
                                         "truths": True, "aot": aot and i == 0}))
                decided = trial.run()
                collecting[0] += time.perf_counter() - t0
                if decided is not None:
                    raise _Decided(decided)
                del trial
                yield state["trial"].baseline, state["trial"].rec
                if i < len(parts) - 1:
                    state.clear()  # the round's records go with its trial
                    release_device_memory()  # and their device memory back to the device, for the next round's worker
                    self._conn.send(STOP)
                    self._retire()

        t0 = time.perf_counter()
        try:
            passed = judge.correct_in_rounds(collected(), progress)
        except _Decided as d:
            return d.result
        finally:
            self.spent["judging"] += max(0.0, time.perf_counter() - t0 - collecting[0])
        trial = state["trial"]
        trial.part = None  # from here its messages are the timing's
        timed = passed and perf and self.measures_time
        if timed:
            trial.keep_for_timing()
        self._conn.send(TIME if timed else STOP)
        if not passed:
            return judge.done("rejected")
        if timed:
            return trial.decide()
        with self._spent("judging"):
            return judge.finish(trial.baseline, trial.rec, perf=perf, measures_time=self.measures_time,
                                backend_name=self.backend_name)

    def _judge_in_worker(self, cands: list[Candidate], perf: bool, seeds: int | None, aot: bool,
                         progress: ProgressFn | None, t0: float) -> CascadeResult | None:
        """Candidates that carry no code of their own (the parent's judgement, :mod:`.gates.provenance`), judged
        by the clean worker where their records are (:data:`~.isolate_protocol.JUDGE`): nothing is copied to the
        host or sent here but the verdict, which is the worker's own code's, in a process that has run nothing
        else; every seed, in rounds where their records do not fit at once.  None where the worker's own judgement
        raised (the caller then runs a trial, judged here, and does so from then on)."""
        if not self.judge_here:
            return None
        timeout = self.settings.timeout
        try:
            self._clean_worker()
            if self._judged_in != self.workers_started:
                # this worker's first judgement also collects the float64 truths, each seed's bounded by ``timeout``
                # as the parent's own collection of them is
                timeout *= len(self.plan.seeds) + 1
            self._conn.send((JUDGE, {"candidates": [c.to_json() for c in cands], "perf": perf, "aot": aot,
                                     "seeds": None if seeds is None else min(seeds, len(self.plan.seeds))}))
            deadline = time.perf_counter() + timeout
            stage = "gate:static"
            while True:
                kind, value = self._receive(max(0.0, deadline - time.perf_counter()), stage, timeout)
                if kind == PROGRESS:
                    stage = value
                    if progress:
                        progress(value)
                elif kind == RESULT:
                    break
                elif kind == RUN_ERROR:
                    self._retire()
                    raise BaselineRunError(f"{self.spec.name}: {value}")  # the run's error, not the candidate's
                elif kind == CRASH:
                    # the worker's own judgement raised (a candidate's errors are in its record, not raised): the
                    # parent judges the records instead, here and for the rest of this evaluator's candidates
                    self.judge_here = False
                    self.judge_here_note = f"the clean worker could not judge itself: {str(value)[:300]}"
                    return None
                else:
                    raise WorkerFailure(f"unexpected message {kind!r}", stage)
        except WorkerFailure as e:
            self.restarts += 1
            self._retire()
            gate = (e.stage or "gate:static").split(":", 1)[-1] or "static"
            extra = " (hang or runaway kernel)" if e.timed_out else ""
            return self._rejected(cands, gate, f"{e} in the {gate} gate{extra}; worker restarted", t0)
        if value is None:
            return None
        self._judged_in = self.workers_started
        if not isinstance(value, CascadeResult):
            self._retire()
            return self._rejected(cands, "static", f"the worker sent {type(value).__name__}, not a result", t0)
        return value

    def rank(self, candidates):
        """Screening (decides nothing): in the clean worker where every candidate is Inductor's own code under
        another launch config or the tuner's certified edit of it (:mod:`.gates.provenance`), which stays clean;
        else in a worker of its own, ended afterwards."""
        index = CapturedModule(None, None, self.graphs, None, self.settings.training, 0.0)  # type: ignore[arg-type]
        own = any(runs("own_worker", classify([static_gate_result(c, index, None, aot=False)])) for c in candidates)
        ended = False
        try:
            self._clean_worker()
            self._clean = not own
            result = self._request(RANK, [c.to_json() for c in candidates], self.settings.timeout)
            ended = True
            return result
        except WorkerFailure:
            return None, [None] * len(candidates)
        finally:
            if own or not ended:
                self._retire()

    def profile(self, ncu: bool = True):
        self._clean_worker()
        try:
            return self._request(PROFILE, {"ncu": ncu}, self.settings.timeout)
        except WorkerFailure as e:
            raise RuntimeError(f"profiling failed: {e}") from None

    def _judge_on_device(self) -> None:
        """On a GPU backend the judge takes its statistics on the GPU (:func:`.gates.chunked.compute_device`:
        host records go over a chunk at a time), where on the host they cost seconds a GiB (cumprod on the H200:
        67 s of one candidate's 103 s for 15 GiB of records).  The judge's own CUDA context (about 0.5 GiB of
        device memory, plus a chunk's float64 temporaries, about 1 GiB, while it judges: never while a worker
        times) is started once, at the first evaluation, and only for the cuda backend;
        ``KERNELOPT_JUDGE_ON_GPU=0`` keeps the judge on the host.  Workers are spawned, never forked, so this
        process's CUDA does not reach them; the records stay in host memory."""
        if self._judge_device_set:
            return
        self._judge_device_set = True
        if not _judge_on_gpu() or self.backend_name != "cuda":
            return
        import torch

        if torch.cuda.is_available():
            with self._spent("judging"):
                torch.cuda.init()

    def _on_device(self, nbytes: int) -> bool:
        """Whether a device frame of ``nbytes`` is kept on this process's GPU: while what this process holds there
        stays within :data:`DEVICE_SHARE` of the device and :data:`DEVICE_RESERVE` of it stays free beside it (the
        workers' runs need the rest), else on the host (:attr:`frames_kept` counts the bytes kept each way)."""
        import torch

        free, total = torch.cuda.mem_get_info()
        here = torch.cuda.memory_allocated() + nbytes <= DEVICE_SHARE * total and \
            free - nbytes >= max(DEVICE_RESERVE_MIN, DEVICE_RESERVE * total)
        self.frames_kept["device" if here else "host"] += nbytes
        if not here:
            held = torch.cuda.memory_allocated()
            self.host_frames = [*self.host_frames, (round(nbytes / 2**30, 2), round(held / 2**30, 2),
                                                    round(free / 2**30, 2))][-HOST_FRAMES_NOTED:]
        return here

    @contextlib.contextmanager
    def _spent(self, what: str):
        """The seconds of the block into ``spent[what]``, less the transfer read within it (which
        :meth:`_receive` counts as transfer: the activities do not overlap)."""
        t0, moved = time.perf_counter(), self.spent["transfer"]
        try:
            yield
        finally:
            self.spent[what] += time.perf_counter() - t0 - (self.spent["transfer"] - moved)

    def _rejected(self, cands: list[Candidate], gate: str, reason: str, t0: float) -> CascadeResult:
        return stopped_in(gate, reason, cands, time.perf_counter() - t0, {"isolated": True})


class _Decided(Exception):
    """A round's exchange decided the candidate before its runs (the static gate, a load that failed)."""

    def __init__(self, result: CascadeResult) -> None:
        super().__init__(result.reason)
        self.result = result


class _Trial:
    """One candidate's exchange with its worker (:data:`~.isolate_protocol.TRIAL`): the worker's messages read in
    turn, each kind handled by one method (:attr:`HANDLERS`).  A handler returns the cascade's result once the
    exchange is decided, else None (the next message is read); a message the exchange does not expect at that
    point fails the worker (:class:`WorkerFailure`), in the gate it was in.

    ``part``: a round of the plan (:meth:`IsolatedEvaluator._rounds`): the exchange stops at the candidate's runs,
    which the caller judges with the other rounds'; ``truths`` None, the round's float64 truths come from the worker
    before its baseline."""

    def __init__(self, ev: IsolatedEvaluator, judge: Judge, truths: BaselineRecord | None, perf: bool,
                 progress: ProgressFn | None, part: SeedPlan | None = None) -> None:
        self.ev, self.judge, self.truths, self.perf, self.progress = ev, judge, truths, perf, progress
        self.part = part
        self.stage = "gate:static"
        self.base_runs: dict[int, Any] = {}
        self.cand_runs: dict[int, Any] = {}
        self.cand_again: Any = None
        self.timed_last: dict[int, Any] = {}  # this round of timing's last outputs that came on their own
        self.round_truths: dict[int, Any] = {}
        self.round_errors: dict[int, str] = {}
        self.baseline: BaselineRecord | None = None
        self.rec: CandidateRecord | None = None
        #: the evaluator keeps this trial's baseline for the clean worker's next trial (:meth:`keep_for_timing`
        #: leaves its runs whole then)
        self.baseline_reused = False

    def run(self) -> CascadeResult | None:
        """The worker's messages until a handler decides (within the ``timeout`` setting, all of them); for a round
        of the plan, None once the candidate's runs are in."""
        timeout = self.ev.settings.timeout
        deadline = time.perf_counter() + timeout
        while True:
            kind, value = self.ev._receive(max(0.0, deadline - time.perf_counter()), self.stage, timeout)
            handler = self.HANDLERS.get(kind)
            if handler is None:
                raise self.unexpected(kind)
            result = handler(self, value)
            if result is not None:
                return result
            if kind == RUNS and self.part is not None:
                return None

    def decide(self) -> CascadeResult:
        """:meth:`run` to the cascade's result (no round of a plan, or its runs judged)."""
        result = self.run()
        if result is None:
            raise WorkerFailure("the exchange stopped before a verdict", self.stage)
        return result

    def unexpected(self, kind: str) -> WorkerFailure:
        return WorkerFailure(f"unexpected message {kind!r}", self.stage)

    def on_progress(self, value: Any) -> None:
        self.stage = value
        if self.progress:
            self.progress(value)

    def on_truth(self, value: Any) -> None:
        if self.truths is not None or self.base_runs or self.baseline is not None:
            raise self.unexpected(TRUTH)
        seed = int(value["seed"])
        self.round_truths[seed] = value["run"]
        if value["run"] is None:
            self.round_errors[seed] = str(value["error"])

    def on_baseline_run(self, value: Any) -> None:
        if self.baseline is not None:
            raise self.unexpected(BASELINE_RUN)
        self.base_runs[int(value[0])] = value[1]

    def on_baseline(self, value: Any) -> None:
        if self.rec is not None or self.baseline is not None:
            raise self.unexpected(BASELINE)
        # runs from this worker (before the candidate was loaded), the float64 truth from the clean one (or, a
        # round past the first, from this worker before the candidate was loaded)
        if self.truths is None:
            self.baseline = dataclasses.replace(value, runs=self.base_runs, truths=self.round_truths,
                                                truth_errors=self.round_errors)
        else:
            self.baseline = dataclasses.replace(value, runs=self.base_runs, truths=self.truths.truths,
                                                truth_errors=self.truths.truth_errors,
                                                truth_memory=self.truths.truth_memory)
        if self.part is not None:  # the round this process asked for, whatever the worker said
            self.baseline = self.baseline.view(self.part)
            if self.ev.records_note:
                self.baseline.truth_memory = dict(self.baseline.truth_memory, records=self.ev.records_note)

    def on_static(self, value: Any) -> CascadeResult | None:
        statics = list(value)
        if self.part is not None and any(g.gate == "static" for g in self.judge.gates) and \
                all(g.passed for g in statics):
            return None  # a later round's worker: the static gate was judged once, in the first round
        return None if self.judge.add_static(statics) else self.judge.done("rejected")

    def on_load_failed(self, value: Any) -> CascadeResult:
        return self.judge.load_failed(RuntimeError(value))

    def on_cand_run(self, value: Any) -> None:
        if self.baseline is None or self.rec is not None:
            raise self.unexpected(CAND_RUN)
        self.cand_runs[int(value[0])] = value[1]

    def on_cand_again(self, value: Any) -> None:
        if self.baseline is None or self.rec is not None or self.cand_again is not None:
            raise self.unexpected(CAND_AGAIN)
        self.cand_again = value

    def on_runs(self, value: Any) -> CascadeResult | None:
        """Gates 2 and 3 on the candidate's runs; then the worker is told to time it, or to stop.  (A round of the
        plan: kept for the caller, which judges it with the other rounds'.)"""
        if self.baseline is None:
            raise WorkerFailure("the worker sent the candidate's runs before its own baseline", self.stage)
        ev = self.ev
        rec = self.rec = value
        rec.runs = self.cand_runs
        if self.cand_again is not None:  # the rerun came on its own, as soon as its call returned
            rec.again = self.cand_again
        if self.part is not None:
            return None
        with ev._spent("judging"):
            passed = self.judge.correct(self.baseline, rec, self.progress)
        timed = passed and self.perf and ev.measures_time
        if timed:
            self.keep_for_timing()
        ev._conn.send(TIME if timed else STOP)  # the worker waits for either (a clean one judges on after STOP)
        if not passed:
            return self.judge.done("rejected")
        if timed:
            return None
        with ev._spent("judging"):
            return self.judge.finish(self.baseline, rec, perf=self.perf, measures_time=ev.measures_time,
                                     backend_name=ev.backend_name)

    def keep_for_timing(self) -> None:
        """Once gates 2 and 3 passed, let go of every record gate 4 does not read: the candidate's runs and, where
        no one keeps this trial's baseline for a later trial (:attr:`baseline_reused`: the clean worker's baseline
        runs are), the float64 truths and the baseline's runs but on the timing input sets (the timed calls' last
        outputs are compared with those).  The timed outputs that come next then find the device room those held."""
        baseline, rec = self.baseline, self.rec
        assert baseline is not None and rec is not None
        if not self.baseline_reused:
            timing = set(baseline.plan.timing)
            baseline.runs = {sd: run for sd, run in baseline.runs.items() if sd in timing}
            baseline.truths, self.truths = {}, None
            self.base_runs, self.round_truths = {}, {}
        rec.runs, rec.again, rec.starts, rec.carried = {}, None, {}, []
        self.cand_runs, self.cand_again = {}, None
        release_device_memory()

    def on_timed_last(self, value: Any) -> None:
        """A timing set's last output in this round: it replaces the set's last output of an earlier round (gate 4
        compares the last round's), which is let go now, before the round's next output arrives."""
        if self.rec is None:
            raise self.unexpected(TIMED_LAST)
        seed = int(value[0])
        (self.rec.timed_outputs or {}).get("last", {}).pop(seed, None)
        self.timed_last[seed] = value[1]

    def on_timing(self, value: Any) -> CascadeResult | None:
        """A round of timing merged (with the last outputs that came on their own); another round while the
        sequential gate is undecided, else gate 4."""
        rec, ev = self.rec, self.ev
        if rec is None:
            raise self.unexpected(TIMING)
        assert self.baseline is not None  # rec is set only after the baseline
        outs = dict(value["outs"])
        outs["last"] = {**(outs.get("last") or {}), **self.timed_last}
        self.timed_last = {}
        merge_timing(rec, value["timing"], outs)
        rec.device_peak_bytes = max(rec.device_peak_bytes, int(value.get("device_peak_bytes") or 0))
        more = next_round(ev.settings, rec)
        if more:  # the sequential gate: another round, of this many pairs
            ev._conn.send((MORE, more))
            return None
        ev._conn.send(STOP)
        with ev._spent("judging"):
            return self.judge.finish(self.baseline, rec, perf=self.perf, measures_time=ev.measures_time,
                                     backend_name=ev.backend_name)

    def on_crash(self, value: Any) -> None:
        raise WorkerFailure(f"evaluation raised {value}", self.stage)

    def on_run_error(self, value: Any) -> None:
        if self.baseline is not None:
            raise self.unexpected(RUN_ERROR)
        raise BaselineRunError(f"{self.ev.spec.name}: {value}")  # the run's error, not the candidate's

    #: one handler per kind of message a trial's worker sends (:mod:`pytest_kernelopt.isolate_protocol`)
    HANDLERS: dict[str, Callable[[_Trial, Any], CascadeResult | None]] = {
        PROGRESS: on_progress, TRUTH: on_truth, BASELINE_RUN: on_baseline_run, BASELINE: on_baseline, STATIC: on_static,
        LOAD_FAILED: on_load_failed, CAND_RUN: on_cand_run, CAND_AGAIN: on_cand_again, RUNS: on_runs,
        TIMED_LAST: on_timed_last, TIMING: on_timing, CRASH: on_crash, RUN_ERROR: on_run_error,
    }


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "still running"
    if code < 0:
        try:
            return f"killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"
