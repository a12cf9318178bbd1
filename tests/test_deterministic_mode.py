"""A user's ``torch.use_deterministic_algorithms(True)`` (in a test, or at the top of a module file, which the
judge's worker imports) must not break the gates: their own statistics use ``torch.bincount`` with weights,
which has no deterministic CUDA implementation.  On the CPU these tests check that the setting is kept and the
results are the same; on a GPU they are the real check."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from pytest_kernelopt.candidate import Candidate  # noqa: E402
from pytest_kernelopt.config import Settings  # noqa: E402
from pytest_kernelopt.gates.cascade import EvaluationSession  # noqa: E402
from pytest_kernelopt.gates.compare import any_order, decade_sums  # noqa: E402
from pytest_kernelopt.problems import problem_from_objects  # noqa: E402


@pytest.fixture
def deterministic():
    before = (torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled())
    torch.use_deterministic_algorithms(True)
    yield
    torch.use_deterministic_algorithms(before[0], warn_only=before[1])


def test_decade_sums_in_deterministic_mode(backend, deterministic):
    g = torch.Generator().manual_seed(3)
    t = (torch.randn(5000, generator=g, dtype=torch.float64) * 10 ** torch.randint(-4, 4, (5000,), generator=g))
    x = t.float()
    t, x = t.to(backend.device), x.to(backend.device)
    got = decade_sums(t, x)
    assert torch.are_deterministic_algorithms_enabled()  # put back
    torch.use_deterministic_algorithms(False)
    want = decade_sums(t, x)
    assert got.keys() == want.keys() and len(got) >= 8
    for d in got:
        assert got[d][0] == want[d][0] and got[d][1:] == pytest.approx(want[d][1:], rel=1e-12, abs=0.0)


def test_any_order_keeps_warn_only_and_off(deterministic):
    torch.use_deterministic_algorithms(True, warn_only=True)
    with any_order():
        assert torch.are_deterministic_algorithms_enabled()  # warn-only raises nothing: left alone
    assert torch.is_deterministic_algorithms_warn_only_enabled()
    torch.use_deterministic_algorithms(False)
    with any_order():
        assert not torch.are_deterministic_algorithms_enabled()
    assert not torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True)
    with pytest.raises(ZeroDivisionError):
        with any_order():
            assert not torch.are_deterministic_algorithms_enabled()
            1 / 0
    assert torch.are_deterministic_algorithms_enabled() and not torch.is_deterministic_algorithms_warn_only_enabled()


class Softmax(torch.nn.Module):
    def forward(self, x):
        return torch.softmax(x * 3.0, dim=-1)


def test_the_gates_run_in_deterministic_mode(backend, deterministic):
    torch.manual_seed(0)
    session = EvaluationSession(problem_from_objects(Softmax(), (torch.randn(16, 256, device=backend.device),),
                                                     "softmax"), Settings(seeds=3, base_seed=7), backend)
    ((graph, name),) = session.captured.triton_kernels
    res = session.evaluate(Candidate((name,), graph.kernels[name].source), perf=False)
    assert res.decision == "verified", res.reason
    assert res.gate("fp64").numbers["precision_decades_checked"] > 0
    assert torch.are_deterministic_algorithms_enabled()
