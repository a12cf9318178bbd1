"""Repro: after a timed, passing trial in the parent-judged clean-worker path, the baseline the evaluator keeps for
its next trial (isolate.py: self._worker_baseline = (..., trial.baseline)) has lost its correctness seeds' runs."""
import types, dataclasses
import torch
from pytest_kernelopt import isolate
from pytest_kernelopt.isolate import _Trial
from pytest_kernelopt.gates.seed_plan import SeedPlan
from pytest_kernelopt.gates.trial_records import BaselineRecord, CandidateRecord, Run
from pytest_kernelopt.gates.correctness import CorrectnessGate
from pytest_kernelopt.config import Settings

def run(v):
    return Run((torch.full((4,), float(v)),), {}, ())

plan = SeedPlan(1, (11, 12), (1.0, 1.0), (21,), "os")
shared_truths = BaselineRecord(plan, truths={11: run(0), 12: run(0)})
sent = []
ev = types.SimpleNamespace(settings=types.SimpleNamespace(timeout=5.0), _conn=types.SimpleNamespace(send=sent.append),
                           _spent=lambda w: __import__("contextlib").nullcontext(), measures_time=True)
# trial 1: a launch config judged by the parent (judge_here False), timed on the GPU
t1 = _Trial(ev, types.SimpleNamespace(correct=lambda *a: True), shared_truths, True, None)
t1.base_runs = {11: run(1), 12: run(2), 21: run(3)}
t1.on_baseline(BaselineRecord(plan))
t1.cand_runs = {11: run(1), 12: run(2)}
t1.on_runs(CandidateRecord())
kept = t1.baseline                      # what IsolatedEvaluator.evaluate stores in _worker_baseline (isolate.py:567)
print("kept runs:", sorted(kept.runs), "shared truths intact:", sorted(shared_truths.truths))
# trial 2 in the same clean worker: baseline False, the parent reuses kept (isolate.py:549-551)
t2 = _Trial(ev, None, shared_truths, True, None)
t2.base_runs = kept.runs
t2.on_baseline(dataclasses.replace(kept, seconds={}))
rec2 = CandidateRecord(runs={11: run(1), 12: run(2)})
try:
    print(CorrectnessGate().judge(Settings(), t2.baseline, rec2))
except Exception as e:
    print("correctness gate raised:", type(e).__name__, e)
