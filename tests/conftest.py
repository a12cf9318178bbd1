"""Shared fixtures: the backend (CPU interpreter here, CUDA on a GPU machine) and tiny modules."""

from __future__ import annotations

import os
import tempfile

import pytest

# which cached kernels this machine has judged in isolation (pytest_kernelopt.trust): a fresh, empty record for
# every test session, so no test depends on what an earlier run (or the developer's own use) recorded; the
# records' secret with it, outside the developer's home
os.environ["KERNELOPT_TRUST_DIR"] = tempfile.mkdtemp(prefix="kernelopt-trust-")
os.environ["KERNELOPT_TRUST_SECRET"] = os.path.join(tempfile.mkdtemp(prefix="kernelopt-secret-"), "trust-secret")


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


@pytest.fixture
def cpu_interpreter(backend):
    """For tests built on the red teams' repros (Inductor's CPU Triton output under torch 2.13, edited by hand) or
    on modules whose plain objects hold host tensors: on a GPU the static gate refuses such a kernel as written for
    another device before any gate the test is about runs, and the kernels are named differently."""
    if backend.name != "cpu":
        pytest.skip("a CPU-interpreter repro (benchmarks/redteam/: Inductor's CPU Triton output, torch 2.13); "
                    "on a GPU the static gate refuses it as written for another device")
    return backend


@pytest.fixture
def no_structure_probes(monkeypatch):
    """The structure probes off (:mod:`pytest_kernelopt.gates.structure_probes`), for a test of another gate whose
    kernel the probes would refuse first, or which counts the candidate's calls."""
    from pytest_kernelopt.gates import structure_probes

    monkeypatch.setattr(structure_probes, "ENABLED", False)
