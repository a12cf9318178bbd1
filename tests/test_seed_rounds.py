"""Every seed judged at every size: a judge whose memory cannot hold every seed's records at once judges the plan in
rounds (:meth:`pytest_kernelopt.gates.seed_plan.SeedPlan.rounds`), each round's records let go before the next is
collected, every seed keeping its role (its index in the whole plan)."""

from __future__ import annotations

import re

import pytest

torch = pytest.importorskip("torch")

from pytest_kernelopt.candidate import Candidate  # noqa: E402
from pytest_kernelopt.config import Settings  # noqa: E402
from pytest_kernelopt.gates.cascade import EvaluationSession  # noqa: E402
from pytest_kernelopt.gates.seed_plan import CANDIDATE_FILLS, SeedPlan  # noqa: E402
from pytest_kernelopt.problems import problem_from_objects  # noqa: E402

ROLES = ("plain", "special", "integral", "half_rounded", "nonnegative", "sorted_rows", "varied_state",
         "far_counters", "scale", "describe", "index")


def test_a_round_of_a_plan_keeps_each_seeds_role_and_the_last_round_the_timing_sets():
    plan = SeedPlan.make(6, 7)
    assert plan.rounds(6) == [plan] and plan.rounds(9) == [plan]
    rounds = plan.rounds(4)
    assert [r.seeds for r in rounds] == [plan.seeds[:4], plan.seeds[4:]]
    assert [r.timing for r in rounds] == [(), plan.timing]
    for part in rounds:
        assert part.warm_seed == plan.timing[0] and part.all_seeds == plan.seeds
        for seed in part.seeds:
            for role in ROLES:
                assert getattr(part, role)(seed) == getattr(plan, role)(seed), (role, seed)
    # one seed a round: the special-values seed is still the fifth, the stale-buffer seed the second
    singles = plan.rounds(1)
    assert [r.seeds for r in singles] == [(sd,) for sd in plan.seeds]
    assert singles[4].special(plan.seeds[4]) and singles[1].index(plan.seeds[1]) in CANDIDATE_FILLS
    # a worker's own plan keeps every timing set (it was made before the judge trimmed them to what its memory
    # holds): the round it is sent runs on the judge's count of them, not on its own
    assert len(plan.timing) > 1
    judges = plan.trimmed(None, 1).rounds(4)
    assert [len(r.timing) for r in judges] == [0, 1]
    assert plan.only(judges[-1].seeds, timing_sets=len(judges[-1].timing)).timing == plan.timing[:1]


class Affine(torch.nn.Module):
    def forward(self, x):
        return x * 2.0 + 1.0


@pytest.fixture(scope="module")
def session(backend):
    x = torch.randn(4, 64, device=backend.device)
    return EvaluationSession(problem_from_objects(Affine(), (x,), "affine"), Settings(seeds=6, base_seed=11), backend)


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    """Overrides the suite's per-test Dynamo reset, which would make the module's shared session stale."""
    yield


def _kernel(session):
    ((graph, name),) = session.captured.triton_kernels
    return graph.kernels[name]


def test_the_judges_memory_sets_how_many_seeds_a_round_holds(session, monkeypatch):
    monkeypatch.delenv("KERNELOPT_RECORD_BUDGET_GB", raising=False)
    assert session.seeds_per_round(session.plan)[0] == 6  # a few KiB of records: all at once
    monkeypatch.setenv("KERNELOPT_RECORD_BUDGET_GB", "1e-9")
    fit, why = session.seeds_per_round(session.plan)
    assert fit == 1 and "1 seeds a round" in why, why


def test_every_seed_is_judged_in_rounds_and_a_late_rounds_seed_decides(session, monkeypatch):
    """One seed a round: an honest free-form candidate is verified with every seed and every check its class needs
    (the rerun made in the first round, the stale-buffer seed in the second); a kernel wrong only on the
    special-values seed (the fifth round) is rejected there, as when every seed fits at once."""
    kernel = _kernel(session)
    honest = Candidate((kernel.name,), kernel.source + "\n# free-form\n")
    store = re.search(r"    tl\.store\(out_ptr0 \+ \((\w+)\), (\w+), (\w+)\)", kernel.source)
    assert store is not None, kernel.source
    index, value, mask = store.groups()
    # NaN inputs give 0 instead of NaN: invisible on every seed without NaN inputs
    bad = Candidate((kernel.name,), kernel.source.replace(
        store.group(0), f"    tl.store(out_ptr0 + ({index}), tl.where(tmp0 != tmp0, 0.0, {value}), {mask})"))
    monkeypatch.setenv("KERNELOPT_RECORD_BUDGET_GB", "1e-9")
    res = session.evaluate(honest, perf=False)
    assert res.decision == "verified", res.reason
    corr = res.gate("correctness")
    assert corr.numbers["rounds"] == [[sd] for sd in session.plan.seeds], corr.numbers
    assert corr.numbers["seeds"] == 6 and corr.numbers["seed_list"] == list(session.plan.seeds)
    assert "judged in 6 rounds of at most 1 seeds" in corr.reason
    assert res.gate("fp64").numbers["rounds"] == corr.numbers["rounds"]
    assert session._baseline_record is None  # no round's records kept
    rejected = session.evaluate(bad, perf=False)
    special = session.plan.seeds[4]
    assert rejected.decision == "rejected" and f"seed {special}" in rejected.reason, rejected.reason
    monkeypatch.delenv("KERNELOPT_RECORD_BUDGET_GB")
    at_once = session.evaluate(bad, perf=False)
    assert at_once.decision == "rejected" and at_once.reason == rejected.reason
    assert "rounds" not in session.evaluate(honest, perf=False).gate("correctness").numbers
