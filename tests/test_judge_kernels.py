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


def _sites():
    import torch

    from pytest_kernelopt.gates import (compare, decade_kernel, digest_kernel, digests, fp64, level_kernel,
                                        moments_kernel, stats_kernel)

    t = torch.linspace(-3.0, 5.0, 1000, dtype=torch.float64)
    x = t.float() + 1e-3
    return [(digest_kernel, lambda: digests.digest(x, 5)),
            (decade_kernel, lambda: compare.decade_dict(compare.decade_part(t, x))),
            (stats_kernel, lambda: compare._float_stats(x, t.float(), 1e-4, 1e-5)),
            (moments_kernel, lambda: fp64._error_moments(x, x * 1.0001, t)[:4]),
            (level_kernel, lambda: _levels(x, t))]


def _levels(x, t):
    import torch

    from pytest_kernelopt.gates import compare

    m = torch.zeros(t.numel(), dtype=torch.uint8)
    compare.raise_levels(m, x, t, 1.3e-6, 1e-5)
    return m.tolist()


def test_a_kernel_that_raises_is_set_aside_and_torch_gives_the_figure(monkeypatch):
    """At every call site: the launch raises, the kernel is set aside for the process with the reason, and the
    figure is torch's."""
    for kernel, site in _sites():
        with judge_kernels.torch_only():
            expected = site()
        monkeypatch.setattr(kernel.KERNEL, "failed", "")
        monkeypatch.setattr(kernel, "usable", lambda *a, k=kernel: not k.KERNEL.failed)

        def broken(*a):
            raise RuntimeError("no kernel here")

        monkeypatch.setattr(kernel, "launch", broken)
        assert site() == expected, kernel.__name__
        assert "RuntimeError: no kernel here" in kernel.status(), kernel.__name__


def test_a_judge_kernel_is_built_once_and_keeps_the_first_reason_it_was_set_aside(monkeypatch):
    monkeypatch.delenv("KERNELOPT_JUDGE_KERNELS", raising=False)
    built = []
    kernel = judge_kernels.JudgeKernel(lambda: built.append(1) or object())
    assert kernel.ready() and kernel.status() == ""
    assert kernel.jit() is kernel.jit() and built == [1]
    kernel.disable("first")
    kernel.disable("second")
    assert not kernel.ready() and kernel.status() == "first"
    with judge_kernels.torch_only():
        assert not judge_kernels.JudgeKernel(object).ready()
