"""An unlisted order (:data:`pytest_kernelopt.gates.provenance.UNLISTED_ORDER`): Inductor's own arithmetic under
reduction blocks smaller than any its max-autotune list holds for the kernel is judged for its precision."""

from __future__ import annotations

import dataclasses

import pytest

torch = pytest.importorskip("torch")

from pytest_kernelopt import tuner  # noqa: E402
from pytest_kernelopt.config import Settings  # noqa: E402
from pytest_kernelopt.gates import provenance  # noqa: E402
from pytest_kernelopt.gates.cascade import EvaluationSession, static_gate_result  # noqa: E402
from pytest_kernelopt.launch_space import reduction_floor, trace_of  # noqa: E402
from pytest_kernelopt.problems import problem_from_objects  # noqa: E402


def _class(session, cand):
    return provenance.classify([static_gate_result(cand, session.captured, None, aot=False)])


class SquareSum(torch.nn.Module):
    def forward(self, t):
        return (t * t).sum(-1)


def test_a_reduction_order_inductors_autotuner_never_runs_is_judged_for_its_precision(backend):
    """Rule: Inductor's arithmetic counts as a certified reorder (precision reported, not applied; no float64 truth
    within tolerance) only in blocks no smaller than the smallest Inductor's max-autotune list holds for the kernel
    (``launch_space.reduction_floor``).  Below it (here ``R0_BLOCK=1``: one sequential float32 chain over each
    4096-term row of squares, within tolerance of the baseline, 5x farther from the truth) the candidate is an
    unlisted order, judged with the truth on every seed and the precision check applied; at the floor itself it is
    a launch config."""
    x = torch.randn(2, 4096, device=backend.device)
    session = EvaluationSession(problem_from_objects(SquareSum(), (x,), "sqsum"), Settings(seeds=2, base_seed=3),
                                backend)
    ((graph, name),) = session.captured.triton_kernels
    (config,) = tuner.propose_configs(graph, name, 1)
    floor = reduction_floor(graph.kernels[name], trace_of(graph, name))["R0_BLOCK"]
    assert 1 < floor < 4096, floor  # Inductor's own list reduces in blocks of at least a few lanes
    at, below = ({**dict(config.configs[0]), "XBLOCK": 1, "R0_BLOCK": r, "num_warps": 1, "num_stages": 1}
                 for r in (floor, 1))
    assert _class(session, dataclasses.replace(config, configs=(at,))) == provenance.LAUNCH_CONFIG
    seq = dataclasses.replace(config, configs=(below,))
    static = static_gate_result(seq, session.captured, None, aot=False)
    assert provenance.classify([static]) == provenance.UNLISTED_ORDER
    assert f"R0_BLOCK=1 below {floor}" in static.numbers["unlisted_order"]
    piped = tuner.pipelined_variants(graph, name)[0].candidate(name, below)
    assert _class(session, piped) == provenance.UNLISTED_ORDER
    res = session.evaluate(seq, perf=False)
    assert res.decision == "rejected", res.reason
    numbers = res.gate("correctness").numbers
    assert numbers["provenance"] == provenance.UNLISTED_ORDER, numbers
    assert numbers["checks_skipped"] == provenance.skipped(provenance.UNLISTED_ORDER)
    fp64 = res.gate("fp64")
    assert fp64.status == "fail" and "lower-precision computation" in fp64.reason, fp64.reason
    assert fp64.numbers["truth_seeds"] == list(session.plan.seeds)
