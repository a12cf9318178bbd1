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
def test_a_downgrade_of_the_small_part_of_a_mixed_scale_output_is_rejected(backend, small, expr, no_structure_probes):
    # (the float64 gate's own test: a structure probe may refuse the zeroed part first, as padding rows did in CI)
    session = _session(backend, small)
    ((graph, name),) = session.captured.triton_kernels
    kernel = graph.kernels[name]
    honest = session.evaluate(Candidate((name,), kernel.source), perf=False)
    assert honest.decision == "verified", honest.reason
    assert honest.gate("fp64").numbers["precision_decades_checked"] > 0
    res = session.evaluate(_small_part(kernel, expr), perf=False)
    assert res.decision == "rejected", res.reason
    assert res.failed_gate.gate == "fp64" and "part of the output" in res.reason, res.reason
    assert res.failed_gate.numbers["precision_decades"][0] < 0


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


def _stored(kernel, expr: str) -> Candidate:
    """The kernel storing ``expr`` (of ``v``, the value it stored; ``xindex`` in scope) instead of ``v``."""
    m = re.search(r"tl\.store\(((?:in_)?out_ptr\d+ \+ \([^)]*\)), (tmp\d+), ([^)]*)\)", kernel.source)
    assert m, kernel.source
    value = expr.replace("v", m.group(2)).replace("x" + m.group(2) + "index", "xindex")
    src = kernel.source[:m.start()] + f"tl.store({m.group(1)}, {value}, {m.group(3)})" + kernel.source[m.end():]
    return Candidate((kernel.name,), src)


class TanhBesideExpm1(torch.nn.Module):
    """Red team 14: exp(b) - 1 loses digits near zero, so the baseline itself is 4-140 eps from the truth there."""

    def forward(self, x):
        a, b = x[:, :256], x[:, 256:]
        return torch.cat([torch.tanh(a) * 1e4, torch.exp(b) - 1.0], dim=1)


class OneDecadePerColumn(torch.nn.Module):
    """Red team 14: tanh(x) x 1e3 for most columns, then one decade smaller per column down to 1e-32 (8 values
    a decade: none reaches 32 on its own)."""

    def forward(self, x):
        j = torch.arange(x.shape[-1], device=x.device)
        return torch.tanh(x) * torch.pow(10.0, -torch.clamp(j - 479, min=-3).to(torch.float32))


class FewSmall(torch.nn.Module):
    """Red team 14's "fewer than 32 values": tanh(x) x 1e4 with the last two columns x 1e-3 (16 small values of 4096:
    the smallest decades never made a group of 32 on their own and were not read)."""

    def forward(self, x):
        j = torch.arange(x.shape[-1], device=x.device)
        return torch.tanh(x) * torch.where(j < x.shape[-1] - 2, 1.0e4, 1.0e-3)


@pytest.mark.parametrize("module, pick, expr", [
    (TanhBesideExpm1(), "_exp_", "tl.where(tl.abs(v) < 0.02, v.to(tl.bfloat16).to(tl.float32), v)"),
    (OneDecadePerColumn(), "", "tl.where((xindex % 512) >= 482, v.to(tl.bfloat16).to(tl.float32), v)"),
    (FewSmall(), "", "tl.where((xindex % 512) >= 510, v.to(tl.bfloat16).to(tl.float32), v)"),
], ids=["where-the-baseline-is-itself-inexact", "thin-decades", "fewer-than-32-small-values"])
def test_a_downgrade_red_team_14_found_is_rejected(backend, module, pick, expr):
    torch.manual_seed(0)
    session = EvaluationSession(problem_from_objects(module, (torch.randn(8, 512, device=backend.device),), "rt14"),
                                Settings(seeds=3, base_seed=5), backend)
    (graph, name) = next((g, n) for g, n in session.captured.triton_kernels if pick in n)
    honest = session.evaluate(Candidate((name,), graph.kernels[name].source), perf=False)
    assert honest.decision == "verified", honest.reason
    res = session.evaluate(_stored(graph.kernels[name], expr), perf=False)
    assert res.decision == "rejected", res.reason
    assert res.failed_gate.gate == "fp64" and "part of the output" in res.reason, res.reason


class Softmax(torch.nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=-1)


def test_an_exp2_softmax_is_verified(backend):
    """Red team 14's false rejection: exp(x) computed as exp2(x log2 e), the usual GPU formulation, is 15 eps from
    the truth on a softmax's smallest values where the CPU's exact exp is 1 eps; those values move that far when
    the inputs move by one rounding step (the part's noise floor), and subnormal outputs are not read."""
    torch.manual_seed(0)
    session = EvaluationSession(problem_from_objects(Softmax(), (torch.randn(64, 256, device=backend.device),),
                                                     "softmax"), Settings(seeds=5, base_seed=21), backend)
    ((graph, name),) = session.captured.triton_kernels
    src = graph.kernels[name].source
    exp = r"(?:tl_math|libdevice)\.exp\((tmp\d+)\)"  # the GPU's and the CPU interpreter's
    assert re.search(exp, src), src
    exp2 = re.sub(exp, r"libdevice.exp2(\1 * 1.4426950408889634)", src)
    res = session.evaluate(Candidate((name,), exp2), perf=False)
    assert res.decision == "verified", res.reason
    assert res.gate("fp64").numbers["precision_decades_checked"] > 0
