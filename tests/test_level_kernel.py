"""The judge's Triton level kernel (gates/level_kernel.py) against the torch path it replaces on a GPU: every
distance gets the same code (bounds and the numbers either side of them included, NaN, infinities, a run that is
not finite), and the levels only rise; run here under the Triton interpreter, on a GPU natively."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")

from pytest_kernelopt.gates import compare, judge_kernels, level_kernel  # noqa: E402


@pytest.fixture
def kernel_on_host(monkeypatch):
    """The kernel takes host tensors (on the CPU the backend has set TRITON_INTERPRET); each launch is counted."""
    monkeypatch.setattr(level_kernel.KERNEL, "failed", "")
    monkeypatch.setattr(level_kernel, "usable", lambda m, q, t: judge_kernels.enabled() and not level_kernel.KERNEL.failed)
    launched = []
    real = level_kernel.launch

    def launch(*a):
        launched.append(1)
        return real(*a)

    monkeypatch.setattr(level_kernel, "launch", launch)
    return launched


def _raised(m, q, t, rtol, atol, torch_only=False):
    m = m.clone()
    if torch_only:
        with judge_kernels.torch_only():
            compare.raise_levels(m, q, t, rtol, atol)
    else:
        compare.raise_levels(m, q, t, rtol, atol)
    return m


@pytest.mark.parametrize("qdtype", ["float32", "float64", "bfloat16"])
def test_the_kernels_codes_are_the_torch_paths(backend, kernel_on_host, qdtype):
    rtol, atol = 1.3e-6, 1e-5
    gen = torch.Generator().manual_seed(11)
    n = 3000
    t = torch.randn(n, generator=gen, dtype=torch.float64) * 10.0 ** torch.randint(-4, 3, (n,), generator=gen)
    t[:3] = torch.tensor([float("nan"), float("inf"), 0.0], dtype=torch.float64)
    # distances over the whole range of codes, and each bound with the float64 numbers either side of it
    dist = 10.0 ** (torch.rand(n, generator=gen, dtype=torch.float64) * 6 - 2)
    bounds = level_kernel.bounds("cpu")[:255]
    edges = torch.cat([bounds, torch.nextafter(bounds, torch.zeros_like(bounds)),
                       torch.nextafter(bounds, torch.full_like(bounds, math.inf))])
    dist[100:100 + edges.numel()] = edges
    q = t + dist * (atol + rtol * t.abs()) * torch.where(torch.rand(n, generator=gen) < 0.5, -1.0, 1.0).double()
    q = q.to(getattr(torch, qdtype))
    q[5] = float("nan")  # a run that is not finite where the truth is: unbounded
    q[6] = float("inf")
    m = torch.randint(0, 40, (n,), generator=gen, dtype=torch.uint8)
    m[7] = 255
    dev = backend.device
    want = _raised(m.to(dev), q.to(dev), t.to(dev), rtol, atol, torch_only=True)
    got = _raised(m.to(dev), q.to(dev), t.to(dev), rtol, atol)
    assert kernel_on_host == [1]
    assert torch.equal(got.cpu(), want.cpu())
    assert (got.cpu() >= m).all() and got[5] == got[6] == got[7] == 255 and got[0] == got[1] == 255
    codes = got.cpu()[(got.cpu() > m) & (got.cpu() < 255)]
    assert codes.unique().numel() > 20  # the distances reached many codes, not only the extremes


def test_a_code_is_the_smallest_whose_bound_holds_the_distance():
    """The torch path's definition, at each bound and the numbers either side of it."""
    b = level_kernel.bounds("cpu")[:255]
    below = torch.nextafter(b, torch.zeros_like(b))
    above = torch.nextafter(b, torch.full_like(b, math.inf))
    codes = torch.arange(255)
    assert torch.equal(compare.level_codes(b).long(), codes)
    assert torch.equal(compare.level_codes(below).long(), codes)
    assert torch.equal(compare.level_codes(above[:-1]).long(), codes[1:])
    assert compare.level_codes(above[-1:]).item() == 255
    assert torch.equal(compare.level_bound(compare.level_codes(b)), b)
