"""A longer chain (:data:`pytest_kernelopt.gates.provenance.LONGER_CHAIN`): Inductor's own arithmetic under reduction
blocks smaller than the baseline's is judged for its precision against the float64 truth on every seed."""

from __future__ import annotations

import dataclasses

import pytest

torch = pytest.importorskip("torch")

from pytest_kernelopt import tuner  # noqa: E402
from pytest_kernelopt.config import Settings  # noqa: E402
from pytest_kernelopt.gates import provenance  # noqa: E402
from pytest_kernelopt.gates.cascade import EvaluationSession, static_gate_result  # noqa: E402
from pytest_kernelopt.launch_space import inductor_configs, trace_of  # noqa: E402
from pytest_kernelopt.problems import problem_from_objects  # noqa: E402


def _class(session, cand):
    return provenance.classify([static_gate_result(cand, session.captured, None, aot=False)])


class NearOneSum(torch.nn.Module):
    def forward(self, t):
        return (1.0 + 1e-5 * torch.sigmoid(t)).sum(-1)


def test_a_longer_sequential_chain_than_the_baselines_is_judged_for_its_precision(backend):
    """Rule: Inductor's arithmetic counts as a certified reorder (precision reported, not applied; no float64 truth
    within tolerance) only where every reduction block is at least the baseline's own
    (``launch_space.longer_chains``).  Here the baseline sums each 4096-term row in lanes of 2048; under
    ``R0_BLOCK=4``, a config Inductor's own max-autotune list holds, each of 4 lanes adds 1024 terms near 1 in
    sequence and the 1e-5 parts fall below half an ulp of the running sum: within tolerance of the baseline, tens
    of times farther from the truth.  The candidate is a longer chain, judged with the truth on every seed and the
    precision check applied; a block as large as the baseline's or larger is a launch config."""
    x = torch.randn(2, 4096, device=backend.device)
    session = EvaluationSession(problem_from_objects(NearOneSum(), (x,), "nearone"), Settings(seeds=2, base_seed=3),
                                backend)
    ((graph, name),) = session.captured.triton_kernels
    (config,) = tuner.propose_configs(graph, name, 1)
    own = trace_of(graph, name).config["R0_BLOCK"]
    assert 4 < own and 4 in {c.get("R0_BLOCK") for c in inductor_configs(graph.kernels[name])}, own
    at, wider, short = ({**dict(config.configs[0]), "XBLOCK": 2, "R0_BLOCK": r, "num_warps": w, "num_stages": 1}
                        for r, w in ((own, 8), (2 * own, 8), (4, 1)))
    for cfg in (at, wider):
        assert _class(session, dataclasses.replace(config, configs=(cfg,))) == provenance.LAUNCH_CONFIG, cfg
    seq = dataclasses.replace(config, configs=(short,))
    static = static_gate_result(seq, session.captured, None, aot=False)
    assert provenance.classify([static]) == provenance.LONGER_CHAIN
    assert f"R0_BLOCK=4 below the baseline's {own}" in static.numbers["longer_chain"]
    piped = tuner.pipelined_variants(graph, name)[0].candidate(name, short)
    assert _class(session, piped) == provenance.LONGER_CHAIN
    res = session.evaluate(seq, perf=False)
    assert res.decision == "rejected", res.reason
    numbers = res.gate("correctness").numbers
    assert numbers["provenance"] == provenance.LONGER_CHAIN, numbers
    assert numbers["checks_skipped"] == provenance.skipped(provenance.LONGER_CHAIN)
    fp64 = res.gate("fp64")
    assert fp64.status == "fail" and "lower-precision computation" in fp64.reason, fp64.reason
    assert fp64.numbers["truth_seeds"] == list(session.plan.seeds)
