"""The gates' whole-tensor statistics taken a chunk at a time (:mod:`pytest_kernelopt.gates.chunked`).

With the chunk size patched down to a few elements, every converted function must give what it gives with one
chunk holding everything (and, for the float64 gate's sums and moments, what a direct whole-tensor float64
computation gives), on outputs with NaN, Inf, zeros, tiny values and non-contiguous layouts.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

torch = pytest.importorskip("torch")

from pytest_kernelopt.config import Settings  # noqa: E402
from pytest_kernelopt.gates import chunked  # noqa: E402
from pytest_kernelopt.gates.compare import compare_outputs, error_vs_truth, same_values  # noqa: E402
from pytest_kernelopt.gates import fp64  # noqa: E402
from pytest_kernelopt.gates.fp64 import Fp64Gate, _float_errors, bias_excess  # noqa: E402
from pytest_kernelopt.gates.fp64_place import _distances, _perturbed  # noqa: E402

SMALL, HUGE = 7, 1 << 40


def both(monkeypatch, fn, *args, **kw):
    """``fn(*args, **kw)`` with a 7-element chunk and with one chunk for everything."""
    monkeypatch.setattr(chunked, "CHUNK", SMALL)
    small = fn(*args, **kw)
    monkeypatch.setattr(chunked, "CHUNK", HUGE)
    return small, fn(*args, **kw)


def layouts(t):
    """``t`` (2-D or more) as stored contiguously, transposed, sliced and permuted: the same values."""
    out = {"contiguous": t}
    out["transposed"] = t.transpose(0, 1).contiguous().transpose(0, 1)
    big = torch.zeros(t.shape[0], t.shape[1] * 2, *t.shape[2:], dtype=t.dtype)
    big[:, ::2] = t
    out["sliced"] = big[:, ::2]
    if t.dim() >= 3:
        out["permuted"] = t.permute(2, 0, 1).contiguous().permute(1, 2, 0)
    return out


@pytest.mark.parametrize("shape", [(), (1,), (50,), (5, 9), (3, 4, 5), (1, 23, 2), (2, 1, 3, 4)])
def test_chunks_cover_every_layout_in_row_major_order(monkeypatch, shape):
    monkeypatch.setattr(chunked, "CHUNK", SMALL)
    t = torch.arange(math.prod(shape), dtype=torch.float32).reshape(shape)
    cands = [t]
    if t.dim() >= 2:
        cands += [t.transpose(0, 1).contiguous().transpose(0, 1), t.flip(0), t.transpose(-1, -2)]
        cands.append(torch.zeros(*shape[:-1], shape[-1] * 3)[..., ::3])
        cands[-1].copy_(t)
    if t.dim() >= 1:
        cands.append(torch.tensor(1.5).expand(shape))
    for c in cands:
        # host tensors' chunks go to the GPU where this process already uses one (compute_device): compare on the host
        got = [(a.cpu(), b.cpu()) for a, b in chunked.chunks(c, c.clone())]
        assert all(0 < a.numel() <= SMALL and torch.equal(a, b) for a, b in got)
        assert torch.equal(torch.cat([a for a, _ in got]) if got else torch.zeros(0), c.reshape(-1))


def test_a_non_contiguous_tensor_is_read_as_views_of_itself(monkeypatch):
    monkeypatch.setattr(chunked, "CHUNK", SMALL)
    t = torch.randn(6, 10).t()  # 10 x 6, transposed: reshape(-1) would copy all of it
    base = t.untyped_storage().data_ptr()
    for lo, hi in chunked.spans(t.numel()):
        views = list(chunked._views(t, lo, hi))
        assert sum(v.numel() for v in views) == hi - lo
        assert all(v.untyped_storage().data_ptr() == base for v in views)


def test_put_writes_in_row_major_order_into_any_layout(monkeypatch):
    monkeypatch.setattr(chunked, "CHUNK", SMALL)
    for shape in [(5, 9), (3, 4, 5)]:
        for name, y in layouts(torch.zeros(shape)).items():
            src = torch.randn(shape)
            for lo, hi in chunked.spans(y.numel()):
                chunked.put(y, lo, src.reshape(-1)[lo:hi])
            assert torch.equal(y, src), name


def _pair(seed, shape=(13, 11), scale=1.0, dtype=torch.float32):
    """(candidate, baseline): random values with NaN, +-Inf and zeros in the same places, slightly apart."""
    g = torch.Generator().manual_seed(seed)
    base = (torch.randn(shape, generator=g) * scale).to(dtype)
    cand = (base.double() + 1e-5 * scale * torch.randn(shape, generator=g, dtype=torch.float64)).to(dtype)
    flat_b, flat_c = base.view(-1), cand.view(-1)
    for pos, v in ((3, float("nan")), (40, float("inf")), (77, -float("inf")), (100, 0.0), (101, 0.0)):
        flat_b[pos] = flat_c[pos] = v
    return cand, base


def _compare(cand, base, **kw):
    s = Settings(**kw)
    return compare_outputs(cand, base, s.tolerance, tiny_factor=s.tiny_output_factor, tiny_rel_tol=s.tiny_rel_tol)


def _cases():
    cand, base = _pair(0)
    yield "close", cand, base
    far = cand.clone()
    far[5, 5] += 1.0
    yield "beyond", far, base
    nan = cand.clone()
    nan[12, 10] = float("nan")
    yield "nan", nan, base
    sign = cand.clone()
    sign.view(-1)[40] = -float("inf")
    yield "inf sign", sign, base
    inf = cand.clone()
    inf[12, 0] = float("inf")
    yield "inf position", inf, base
    tc, tb = _pair(1, scale=1e-9)
    yield "tiny", tc, tb
    yield "tiny zeros", torch.where(torch.isfinite(tc), torch.zeros_like(tc), tc), tb
    yield "tiny apart", tc * 3, tb
    ints = torch.arange(90).reshape(9, 10)
    bad = ints.clone()
    bad[0, 1] = bad[8, 9] = -1
    yield "ints", bad, ints
    allnan = torch.full((4, 5), float("nan"))
    yield "no finite", allnan, allnan.clone()
    yield "several", (cand, far, 3, [tc]), (base, base, 3, [tb])


@pytest.mark.parametrize("case", [c[0] for c in _cases()])
def test_compare_outputs_is_the_same_in_chunks(monkeypatch, case):
    _, cand, base = next(c for c in _cases() if c[0] == case)
    small, huge = both(monkeypatch, _compare, cand, base)
    assert small == huge
    if isinstance(cand, torch.Tensor) and cand.dim() == 2:  # the same values, both stored transposed
        tc, tb = (v.t().contiguous().t() for v in (cand, base))
        assert not tc.is_contiguous()
        t_small, _ = both(monkeypatch, _compare, tc, tb)
        assert t_small == huge
    expected = {"close": (None, True), "beyond": (None, False), "nan": ("NaN positions differ (2 NaN, baseline 1)",
                                                                         True),
                "inf sign": ("Inf positions", True), "inf position": ("Inf positions", True),
                "tiny": (None, True), "tiny zeros": (None, False), "tiny apart": (None, False),
                "ints": ("2 of 90 integer/bool elements differ", True), "no finite": (None, True),
                "several": (None, False)}[case]
    if expected[0] is None:
        assert small.hard_failure is None
        assert small.within_tolerance is expected[1]
    else:
        assert expected[0] in small.hard_failure
    if case == "tiny zeros":
        assert small.zeros == [0]


def test_compare_outputs_numbers_are_the_whole_tensor_ones(monkeypatch):
    cand, base = _pair(2)
    small, _ = both(monkeypatch, _compare, cand, base)
    fin = torch.isfinite(base)
    d = (cand[fin].double() - base[fin].double()).abs()
    assert small.max_abs_err == float(d.max())
    assert small.max_rel_err == float((d / base[fin].double().abs().clamp_min(1e-4)).max())


def test_relative_l2_errors_are_the_same_in_chunks(monkeypatch):
    cand, base = _pair(3)
    truth = base.double().t().contiguous().t()  # non-contiguous
    ok = torch.isfinite(cand) & torch.isfinite(base)
    ref = float(torch.linalg.vector_norm(cand[ok].double() - truth[ok])) / float(torch.linalg.vector_norm(truth[ok]))
    small, huge = both(monkeypatch, error_vs_truth, (cand, cand[:2]), (truth, truth[:2]))
    assert small[0] == pytest.approx(huge[0], rel=1e-12) and small[0] == pytest.approx(ref, rel=1e-12)
    assert small[1] == pytest.approx(huge[1], rel=1e-12)
    a, b = cand[ok], base[ok]  # all finite: the plain relative L2 error
    (small,), (huge,) = both(monkeypatch, error_vs_truth, a, b)
    assert small == pytest.approx(huge, rel=1e-12)
    assert small == pytest.approx(float(torch.linalg.vector_norm(a.double() - b.double()) /
                                        torch.linalg.vector_norm(b.double())), rel=1e-12)
    assert both(monkeypatch, error_vs_truth, torch.zeros(20), torch.zeros(20)) == ([0.0], [0.0])
    assert both(monkeypatch, error_vs_truth, torch.ones(20), torch.zeros(20)) == ([math.inf], [math.inf])


def test_same_values_is_the_same_in_chunks(monkeypatch):
    x = torch.randn(9, 13)
    x[2, 3] = float("nan")
    x[8, 12] = float("inf")
    xt = x.t().contiguous().t()
    last = x.clone()
    last[8, 11] = torch.nextafter(last[8, 11], torch.tensor(float("inf")))
    moved_nan = x.clone()
    moved_nan[2, 3], moved_nan[8, 10] = 0.0, float("nan")
    ints = torch.arange(100).reshape(10, 10)
    ints2 = ints.clone()
    ints2[9, 9] = 0
    for a, b, want in [(x, x.clone(), True), (x, xt, True), ((x, 2), (xt, 2), True), (x, last, False),
                       (x, moved_nan, False), (ints, ints.t().contiguous().t(), True), (ints, ints2, False)]:
        assert both(monkeypatch, same_values, a, b) == (want, want)


def _run(*vals, noise=None):
    return SimpleNamespace(outputs=tuple(vals), grads={}, noise=noise)


def _float_errors_reference(x, t, rtol, atol):
    xd, td = x.double(), t.double()
    ok = torch.isfinite(xd) & torch.isfinite(td)
    return (float(torch.linalg.vector_norm(xd[ok] - td[ok])), float(torch.linalg.vector_norm(td[ok])),
            float(torch.linalg.vector_norm(atol + rtol * td[ok].abs())))


def test_float_errors_match_a_whole_tensor_reference(monkeypatch):
    cand, base = _pair(4, shape=(17, 12))
    truth = base.double() + 1e-6
    truth.view(-1)[9] = float("nan")  # finite in the candidate, not in the truth
    tol = Settings().tolerance
    rtol, atol = tol("float32")
    run, tr = _run(cand.t().contiguous().t(), torch.tensor([float("nan")] * 4), 7),\
        _run(truth, torch.zeros(4, dtype=torch.float64), 7, noise=[1e-9, 1.0, None])
    small, huge = both(monkeypatch, _float_errors, run, tr, tol)
    err, norm, cap = _float_errors_reference(cand, truth, rtol, atol)
    assert small[1] == huge[1] == (0.0, 0.0, 0.0)
    for got in (small[0], huge[0]):
        assert got[0] == pytest.approx(err, rel=1e-12) and got[2] == pytest.approx(norm, rel=1e-12)
        k = fp64.noise_k(1e-9, norm, torch.finfo(torch.float32).eps)
        assert got[1] == pytest.approx(min(cap, k * 1e-9), rel=1e-12)
    tr.noise = [1e9]  # the cap binds
    small, _ = both(monkeypatch, _float_errors, run, tr, tol)
    assert small[0][1] == pytest.approx(cap, rel=1e-12)


def _bias_reference(c, b, t, rtol, atol):
    c, b, t = c.double().reshape(-1), b.double().reshape(-1), t.double().reshape(-1)
    ok = torch.isfinite(c) & torch.isfinite(b) & torch.isfinite(t)
    batch = (torch.arange(t.numel()) * 64 // t.numel())[ok]
    ec, eb, t = (c - t)[ok], (b - t)[ok], t[ok]
    n = ec.numel()

    def se(e):  # the larger of the elements' and the 64 row-major batches' (cluster-robust) standard errors
        sums = torch.zeros(64, dtype=torch.float64).index_add_(0, batch, e)
        counts = torch.zeros(64, dtype=torch.float64).index_add_(0, batch, torch.ones_like(e))
        used = counts > 0
        k = int(used.sum())
        clustered = math.sqrt(k / (k - 1) * float(((sums - counts * e.mean())[used] ** 2).sum())) / n
        return max(float(e.std()) / math.sqrt(n), clustered)

    se_b, se_c = se(eb), se(ec)
    se_all = max(se_b, min(se_c, 4.0 * se_b))
    return float(ec.mean()), abs(float(eb.mean())) + 6.0 * se_all, 0.05 * (atol + rtol * float(t.abs().mean()))


@pytest.mark.parametrize("shift", [0.0, 3e-3])
def test_bias_excess_matches_a_whole_tensor_reference(monkeypatch, shift):
    g = torch.Generator().manual_seed(5)
    truth = 100 + torch.randn(31, 29, generator=g, dtype=torch.float64)  # a large mean: cancellation in M2
    base = (truth + 1e-4 * torch.randn(31, 29, generator=g, dtype=torch.float64)).float()
    cand = (truth + shift + 2e-4 * torch.randn(31, 29, generator=g, dtype=torch.float64)).float()
    base[0, 0] = float("nan")
    cand[30, 28] = float("inf")
    truth[15, 3] = float("nan")
    cand = cand.t().contiguous().t()
    small, huge = both(monkeypatch, bias_excess, cand, base, truth, 1e-4, 1e-4)
    ref = _bias_reference(cand, base, truth, 1e-4, 1e-4)
    for got in (small, huge):
        assert got == pytest.approx(ref, rel=1e-10, abs=0)
    assert (abs(small[0]) > small[1]) is (shift > 0)


def test_bias_excess_needs_64_finite_positions(monkeypatch):
    t = torch.randn(70, dtype=torch.float64)
    c = t.float().clone()
    assert both(monkeypatch, bias_excess, c, c.clone(), t, 1e-4, 1e-4)[0] is not None
    c[:7] = float("nan")
    assert both(monkeypatch, bias_excess, c, c.clone(), t, 1e-4, 1e-4) == (None, None)


def test_the_precision_check_is_the_same_in_chunks(monkeypatch):
    g = torch.Generator().manual_seed(6)
    truth = torch.randn(40, 30, generator=g, dtype=torch.float64)
    base = truth.float()
    for cand, fails in ((truth.half().float(), True), (truth.float(), False)):
        s = SimpleNamespace(tolerance=Settings().tolerance)
        baseline = SimpleNamespace(truths={0: _run(truth, noise=[1e-12])}, runs={0: _run(base)})
        rec = SimpleNamespace(runs={0: _run(cand.t().contiguous().t())})

        def judge():
            numbers: dict = {}
            r = Fp64Gate._precision(s, baseline, rec, [0], numbers, 4.0)
            return (r.status if r else None), numbers

        small, huge = both(monkeypatch, judge)
        assert (small[0] == "fail") is fails and (huge[0] == "fail") is fails
        assert small[1]["precision_ratio"] == pytest.approx(huge[1]["precision_ratio"], rel=1e-12)


def test_distances_are_the_same_in_chunks(monkeypatch):
    cand, base = _pair(7)
    truth = base.double()
    truth.view(-1)[50] = float("nan")
    got = [cand.t().contiguous().t(), torch.arange(3), cand[0]]
    small, huge = both(monkeypatch, _distances, got, [truth, torch.arange(3), truth[0]])
    ok = torch.isfinite(cand) & torch.isfinite(truth)
    ref = float(torch.linalg.vector_norm(cand[ok].double() - truth[ok]))
    assert small[1] is None and huge[1] is None
    # (sum of squared distances, the same per decade of |truth|)
    assert small[0][0] == pytest.approx(ref ** 2, rel=1e-12) and huge[0][0] == pytest.approx(ref ** 2, rel=1e-12)
    assert sum(small[0][1].values()) == pytest.approx(small[0][0], rel=1e-12)
    assert small[0][1].keys() == huge[0][1].keys()
    assert all(small[0][1][d] == pytest.approx(huge[0][1][d], rel=1e-12) for d in small[0][1])
    assert small[2][0] == pytest.approx(huge[2][0], rel=1e-12)


def test_levels_are_raised_in_the_same_pass_and_the_same_in_chunks(monkeypatch):
    """The per-position levels ride along :func:`_distances`' chunks: the same codes in 7-element chunks as in one,
    the farthest of two runs, 255 where a run is not finite or is not a floating value of the truth's size."""
    from pytest_kernelopt.gates.compare import level_codes

    cand, base = _pair(7)
    truth = base.double()
    cand.view(-1)[3] = float("inf")
    tolerance = Settings().tolerance
    rtol, atol = tolerance("float32")

    def run():
        levels = [torch.zeros(truth.numel(), dtype=torch.uint8), None, torch.zeros(4, dtype=torch.uint8)]
        t2 = torch.ones(4, dtype=torch.float64)
        for got in ([base, torch.arange(3), torch.arange(4)], [cand.t().contiguous().t(), torch.arange(3), None]):
            dists = _distances(got, [truth, torch.arange(3), t2], levels, tolerance)
        return levels, dists

    small, huge = both(monkeypatch, run)
    assert torch.equal(small[0][0], huge[0][0]) and small[0][1] is None
    far = torch.maximum((base.double() - truth).abs(), (cand.double() - truth).abs()) / (atol + rtol * truth.abs())
    want = level_codes(far.reshape(-1))
    want[3] = 255
    assert torch.equal(small[0][0], want)
    assert (small[0][2] == 255).all() and small[1][2] is None  # an int run, then none at all: unbounded
    assert small[1][0][0] == pytest.approx(huge[1][0][0], rel=1e-12)


def test_the_perturbation_is_drawn_a_chunk_at_a_time(monkeypatch):
    monkeypatch.setattr(chunked, "CHUNK", SMALL)
    real_rand = torch.rand
    sizes = []

    def rand(*size, **kw):
        sizes.append(size)
        return real_rand(*size, **kw)

    monkeypatch.setattr(torch, "rand", rand)
    x = torch.randn(12, 10).t()  # non-contiguous
    y = _perturbed(x, torch.Generator().manual_seed(1))
    assert sizes and all(math.prod(s) <= SMALL for s in sizes)
    assert y.shape == x.shape and y.stride() == x.stride() and y.dtype == x.dtype
    rel = ((y.double() - x.double()) / x.double()).abs()
    assert float(rel.max()) <= 2 * torch.finfo(torch.float32).eps and bool((y != x).any())
    again = _perturbed(x, torch.Generator().manual_seed(1))
    assert torch.equal(y, again), "deterministic for a seed and a chunk size"
    h = _perturbed(x.half().requires_grad_(), torch.Generator().manual_seed(1))
    assert h.dtype == torch.float16 and h.requires_grad


@pytest.mark.parametrize("where, fails", [("two", True), ("spread", False), ("none", False)])
def test_the_fallback_bounds_single_elements(monkeypatch, where, fails):
    """Red team 11, F04: on an ill-conditioned output the L2 floor is the tolerance's own L2 norm, and a kernel
    spent it on two elements 470x the tolerance.  An element far beyond the tolerance where the baseline's
    worst element and the rounding noise per element are small fails; errors spread like rounding do not."""
    g = torch.Generator().manual_seed(9)
    truth = torch.randn(4096, generator=g, dtype=torch.float64)
    base = truth.float()
    cand = base.clone()
    if where == "two":
        cand[[17, 3000]] += 0.07
    elif where == "spread":
        cand += (torch.rand(4096, generator=g) - 0.5) * 2e-4  # within about the tolerance everywhere
    noise = 3e-7 * math.sqrt(4096)  # 3e-7 per element (L2 over the output)
    s = SimpleNamespace(tolerance=Settings().tolerance, fp64_factor=1.0)
    baseline = SimpleNamespace(truths={0: _run(truth, noise=[noise])}, runs={0: _run(base)})
    rec = SimpleNamespace(runs={0: _run(cand)})

    def judge():
        numbers: dict = {}
        r = Fp64Gate._elements(s, baseline, rec, [0], numbers)
        return (r.status if r else None), numbers

    small, huge = both(monkeypatch, judge)
    assert (small[0] == "fail") is fails and (huge[0] == "fail") is fails, small
    assert small[1]["element_ratio"] == pytest.approx(huge[1]["element_ratio"], rel=1e-12)


def test_the_noise_floor_factor_follows_the_outputs_conditioning():
    """Red team 12: 20x the rounding noise let a softmax rounded to 16 mantissa bits through.  A well-conditioned
    output (noise of a few epsilons against its size) gets 4x; one that is itself rounding noise, 20x."""
    eps = torch.finfo(torch.float32).eps
    assert fp64.noise_k(1.0 * eps, 1.0, eps) == fp64.NOISE_K_WELL
    assert fp64.noise_k(10 * eps, 1.0, eps) == pytest.approx(10.0)
    assert fp64.noise_k(1e-3, 1e-6, eps) == fp64.noise_k(1.0, 0.0, eps) == fp64.NOISE_K
