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


class HalfActivation(torch.nn.Module):
    """``tanh(x) / 2 + x / 4`` in bfloat16 or float16, in and out."""

    def forward(self, x):
        return torch.tanh(x) * 0.5 + x * 0.25


def _half_session(backend, dtype):
    x = torch.randn(64, 128, device=backend.device).to(dtype)
    session = EvaluationSession(problem_from_objects(HalfActivation(), (x,), "half"), Settings(seeds=6), backend)
    ((graph, name),) = session.captured.triton_kernels
    kernel = graph.kernels[name]
    m = re.search(r"    tl\.store\((out_ptr0 \+ \(\w+\)), (tmp\d+), ([^)]*)\)", kernel.source)
    t = re.search(r"(tmp\d+) = libdevice\.tanh\((tmp\d+)\)", kernel.source)
    assert m and t, kernel.source
    return session, kernel, m, t


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_a_half_precision_output_made_sloppy_within_tolerance_is_rejected(backend, dtype, no_structure_probes):
    """Red team 22: the precision check started at 8 epsilons of relative error, beyond bfloat16's tolerance
    (8 eps = 6.25%, rtol 2%), so a bfloat16 kernel 3.8% off at the median (18x the baseline's error) was verified.
    For half-precision outputs it starts at one epsilon against the honest runs' own distance.  A kernel that
    rounds after every operation, as the eager module does, is as precise as the honest runs and is verified."""
    dt = getattr(torch, dtype)
    session, kernel, m, t = _half_session(backend, dt)
    rtol, atol = Settings().tolerance(dtype)
    y = m.group(2)
    off = (f"tl.where(tl.abs({y}) < 4.0, tl.minimum(0.6 * ({atol} + {rtol} * tl.abs({y})), 0.05 * tl.abs({y})), 0.0)"
           f" * tl.where(((xindex + xindex // 128) % 2) == 0, 1.0, -1.0)")
    sloppy = kernel.source.replace(m.group(0), f"    tl.store({m.group(1)}, {y} + {off}, {m.group(3)})")
    res = session.evaluate(Candidate((kernel.name,), sloppy), perf=False)
    assert res.gate("correctness").numbers["within_tolerance"], "within tolerance everywhere: only fp64 can tell"
    assert res.decision == "rejected" and "lower-precision" in res.reason, res.reason
    # the eager module's rounding: tanh rounded to the half type before the arithmetic
    eager_like = kernel.source.replace(t.group(0), f"{t.group(1)} = libdevice.tanh({t.group(2)})"
                                                   f".to(tl.{dtype}).to(tl.float32)")
    assert eager_like != kernel.source
    for src in (kernel.source, eager_like):
        ok = session.evaluate(Candidate((kernel.name,), src), perf=False)
        assert ok.decision == "verified", ok.reason
        assert ok.gate("fp64").numbers["precision_ratio"] < 2.0, ok.gate("fp64").numbers
