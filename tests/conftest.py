"""Shared fixtures: the backend (CPU interpreter here, CUDA on a GPU machine) and tiny modules."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def backend():
    from pytest_kernelopt.backends import select_backend

    return select_backend("auto")


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    """Each test compiles from scratch; nothing leaks between tests through Dynamo's caches."""
    yield
    import sys

    if "torch" in sys.modules:
        import torch

        torch._dynamo.reset()


@pytest.fixture
def device(backend):
    return backend.device
