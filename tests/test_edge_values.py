"""Red team 11: kernels wrong only on values no seed held -- exactly 1.0, -0.0 and subnormals, non-integers above
1000 -- were verified.  The special seed now carries them (seed_values.EDGE_VALUES) beside its NaN and Inf, and
(red team 18) runs of small whole numbers."""

from __future__ import annotations

import re

import pytest

torch = pytest.importorskip("torch")

from pytest_kernelopt.candidate import Candidate  # noqa: E402
from pytest_kernelopt.config import Settings  # noqa: E402
from pytest_kernelopt.gates.cascade import EvaluationSession  # noqa: E402
from pytest_kernelopt.problems import problem_from_objects  # noqa: E402


class Affine(torch.nn.Module):
    def forward(self, x):
        return x * 2.0 + 1.0


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    """Overrides the suite's per-test Dynamo reset, which would make the module's shared session stale."""
    yield


@pytest.fixture(scope="module")
def session(backend):
    x = torch.randn(8, 512, device=backend.device)
    return EvaluationSession(problem_from_objects(Affine(), (x,), "affine"),
                             Settings(seeds=5, isolate=False, base_seed=11), backend)


def _wrong_where(session, condition: str, value: str) -> Candidate:
    """The module's kernel storing ``value`` where ``condition`` holds of its input ``tmp0``."""
    ((graph, name),) = session.captured.triton_kernels
    src = graph.kernels[name].source
    m = re.search(r"tl\.store\(out_ptr0 \+ \((x\d+)\), (tmp\d+), ([^)]*)\)", src)
    new = f"tl.store(out_ptr0 + ({m.group(1)}), tl.where({condition}, {value}, {m.group(2)}), {m.group(3)})"
    return Candidate((name,), src[:m.start()] + new + src[m.end():])


@pytest.mark.parametrize("condition, value", [
    ("tmp0 == 1.0", "0.0"),                                                     # exact one (masks, one-hot)
    ("(tmp0 == 0.0) & ((1.0 / tmp0) < 0.0)", "1000.0"),                         # negative zero
    ("(tmp0 != 0.0) & (tl.abs(tmp0) < 1.1754944e-38)", "1000.0"),               # subnormals
    ("(tl.abs(tmp0) > 1000.0) & (tmp0 != libdevice.floor(tmp0))", "0.0"),      # large non-integers
    ("(tl.abs(tmp0) > 2.0e4) & (tl.abs(tmp0) < 1.0e5)", "tmp0 * 0.5"),          # large magnitudes (red team 12)
    ("(tl.abs(tmp0) > 1.0e5) & (tl.abs(tmp0) < 1.0e30)", "tmp0 * 0.5"),
])
def test_a_kernel_wrong_only_on_an_edge_value_is_rejected(session, condition, value):
    cand = _wrong_where(session, condition, value)
    if "libdevice" in condition and "libdevice" not in cand.source.split("def ")[0]:
        pytest.skip("this Inductor's kernel does not import libdevice")
    res = session.evaluate(cand, perf=False)
    assert res.decision == "rejected", res.reason


def test_the_honest_kernel_still_passes_on_the_edge_values(session):
    ((graph, name),) = session.captured.triton_kernels
    res = session.evaluate(Candidate((name,), graph.kernels[name].source), perf=False)
    assert res.decision == "verified", res.reason


def test_a_kernel_wrong_only_where_neighbours_are_small_whole_numbers_is_rejected(session):
    """Red team 18: +1 wherever an element and its neighbour are whole numbers with 3 <= |x| < 32 was verified
    (the integer seed's whole numbers sit on a large offset; edge values are single elements)."""
    cand = _wrong_where(session, "_w0 & _w1", "tmp0 * 2.0 + 2.0")
    load = re.search(r"\n(\s+)(tmp0 = tl\.load\(in_ptr0 \+ \((x\d+)\), ([^)]*)\))\n", cand.source)
    indent, index = load.group(1), load.group(3)
    extra = "".join(f"\n{indent}{line}" for line in (
        f"_nb = tl.load(in_ptr0 + ({index} ^ 1), xmask)",  # an even count of elements: the pair is in bounds
        "_w0 = (tmp0 == tmp0.to(tl.int32).to(tl.float32)) & (tl.abs(tmp0) >= 3.0) & (tl.abs(tmp0) < 32.0)",
        "_w1 = (_nb == _nb.to(tl.int32).to(tl.float32)) & (tl.abs(_nb) >= 3.0) & (tl.abs(_nb) < 32.0)"))
    src = cand.source[:load.end(2)] + extra + cand.source[load.end(2):]
    res = session.evaluate(Candidate(cand.replaces, src), perf=False)
    assert res.decision == "rejected", res.reason
