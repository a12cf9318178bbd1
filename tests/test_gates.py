"""Gates 2-4 and the isolation around them: numbers in, verdicts out.

* the float64 fallback (gate 3) on a reduction with heavy cancellation: a
  reordering that is *closer* to the float64 truth than the fp32 baseline is
  let in although it disagrees with the baseline beyond tolerance, one that is
  farther is kept out;
* :mod:`pytest_kernelopt.gates.compare` directly: the per-dtype tolerance
  table, the tiny-output rule, metadata mismatches, NaN/Inf positions and the
  input-mutation check;
* the performance gate without a GPU (never measured, never ``accepted``) and
  its bootstrap statistics on synthetic samples;
* isolation: an out-of-bounds candidate and a hanging one cost one candidate
  each, never the worker's ability to judge the next.

Three tests pin weaknesses found while writing these, now fixed: the restart
counter of :class:`~pytest_kernelopt.isolate.IsolatedEvaluator`; on a GPU, a
worker whose CUDA context an illegal memory access broke must end; and a
session whose compiled module was recompiled (any ``torch._dynamo.reset()``)
must never judge the baseline in the candidate's place.
"""

from __future__ import annotations

import math
import re
import time

import pytest

torch = pytest.importorskip("torch")

from adversarial.cheats import LiveSessions, PointwiseChain, by_name, hangs, kernel_at, make_problem  # noqa: E402
from pytest_kernelopt.backends import select_backend  # noqa: E402
from pytest_kernelopt.candidate import Candidate, LaunchSpec  # noqa: E402
from pytest_kernelopt.config import DEFAULT_TOLERANCES, Settings  # noqa: E402
from pytest_kernelopt.gates.cascade import EvaluationSession  # noqa: E402
from pytest_kernelopt.gates.compare import compare_outputs, error_vs_truth, same_values  # noqa: E402
from pytest_kernelopt.gates.perf import PerfGate, speedup_interval  # noqa: E402
from pytest_kernelopt.gates.trial_records import CandidateRecord  # noqa: E402
from pytest_kernelopt.problems import problem_from_objects  # noqa: E402
from pytest_kernelopt.substitute import KernelSwap  # noqa: E402

ON_CPU = select_backend("auto").name == "cpu"
ROWS, ROW_LEN = 8, 2048


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    """Overrides the suite's per-test Dynamo reset, which would make the module's shared session stale."""
    yield


# ============================================================================= (a) the float64 fallback


class Cancelling(torch.nn.Module):
    """Row sums of ``x + offset`` where the offsets are +-1e4, alternating, and cancel exactly.

    The true sums are those of ``x`` (about +-45), but each fp32 ``x + offset``
    is rounded to a grid of ~1e-3, so the fp32 baseline carries an error of
    ~1e-2 per row: beyond the fp32 tolerance of any more accurate candidate.
    """

    def __init__(self, n: int = ROW_LEN) -> None:
        super().__init__()
        sign = torch.ones(n)
        sign[1::2] = -1.0
        self.register_buffer("offset", sign * 1e4)

    def forward(self, x):
        return (x + self.offset).sum(-1)


ROWSUM = '''
import triton
import triton.language as tl


@triton.jit
def rowsum(x_ptr, offset_ptr, out_ptr, xnumel, r0_numel, RBLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, RBLOCK)
    mask = cols < r0_numel
    x = tl.load(x_ptr + row * r0_numel + cols, mask, other=0.0)
    offset = tl.load(offset_ptr + cols, mask, other=0.0)
    total = tl.sum(TERMS, 0)
    tl.store(out_ptr + row, total.to(tl.float32))
'''
#: how the row's terms are formed and summed
IN_FP64 = "x.to(tl.float64) + offset.to(tl.float64)"  # exact terms, float64 accumulation: closer to the truth
IN_FP16 = "(x + offset).to(tl.float16).to(tl.float32)"  # terms rounded to fp16 (an ulp of 8 at 1e4): farther
IN_FP32 = "x + offset"  # the baseline's arithmetic, in a different launch: within tolerance


def _make_cancelling(name: str, device: str):
    assert name == "cancelling"
    x = torch.randn(ROWS, ROW_LEN, generator=torch.Generator().manual_seed(0)).to(device)
    return Cancelling().to(device), (x,)


@pytest.fixture(scope="module")
def _sessions(backend):
    return LiveSessions(backend, Settings(seeds=3), _make_cancelling)


@pytest.fixture
def cancelling(_sessions):
    """The session of :class:`Cancelling`, captured once per module and checked live before each test."""
    session = _sessions.get("cancelling")
    (control,) = _sessions.calibration["cancelling"]
    assert control.decision == "verified", f"the baseline's own kernel fails here: {control.reason}"
    return session


def rowsum_candidate(session: EvaluationSession, terms: str) -> Candidate:
    """A LaunchSpec candidate for the (single) reduction kernel, pointers matched to the inputs by shape."""
    (graph, name), = session.captured.triton_kernels
    kernel = graph.kernels[name]
    (trace,) = [t for t in graph.traces if t.kernel == name]
    shapes = dict(zip(kernel.runtime_params, trace.arg_shapes))
    by_shape = {shape: p for p, shape in shapes.items() if shape is not None}
    x, offset, out = by_shape[(ROWS, ROW_LEN)], by_shape[(ROW_LEN,)], by_shape[(ROWS,)]
    spec = LaunchSpec(kernel="rowsum", args=(x, offset, out, "xnumel", "r0_numel"), grid="(xnumel,)",
                      constexprs={"RBLOCK": ROW_LEN})
    return Candidate((name,), ROWSUM.replace("TERMS", terms), launch=spec, origin="test", description=terms)


def test_a_more_accurate_reduction_is_let_in_by_the_float64_gate(cancelling, backend):
    result = cancelling.evaluate(rowsum_candidate(cancelling, IN_FP64))
    static, corr, fp64 = (result.gate(n) for n in ("static", "correctness", "fp64"))
    assert static.passed and corr.passed and fp64.passed, result.reason
    # it really disagrees with the fp32 baseline: only gate 3 can let it in
    assert corr.numbers["within_tolerance"] is False, corr.reason
    assert corr.numbers["seeds_beyond_tolerance"], corr.numbers
    assert corr.numbers["max_abs_err"] > corr.numbers["atol"] + corr.numbers["rtol"] * ROW_LEN ** 0.5
    assert fp64.numbers["decisive"] is True
    assert fp64.numbers["candidate_err_vs_fp64"] < fp64.numbers["baseline_err_vs_fp64"] / 10
    assert fp64.numbers["worst_ratio"] <= 1.0
    assert "as close to the float64 truth" in fp64.reason
    if ON_CPU:
        assert result.decision == "verified"
        assert result.gate("performance").status == "not_measured"
    else:  # a float64 reduction is slower: on a GPU only the performance gate may keep it out
        assert result.failed_gate is None or result.failed_gate.gate == "performance", result.reason


def test_a_less_accurate_reduction_is_kept_out_by_the_float64_gate(cancelling, no_structure_probes):
    result = cancelling.evaluate(rowsum_candidate(cancelling, IN_FP16))
    failed = result.failed_gate
    assert result.decision == "rejected"
    assert failed is not None and failed.gate == "fp64", result.reason
    assert "farther from the float64 truth" in failed.reason
    assert result.gate("correctness").numbers["within_tolerance"] is False
    assert failed.numbers["decisive"] is True
    assert failed.numbers["worst_ratio"] > 10
    assert [g.gate for g in result.gates] == ["static", "correctness", "fp64"]


def test_the_fp64_factor_is_the_threshold(cancelling, no_structure_probes):
    """The same farther candidate passes once the allowed error ratio exceeds its ratio."""
    lenient = EvaluationSession(cancelling.problem, Settings(seeds=3, fp64_factor=1e4), cancelling.backend,
                                captured=cancelling.captured)
    fp64 = lenient.evaluate(rowsum_candidate(lenient, IN_FP16), perf=False).gate("fp64")
    assert fp64.passed and fp64.numbers["factor"] == 1e4
    assert 1.0 < fp64.numbers["worst_ratio"] <= 1e4


def test_the_baselines_own_arithmetic_needs_no_fallback(cancelling):
    result = cancelling.evaluate(rowsum_candidate(cancelling, IN_FP32), perf=False)
    assert result.decision == "verified", result.reason
    assert result.gate("correctness").numbers["within_tolerance"] is True
    assert result.gate("fp64").numbers["decisive"] is False


# ============================================================================= (b) comparisons


def compare(cand, base, **kw):
    s = Settings(**kw)
    return compare_outputs(cand, base, s.tolerance, tiny_factor=s.tiny_output_factor, tiny_rel_tol=s.tiny_rel_tol)


def test_the_tolerance_table():
    s = Settings()
    assert s.tolerance("float64") == (1e-7, 1e-7)
    assert s.tolerance("float32") == (1e-4, 1e-4)
    assert s.tolerance("float16") == (1e-2, 1e-2)
    assert s.tolerance("bfloat16") == (2e-2, 2e-2)
    assert s.tolerance("int8") == DEFAULT_TOLERANCES["float32"], "unknown dtypes fall back to fp32's"
    assert Settings(rtol=1e-3).tolerance("float16") == (1e-3, 1e-2), "an override replaces only what it names"
    assert Settings(atol=0.5).tolerance("bfloat16") == (2e-2, 0.5)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.float16, torch.bfloat16], ids=str)
def test_each_dtype_is_judged_by_its_own_tolerance(dtype):
    rtol, atol = Settings().tolerance(str(dtype).replace("torch.", ""))
    base = torch.linspace(1.0, 2.0, 64, dtype=torch.float64)
    slack = atol + rtol * base
    inside = compare((base + 0.4 * slack).to(dtype), base.to(dtype))
    outside = compare((base + 3.0 * slack).to(dtype), base.to(dtype))
    assert inside.hard_failure is None and inside.within_tolerance, (inside.max_abs_err, slack.min())
    assert outside.hard_failure is None and not outside.within_tolerance, "beyond tolerance is not a hard failure"
    assert outside.max_abs_err > inside.max_abs_err > 0


def test_tiny_outputs_are_judged_relatively():
    gen = torch.Generator().manual_seed(0)
    base = 1e-7 * (1.0 + 0.1 * torch.randn(256, generator=gen))
    zeros = torch.zeros_like(base)
    # a plain allclose cannot tell 1e-7 from zero at the fp32 tolerance (KernelBench issue #165) ...
    assert torch.allclose(zeros, base, rtol=1e-4, atol=1e-4)
    # ... the tiny-output rule can
    res = compare(zeros, base)
    # not within tolerance, so the float64 gate decides (it turns zeros away where the truth is a real value,
    # tests/test_gates_at_size.py); an exact zero can be an honest result for an output that is rounding noise
    assert res.hard_failure is None and not res.within_tolerance and res.zeros == [0]
    scaled = compare(base * 1e-3, base)
    assert scaled.hard_failure is None and not scaled.within_tolerance and scaled.tiny_outputs == [0]
    close = compare(base * (1 + 1e-5), base)
    assert close.hard_failure is None and close.within_tolerance and close.tiny_outputs == [0]
    normal = compare(base * 1e6, base * 1e6)
    assert normal.tiny_outputs == []


@pytest.mark.parametrize("cand, base, fragment", [
    (torch.zeros(4, 8), torch.zeros(8, 4), "shape (4, 8), baseline (8, 4)"),
    (torch.zeros(4, 8, dtype=torch.float64), torch.zeros(4, 8), "dtype torch.float64, baseline torch.float32"),
    (torch.zeros(8, 4).t(), torch.zeros(4, 8), "strides (1, 4), baseline (8, 1)"),
    ((torch.zeros(2), torch.zeros(2)), (torch.zeros(2),), "2 values returned, baseline returns 1"),
    ((torch.zeros(2), 3), (torch.zeros(2), torch.zeros(1)), "type int, baseline Tensor"),
    ((torch.zeros(2), 3), (torch.zeros(2), 4), "3 != baseline 4"),
    (torch.tensor([1, 2, 3]), torch.tensor([1, 2, 4]), "1 of 3 integer/bool elements differ"),
], ids=["shape", "dtype", "strides", "count", "type", "scalar", "integers"])
def test_structure_and_metadata_mismatches_are_hard_failures(cand, base, fragment):
    res = compare(cand, base)
    assert res.hard_failure is not None and fragment in res.hard_failure, res.hard_failure


def test_nan_and_inf_positions_must_match():
    base = torch.arange(8, dtype=torch.float32)
    base[3] = float("nan")
    base[5] = float("inf")
    assert compare(base.clone(), base).hard_failure is None, "NaN and Inf where the baseline has them are fine"
    moved = base.clone()
    moved[3], moved[4] = 3.0, float("nan")
    assert "NaN positions differ (1 NaN, baseline 1)" in compare(moved, base).hard_failure
    extra = base.clone()
    extra[0] = float("nan")
    assert "NaN positions differ (2 NaN, baseline 1)" in compare(extra, base).hard_failure
    flipped = base.clone()
    flipped[5] = -float("inf")
    assert "Inf positions or signs differ" in compare(flipped, base).hard_failure
    overflow = base.clone()
    overflow[6] = float("inf")
    assert "Inf positions or signs differ" in compare(overflow, base).hard_failure


def test_input_mutation_is_seen_bitwise():
    x = torch.randn(4, 8)
    assert same_values((x, 2), (x.clone(), 2))
    nudged = x.clone()
    nudged[1, 2] = torch.nextafter(nudged[1, 2], torch.tensor(float("inf")))
    assert not same_values((x,), (nudged,)), "one ulp is a mutation"
    with_nan = x.clone()
    with_nan[0, 0] = float("nan")
    assert same_values(with_nan, with_nan.clone()), "NaN where it was is no mutation"
    assert not same_values(with_nan, x)
    assert not same_values(x, x.reshape(8, 4))
    assert not same_values((x, 2), (x, 3))
    assert not same_values((x,), (x, x))


def test_error_vs_truth_is_relative_l2_over_finite_values():
    truth = torch.tensor([3.0, 4.0, float("nan")], dtype=torch.float64)
    out = torch.tensor([3.0, 4.5, 1.0])
    (err,) = error_vs_truth(out, truth)
    assert math.isclose(err, 0.5 / 5.0)
    assert error_vs_truth(truth, truth) == [0.0]


# ============================================================================= (c) the performance gate


@pytest.mark.skipif(not ON_CPU, reason="on a GPU the performance gate measures; the CPU backend must not claim to")
def test_without_a_gpu_performance_is_not_measured_and_nothing_is_accepted(cancelling):
    candidate = rowsum_candidate(cancelling, IN_FP32)
    result = cancelling.evaluate(candidate)
    perf = result.gate("performance")
    assert perf is not None and perf.status == "not_measured" and perf.numbers == {"measured": False}
    assert "performance not measured" in perf.reason
    assert result.decision == "verified" and not result.accepted
    assert result.speedup is None
    assert result.reason.startswith("performance: no GPU")
    swap = KernelSwap(cancelling.captured, [candidate])
    assert PerfGate().judge(cancelling.settings, cancelling.baseline_record(), CandidateRecord(), False,
                            cancelling.backend.name).status == "not_measured"
    assert cancelling.rank([candidate]) == (None, [None])
    # even the fp64 gate's excuse does not make a candidate accepted
    assert cancelling.evaluate(rowsum_candidate(cancelling, IN_FP64)).decision == "verified"


@pytest.mark.skipif(ON_CPU, reason="GPU only: the CPU interpreter times nothing")
def test_on_a_gpu_the_baseline_against_itself_is_not_accepted(cancelling):
    (graph, name), = cancelling.captured.triton_kernels
    result = cancelling.evaluate(Candidate((name,), graph.kernels[name].source, origin="a/a"))
    perf = result.gate("performance")
    assert perf is not None and perf.numbers["measured"] is True, result.reason
    from pytest_kernelopt.gates.perf import schedule

    s = cancelling.settings  # the sequential gate: a look of its schedule (30, 60, 120, ... pairs)
    assert perf.numbers["samples"] == schedule(s)[perf.numbers["rounds"] - 1] <= s.perf_max_samples
    assert perf.numbers["ci_low"] <= perf.numbers["speedup"] <= perf.numbers["ci_high"]
    assert result.decision != "accepted", f"A/A accepted: {perf.reason}"


# ============================================================================= (d) bootstrap statistics


def _samples(median_ms: float, n: int = 30, seed: int = 0, spread: float = 0.03) -> list[float]:
    gen = torch.Generator().manual_seed(seed)
    return (median_ms * (1 + spread * torch.randn(n, generator=gen, dtype=torch.float64))).tolist()


def test_bootstrap_of_one_distribution_against_itself_contains_one():
    point, lo, hi = speedup_interval(_samples(1.0, seed=1), _samples(1.0, seed=2), 0.95)
    assert lo < 1.0 < hi
    assert 0.97 < point < 1.03
    assert lo < 1.02, "an A/A comparison must not clear the acceptance bar"
    same = _samples(1.0, seed=3)
    assert speedup_interval(same, list(same), 0.95) == (1.0, 1.0, 1.0), "paired resampling of equal samples"


def test_bootstrap_of_a_clear_speedup_clears_the_bar():
    point, lo, hi = speedup_interval(_samples(1.5, seed=1), _samples(1.0, seed=2), 0.95)
    assert 1.4 < point < 1.6
    assert lo > 1.02 and lo <= point <= hi
    slower = speedup_interval(_samples(1.0, seed=1), _samples(1.3, seed=2), 0.95)
    assert slower[2] < 1.0


def test_a_higher_confidence_gives_a_wider_interval():
    base, cand = _samples(1.1, seed=4, spread=0.1), _samples(1.0, seed=5, spread=0.1)
    _, lo90, hi90 = speedup_interval(base, cand, 0.90)
    _, lo99, hi99 = speedup_interval(base, cand, 0.99)
    assert lo99 <= lo90 and hi99 >= hi90 and (hi99 - lo99) > (hi90 - lo90)


# ============================================================================= (e) isolation


ISOLATION_TIMEOUT = 15.0


@pytest.fixture(scope="module")
def isolated(backend):
    """One worker process judging candidates for the pointwise chain, and what the tests saw of it."""
    from pytest_kernelopt.isolate import IsolatedEvaluator

    module, inputs = make_problem("chain", backend.device)
    assert isinstance(module, PointwiseChain)
    problem = problem_from_objects(module, inputs, "chain")
    assert problem.spec is not None, "the module must pickle for the worker (it lives in adversarial.cheats)"
    evaluator = IsolatedEvaluator(problem.spec, Settings(seeds=2, timeout=ISOLATION_TIMEOUT))
    record: dict[str, int] = {}
    with evaluator:
        yield evaluator, record


def _chain_kernel(evaluator):
    (graph,) = evaluator.graphs
    (kernel,) = graph.kernels.values()
    return kernel


def _honest(kernel) -> Candidate:
    return Candidate((kernel.name,), kernel.source, origin="baseline")


def test_a_hanging_candidate_times_out_and_a_fresh_worker_judges_the_next(isolated):
    evaluator, record = isolated
    kernel = _chain_kernel(evaluator)
    worker, record["restarts_before"] = evaluator.info.started, evaluator.restarts
    t0 = time.perf_counter()
    result = evaluator.evaluate(hangs(kernel), perf=False)
    elapsed = time.perf_counter() - t0
    failed = result.failed_gate
    assert result.decision == "rejected" and failed is not None, result.reason
    assert failed.gate == "correctness", "the gate it hung in"
    assert f"timed out after {ISOLATION_TIMEOUT:.0f}s" in failed.reason and "worker restarted" in failed.reason
    assert failed.numbers.get("isolated") is True
    assert [g.status for g in result.gates] == ["pass", "fail"]
    assert ISOLATION_TIMEOUT <= elapsed < ISOLATION_TIMEOUT + 15
    after = evaluator.evaluate(_honest(kernel), perf=False)
    assert after.decision == "verified", after.reason
    assert evaluator.info.started != worker, "the hung worker was replaced"
    record["restarts_after"] = evaluator.restarts


def test_the_restart_is_counted(isolated):
    _, record = isolated
    if "restarts_after" not in record:
        pytest.skip("needs test_a_hanging_candidate_times_out_and_a_fresh_worker_judges_the_next")
    assert record["restarts_after"] == record["restarts_before"] + 1


def _reject_out_of_bounds(evaluator, kernel):
    result = evaluator.evaluate(by_name("writes_out_of_bounds").build(kernel), perf=False)
    failed = result.failed_gate
    assert result.decision == "rejected" and failed is not None, result.reason
    assert failed.gate == "correctness" and result.reason.startswith("correctness: ")
    pattern = "out of bounds" if ON_CPU else "illegal memory access|out of bounds|process died"
    assert re.search(pattern, failed.reason), failed.reason


def test_an_out_of_bounds_candidate_is_rejected_by_the_correctness_gate(isolated):
    """On the CPU the interpreter's bounds checker; on a GPU an illegal memory access."""
    evaluator, _ = isolated
    _reject_out_of_bounds(evaluator, _chain_kernel(evaluator))


def test_after_an_out_of_bounds_candidate_the_next_one_is_still_judged(isolated):
    evaluator, _ = isolated
    kernel = _chain_kernel(evaluator)
    worker = evaluator.info.started
    _reject_out_of_bounds(evaluator, kernel)
    started = evaluator.workers_started
    after = evaluator.evaluate(_honest(kernel), perf=False)
    assert after.decision == "verified", f"the next candidate must still be judged: {after.reason}"
    assert evaluator.workers_started == started + 1, "every candidate is judged by a worker of its own"
    assert evaluator.info.started != worker


# ============================================================================= the cascade must judge the candidate


def test_a_recompiled_module_is_never_judged_in_the_candidates_place(backend):
    """Last in this file: it resets Dynamo, which makes every session captured before it stale."""
    module, inputs = make_problem("rowsum", backend.device)
    session = EvaluationSession(problem_from_objects(module, inputs, "rowsum"), Settings(seeds=2), backend)
    zeros = by_name("returns_zeros").build(kernel_at(session))
    assert session.evaluate(zeros, perf=False).decision == "rejected", "control: the live session rejects it"
    torch._dynamo.reset()
    result = session.evaluate(zeros, perf=False)
    assert result.decision == "rejected", f"a zeros kernel was {result.decision}: {result.reason}"
    assert "never ran" in result.reason
