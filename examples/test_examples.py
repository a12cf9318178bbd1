"""Using pytest-kernelopt from a test: compile, apply cached kernels, (optimize), gate.

Run ``pytest examples`` to verify cached kernels, ``pytest examples --kernelopt``
to also search for new ones.  Without a GPU the CPU backend checks correctness
and says that performance was not measured.
"""

import pytest
import torch


class ScaledSoftmax(torch.nn.Module):
    def forward(self, x):
        return torch.softmax(x * 0.5, dim=-1)


class NormGelu(torch.nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.norm = torch.nn.LayerNorm(dim)

    def forward(self, x):
        return torch.nn.functional.gelu(self.norm(x))


def _device():
    return "cuda" if torch.cuda.is_available() else "cpu"


@pytest.mark.kernelopt(seeds=3, min_speedup=1.03)
def test_scaled_softmax(kernelopt):
    rows, cols = (4096, 4096) if _device() == "cuda" else (8, 64)
    x = torch.randn(rows, cols, device=_device())
    result = kernelopt(ScaledSoftmax(), (x,))
    out = result.module(x)
    torch.testing.assert_close(out, torch.softmax(x * 0.5, dim=-1), rtol=1e-4, atol=1e-5)
    assert result.regressions == []


def test_norm_gelu(kernelopt):
    rows, dim = (8192, 2048) if _device() == "cuda" else (8, 32)
    module = NormGelu(dim).to(_device())
    x = torch.randn(rows, dim, device=_device())
    result = kernelopt(module, (x,), seeds=3)
    with torch.no_grad():
        torch.testing.assert_close(result.module(x), module(x), rtol=1e-4, atol=1e-4)
    assert result.backend in ("cuda", "cpu")
