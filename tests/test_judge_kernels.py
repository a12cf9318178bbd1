"""The switch of the judge's own kernels: KERNELOPT_JUDGE_KERNELS=0, and torch_only() for a block (the reference
the kernels' tests and benchmarks compare them with)."""

from __future__ import annotations

from pytest_kernelopt.gates import judge_kernels


def test_the_kernels_are_on_unless_the_environment_or_a_block_says_torch(monkeypatch):
    monkeypatch.delenv("KERNELOPT_JUDGE_KERNELS", raising=False)
    assert judge_kernels.enabled()
    with judge_kernels.torch_only():
        assert not judge_kernels.enabled()
        with judge_kernels.torch_only():
            assert not judge_kernels.enabled()
        assert not judge_kernels.enabled()  # the outer block still holds
    assert judge_kernels.enabled()
    monkeypatch.setenv("KERNELOPT_JUDGE_KERNELS", "0")
    assert not judge_kernels.enabled()
    monkeypatch.setenv("KERNELOPT_JUDGE_KERNELS", "1")
    assert judge_kernels.enabled()
