"""The isolated judge's protocol (isolate_protocol.py): each message kind has one handler on the side that reads it,
and the parent refuses a worker's message that comes out of the trial's order (a worker that has loaded a candidate
is not trusted to follow the protocol).  No worker is started here: the parent's trial reads scripted messages."""

from __future__ import annotations

import types

import pytest

from pytest_kernelopt import isolate_protocol as proto
from pytest_kernelopt.isolate import WorkerFailure, _Trial
from pytest_kernelopt.isolate_worker import HANDLERS as WORKER_HANDLERS


def test_every_request_has_one_handler_in_the_worker():
    assert set(WORKER_HANDLERS) == set(proto.REQUESTS)


def test_every_message_of_a_trial_has_one_handler_in_the_parent():
    trial_kinds = {proto.PROGRESS, proto.TRUTH, proto.BASELINE_RUN, proto.BASELINE, proto.STATIC, proto.LOAD_FAILED,
                   proto.CAND_RUN, proto.CAND_AGAIN, proto.RUNS, proto.TIMED_LAST, proto.TIMING, proto.CRASH,
                   proto.RUN_ERROR}
    assert set(_Trial.HANDLERS) == trial_kinds
    assert len(set(vars(proto)[k] for k in vars(proto) if k.isupper() and k != "REQUESTS")) == \
        len([k for k in vars(proto) if k.isupper() and k != "REQUESTS"]), "every kind is its own string"


def _trial(messages):
    script = iter(messages)
    ev = types.SimpleNamespace(settings=types.SimpleNamespace(timeout=5.0),
                               _receive=lambda timeout, stage, total=None: next(script))
    return _Trial(ev, judge=None, truths=None, perf=False, progress=None)  # type: ignore[arg-type]


@pytest.mark.parametrize("messages, reason", [
    ([(proto.CAND_RUN, (1, None))], "unexpected message 'cand_run'"),  # a candidate's run before the baseline
    ([(proto.CAND_AGAIN, None)], "unexpected message 'cand_again'"),  # and its rerun
    ([(proto.TIMING, {})], "unexpected message 'timing'"),  # timing before the candidate's runs
    ([(proto.TIMED_LAST, (1, None))], "unexpected message 'timed_last'"),  # and a timed output
    ([(proto.RUNS, None)], "the worker sent the candidate's runs before its own baseline"),
    ([(proto.PROGRESS, "gate:correctness"), ("gossip", None)], "unexpected message 'gossip'"),
    ([(proto.CRASH, "RuntimeError: boom")], "evaluation raised RuntimeError: boom"),
    # a round's float64 truth after its baseline runs began (a worker that has loaded the candidate may not send one)
    ([(proto.BASELINE_RUN, (1, None)), (proto.TRUTH, {"seed": 1, "run": None, "error": ""})],
     "unexpected message 'truth'"),
])
def test_a_message_out_of_the_trials_order_fails_the_worker_in_the_gate_it_was_in(messages, reason):
    trial = _trial(messages)
    with pytest.raises(WorkerFailure, match=reason) as info:
        trial.run()
    assert info.value.stage == trial.stage
    assert trial.stage == ("gate:correctness" if messages[0][0] == proto.PROGRESS else "gate:static")


def test_a_clean_worker_that_cannot_judge_itself_leaves_the_judging_to_the_parent():
    """A launch config is judged by the clean worker itself (JUDGE); where that judgement raises (the worker's own
    error: a candidate's errors are in its record), the parent judges the worker's records instead (a trial), for
    this candidate and the rest: never a verdict the worker could not reach."""
    from pytest_kernelopt.candidate import Candidate
    from pytest_kernelopt.isolate import IsolatedEvaluator

    ev = IsolatedEvaluator.__new__(IsolatedEvaluator)
    script = iter([(proto.PROGRESS, "gate:static"), (proto.CRASH, "OutOfMemoryError: CUDA out of memory")])
    sent: list = []
    ev.settings = types.SimpleNamespace(timeout=5.0)
    ev.plan = types.SimpleNamespace(seeds=(1, 2))
    ev.judge_here, ev.judge_here_note, ev._judged_in, ev.workers_started = True, "", 0, 1
    ev._conn = types.SimpleNamespace(send=sent.append)
    ev._clean_worker = lambda: None
    ev._receive = lambda timeout, stage, total=None: next(script)
    cand = Candidate(("k",), "src", ({"XBLOCK": 8},), origin="tuner")
    assert ev._judge_in_worker([cand], True, None, True, None, 0.0) is None
    assert [m[0] for m in sent] == [proto.JUDGE] and ev.judge_here is False
    assert "out of memory" in ev.judge_here_note
    assert ev._judge_in_worker([cand], True, None, True, None, 0.0) is None and len(sent) == 1  # not asked again


def test_the_last_outputs_that_came_on_their_own_are_merged_into_their_round_of_timing(monkeypatch):
    """TIMED_LAST messages (device frames, one per timing set) join the TIMING message that follows them, and a
    further round's replace them: the performance gate reads every set's last output either way."""
    from pytest_kernelopt import isolate
    from pytest_kernelopt.gates.trial_records import CandidateRecord

    sent = []
    rounds = iter([3, 0])  # the sequential gate asks for another round, then decides
    monkeypatch.setattr(isolate, "next_round", lambda s, rec: next(rounds))
    trial = _trial([])
    trial.ev._conn = types.SimpleNamespace(send=sent.append)
    trial.ev._spent = lambda what: __import__("contextlib").nullcontext()
    trial.ev.measures_time, trial.ev.backend_name = True, "cuda"
    finished = []
    trial.judge = types.SimpleNamespace(finish=lambda *a, **k: finished.append(a[1]) or "verdict")
    trial.baseline, trial.rec = object(), CandidateRecord()
    timing = {"base": [1.0, 1.0], "cand": [1.0, 1.0], "launches": 2, "seconds": 0.1}
    trial.on_timed_last((7, "first of set 7"))
    trial.on_timed_last((8, "first of set 8"))
    assert trial.on_timing({"timing": timing, "outs": {"last": {}, "sums": {}}}) is None
    assert sent == [(isolate.MORE, 3)]
    assert trial.rec.timed_outputs["last"] == {7: "first of set 7", 8: "first of set 8"}
    trial.on_timed_last((7, "second of set 7"))
    assert 7 not in trial.rec.timed_outputs["last"], "an earlier round's output is let go as its successor arrives"
    assert trial.on_timing({"timing": timing, "outs": {"last": {8: "from TIMING"}, "sums": {}}}) == "verdict"
    assert trial.rec.timed_outputs["last"] == {7: "second of set 7", 8: "from TIMING"}
    assert finished == [trial.rec] and sent[-1] == isolate.STOP


def test_before_the_timing_the_judge_holds_only_what_the_performance_gate_reads():
    """Once gates 2 and 3 passed, the candidate's runs, the float64 truths and the baseline's runs on the
    correctness seeds are let go before the worker is told to time: the timed calls' last outputs need the room,
    and the performance gate compares them with the baseline's runs on the timing sets alone."""
    from pytest_kernelopt import isolate
    from pytest_kernelopt.gates.seed_plan import SeedPlan
    from pytest_kernelopt.gates.trial_records import BaselineRecord, CandidateRecord

    sent = []
    trial = _trial([])
    held_when_sent = []

    def send(msg):
        held_when_sent.append((sorted(trial.baseline.runs), trial.baseline.truths, trial.rec.runs, trial.rec.again))
        sent.append(msg)

    trial.ev._conn = types.SimpleNamespace(send=send)
    trial.ev._spent = lambda what: __import__("contextlib").nullcontext()
    trial.ev.measures_time, trial.perf = True, True
    trial.judge = types.SimpleNamespace(correct=lambda *a: True)
    plan = SeedPlan(1, (11, 12), (1.0, 1.0), (21,), "os")
    trial.baseline = BaselineRecord(plan, runs={11: "b11", 12: "b12", 21: "b21"}, truths={11: "t11", 12: "t12"})
    trial.cand_runs, trial.cand_again = {11: "c11", 12: "c12"}, "again"
    assert trial.on_runs(CandidateRecord()) is None
    assert sent == [isolate.TIME]
    assert held_when_sent == [([21], {}, {}, None)]
    assert trial.cand_runs == {} and trial.cand_again is None


def test_a_candidate_that_is_not_timed_keeps_its_records_for_the_verdict():
    """Without timing (perf off) nothing is let go: the verdict is taken from the records as they are."""
    from pytest_kernelopt import isolate
    from pytest_kernelopt.gates.seed_plan import SeedPlan
    from pytest_kernelopt.gates.trial_records import BaselineRecord, CandidateRecord

    sent, finished = [], []
    trial = _trial([])
    trial.ev._conn = types.SimpleNamespace(send=sent.append)
    trial.ev._spent = lambda what: __import__("contextlib").nullcontext()
    trial.ev.measures_time, trial.ev.backend_name, trial.perf = True, "cuda", False
    trial.judge = types.SimpleNamespace(correct=lambda *a: True,
                                        finish=lambda b, r, **k: finished.append((sorted(b.runs), r.runs)) or "ok")
    plan = SeedPlan(1, (11,), (1.0,), (21,), "os")
    trial.baseline = BaselineRecord(plan, runs={11: "b11", 21: "b21"})
    trial.cand_runs = {11: "c11"}
    assert trial.on_runs(CandidateRecord()) == "ok"
    assert sent == [isolate.STOP] and finished == [([11, 21], {11: "c11"})]


def test_a_baseline_kept_for_the_clean_workers_next_trial_keeps_its_runs_through_the_timing():
    """Where the evaluator keeps a trial's baseline for the clean worker's next trial, letting go before the timing
    leaves that baseline whole: the next trial judges its correctness seeds against it."""
    from pytest_kernelopt import isolate
    from pytest_kernelopt.gates.correctness import CorrectnessGate
    from pytest_kernelopt.gates.seed_plan import SeedPlan
    from pytest_kernelopt.gates.trial_records import BaselineRecord, CandidateRecord, Run
    from pytest_kernelopt.config import Settings

    import torch

    def run(v):
        return Run((torch.full((4,), float(v)),), {}, ())

    plan = SeedPlan(1, (11, 12), (1.0, 1.0), (21,), "os")
    sent = []
    trial = _trial([])
    trial.ev._conn = types.SimpleNamespace(send=sent.append)
    trial.ev._spent = lambda what: __import__("contextlib").nullcontext()
    trial.ev.measures_time, trial.perf, trial.baseline_reused = True, True, True
    trial.judge = types.SimpleNamespace(correct=lambda *a: True)
    trial.baseline = BaselineRecord(plan, runs={11: run(1), 12: run(2), 21: run(3)})
    trial.cand_runs, trial.cand_again = {11: run(1), 12: run(2)}, run(1)
    assert trial.on_runs(CandidateRecord()) is None and sent == [isolate.TIME]
    kept = trial.baseline  # what IsolatedEvaluator.evaluate keeps for the next trial
    assert sorted(kept.runs) == [11, 12, 21] and trial.cand_runs == {} and trial.rec.runs == {}
    nxt = CandidateRecord(runs={11: run(1), 12: run(2)})
    assert CorrectnessGate().judge(Settings(), kept, nxt).passed
