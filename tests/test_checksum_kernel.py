"""The judge's Triton checksum kernel (gates/checksum_kernel.py) against the torch path it replaces on a GPU:
the same weights bit for bit (the position hash), the same NaN counts, the same sums up to the order of
addition; run here under the Triton interpreter, on a GPU natively."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from pytest_kernelopt.gates import checksum_kernel, judge_kernels, timing  # noqa: E402


def _torch_sums(t):
    """timing.checksums' torch path, whatever the device."""
    with judge_kernels.torch_only():
        return timing.checksums((t,), {})[0]


def _kernel_sums(t, backend):
    """The kernel's sums (on CPU the backend has set TRITON_INTERPRET: the interpreter runs it on host tensors)."""
    assert backend.device == t.device.type
    ws, wa, nans = checksum_kernel.launch(t).tolist()
    return ws, wa, int(nans), t.numel()


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64"])
def test_kernel_sums_match_the_torch_path(backend, dtype):
    gen = torch.Generator().manual_seed(1)
    n = 3 * checksum_kernel.BLOCK + 17  # several programs and a partial last block
    t = (torch.randn(n, generator=gen) * 3).to(getattr(torch, dtype))
    t[5] = float("nan")
    t[n - 1] = float("nan")
    t = t.to(backend.device)
    ref = _torch_sums(t)
    got = _kernel_sums(t, backend)
    assert got[2:] == ref[2:] == (2, n)
    assert got[0] == pytest.approx(ref[0], rel=1e-12, abs=1e-9)
    assert got[1] == pytest.approx(ref[1], rel=1e-12)


def test_kernel_weights_are_the_position_hash(backend):
    """A one-hot output's weighted sum is the weight of its position: the kernel's weights equal the torch path's
    bit for bit (in the first block, at its end, and in a later program's block)."""
    from pytest_kernelopt.gates.digests import position_hash

    n = 5 * checksum_kernel.BLOCK
    for pos in (0, 1, checksum_kernel.BLOCK - 1, 4 * checksum_kernel.BLOCK + 3):
        t = torch.zeros(n, dtype=torch.float64)
        t[pos] = 1.0
        t = t.to(backend.device)
        ws, wa, nans, _ = _kernel_sums(t, backend)
        bits = (position_hash(n, pos, 1, "cpu") >> 11) & ((1 << 53) - 1)
        expected = float(bits.to(torch.float64)[0]) * 2.0 ** -53 + 0.5
        assert ws == wa == expected and nans == 0


def test_a_permuted_output_changes_the_kernel_sum(backend):
    gen = torch.Generator().manual_seed(2)
    t = torch.randn(4 * checksum_kernel.BLOCK, generator=gen).to(backend.device)
    a = _kernel_sums(t, backend)
    b = _kernel_sums(t.roll(1), backend)
    assert a[0] != b[0] and a[1] != b[1]


def test_a_failing_kernel_falls_back_to_torch_for_the_process(backend, monkeypatch):
    """Where the kernel cannot launch, checksums are still taken (by torch) and the reason is kept."""
    monkeypatch.setattr(checksum_kernel.KERNEL, "failed", "")
    monkeypatch.setattr(checksum_kernel, "usable", lambda t: judge_kernels.enabled() and not checksum_kernel.KERNEL.failed)

    def broken(t):
        raise RuntimeError("no kernel here")

    monkeypatch.setattr(checksum_kernel, "launch", broken)
    t = torch.arange(10, dtype=torch.float32)
    got = timing.checksums((t,), {})
    assert got == [_torch_sums(t)]
    assert "no kernel here" in checksum_kernel.status()
