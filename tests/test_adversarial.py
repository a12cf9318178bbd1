"""The adversarial suite: every cheat in ``tests/adversarial/cheats.py`` is rejected, by the gate expected.

Each registered cheat runs through the whole cascade on the session of the
problem it targets, and the test asserts the failing gate's name and a
substring of its reason (``CascadeResult.failed_gate``), that every earlier
gate passed and no later one ran.  Every session is first calibrated with the
baseline's own kernels (they must pass gates 1-3 on it), so a rejection is the
cheat's doing, not a broken session.

Cheats that cannot be written as Triton source (state that replays results,
nondeterminism) are Python kernel objects swapped in directly and checked
against the correctness and float64 gates.  The isolation of crashing and
hanging candidates in a worker process is tested in ``tests/test_gates.py``.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from adversarial.cheats import (  # noqa: E402
    CHEATS,
    JitterKernel,
    LiveSessions,
    ReplayKernel,
    bakes_the_example_answer,
    by_name,
    kernel_at,
    python_kernel_swap,
)
from pytest_kernelopt.backends import select_backend  # noqa: E402
from pytest_kernelopt.config import Settings  # noqa: E402
from pytest_kernelopt.gates.cascade import EvaluationSession  # noqa: E402
from pytest_kernelopt.gates.compare import flatten  # noqa: E402
from pytest_kernelopt.gates.correctness import CorrectnessGate  # noqa: E402
from pytest_kernelopt.gates.fp64 import Fp64Gate  # noqa: E402
from pytest_kernelopt.gates.results import GATE_ORDER  # noqa: E402
from pytest_kernelopt.gates.trials import collect_candidate  # noqa: E402

SETTINGS = Settings(seeds=3)
ON_CPU = select_backend("auto").name == "cpu"
PROBLEM_ORDER = ("chain", "softmax", "rowsum", "tiny", "two_kernels")
GATE_WORDS = {"static": "static gate", "correctness": "correctness gate", "fp64": "float64 gate"}


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    """Overrides the suite's per-test ``torch._dynamo.reset()``: it would make the shared sessions stale.

    (A reset makes the compiled module recompile into a new wrapper, so a
    swapped-in candidate would silently never run; :class:`LiveSessions`
    checks for that before handing a session out.)
    """
    yield


@pytest.fixture(scope="module")
def sessions(backend):
    return LiveSessions(backend, SETTINGS)


def _marks(cheat) -> list:
    if cheat.gpu_only:
        return [pytest.mark.skipif(ON_CPU, reason="GPU only: the Triton interpreter runs a grid's programs one "
                                                  "after another, so a race between programs never shows on CPU")]
    if cheat.cpu_only:
        return [pytest.mark.skipif(not ON_CPU, reason="in-process only under the interpreter's bounds checker; on a "
                                                      "GPU an illegal access would poison this process's CUDA "
                                                      "context (covered through the isolated worker instead)")]
    return []


ORDERED = sorted(CHEATS, key=lambda c: PROBLEM_ORDER.index(c.problem))


def _answer(session):
    """The baseline's output on the first correctness seed (for cheats that bake an answer in)."""
    (answer,) = flatten(session.baseline_run(session.seeds()[0]).outputs)
    return answer


def _assert_rejected_by(result, gate: str, reason: str | tuple[str, ...]) -> None:
    failed = result.failed_gate
    assert result.decision == "rejected", f"not rejected: {result.decision} ({result.reason})"
    assert failed is not None, result.reason
    assert failed.gate == gate, f"rejected by {failed.gate}, expected {gate}: {failed.reason}"
    reasons = (reason,) if isinstance(reason, str) else reason
    assert any(r in failed.reason for r in reasons), f"{reasons!r}: none in the reason: {failed.reason}"
    upto = list(GATE_ORDER[: GATE_ORDER.index(gate) + 1])
    assert [g.gate for g in result.gates] == upto, "the cascade must stop at the first failing gate"
    assert all(g.passed for g in result.gates[:-1]), [g.to_json() for g in result.gates]


# ----------------------------------------------------------------------------- the catalogue


def test_the_catalogue_covers_every_kind_of_cheat():
    assert len(CHEATS) >= 12
    assert len({c.name for c in CHEATS}) == len(CHEATS)
    assert {c.gate for c in CHEATS} == {"static", "correctness", "fp64"}
    for c in CHEATS:
        assert c.doc and c.problem in PROBLEM_ORDER, c.name
        prose = " ".join(c.doc.split())
        assert GATE_WORDS[c.gate] in prose, f"{c.name}: the docstring must name the {GATE_WORDS[c.gate]}"


@pytest.mark.parametrize("cheat", [pytest.param(c, id=c.name, marks=_marks(c)) for c in ORDERED])
def test_cheat_is_rejected_by_the_expected_gate(cheat, sessions, request):
    if cheat.gate == "fp64":  # the structure probes (correctness) see a baked answer first: -inf rows, all ones
        request.getfixturevalue("no_structure_probes")
    session = sessions.get(cheat.problem)
    for control in sessions.calibration[cheat.problem]:
        assert control.decision == "verified", f"the honest baseline kernels fail here: {control.reason}"
    kernel = kernel_at(session, cheat.kernel)
    candidate = cheat.build(kernel, _answer(session)) if cheat.needs_answer else cheat.build(kernel)
    assert candidate.source != kernel.source
    result = session.evaluate(candidate)
    _assert_rejected_by(result, cheat.gate, cheat.reason)
    if cheat.gate == "static":
        assert result.gates[0].numbers["compiled"] is False
    if cheat.gate == "fp64" and "farther" in cheat.reason:
        # gate 2 saw the disagreement and handed it on; gate 3's comparison with the truth decided
        corr, fp64 = result.gate("correctness"), result.gate("fp64")
        assert corr.numbers["within_tolerance"] is False, corr.reason
        assert fp64.numbers["decisive"] is True
        assert fp64.numbers["candidate_err_vs_fp64"] > fp64.numbers["baseline_err_vs_fp64"]


# ----------------------------------------------------------------------------- correct only for what it has seen


def test_a_baked_answer_is_right_only_on_the_seed_it_was_baked_for(sessions, no_structure_probes):
    """Multiple seeds are what catch it: on one seed the baked constants pass every gate."""
    session = sessions.get("rowsum")
    candidate = by_name("bakes_the_first_seed_answer").build(kernel_at(session), _answer(session))
    result = session.evaluate(candidate)
    _assert_rejected_by(result, "fp64", "farther from the float64 truth")
    seeds = session.seeds()
    assert result.gate("correctness").numbers["seeds_beyond_tolerance"] == seeds[1:]

    one_seed = EvaluationSession(session.problem, Settings(seeds=1), session.backend, captured=session.captured,
                                 plan=session.plan.first(1))
    assert one_seed.seeds() == seeds[:1]
    weak = one_seed.evaluate(candidate, perf=False)
    assert weak.decision == "verified", "with a single seed the baked answer is indistinguishable from real work"


def test_the_answer_for_the_example_input_is_wrong_on_every_seed(sessions, no_structure_probes):
    session = sessions.get("rowsum")
    with torch.no_grad():
        example_answer = session.module(*session.problem.example_inputs)
    result = session.evaluate(bakes_the_example_answer(kernel_at(session), example_answer))
    _assert_rejected_by(result, "fp64", "farther from the float64 truth")
    assert result.gate("correctness").numbers["seeds_beyond_tolerance"] == session.seeds()


# ----------------------------------------------------------------------------- cheats that bypass the static gate


def _correctness(session, swap):
    """Gate 2 in this process: the candidate's runs collected, then judged."""
    rec = collect_candidate(session, swap, session.plan)
    return CorrectnessGate().judge(session.settings, session.baseline_record(), rec)


def _fp64(session, swap, corr):
    """Gate 3 in this process on runs of its own (collected again, as the float64 gate's worker path would)."""
    rec = collect_candidate(session, swap, session.plan)
    return Fp64Gate().judge(session.settings, session.baseline_record(), rec, corr)


def _candidate_calls(seeds: int) -> int:
    """The correctness gate's calls of a candidate: one per seed, the first seed's repeat, and on the stale-buffer
    seed (the second) the call just before it and its repeats over other starts."""
    from pytest_kernelopt.gates.seed_plan import START_FILLS

    return seeds + 1 + (1 + len(START_FILLS) if seeds > 1 else 0)


def test_replaying_a_stored_result_is_caught_by_fresh_inputs(sessions, no_structure_probes):
    """A kernel object that replays its first result (gate 1 would forbid the state it needs in source).

    Gate 2 draws fresh inputs per seed: the replay agrees with the baseline on
    the first seed only (where it really computed) and is beyond tolerance on
    every later one; gate 3 then rejects it.  Gate 2 does not fail it by
    itself: values beyond tolerance are always handed to the float64 gate.
    """
    session = sessions.get("chain")
    swap, replay = python_kernel_swap(session, kernel_at(session).name, ReplayKernel)
    corr = _correctness(session, swap)
    seeds = session.seeds()
    assert replay.calls == _candidate_calls(len(seeds)), "the stand-in must really have run (once per seed and more)"
    calls = replay.calls
    assert corr.gate == "correctness"
    assert corr.numbers["within_tolerance"] is False
    assert corr.numbers["seeds_beyond_tolerance"] == seeds[1:], corr.reason
    assert "differs from the baseline beyond tolerance" in corr.reason
    fp64 = _fp64(session, swap, corr)
    assert replay.calls == 2 * calls, "the float64 gate collected its own runs of the stand-in"
    assert (fp64.gate, fp64.status) == ("fp64", "fail"), fp64.reason
    assert "farther from the float64 truth" in fp64.reason
    assert fp64.numbers["candidate_err_vs_fp64"] > 0.5


def test_nondeterminism_fails_the_determinism_check_even_within_tolerance(sessions, no_structure_probes):
    """An emulated race (low-bit jitter, well within tolerance) is rejected on the CPU too."""
    session = sessions.get("chain")
    swap, jitter = python_kernel_swap(session, kernel_at(session).name, JitterKernel)
    result = _correctness(session, swap)
    assert jitter.calls == _candidate_calls(len(session.seeds())), "every seed is collected, and the extra calls"
    assert (result.gate, result.status) == ("correctness", "fail")
    assert "different results on identical inputs" in result.reason
    assert result.numbers["seed"] == session.seeds()[0]


def test_the_stand_ins_are_not_rejected_for_being_stand_ins(sessions):
    """Control for the two tests above: a Python kernel object that just delegates passes gates 2 and 3."""
    session = sessions.get("chain")

    class Delegate:
        def __init__(self, original, kernel):
            self.original, self.calls = original, 0

        def run(self, *args, **kwargs):
            self.calls += 1
            return self.original.run(*args, **kwargs)

    swap, delegate = python_kernel_swap(session, kernel_at(session).name, Delegate)
    corr = _correctness(session, swap)
    assert corr.passed and corr.numbers["within_tolerance"] is True, corr.reason
    assert corr.numbers["max_abs_err"] == 0.0
    assert _fp64(session, swap, corr).passed
    assert delegate.calls >= _candidate_calls(len(session.seeds()))
