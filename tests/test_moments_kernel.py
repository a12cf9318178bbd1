"""The judge's Triton error moments (gates/moments_kernel.py) against the torch path they replace on a GPU (the
float64 gate's bias check): the same counts, per batch too, the same means, spreads and batch sums up to
rounding; run here under the Triton interpreter, on a GPU natively."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from pytest_kernelopt.gates import fp64, judge_kernels, moments_kernel  # noqa: E402

BATCHES = 4
N = moments_kernel.SPAN * BATCHES + 12345  # programs whose spans cross a batch's edge, and a partial last one


def _torch_moments(c, b, t):
    with judge_kernels.torch_only():
        return fp64._error_moments(c, b, t)


@pytest.fixture
def small_batches(monkeypatch):
    """Four bias batches (so a tensor of a few spans is the kernel's), the kernel taking host tensors (on the CPU
    the backend has set TRITON_INTERPRET); each launch is counted."""
    monkeypatch.setattr(fp64, "BIAS_BATCHES", BATCHES)
    monkeypatch.setattr(moments_kernel.KERNEL, "failed", "")
    real_usable = moments_kernel.usable
    monkeypatch.setattr(moments_kernel, "usable", lambda c, b, t, k: (
        real_usable(c, b, t, k) if t.is_cuda else judge_kernels.enabled() and not moments_kernel.KERNEL.failed and t.numel() >= moments_kernel.SPAN * k))
    launched = []
    real = moments_kernel.launch
    monkeypatch.setattr(moments_kernel, "launch", lambda *a: launched.append(1) or real(*a))
    return launched


@pytest.mark.parametrize("offset", [0.0, 1e6])
def test_the_kernels_moments_are_the_torch_paths(backend, small_batches, offset):
    """A biased candidate (offset: its errors' mean a million times their spread, where a sum of squares would
    cancel) with NaN and Inf in each tensor, float32 candidate and baseline against a float64 truth."""
    gen = torch.Generator().manual_seed(9)
    t = torch.randn(N, generator=gen, dtype=torch.float64)
    b = (t + torch.randn(N, generator=gen, dtype=torch.float64) * 1e-6).float()
    c = (t + offset * 1e-6 + torch.randn(N, generator=gen, dtype=torch.float64) * 1e-6).float()
    c[7], b[8], t[9], t[10] = float("nan"), float("inf"), float("nan"), -float("inf")
    t, b, c = (v.to(backend.device) for v in (t, b, c))
    ref = _torch_moments(c, b, t)
    got = fp64._error_moments(c, b, t)
    assert small_batches == [1]
    assert got[0] == ref[0] == N - 4
    for g, r in zip(got[1] + got[2], ref[1] + ref[2]):
        assert g == pytest.approx(r, rel=1e-9, abs=1e-30)
    assert got[3] == pytest.approx(ref[3], rel=1e-12)
    assert torch.equal(got[4][0], ref[4][0])  # the batches' counts
    for g, r in zip(got[4][1:], ref[4][1:]):
        assert torch.allclose(g, r, rtol=1e-9, atol=1e-12)


def test_a_tensor_below_the_kernels_size_is_left_to_torch(backend, small_batches):
    t = torch.randn(moments_kernel.SPAN, dtype=torch.float64).to(backend.device)
    got = fp64._error_moments(t.float(), t.float(), t)
    assert small_batches == [] and got[0] == t.numel()
