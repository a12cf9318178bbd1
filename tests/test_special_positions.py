"""NaN and Inf positions of a certified reorder, judged against the float64 truth position by position.

Inductor's own product scan under another R0_BLOCK multiplies in another order: where a row's running product is
zero and the next block's own product overflows, one order gives 0 * inf = NaN and the other a zero product
(session 16 on the H200: a cumprod config refused for "NaN positions differ" on the special seed).  For a
candidate the judge certified as Inductor's own kernel under another launch config, the correctness gate leaves
such positions to the float64 gate, which lets a candidate be wrong there only where the baseline is wrong too.
"""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

torch = pytest.importorskip("torch")

from pytest_kernelopt.candidate import Candidate  # noqa: E402
from pytest_kernelopt.config import Settings  # noqa: E402
from pytest_kernelopt.gates.compare import compare_outputs, special_positions  # noqa: E402
from pytest_kernelopt.gates.fp64 import Fp64Gate  # noqa: E402
from pytest_kernelopt.gates.results import GateResult  # noqa: E402

NAN, INF = float("nan"), float("inf")


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    """Overrides the suite's per-test Dynamo reset, which would make the module's shared session stale."""
    yield


def _counts(cand, base, truth, rtol=1e-5, atol=1e-6):
    return special_positions(torch.tensor(cand, dtype=torch.float32), torch.tensor(base, dtype=torch.float32),
                             torch.tensor(truth, dtype=torch.float64), rtol, atol)


@pytest.mark.parametrize("cand, base, truth, kind", [
    (0.0, NAN, 0.0, "better"),         # the baseline's inf * 0, the candidate's zero product: the truth is 0
    (NAN, 0.0, 0.0, "worse"),          # the other way round
    (5.0, NAN, 0.0, "worse"),          # a number where the baseline has NaN, but not the truth's
    (NAN, 3.0, NAN, "worse"),          # NaN where the baseline has a number, even where float64 overflows too
    (NAN, INF, 1e40, "worse"),         # the truth overflows float32: the baseline's Inf is right, NaN is not
    (INF, NAN, 1e40, "better"),
    (-INF, INF, 1e40, "worse"),        # an Inf of the wrong sign
    (NAN, INF, 2.0, "both_wrong"),     # both wrong where the truth is a number: no worse than the baseline
    (0.0, NAN, NAN, "worse"),          # no truth to hold a number to: a number is not verified
    (NAN, -INF, NAN, "both_wrong"),
])
def test_each_kind_of_differing_position(cand, base, truth, kind):
    got = _counts([cand, 1.0], [base, 1.0], [truth, 1.0])
    assert got["differ"] == 1 and got[kind] == 1, got
    assert got["better"] + got["both_wrong"] + got["worse"] == got["differ"]


def test_positions_that_agree_are_not_counted():
    got = _counts([NAN, INF, 1.0, 0.0], [NAN, INF, 1.0 + 1e-7, 0.0], [NAN, 1e40, 1.0, 0.0])
    assert got == {"differ": 0, "better": 0, "both_wrong": 0, "worse": 0}


def test_the_correctness_gate_defers_only_when_asked():
    cand, base = torch.tensor([0.0, 1.0, 2.0]), torch.tensor([NAN, 1.0, 2.0])
    tol = lambda dtype: (1e-5, 1e-6)  # noqa: E731
    hard = compare_outputs(cand, base, tol, tiny_factor=10.0, tiny_rel_tol=0.1)
    assert hard.hard_failure and "NaN positions differ" in hard.hard_failure
    deferred = compare_outputs(cand, base, tol, tiny_factor=10.0, tiny_rel_tol=0.1, defer_special=True)
    assert deferred.hard_failure is None and deferred.special == [0] and not deferred.within_tolerance


def _run(*values):
    return SimpleNamespace(outputs=list(values), grads={}, noise=[1e-9] * len(values))


def _judge(cand, base, truth, reorder=("Inductor's own k under R0_BLOCK=4096",), truths=True):
    t = torch.tensor(truth, dtype=torch.float64).repeat(64)  # 64 x n values: enough for the bias test
    b = torch.tensor(base, dtype=torch.float32).repeat(64)
    c = torch.tensor(cand, dtype=torch.float32).repeat(64)
    plan = SimpleNamespace(seeds=[3])
    baseline = SimpleNamespace(plan=plan, dtype_name="float32", runs={3: _run(b)},
                               truths={3: _run(t)} if truths else {}, truth_errors={3: "timed out (test)"})
    rec = SimpleNamespace(runs={3: _run(c)})
    corr = GateResult("correctness", "pass", numbers={"within_tolerance": False, "seeds_beyond_tolerance": [3],
                                                      "special_deferred": [[3, "output", 0]]})
    return Fp64Gate().judge(Settings(), baseline, rec, corr, reorder=reorder)


ROW = [1.0, 0.5, 2.0, 0.25]


def test_the_float64_gate_passes_a_reorder_that_is_right_where_the_baseline_overflowed():
    res = _judge(ROW + [0.0, 0.0], ROW + [0.0, NAN], ROW + [0.0, 0.0])
    assert res.passed, res.reason
    assert res.numbers["special_positions"] == {"differ": 64, "better": 64, "both_wrong": 0, "worse": 0}


def test_the_float64_gate_refuses_a_reorder_that_is_wrong_where_the_baseline_is_not():
    res = _judge(ROW + [0.0, NAN], ROW + [0.0, 0.0], ROW + [0.0, 0.0])
    assert res.status == "fail" and "wrong against the float64 truth where the baseline is not" in res.reason
    res = _judge(ROW + [0.0, 7.0], ROW + [0.0, NAN], ROW + [0.0, 0.0])  # a number hiding behind the NaN
    assert res.status == "fail" and res.numbers["special_positions"]["worse"] == 64


def test_only_the_judges_certification_defers_and_a_missing_truth_is_no_pass():
    res = _judge(ROW + [0.0, 0.0], ROW + [0.0, NAN], ROW + [0.0, 0.0], reorder=())
    assert res.status == "fail" and "not Inductor's own kernel" in res.reason
    res = _judge(ROW + [0.0, 0.0], ROW + [0.0, NAN], ROW + [0.0, 0.0], truths=False)
    assert res.status == "fail" and "could not be judged against a float64 truth" in res.reason


# --------------------------------------------------------------------------- a real product scan on the CPU

L = 8192


class ZeroThenOverflow(torch.nn.Module):
    """Row 0: a zero at 2047 and two 1e20 right after it; row 1: the same at 1023.  The float64 product is 0 from
    the zero on; in float32 a block that starts after the zero overflows on its own (1e20 * 1e20) and meets the
    running product 0 as 0 * inf = NaN, so NaN or 0 depends on where the R0_BLOCKs start."""

    def __init__(self) -> None:
        super().__init__()
        w = torch.ones(2, L)
        for row, k in ((0, 2047), (1, 1023)):
            w[row, k] = 0.0
            w[row, k + 1] = w[row, k + 2] = 1e20
        self.register_buffer("w", w)

    def forward(self, x):
        return torch.cumprod(self.w + 0.0 * x, dim=1)


@pytest.fixture(scope="module")
def scan_session(backend):
    if backend.name != "cpu":
        pytest.skip("R0_BLOCKs are chosen here for the CPU compile's own pick (2048)")
    from pytest_kernelopt.gates.cascade import EvaluationSession
    from pytest_kernelopt.problems import problem_from_objects

    torch.manual_seed(0)
    return EvaluationSession(problem_from_objects(ZeroThenOverflow(), (torch.randn(2, L),), name="zero_overflow"),
                             Settings(seeds=2, base_seed=5), backend)


def _scan(session, r0_block):
    from pytest_kernelopt.tuner import propose_configs

    ((graph, name),) = session.captured.triton_kernels
    trace = next(t for t in graph.traces if t.kernel == name)
    if trace.config.get("R0_BLOCK") != 2048:
        pytest.skip(f"this Inductor picked {trace.config} for the scan, not R0_BLOCK=2048")
    cands = [c for c in propose_configs(graph, name, 64) if c.configs[0].get("R0_BLOCK") == r0_block]
    if not cands:
        pytest.skip(f"the tuner proposes no R0_BLOCK={r0_block} for this scan")
    return graph, name, cands[0]


def test_a_certified_config_that_avoids_the_baselines_nan_is_verified(scan_session):
    _, _, cand = _scan(scan_session, 4096)  # one block over both zeros: the zero product carries on
    res = scan_session.evaluate(cand, perf=False)
    assert res.decision == "verified", res.reason
    assert "float64 gate judges each such position" in res.gate("correctness").reason
    got = res.gate("fp64").numbers["special_positions"]
    assert got["better"] > 0 and got["worse"] == 0, got


def test_a_certified_config_that_adds_nan_is_refused(scan_session):
    _, _, cand = _scan(scan_session, 1024)  # a block starts right after row 1's zero
    res = scan_session.evaluate(cand, perf=False)
    assert res.decision == "rejected" and res.gate("fp64").status == "fail", res.reason
    assert "wrong against the float64 truth where the baseline is not" in res.reason


def test_the_same_arithmetic_not_certified_keeps_the_hard_failure(scan_session):
    _, name, cand = _scan(scan_session, 4096)
    swapped, n = re.subn(r"tmp0 = arg0_0 \* arg1_0", "tmp0 = arg1_0 * arg0_0", cand.source)
    assert n == 1  # the same products, written otherwise: no longer Inductor's own source
    res = scan_session.evaluate(Candidate((name,), swapped, cand.configs, origin="test"), perf=False)
    assert res.decision == "rejected" and "NaN positions differ" in res.reason
