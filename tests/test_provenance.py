"""Checks by provenance (:mod:`pytest_kernelopt.gates.provenance`): the judge puts each candidate in a class from
its data and the captured graph, and its collection makes the checks that class needs, no fewer and no more.

* Inductor's own source under another valid launch config: a launch-config candidate;
* that source with its one reduction loop pipelined to a depth of the launch space, and nothing else: a mechanical
  edit, certified on the syntax tree;
* either of those under reduction blocks smaller than the baseline's: a
  longer chain (tests/test_longer_chain.py);
* anything else, whatever it says of itself: free-form, with every check.
"""

from __future__ import annotations

import dataclasses
import re

import pytest

torch = pytest.importorskip("torch")

from pytest_kernelopt import tuner  # noqa: E402
from pytest_kernelopt.candidate import Candidate, LaunchSpec  # noqa: E402
from pytest_kernelopt.config import Settings  # noqa: E402
from pytest_kernelopt.gates import provenance  # noqa: E402
from pytest_kernelopt.gates.cascade import EvaluationSession, Judge, static_gate_result  # noqa: E402
from pytest_kernelopt.gates.results import GateResult  # noqa: E402
from pytest_kernelopt.gates.correctness import CorrectnessGate  # noqa: E402
from pytest_kernelopt.gates.seed_plan import SeedPlan  # noqa: E402
from pytest_kernelopt.gates.trial_records import BaselineRecord, CandidateRecord, Run  # noqa: E402
from pytest_kernelopt.problems import problem_from_objects  # noqa: E402


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    """Overrides the suite's per-test Dynamo reset, which would make the module's shared session stale."""
    yield


class RowSum(torch.nn.Module):
    def forward(self, t):
        return (t * 2.0).sum(-1)


@pytest.fixture(scope="module")
def session(backend):
    x = torch.randn(4, 4096, device=backend.device)
    return EvaluationSession(problem_from_objects(RowSum(), (x,), "rowsum"), Settings(seeds=2, base_seed=3), backend)


@pytest.fixture(scope="module")
def kernel(session):
    graph = session.captured.graphs[0]
    (name,) = [n for n in graph.kernels if n.startswith("triton_red_")]
    return graph, name


def _config(graph, name):
    """The tuner's first config whose reduction blocks are at least the baseline's (a launch config; smaller ones
    are longer chains: tests/test_longer_chain.py)."""
    from pytest_kernelopt.launch_space import longer_chains, trace_of

    return next(c for c in tuner.propose_configs(graph, name, 8)
                if not longer_chains(trace_of(graph, name), dict(c.configs[0])))


def _class(session, cand):
    return provenance.classify([static_gate_result(cand, session.captured, None, aot=False)])


def test_the_judge_classes_a_candidate_by_its_code_not_by_what_it_says(session, kernel):
    graph, name = kernel
    config = _config(graph, name)
    assert _class(session, config) == provenance.LAUNCH_CONFIG
    piped = [v.candidate(name, dict(config.configs[0])) for v in tuner.pipelined_variants(graph, name)]
    assert piped and all(_class(session, c) == provenance.MECHANICAL_EDIT for c in piped)
    cfg, src = dict(config.configs[0]), piped[0].source
    loop = re.search(r"tl\.range\((.*), num_stages=(\d)\):", src)
    assert loop is not None
    forged = {
        "a depth the launch space does not have": src.replace(f"num_stages={loop[2]}", "num_stages=7"),
        "another keyword beside the depth": src.replace(f"num_stages={loop[2]}",
                                                        f"num_stages={loop[2]}, loop_unroll_factor=2"),
        "an edit inside the loop as well": re.sub(r"(tl\.load\([^\n]*?\))", r"\1 * 1.0", src, count=1),
        "control: the same edit, a trailing newline added": src + "\n",
    }
    for why, source in forged.items():
        cand = Candidate((name,), source, (cfg,), origin="tuner", description="reduction loop pipelined, launch config")
        want = provenance.MECHANICAL_EDIT if why.startswith("control") else provenance.FREE_FORM
        assert _class(session, cand) == want, why
    # metadata is compared too, but for the backend hash's value: entries Inductor did not write make free-form code
    src = config.source
    metadata = {
        "an entry added to the signature": src.replace("'signature': {", "'signature': {'kernel_name': '*fp32', ", 1),
        "another kernel's name as its kernel_name": re.sub(r"'kernel_name': '[^']*'",
                                                            "'kernel_name': 'triton_poi_fused_add_7'", src, count=1),
        "a backend hash added to the compile options": src.replace("'configs': [{", "'configs': [{'backend_hash': '', ",
                                                                   1),
        "control: another backend hash value": re.sub(r"'backend_hash': '[0-9A-Fa-f]*'", "'backend_hash': 'ABC123'",
                                                      src, count=1),
    }
    for why, source in metadata.items():
        assert source != src, why
        want = provenance.LAUNCH_CONFIG if why.startswith("control") else provenance.FREE_FORM
        assert _class(session, Candidate((name,), source, (cfg,), origin="tuner")) == want, why
    spec = LaunchSpec(name, graph.kernels[name].runtime_params, "(1,)")
    others = {
        "a pipelined loop under a launch spec of its own": dataclasses.replace(piped[0], configs=(), launch=spec),
        "Inductor's source with no config": Candidate((name,), graph.kernels[name].source, origin="tuner"),
        "an edited source that calls itself a tuner config": Candidate(
            (name,), config.source.replace("2.0", "2.0 * 1.0", 1), (cfg,), origin="tuner",
            description=config.description),
    }
    for why, cand in others.items():
        assert _class(session, cand) == provenance.FREE_FORM, why
    # a joint set is judged as its least certified member
    statics = [static_gate_result(c, session.captured, None, aot=False) for c in (config, piped[0])]
    assert provenance.classify(statics) == provenance.MECHANICAL_EDIT
    assert provenance.classify(statics + [GateResult("static", "pass")]) == provenance.FREE_FORM


def test_each_class_is_collected_with_the_checks_it_needs(session, kernel):
    graph, name = kernel
    config = _config(graph, name)
    piped = tuner.pipelined_variants(graph, name)[0].candidate(name, dict(config.configs[0]))
    free = Candidate((name,), graph.kernels[name].source + "\n# edited\n", origin="test")  # not Inductor's source
    for cand, cls in ((config, provenance.LAUNCH_CONFIG), (piped, provenance.MECHANICAL_EDIT),
                      (free, provenance.FREE_FORM)):
        res = session.evaluate(cand, perf=False)
        assert res.decision == "verified", (cls, res.reason)
        numbers = res.gate("correctness").numbers
        assert numbers["provenance"] == cls
        assert numbers["checks_skipped"] == provenance.skipped(cls)
        made = set(numbers["check_seconds"]) - {"baseline_runs"}
        needed = {c for c in provenance.COLLECTED if provenance.runs(c, cls)} - {"read_only_guard"}
        assert made == needed, (cls, made)
        assert numbers["determinism_checked"] is (cls == provenance.FREE_FORM)
        # where the probes' seconds went, for free-form code (the class that runs them) only
        spent = numbers.get("structure_probe_seconds")
        assert (spent is not None) is (cls == provenance.FREE_FORM), (cls, spent)
        if spent is not None:
            parts = spent["making"] + spent["candidate_calls"] + spent["baseline_calls_and_comparisons"]
            assert 0 < parts <= numbers["check_seconds"]["structure_probes"] + 1e-3, (spent, numbers["check_seconds"])
            assert 0 < len(spent["slowest"]) <= 5 and max(spent["slowest"].values()) <= parts + 1e-3, spent
    assert provenance.skipped(provenance.FREE_FORM) == []
    # Inductor's source byte for byte under no config of its own is not certified, but has no code to probe
    res = session.evaluate(Candidate((name,), graph.kernels[name].source, origin="a/a"), perf=False)
    numbers = res.gate("correctness").numbers
    assert numbers["provenance"] == provenance.FREE_FORM and numbers["checks_skipped"] == ["structure_probes"]
    assert "structure_probes" not in numbers["check_seconds"] and "loops" in numbers["check_seconds"]
    assert set(provenance.skipped(provenance.LAUNCH_CONFIG)) == {
        "fp64_every_seed", "rerun", "stale_buffers", "read_only_guard", "loops", "structure_probes", "own_worker"}


def _truths_counted(monkeypatch) -> list:
    """The seeds of each float64-truth collection from here on, in order."""
    from pytest_kernelopt.gates import trials

    computed: list = []
    real = trials.collect_truths
    monkeypatch.setattr(trials, "collect_truths", lambda s, plan, *a, **k: computed.append(plan.seeds) or
                        real(s, plan, *a, **k))
    return computed


def test_inductors_own_arithmetic_within_tolerance_is_judged_without_a_float64_truth(session, kernel, monkeypatch):
    """A launch config or the pipelined loop within tolerance of the baseline on every seed computes no float64
    truth (the same arithmetic in another order differs by rounding alone, which the tolerance bounds); free-form
    code gets the truth on every seed.  Where a launch config differs beyond tolerance, the truth is computed on
    those seeds alone: tests/test_reorder.py::test_a_reorder_on_an_output_that_is_rounding_noise_is_no_coin_flip."""
    graph, name = kernel
    config = _config(graph, name)
    piped = tuner.pipelined_variants(graph, name)[0].candidate(name, dict(config.configs[0]))
    free = Candidate((name,), graph.kernels[name].source + "\n# edited\n", origin="test")
    computed = _truths_counted(monkeypatch)
    session.drop_records()
    for cand in (config, piped):
        res = session.evaluate(cand, perf=False)
        assert res.decision == "verified", res.reason
        fp64 = res.gate("fp64")
        assert fp64.numbers["truth_seeds"] == [] and "rounding alone" in fp64.numbers["truth_not_needed"]
        assert "the float64 truth is not needed" in fp64.reason
    assert computed == []
    res = session.evaluate(free, perf=False)
    assert res.decision == "verified", res.reason
    assert computed == [session.plan.seeds] and res.gate("fp64").numbers["truth_seeds"] == list(session.plan.seeds)
    assert "truth_not_needed" not in res.gate("fp64").numbers


def test_the_in_process_judge_computes_no_float64_truth_up_front_for_inductors_own_arithmetic(session, kernel,
                                                                                               monkeypatch):
    """The in-process evaluator (verify mode's first check of a cache entry, the optimize run's) collects the
    baseline before the time limit starts: every seed's float64 truth with it only for a candidate whose class needs
    them all (free-form code), none for a launch config within tolerance."""
    from pytest_kernelopt.optimize import LocalEvaluator

    graph, name = kernel
    config = _config(graph, name)
    free = Candidate((name,), graph.kernels[name].source + "\n# edited\n", origin="test")
    computed = _truths_counted(monkeypatch)
    session.drop_records()
    ev = LocalEvaluator(session)
    res = ev.evaluate(config, perf=False)
    assert res.decision == "verified", res.reason
    assert computed == [] and res.gate("fp64").numbers["truth_seeds"] == []
    res = ev.evaluate(free, perf=False)
    assert res.decision == "verified", res.reason
    assert computed == [session.plan.seeds]


def test_the_in_process_judge_keeps_records_on_the_device_only_for_code_free_candidates(session, kernel,
                                                                                        monkeypatch):
    """The in-process judge keeps a code-free candidate's records where they are made (on a GPU, the device), as the
    clean worker does; a free-form candidate's records are host copies, and device records an earlier judgement
    kept are let go before its code runs."""
    from pytest_kernelopt.gates import digests
    from pytest_kernelopt.optimize import LocalEvaluator

    graph, name = kernel
    config = _config(graph, name)
    free = Candidate((name,), graph.kernels[name].source + "\n# edited\n", origin="test")
    where: list[tuple[str, bool]] = []
    real = type(session).evaluate

    def evaluate(self, candidate, *args, **kwargs):
        where.append((candidate.origin, digests.kept_on_device()))
        return real(self, candidate, *args, **kwargs)

    monkeypatch.setattr(type(session), "evaluate", evaluate)
    session.drop_records()
    ev = LocalEvaluator(session)
    assert ev.evaluate(config, perf=False).decision == "verified"
    assert ev.evaluate(free, perf=False).decision == "verified"
    assert where == [(config.origin, True), (free.origin, False)]
    held = session._baseline_record
    assert held is not None
    assert not session.holds_device_records()  # the free-form judgement's records: host copies
    monkeypatch.setattr(type(session), "holds_device_records", lambda self: True)  # as on a GPU
    ev._records_where(False)
    assert session._baseline_record is None
    session._baseline_record = held
    ev._records_where(True)
    assert session._baseline_record is held  # (a code-free judgement keeps them)


def test_a_record_without_a_check_its_class_needs_is_refused():
    cands = [Candidate(("k",), "src", origin="agents")]
    judge = Judge(Settings(), cands, 0.0)
    judge.note_provenance([GateResult("static", "pass")])
    assert judge.provenance == provenance.FREE_FORM
    plan = SeedPlan.make(2, 5)
    same = Run(torch.ones(3), {}, ())
    baseline = BaselineRecord(plan, runs={seed: same for seed in plan.seeds})
    rec = CandidateRecord(runs={seed: same for seed in plan.seeds}, launches=1)
    assert CorrectnessGate().judge(Settings(), baseline, rec).passed  # every value right
    rec.checks_run = ["seeds"]  # but only what a launch config's collection makes
    assert not judge.correct(baseline, rec)
    gate = judge.gates[-1]
    assert gate.status == "fail" and "did not make the checks" in gate.reason
    assert gate.numbers["checks_missing"] == ["rerun", "stale_buffers", "read_only_guard", "loops",
                                              "structure_probes"]


def test_a_clean_worker_judges_a_launch_config_where_its_records_are(session, kernel, monkeypatch):
    """The worker's side of a judgement in the clean worker (isolate_worker's JUDGE): the whole cascade in the
    worker, its records kept where they are made (on a GPU, the device) and the baseline's kept for the next
    candidate; where they would not fit at once, every seed judged in rounds and nothing kept."""
    from pytest_kernelopt import isolate_worker
    from pytest_kernelopt.gates.results import CascadeResult
    from pytest_kernelopt.isolate_protocol import RESULT

    graph, name = kernel
    config = _config(graph, name)
    sent: list = []
    payload = {"candidates": [config.to_json()], "seeds": None, "perf": False, "aot": False}
    session.drop_records()
    isolate_worker._judge(None, lambda kind, value: sent.append((kind, value)), session, payload)
    kind, res = sent[-1]
    assert kind == RESULT and isinstance(res, CascadeResult) and res.decision == "verified", res
    assert res.gate("correctness").numbers["judged_where"].startswith("in the clean worker")
    kept = session._baseline_record
    assert kept is not None and kept.runs and not kept.truths  # (within tolerance: no float64 truth needed)
    from pytest_kernelopt.gates.compare import flatten

    first = flatten(next(iter(kept.runs.values())).outputs)[0]
    assert first.device.type == session.backend.device.split(":")[0], first.device  # where it was made
    # no room for every seed's records at once: every seed judged still, in rounds, and none kept
    monkeypatch.setenv("KERNELOPT_RECORD_BUDGET_GB", "1e-9")
    isolate_worker._judge(None, lambda kind, value: sent.append((kind, value)), session, payload)
    kind, res = sent[-1]
    assert kind == RESULT and res.decision == "verified", res
    corr = res.gate("correctness")
    assert corr.numbers["rounds"] == [[sd] for sd in session.plan.seeds] and "1 seeds a round" in \
        corr.numbers["judged_where"], corr.numbers
    assert session._baseline_record is None


def test_a_seed_emitted_from_the_device_is_handed_over_before_the_candidate_runs_again(session, kernel):
    """With device frames (``emit_on_device``: the judge copies each seed's run on the device before it answers),
    a free-form candidate's seed runs are emitted as soon as their calls return, before the checks that run the
    candidate again on the first seed, and so is the rerun; the worker's own copy is then let go.  (On the CPU the same order, with host
    tensors: the device frames themselves are tests/test_device_frames.py's, on a GPU.)"""
    from pytest_kernelopt.gates.compare import flatten
    from pytest_kernelopt.gates.trials import collect_candidate
    from pytest_kernelopt.substitute import KernelSwap

    graph, name = kernel
    config = _config(graph, name)
    cand = dataclasses.replace(config, source=config.source + "\n# free-form\n", origin="test")
    swap = KernelSwap(session.captured, [cand])
    plan = SeedPlan.make(2, 3)
    emitted: list = []

    def emit(seed, run):
        emitted.append((seed, swap.launches, run))
        assert all(o is not None for o in flatten(run.outputs)), "emitted without its outputs"

    rec = collect_candidate(session, swap, plan, emit=emit, provenance=provenance.FREE_FORM, emit_on_device=True,
                            emit_again=lambda run: emit("again", run))
    assert not rec.error, rec.error
    assert [s for s, _, _ in emitted] == [plan.seeds[0], "again", *plan.seeds[1:]] and not rec.runs
    first_seed_launches, again_launches = emitted[0][1], emitted[1][1]
    # the rerun is handed over right after its one call, before the loops and the probes run the candidate again
    assert again_launches == first_seed_launches + 1 and rec.again is not None and rec.again.outputs is None
    assert "structure_probes" in rec.checks_run and emitted[2][1] > again_launches + 1
    assert first_seed_launches <= 2  # its one call (and, for a stale-buffer seed, the call before it)
    assert all(run.outputs is None for _, _, run in emitted)  # the worker's copies let go once handed over
