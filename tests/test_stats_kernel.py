"""The judge's Triton comparison of two outputs (gates/stats_kernel.py) against the torch path it replaces on a
GPU: the same counts and maxima exactly, NaN where torch's are NaN, the same sums up to the order of addition; run
here under the Triton interpreter, on a GPU natively."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")

from pytest_kernelopt.gates import compare, judge_kernels, stats_kernel  # noqa: E402

N = 2 * stats_kernel.SPAN + 999  # several programs and a partial last one


def _torch_stats(x, y, rtol, atol):
    with judge_kernels.torch_only():
        return compare._float_stats(x, y, rtol, atol)


@pytest.fixture
def kernel_on_host(monkeypatch):
    """The kernel takes host tensors (on the CPU the backend has set TRITON_INTERPRET), and counts its launches."""
    monkeypatch.setattr(stats_kernel.KERNEL, "failed", "")
    real_usable = stats_kernel.usable
    monkeypatch.setattr(stats_kernel, "usable", lambda x, y, atol: (
        real_usable(x, y, atol) if x.is_cuda else judge_kernels.enabled() and not stats_kernel.KERNEL.failed and atol > 0))
    launched = []
    real = stats_kernel.launch
    monkeypatch.setattr(stats_kernel, "launch", lambda *a: launched.append(1) or real(*a))
    return launched


def _pair(dtype, device, candidate_nan):
    gen = torch.Generator().manual_seed(8)
    y = torch.randn(N, generator=gen, dtype=torch.float64) * 10
    x = y + torch.randn(N, generator=gen, dtype=torch.float64) * 1e-3
    x[100:110] += 5.0  # beyond tolerance
    y[3], y[4], y[5] = float("nan"), float("inf"), -float("inf")  # the baseline's own specials
    x[4], x[5] = float("inf"), float("inf")                        # the same Inf, and one of the other sign
    x[6], x[7] = float("inf"), -float("inf")                       # Inf where the baseline is finite
    x[N - 1] = float("nan") if candidate_nan else x[N - 1]
    y[0] = 0.0
    return x.to(dtype).to(device), y.to(dtype).to(device)


def _same(a, b):
    return all((math.isnan(p) and math.isnan(q)) or p == q for p, q in zip(a, b))


@pytest.mark.parametrize("candidate_nan", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
def test_the_kernels_figures_are_the_torch_paths(backend, kernel_on_host, dtype, candidate_nan):
    x, y = _pair(getattr(torch, dtype), backend.device, candidate_nan)
    (ref_sums, ref_max), (sums, maxes) = _torch_stats(x, y, 1e-4, 1e-5), compare._float_stats(x, y, 1e-4, 1e-5)
    assert kernel_on_host == [1]
    counts = [0, 1, 2, 3, 4, 7]
    assert [sums[i] for i in counts] == [ref_sums[i] for i in counts]
    assert _same(maxes, ref_max)
    for i in (5, 6):
        assert sums[i] == pytest.approx(ref_sums[i], rel=1e-12, nan_ok=True)
    assert math.isnan(maxes[0]) == math.isnan(sums[5]) == candidate_nan
    assert ref_sums[3] == 3  # Infs of another sign or where the baseline is finite
    if not candidate_nan:
        assert maxes[0] == maxes[2] == math.inf


def test_a_zero_absolute_tolerance_is_left_to_torch(backend, kernel_on_host):
    x, y = _pair(torch.float32, backend.device, False)
    assert compare._float_stats(x, y, 1e-4, 0.0) is not None
    assert kernel_on_host == []


@pytest.mark.parametrize("dtype, tol, y0, x0", [
    ("float64", 1e-7, 1.0, 1 + 2.00000001227e-7),          # beyond float64's tolerance by less than float32 rounds it
    ("float32", 1e-4, 34.4766845703125, 34.48023223876953),  # exactly at the tolerance torch computes in float64
])
def test_the_tolerances_are_applied_in_float64(backend, kernel_on_host, dtype, tol, y0, x0):
    """The count beyond tolerance at its edge is torch's: the kernel reads rtol and atol as float64 (a float
    argument of a compiled kernel is rounded to float32; the interpreter does not round, so this shows on a GPU)."""
    dt = getattr(torch, dtype)
    x = torch.tensor([x0, 1.0], dtype=dt).to(backend.device)
    y = torch.tensor([y0, 1.0], dtype=dt).to(backend.device)
    ref, got = _torch_stats(x, y, tol, tol), compare._float_stats(x, y, tol, tol)
    assert kernel_on_host == [1]
    assert got[0][7] == ref[0][7]
