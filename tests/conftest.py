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


@pytest.fixture(scope="session")
def cli_batch_dir(tmp_path_factory):
    """The directory where chunks of judge-CLI cases leave their results, shared by every xdist worker of this
    run (tests/cli_batches.py)."""
    from cli_batches import shared_dir

    return shared_dir(tmp_path_factory)


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


# --------------------------------------------------------------------------- the suite's time budget
#: CI's budget is 20 minutes on 2 cores (README, "Running the tests"); a test that needs more than this on the CPU
#: says why in a docstring line starting with "CPU time:"; one that does not is named at the end of the run
SLOW_TEST_S = float(os.environ.get("KERNELOPT_SLOW_TEST_S", "60"))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    report = (yield).get_result()
    if report.when == "call" and report.duration > SLOW_TEST_S:
        doc = getattr(getattr(item, "function", None), "__doc__", None) or ""
        if not any(line.strip().startswith("CPU time:") for line in doc.splitlines()):
            report.user_properties.append(("kernelopt_slow_unexplained", round(report.duration, 1)))


def pytest_terminal_summary(terminalreporter):
    slow = [(r.nodeid, dict(r.user_properties)["kernelopt_slow_unexplained"])
            for r in terminalreporter.stats.get("passed", []) + terminalreporter.stats.get("failed", [])
            if "kernelopt_slow_unexplained" in dict(getattr(r, "user_properties", ()))]
    if slow:
        terminalreporter.write_sep("=", f"tests over {SLOW_TEST_S:.0f} s on this machine whose docstring does not "
                                        "say why (a line 'CPU time: ...')", yellow=True)
        for nodeid, seconds in sorted(slow, key=lambda s: -s[1]):
            terminalreporter.write_line(f"{seconds:7.1f}s {nodeid}")
