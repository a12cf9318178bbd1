"""The judge's Triton per-decade sums (gates/decade_kernel.py) against the torch path they replace on a GPU: the
same decades for every value, powers of ten and their neighbours included, and the same sums up to the order of
addition; run here under the Triton interpreter, on a GPU natively."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")

from pytest_kernelopt.gates import compare, decade_kernel, judge_kernels  # noqa: E402


def _torch_part(tc, *xcs):
    with judge_kernels.torch_only():
        return compare.decade_part(tc, *xcs)


@pytest.fixture
def kernel_on_host(monkeypatch):
    """The kernel takes host tensors (on the CPU the backend has set TRITON_INTERPRET); each launch appends whether
    the kernel summed the chunk (else it declined it to torch)."""
    monkeypatch.setattr(decade_kernel.KERNEL, "failed", "")
    monkeypatch.setattr(decade_kernel, "usable", lambda tc, xcs: judge_kernels.enabled() and not decade_kernel.KERNEL.failed and 1 <= len(xcs) <= 2)
    launched = []
    real = decade_kernel.launch

    def launch(*a):
        part = real(*a)
        launched.append(part is not None)
        return part

    monkeypatch.setattr(decade_kernel, "launch", launch)
    return launched


def _truth(n, device):
    """Values over a few decades, zeros, NaN and infinities, and every power of ten from 1e-3 to 1e3 with the
    float64 numbers either side of it."""
    gen = torch.Generator().manual_seed(5)
    t = torch.randn(n, generator=gen, dtype=torch.float64) * 10.0 ** torch.randint(-3, 4, (n,), generator=gen)
    t[:4] = torch.tensor([0.0, float("nan"), float("inf"), -float("inf")], dtype=torch.float64)
    edges = []
    for k in range(-3, 4):
        p = torch.tensor(float(f"1e{k}"), dtype=torch.float64)
        edges += [p, torch.nextafter(p, torch.tensor(0.0, dtype=torch.float64)),
                  torch.nextafter(p, torch.tensor(math.inf, dtype=torch.float64)), -p]
    t[4:4 + len(edges)] = torch.stack(edges)
    return t.to(device)


@pytest.mark.parametrize("nx", [1, 2])
@pytest.mark.parametrize("xdtype", ["float32", "float64", "bfloat16"])
def test_the_kernels_decade_sums_are_the_torch_paths(backend, kernel_on_host, nx, xdtype):
    n = 3000
    t = _truth(n, backend.device)
    gen = torch.Generator().manual_seed(6)
    xs = []
    for i in range(nx):
        x = (t.cpu() + torch.randn(n, generator=gen, dtype=torch.float64) * 1e-3).to(getattr(torch, xdtype))
        x[10 + i] = float("nan")  # a position the truth has finite, left out of every sum
        xs.append(x.to(backend.device))
    ref = _torch_part(t, *xs)
    got = compare.decade_part(t, *xs)
    assert kernel_on_host == [True]
    assert got.shape == ref.shape
    assert torch.equal(got[0], ref[0])  # the counts: every value in the same decade
    assert torch.allclose(got, ref, rtol=1e-12, atol=0.0)
    assert compare.decade_dict(got).keys() == compare.decade_dict(ref).keys()


@pytest.mark.parametrize("k", [2, -3, -252, -245])
def test_a_power_of_ten_opens_its_decade_and_the_number_below_it_closes_the_last(backend, kernel_on_host, k):
    """(log2's estimate is below the decade at 1e-252 and 1e-245 and above it just under most powers: the
    table's comparisons correct it both ways.)"""
    p = torch.tensor([float(f"1e{k}")], dtype=torch.float64)
    below = torch.nextafter(p, torch.tensor([0.0], dtype=torch.float64))
    t = torch.cat([p, below, p * 9.99]).to(backend.device)
    got = compare.decade_dict(compare.decade_part(t, t.clone()))
    assert kernel_on_host == [True]
    assert {d: r[0] for d, r in got.items()} == {k: 2.0, k - 1: 1.0}
    assert compare.decade_dict(_torch_part(t, t.clone())).keys() == got.keys()


def test_a_chunk_spanning_more_decades_than_the_kernel_holds_is_summed_by_torch(backend, kernel_on_host):
    t = torch.tensor([10.0 ** k for k in range(-100, 100, 3)], dtype=torch.float64).to(backend.device)
    x = t * 1.5
    got = compare.decade_part(t, x)
    assert kernel_on_host == [False]  # asked, and it declined: the span is wider than MAX_BINS
    assert torch.equal(got, _torch_part(t, x))
    assert len(compare.decade_dict(got)) == t.numel()
