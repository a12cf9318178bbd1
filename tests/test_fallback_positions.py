"""The float64 fallback counts positions: accuracy bought where the baseline is wrong does not pay for errors
where it is right.

Red team 19: ``y = (x + 1e8 * mask) - 1e8 * mask`` with a fixed mask on 2% of positions is exact elsewhere (the
baseline, eager and the truth agree) and loses x's digits under the mask.  A kernel writing exact values under
the mask and values 2-10% off (alternating sign: no bias) at 76% of the other positions was closer to the truth
than the baseline in L2, within 4x the baseline's worst element, and verified.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

torch = pytest.importorskip("torch")

from pytest_kernelopt.config import Settings  # noqa: E402
from pytest_kernelopt.gates.compare import beyond_counts  # noqa: E402
from pytest_kernelopt.gates.fp64 import Fp64Gate  # noqa: E402
from pytest_kernelopt.gates.results import GateResult  # noqa: E402

N = 64 * 1024


def _run(value, noise=None):
    return SimpleNamespace(outputs=[value], grads={}, noise=noise)


def _judge(truth, base, cand, reorder=()):
    noise = float((base.double() - truth).norm())  # a noise floor as large as the baseline's own error
    baseline = SimpleNamespace(plan=SimpleNamespace(seeds=[3]), dtype_name="float32", runs={3: _run(base)},
                               truths={3: _run(truth, noise=[noise])}, truth_errors={})
    corr = GateResult("correctness", "pass", numbers={"within_tolerance": False, "seeds_beyond_tolerance": [3]})
    return Fp64Gate().judge(Settings(), baseline, SimpleNamespace(runs={3: _run(cand)}), corr, reorder=reorder)


def _masked(wrong_share, rel):
    g = torch.Generator().manual_seed(19)
    truth = torch.randn(N, generator=g, dtype=torch.float64)
    mask = torch.rand(N, generator=g) < 0.02
    base = truth.float().clone()
    base[mask] += (torch.rand(int(mask.sum()), generator=g) * 8 - 4)  # the baseline's digits lost under the mask
    cand = truth.float().clone()  # exact under the mask
    pick = ~mask & (torch.rand(N, generator=g) < wrong_share)
    sign = 1 - 2 * (torch.arange(N) % 2)
    cand[pick] = (truth[pick] * (1 + sign[pick] * rel)).float()
    return truth, base, cand


def test_accuracy_where_the_baseline_is_wrong_does_not_pay_for_errors_where_it_is_right():
    truth, base, cand = _masked(0.76, 0.05)
    res = _judge(truth, base, cand)
    assert res.status == "fail" and "wrong where it is right" in res.reason, res.reason
    assert res.numbers["positions_baseline_beyond"] == pytest.approx(0.02 * N, rel=0.1)
    # the whole-output figures alone let it through: the L2 ratio is well under the bound
    assert res.numbers["worst_ratio"] < 1.0


def test_the_count_allows_the_baselines_share_three_times_over_plus_one_percent():
    truth, base, cand = _masked(0.05, 0.05)  # 5% of the clean positions: under 3 x 2% + 1%
    res = _judge(truth, base, cand)
    assert "positions_beyond" not in res.numbers, res.reason
    assert 0.5 < res.numbers["positions_ratio"] < 1.0


def test_a_certified_reorder_is_not_counted():
    truth, base, cand = _masked(0.76, 0.05)
    res = _judge(truth, base, cand, reorder=("Inductor's own k under XBLOCK=512",))
    assert "positions_beyond" not in res.numbers and "positions_ratio" not in res.numbers


@pytest.mark.parametrize("sigma", [3e-4, 1e-4, 3e-5])
def test_honest_errors_spread_like_the_baselines_pass(sigma):
    """Independent errors of the same size as the baseline's (an ill-conditioned output computed in another
    order), with the tolerance in the bulk, the shoulder and the tail of their spread."""
    g = torch.Generator().manual_seed(7)
    truth = torch.randn(N, generator=g, dtype=torch.float64)
    base = (truth + sigma * torch.randn(N, generator=g, dtype=torch.float64)).float()
    cand = (truth + 1.1 * sigma * torch.randn(N, generator=g, dtype=torch.float64)).float()
    res = _judge(truth, base, cand)
    assert "positions_beyond" not in res.numbers, res.reason
    assert res.numbers["positions_ratio"] < 1.0


def test_beyond_counts_ignores_positions_not_finite_everywhere():
    t = torch.tensor([1.0, 2.0, float("nan"), 4.0, 5.0], dtype=torch.float64)
    y = torch.tensor([1.0, 2.5, 3.0, float("inf"), 5.0])
    x = torch.tensor([1.5, 2.0, 3.0, 4.0, 5.0])
    assert beyond_counts(x, y, t, 1e-4, 1e-4) == (3, 1, 1)
