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
                   proto.CAND_RUN, proto.CAND_AGAIN, proto.RUNS, proto.TIMING, proto.CRASH, proto.RUN_ERROR}
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
