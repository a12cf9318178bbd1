"""The pairs of calls kept for the judge (loops, streams, structure probes) are bounded in host bytes: past
:data:`pytest_kernelopt.gates.trial_records.CARRIED_TOTAL_BYTES` each pair is kept as the same keyed sample of positions in
the candidate's run and the baseline's, so every pair is still judged.  Before, past 256 MiB a call, every earlier
pair was dropped and only the last reached the judge (a probe wrong at size went unseen), and below it every pair
was kept whole (18 probes of 200 MiB outputs: 7 GiB of host memory)."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from pytest_kernelopt.candidate import Candidate  # noqa: E402
from pytest_kernelopt.config import Settings  # noqa: E402
from pytest_kernelopt.gates import calls, trial_records  # noqa: E402
from pytest_kernelopt.gates.cascade import EvaluationSession  # noqa: E402
from pytest_kernelopt.problems import ProblemSpec, build_problem  # noqa: E402

REPROS = Path(__file__).resolve().parent.parent / "benchmarks" / "redteam"


def _run(out, state=None):
    return trial_records.Run(out, state or {}, ())


def test_pairs_past_the_budget_keep_the_same_keyed_positions_in_both_runs(monkeypatch):
    monkeypatch.setattr(trial_records, "CARRIED_TOTAL_BYTES", 3 * 4 * 1000)  # a pair and a half of 1000 float32 values
    monkeypatch.setattr(trial_records, "CARRIED_SAMPLE", 128)
    rec = trial_records.CandidateRecord()
    base = torch.arange(1000, dtype=torch.float32)
    calls.keep_pair(rec, "first", _run((base.clone(),)), _run((base.clone(),)))
    assert rec.carried_sampled == 0 and rec.carried[0][1].outputs[0].numel() == 1000, "within the budget: whole"
    wide = torch.arange(4000, dtype=torch.float32).reshape(40, 100)
    wrong = wide.clone()
    wrong[17] += 1.0  # one row of forty wrong
    calls.keep_pair(rec, "second", _run((wrong, 7), {"state:s": wide.clone()}), _run((wide, 7), {"state:s": wide}))
    _, cand, got = rec.carried[1]
    assert rec.carried_sampled == 1
    c, b = cand.outputs[0], got.outputs[0]
    assert c.shape == b.shape and 64 < c.numel() <= 128, "a sample of the positions, not the whole tensor"
    assert cand.outputs[1] == 7 and got.outputs[1] == 7, "values that are not tensors are kept"
    assert torch.equal(cand.grads["state:s"], got.grads["state:s"]), "the same positions in both runs"
    differs = c != b
    assert torch.equal(c[~differs], b[~differs]) and bool(((c - b)[differs] == 1.0).all())
    assert rec.carried_bytes == 4 * 1000 * 2 + sum(t.numel() * 4 for t in (c, b, cand.grads["state:s"],
                                                                          got.grads["state:s"]))
    # a row of 100 positions: the 64 runs of a sample of 128 land on a row of 40 nearly always; over many keys
    # the wrong row is seen in most samples, and the positions differ from key to key
    seen, keys = 0, set()
    for _ in range(40):
        r = trial_records.CandidateRecord(carried_bytes=trial_records.CARRIED_TOTAL_BYTES)
        calls.keep_pair(r, "k", _run((wrong,)), _run((wide,)))
        c, b = r.carried[0][1].outputs[0], r.carried[0][2].outputs[0]
        seen += bool((c != b).any())
        keys.add(tuple(b.tolist()))
    assert seen >= 30 and len(keys) > 30


def test_a_tensor_the_two_runs_hold_otherwise_is_kept_whole_for_the_judge_to_refuse(monkeypatch):
    monkeypatch.setattr(trial_records, "CARRIED_TOTAL_BYTES", 0)
    monkeypatch.setattr(trial_records, "CARRIED_SAMPLE", 16)
    rec = trial_records.CandidateRecord()
    x = torch.randn(30, 20)
    calls.keep_pair(rec, "k", _run((x.t().contiguous().t(), x.double())), _run((x, x)))
    _, cand, base = rec.carried[0]
    assert cand.outputs[0].stride() != base.outputs[0].stride() and cand.outputs[0].shape == (30, 20)
    assert cand.outputs[1].dtype == torch.float64 and cand.outputs[1].numel() == 600


def test_a_pair_past_the_budget_is_sampled_where_its_outputs_are_before_any_reaches_the_host(monkeypatch):
    """Once a pair shows that the next one would take the pairs kept past the budget, the next pair is kept at a
    keyed sample gathered from each run as it is taken (:class:`calls.Sample`): the same positions in the
    candidate's run and the baseline's, drawn after the candidate's call, and a tensor held otherwise kept whole."""
    monkeypatch.setattr(trial_records, "CARRIED_TOTAL_BYTES", 3 * 4 * 1000)
    monkeypatch.setattr(trial_records, "CARRIED_SAMPLE", 128)
    rec = trial_records.CandidateRecord()
    assert calls.pair_sample(rec) is None  # no pair seen yet: the first is kept whole, or sampled by keep_pair
    base = torch.arange(1000, dtype=torch.float32)
    calls.keep_pair(rec, "first", _run((base.clone(),)), _run((base.clone(),)))
    assert rec.carried_pair_bytes == 8000 and rec.carried_sampled == 0
    sample = calls.pair_sample(rec)  # 8000 + 8000 > 12000: the next pair is sampled as it is taken
    assert sample is not None
    wrong = base.clone()
    wrong[500:] += 1.0
    cand = _run(sample.take((wrong, 7), ("outputs",)), sample.take({"state:s": base.reshape(10, 100)}, ("grads",)))
    got = _run(sample.take((base, 7), ("outputs",)), sample.take({"state:s": base.reshape(100, 10)}, ("grads",)))
    calls.keep_pair(rec, "second", cand, got, sample)
    c, b = cand.outputs[0], got.outputs[0]
    assert 64 < c.numel() <= 128 and torch.equal(b, base[b.long()]), "the same positions in both runs"
    assert bool(((c - b) == (b >= 500).float()).all()) and cand.outputs[1] == 7
    assert cand.grads["state:s"].numel() == 128 and got.grads["state:s"].shape == (100, 10), "held otherwise: whole"
    assert rec.carried_sampled == 1 and rec.carried_pair_bytes == 2 * 4 * (1000 + 1000)
    assert rec.carried_bytes == 8000 + sum(t.numel() * 4 for t in (c, b, cand.grads["state:s"], got.grads["state:s"]))
    other = calls.Sample()
    assert not torch.equal(other.take(base, ()), b), "each pair's positions from a key of its own"


def test_a_probe_on_a_sampled_pair_still_refuses_and_an_honest_kernel_is_still_verified(backend, cpu_interpreter,
                                                                                      monkeypatch):
    """Red team 36's all-ones keep mask, every pair judged on a sample of its positions."""
    monkeypatch.setattr(trial_records, "CARRIED_TOTAL_BYTES", 0)
    monkeypatch.setattr(trial_records, "CARRIED_SAMPLE", 64)  # of the 256 values of its output
    problem = build_problem(ProblemSpec.from_file(REPROS / "rt36" / "p1" / "prob.py"), backend.device, 0)
    session = EvaluationSession(problem, Settings(mode="optimize"), backend)
    kernels = {n: k for g in session.captured.graphs for n, k in g.kernels.items()}
    src = (REPROS / "rt36" / "p1" / "cand_allones.py").read_text()
    (name,) = [n for n in kernels if f"def {n}(" in src]
    own = session.evaluate(Candidate((name,), kernels[name].source + "\n# a proposer's copy\n"), perf=False)
    assert own.decision == "verified", own.reason
    numbers = own.gate("correctness").numbers
    assert numbers["structure_probes_compared"] >= 10 and "judged on a keyed sample" in numbers["pairs_sampled"]
    res = session.evaluate(Candidate((name,), src, origin="red-team"), perf=False)
    assert res.decision == "rejected" and "structure probe: " in res.reason, res.reason


def test_the_first_pair_is_sampled_as_it_is_taken_where_a_pair_of_the_seeds_size_would_not_fit_whole(
        backend, cpu_interpreter, monkeypatch):
    """The first seed's run sets the size a pair of calls takes: where two of it pass the budget, the checks' first
    pair is already sampled where its outputs are (:func:`calls.pair_sample`), never copied whole to the host and
    sampled there (at 6 GiB outputs that copy was 12 GiB a pair)."""
    monkeypatch.setattr(trial_records, "CARRIED_TOTAL_BYTES", 1000)  # below two runs of 256 float32 values
    monkeypatch.setattr(trial_records, "CARRIED_SAMPLE", 64)
    on_host: list[int] = []
    sampled = calls._sampled
    monkeypatch.setattr(calls, "_sampled", lambda c, b: (on_host.append(1), sampled(c, b))[1])
    problem = build_problem(ProblemSpec.from_file(REPROS / "rt36" / "p1" / "prob.py"), backend.device, 0)
    session = EvaluationSession(problem, Settings(mode="optimize"), backend)
    kernels = {n: k for g in session.captured.graphs for n, k in g.kernels.items()}
    name = next(iter(kernels))
    res = session.evaluate(Candidate((name,), kernels[name].source + "\n# a proposer's copy\n"), perf=False)
    assert res.decision == "verified", res.reason
    numbers = res.gate("correctness").numbers
    assert numbers["structure_probes_compared"] >= 10 and "judged on a keyed sample" in numbers["pairs_sampled"]
    assert not on_host, "no pair copied whole and sampled on the host"
