"""The profile on CPU: no timings, kernels ordered by the bytes they touch, estimated FLOPs."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from pytest_kernelopt.config import Settings  # noqa: E402
from pytest_kernelopt.gates.cascade import EvaluationSession  # noqa: E402
from pytest_kernelopt.problems import problem_from_objects  # noqa: E402
from pytest_kernelopt.profile import estimate_flops, profile_module  # noqa: E402


def test_cpu_profile_says_it_has_no_timings(backend):
    if backend.name != "cpu":
        pytest.skip("the CPU profile")
    x = torch.randn(8, 64)
    session = EvaluationSession(problem_from_objects(torch.nn.Softmax(-1), (x,), "sm"), Settings(seeds=1), backend)
    prof = profile_module(session)
    assert not prof.has_timings and prof.call_us is None and "no timings" in prof.note
    (k,) = prof.kernels
    assert k.time_us is None and k.bytes == 2 * 8 * 64 * 4  # input read once, output written once
    assert k.flops > 0 and k.flops % (8 * 64) == 0
    assert prof.hottest_first() == [k]
    assert prof.to_json()["kernels"][0]["kernel"] == k.kernel


def test_flop_estimate_counts_value_arithmetic_not_indexing():
    class T:
        arg_shapes = ((4, 8), (4, 8), None)

    src = ("    x0 = xindex + 8 * yindex\n"
           "    tmp0 = tl.load(in_ptr0 + (x0), xmask)\n"
           "    tmp1 = tmp0 * 2.0\n"
           "    tmp2 = tmp1 + 1.0\n"
           "    tmp3 = libdevice.tanh(tmp2)\n")
    assert estimate_flops(src, T()) == 3 * 32
    assert estimate_flops(src, None) == 0
