"""pytest hooks for pytest-kernelopt (hooks only; the work lives in the other modules)."""

from __future__ import annotations


def pytest_addoption(parser):
    group = parser.getgroup("kernelopt", "kernel optimization (pytest-kernelopt)")
    group.addoption("--kernelopt", action="store_true", default=False,
                    help="optimize kernels that have no cache entry and write accepted ones to the cache")
