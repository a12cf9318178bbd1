"""Red team 12: within tolerance, a float32 softmax rounded to 16 mantissa bits (52x farther from the float64 truth
than the baseline) was verified: the precision check compared it with 20x the rounding noise.  A well-conditioned
output's noise floor is now 4x its rounding noise (:func:`pytest_kernelopt.gates.fp64.noise_k`)."""

from __future__ import annotations

import re

import pytest

torch = pytest.importorskip("torch")

from pytest_kernelopt.candidate import Candidate  # noqa: E402
from pytest_kernelopt.config import Settings  # noqa: E402
from pytest_kernelopt.gates.cascade import EvaluationSession  # noqa: E402
from pytest_kernelopt.problems import problem_from_objects  # noqa: E402


class Softmax(torch.nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=-1)


def _rounded(kernel, bits_dropped: int) -> Candidate:
    """The kernel storing its output with the low ``bits_dropped`` mantissa bits rounded away (NaN kept: a GPU's
    NaN, 0x7fffffff, would round to -0.0 and the candidate be refused for its NaN, not for its precision)."""
    m = re.search(r"tl\.store\(((?:in_)?out_ptr\d+ \+ \([^)]*\)), (tmp\d+), ([^)]*)\)", kernel.source)
    assert m, kernel.source
    half, mask = 1 << (bits_dropped - 1), -(1 << bits_dropped)
    t = m.group(2)
    value = f"tl.where({t} != {t}, {t}, ((({t}).to(tl.int32, bitcast=True) + {half}) & {mask}).to(tl.float32, bitcast=True))"
    src = kernel.source[:m.start()] + f"tl.store({m.group(1)}, {value}, {m.group(3)})" + kernel.source[m.end():]
    return Candidate((kernel.name,), src)


def test_a_softmax_rounded_to_16_mantissa_bits_is_rejected_and_the_honest_one_verified(backend):
    session = EvaluationSession(problem_from_objects(Softmax(), (torch.randn(8, 128, device=backend.device),),
                                                     "softmax"), Settings(seeds=5, base_seed=21), backend)
    ((graph, name),) = session.captured.triton_kernels
    kernel = graph.kernels[name]
    honest = session.evaluate(Candidate((name,), kernel.source), perf=False)
    assert honest.decision == "verified", honest.reason
    res = session.evaluate(_rounded(kernel, 7), perf=False)  # 23 - 7 = 16 mantissa bits
    assert res.decision == "rejected", res.reason
    assert res.failed_gate.gate == "fp64" and "lower-precision" in res.reason, res.reason
