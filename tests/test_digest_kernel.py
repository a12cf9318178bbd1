"""The judge's Triton digest kernel (gates/digest_kernel.py) against the torch path it replaces on a GPU: the
same 64-bit digest bit for bit, NaN payloads made canonical or kept; run here under the Triton interpreter, on a
GPU natively."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from pytest_kernelopt.gates import digest_kernel, digests, judge_kernels  # noqa: E402

N = 3 * digest_kernel.BLOCK + 17  # several programs and a partial last block


def _torch_digest(t, key, exact):
    with judge_kernels.torch_only():
        return digests.digest(t, key, exact)


@pytest.fixture
def kernel_on_host(monkeypatch):
    """The kernel takes host tensors too (on the CPU the backend has set TRITON_INTERPRET)."""
    monkeypatch.setattr(digest_kernel.KERNEL, "failed", "")
    monkeypatch.setattr(digest_kernel, "usable", lambda x, nan: judge_kernels.enabled() and not digest_kernel.KERNEL.failed)


def _values(dtype, device):
    """N values of ``dtype`` with NaNs of three payloads (a sign, a quiet bit, a low mantissa bit) among them."""
    gen = torch.Generator().manual_seed(3)
    if dtype == torch.bool:
        return (torch.rand(N, generator=gen) < 0.5).to(device)
    if not dtype.is_floating_point:
        info = torch.iinfo(dtype)
        return torch.randint(info.min, info.max, (N,), generator=gen, dtype=torch.int64).to(dtype).to(device)
    t = (torch.randn(N, generator=gen) * 100).to(dtype)
    ints = {2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()]
    bits = t.view(ints)
    nan = torch.full((1,), float("nan"), dtype=dtype).view(ints)
    bits[5] = nan[0]
    bits[digest_kernel.BLOCK] = nan[0] | torch.iinfo(ints).min  # the sign bit set
    bits[N - 1] = nan[0] | 1              # a payload bit
    assert torch.isnan(t).sum() == 3
    return t.to(device)


@pytest.mark.parametrize("exact", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64", "int8", "uint8", "int16", "int32",
                                   "int64", "bool"])
def test_the_kernel_digest_is_the_torch_paths_bit_for_bit(backend, kernel_on_host, monkeypatch, dtype, exact):
    """:func:`digest` through the kernel gives what the torch path gives, whatever the dtype, with NaN payloads made
    canonical or (``exact``) kept."""
    t = _values(getattr(torch, dtype), backend.device)
    key = (1 << 63) + 12345  # a key above int64's range, as the plan's secret may be
    calls = []
    real = digest_kernel.launch
    monkeypatch.setattr(digest_kernel, "launch", lambda *a: calls.append(1) or real(*a))
    ref = _torch_digest(t, key, exact)
    assert calls == []  # the reference is torch's
    assert digests.digest(t, key, exact) == ref
    assert calls == [1] and not digest_kernel.KERNEL.failed


def test_payloads_count_only_where_exact(backend, kernel_on_host):
    """Another NaN payload changes the exact digest and not the other: the canonical form is in the kernel."""
    a = _values(torch.float32, backend.device)
    b = a.clone()
    b.view(torch.int32)[5] |= 2
    assert digests.digest(a, 7) == digests.digest(b, 7)
    assert digests.digest(a, 7, exact=True) != digests.digest(b, 7, exact=True)
    c = a.clone()
    c[6] += 1
    assert digests.digest(a, 7) != digests.digest(c, 7)


def test_a_failing_kernel_falls_back_to_torch_for_the_process(backend, kernel_on_host, monkeypatch):
    """Where the kernel cannot launch, the digest is still taken (by torch) and the reason is kept."""

    def broken(*a):
        raise RuntimeError("no kernel here")

    monkeypatch.setattr(digest_kernel, "launch", broken)
    t = torch.arange(10, dtype=torch.float32)
    got = digests.digest(t, 3)
    assert "no kernel here" in digest_kernel.status()
    monkeypatch.setattr(digest_kernel.KERNEL, "failed", "forced")
    assert got == digests.digest(t, 3)


@pytest.mark.parametrize("key", [0, 1, 2**31 + 3])
def test_keys_a_compiler_would_make_constants_are_hashed_by_the_kernel(backend, kernel_on_host, key):
    """Key 1 (an integer argument Triton would specialise into a constant) is hashed by the kernel too."""
    t = _values(torch.float32, backend.device)
    got = digests.digest(t, key)
    assert not digest_kernel.KERNEL.failed
    assert got == _torch_digest(t, key, False)
