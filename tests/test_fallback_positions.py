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
from pytest_kernelopt.gates.compare import beyond_counts, level_bound  # noqa: E402
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


# --------------------------------------------------------------------------- calm positions


def _levels(truth, honest):
    """The level codes of an honest run ``honest`` (float32) against ``truth``, as the truth worker keeps them."""
    from pytest_kernelopt.gates.compare import level_codes

    rtol, atol = Settings().tolerance("float32")
    return level_codes((honest.double() - truth).abs() / (atol + rtol * truth.abs()))


def _judge_calm(truth, base, cand, calm, factor=1.0):
    noise = float((base.double() - truth).norm())
    levels = calm if calm.dtype == torch.uint8 else torch.where(calm, 0, 255).to(torch.uint8)
    run = SimpleNamespace(outputs=[truth], grads={}, noise=[noise], levels=[levels])
    baseline = SimpleNamespace(plan=SimpleNamespace(seeds=[3]), dtype_name="float32", runs={3: _run(base)},
                               truths={3: run}, truth_errors={})
    corr = GateResult("correctness", "pass", numbers={"within_tolerance": False, "seeds_beyond_tolerance": [3]})
    return Fp64Gate().judge(Settings(fp64_factor=factor), baseline, SimpleNamespace(runs={3: _run(cand)}), corr)


def _amplified(err, share):
    """Red team 20: the baseline 32768 off under a 2% mask (not calm there), the candidate exact there and
    ``err`` off at ``share`` of the calm positions (within the position count's allowance)."""
    g = torch.Generator().manual_seed(20)
    truth = torch.randn(N, generator=g, dtype=torch.float64)
    mask = torch.rand(N, generator=g) < 0.02
    base = truth.float().clone()
    base[mask] += 32768.0 * (1 - 2 * (torch.rand(int(mask.sum()), generator=g) < 0.5).float())
    cand = truth.float().clone()
    pick = ~mask & (torch.rand(N, generator=g) < share)
    sign = 1 - 2 * (torch.arange(N) % 2)
    cand[pick] = (truth[pick] + sign[pick] * err).float()
    return truth, base, cand, ~mask


def test_a_large_error_at_calm_positions_is_refused_however_few():
    truth, base, cand, calm = _amplified(1e4, 0.028)
    assert "positions_beyond" not in _judge(truth, base, cand).numbers  # the count alone let it through
    res = _judge_calm(truth, base, cand, calm)
    assert res.status == "fail" and "an error rounding cannot make" in res.reason, res.reason
    assert res.numbers["level_far"] == pytest.approx(0.028 * 0.98 * N, rel=0.1)


def test_at_calm_positions_a_few_tolerances_pass_and_fp64_factor_widens_it():
    # 5x the tolerance (|truth| ~ 1: about 1e-3) at 2.8% of calm positions: not refused by the calm check
    truth, base, cand, calm = _amplified(5e-4, 0.028)
    res = _judge_calm(truth, base, cand, calm)
    assert "level_far" not in res.numbers and res.numbers["level_positions_checked"] == N
    truth, base, cand, calm = _amplified(5e-3, 0.028)  # ~25x: refused, unless fp64_factor allows 2.5x that
    assert _judge_calm(truth, base, cand, calm).status == "fail"
    assert "level_far" not in _judge_calm(truth, base, cand, calm, factor=100.0).numbers


def test_the_truth_marks_calm_positions_from_its_honest_runs(backend):
    """Where the float32 module loses x's digits (under the mask) no position is calm; elsewhere every one is."""
    from pytest_kernelopt.gates import fp64_place
    from pytest_kernelopt.gates.cascade import EvaluationSession
    from pytest_kernelopt.problems import problem_from_objects

    class Masked(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("mask", (torch.rand(16, 64, generator=torch.Generator().manual_seed(0)) < 0.1)
                                 .to(torch.int32))

        def forward(self, x):
            b = self.mask * 1.0e8
            return (x + b) - b

    module = Masked().to(backend.device)
    session = EvaluationSession(problem_from_objects(module, (torch.randn(16, 64, device=backend.device),),
                                                     name="masked"), Settings(seeds=2, base_seed=3), backend)
    # the plain seed (inputs as drawn): the first seed's 8-bit third holds exact zeros, which no mask disturbs
    _, _, noise = fp64_place.truth_on(session, session.plan.seeds[1], "cpu")
    (levels,) = fp64_place.noise_levels(noise)
    under = module.mask.reshape(-1).bool().cpu()
    assert levels.dtype == torch.uint8 and levels.numel() == 16 * 64
    assert (levels[~under] == 0).all(), "exact everywhere else: calm"
    # under the mask the float32 runs are off by up to 4 on values near 1: tens of thousands of tolerances
    assert (level_bound(levels[under]) > 100).float().mean() > 0.9


def test_where_honest_runs_land_a_tolerance_away_a_candidate_may_not_land_twenty():
    """Red team 21: ``x + sin(3000 x)``, whose honest runs land a tolerance or so from the truth; a candidate 25
    tolerances off at 0.13-0.36% of positions passed every whole-output figure (here: 20 at 0.2%, within the L2
    bound)."""
    g = torch.Generator().manual_seed(21)
    truth = torch.randn(N, generator=g, dtype=torch.float64)
    tol = 1e-4 + 1e-4 * truth.abs()
    honest = (truth + 1.5 * tol * torch.randn(N, generator=g, dtype=torch.float64)).float()  # 1.5 tolerances
    base = (truth + 1.5 * tol * torch.randn(N, generator=g, dtype=torch.float64)).float()
    levels = _levels(truth, honest)
    pick = torch.rand(N, generator=g) < 0.002
    wrong = base.clone()
    wrong[pick] = (truth[pick] + 20 * tol[pick] * (1 - 2 * (torch.arange(N)[pick] % 2))).float()
    res = _judge_calm(truth, base, wrong, levels)
    assert res.status == "fail" and "an error rounding cannot make" in res.reason, res.reason
    # an honest candidate: another run of the same spread
    other = (truth + tol * torch.randn(N, generator=g, dtype=torch.float64)).float()
    res = _judge_calm(truth, base, other, levels)
    assert "level_far" not in res.numbers, res.reason
    assert res.numbers["level_positions_checked"] == N


def test_level_codes_round_up_and_bound_what_they_stand_for():
    from pytest_kernelopt.gates.compare import CALM_FRACTION, level_bound, level_codes

    d = torch.tensor([0.0, 0.05, 0.1, 0.1001, 1.0, 25.0, 1e30, float("inf"), float("nan")], dtype=torch.float64)
    c = level_codes(d)
    assert c.dtype == torch.uint8 and c[:3].tolist() == [0, 0, 0] and c[3] == 1
    b = level_bound(c)
    finite = d[:6]
    assert (b[:6] >= finite).all() and (b[3:6] <= finite[3:6] * 2 ** (1 / 8) * (1 + 1e-9)).all()
    assert c[6:].tolist() == [255, 255, 255] and torch.isinf(b[6:]).all()
    assert level_bound(torch.tensor([0], dtype=torch.uint8)).item() == CALM_FRACTION
