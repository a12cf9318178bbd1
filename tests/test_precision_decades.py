"""Red team 13: a precision downgrade confined to the small part of an output that mixes scales (tanh x 1e4 beside
tanh x 1e-3) was verified: the precision check read the whole output's L2 error, which the large part's rounding
decides.  It now also reads each decade of |truth| on its own (:func:`pytest_kernelopt.gates.fp64.Fp64Gate._decades`)."""

from __future__ import annotations

import re

import pytest

torch = pytest.importorskip("torch")

from pytest_kernelopt.candidate import Candidate  # noqa: E402
from pytest_kernelopt.config import Settings  # noqa: E402
from pytest_kernelopt.gates.cascade import EvaluationSession  # noqa: E402
from pytest_kernelopt.gates.compare import decade_errors  # noqa: E402
from pytest_kernelopt.problems import problem_from_objects  # noqa: E402


class MixedScale(torch.nn.Module):
    def __init__(self, small: float) -> None:
        super().__init__()
        self.small = small

    def forward(self, x):
        idx = torch.arange(x.shape[-1], device=x.device)
        return torch.tanh(x) * torch.where(idx < x.shape[-1] // 2, 1.0e4, self.small)


def _small_part(kernel, expr: str) -> Candidate:
    """The kernel storing ``expr`` (of ``v``, the value it stored) in the second half of each row -- the small
    part -- and v elsewhere."""
    m = re.search(r"tl\.store\((out_ptr\d+ \+ \([^)]*\)), (tmp\d+), ([^)]*)\)", kernel.source)
    assert m, kernel.source
    v = m.group(2)
    value = f"tl.where((xindex % 512) < 256, {v}, {expr.replace('v', v)})"
    src = kernel.source[:m.start()] + f"tl.store({m.group(1)}, {value}, {m.group(3)})" + kernel.source[m.end():]
    return Candidate((kernel.name,), src)


def _session(backend, small: float) -> EvaluationSession:
    """(One at a time: a session's capture resets Dynamo, which unhooks the previous session's module.)"""
    torch.manual_seed(0)
    x = torch.randn(8, 512, device=backend.device)
    return EvaluationSession(problem_from_objects(MixedScale(small), (x,), "mixscale"),
                             Settings(seeds=3, base_seed=5), backend)


@pytest.mark.parametrize("small, expr", [
    (1e-3, "v.to(tl.bfloat16).to(tl.float32)"),          # the small half in bfloat16
    (1e-3, "tl.floor(v * 16000.0 + 0.5) / 16000.0"),     # tanh quantised to multiples of 1/16
    (1e-5, "v * 0.0"),                                   # zeroed
], ids=["bfloat16", "sixteenths", "zeroed"])
def test_a_downgrade_of_the_small_part_of_a_mixed_scale_output_is_rejected(backend, small, expr):
    session = _session(backend, small)
    ((graph, name),) = session.captured.triton_kernels
    kernel = graph.kernels[name]
    honest = session.evaluate(Candidate((name,), kernel.source), perf=False)
    assert honest.decision == "verified", honest.reason
    assert honest.gate("fp64").numbers["precision_decades_checked"] > 0
    res = session.evaluate(_small_part(kernel, expr), perf=False)
    assert res.decision == "rejected", res.reason
    assert res.failed_gate.gate == "fp64" and "part of the output" in res.reason, res.reason
    assert res.failed_gate.numbers["precision_decade"] < 0


def test_decade_errors_sum_to_the_whole_and_skip_zeros_and_non_finite():
    g = torch.Generator().manual_seed(1)
    t = torch.cat([torch.randn(300, generator=g) * 1e4, torch.randn(300, generator=g) * 1e-3,
                   torch.zeros(10), torch.tensor([float("nan"), float("inf")])]).double()
    x = (t.float() + 1e-6).double()
    y = t.float().double()
    rows = decade_errors(x, y, t)
    assert sum(n for _, n, *_ in rows) == 600
    assert {d for d, *_ in rows} >= {-3, 3}
    whole = ((x - t)[:600] ** 2).sum().sqrt().item()
    assert abs(sum(ex ** 2 for *_, ex, _, _ in rows) ** 0.5 - whole) < 1e-12 * max(1.0, whole)
    assert all(ey <= norm * 1e-6 for _, _, _, ey, norm in rows)  # y is t rounded to float32
