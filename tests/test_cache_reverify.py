"""`kernelopt cache verify` re-runs a stale accepted entry through the gates and retires it when it fails."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from pytest_kernelopt.cache import KernelCache, current_environment  # noqa: E402
from pytest_kernelopt.candidate import Candidate  # noqa: E402
from pytest_kernelopt.capture import capture  # noqa: E402
from pytest_kernelopt.gates.results import CascadeResult, GateResult  # noqa: E402
from pytest_kernelopt.problems import ProblemSpec, build_problem, input_signature  # noqa: E402
from pytest_kernelopt.session import cache_key, device_key  # noqa: E402

PROBLEM = '''
import torch, torch.nn as nn

class Model(nn.Module):
    def forward(self, x):
        return torch.softmax(x * 0.5, dim=-1)

def get_inputs():
    return [torch.randn(4, 32)]

def get_init_inputs():
    return []
'''


def _store(tmp_path, backend, edit, *, device=None, configs=(), **environment):
    """Capture a softmax problem file and store ``edit(kernel source)`` as an accepted entry for it."""
    problem_file = tmp_path / "softmax_problem.py"
    problem_file.write_text(PROBLEM)
    problem = build_problem(ProblemSpec.from_file(problem_file), backend.device)
    cap = capture(problem.module, problem.example_inputs, backend=backend)
    g = cap.graphs[0]
    (name,) = g.kernels
    cand = Candidate((name,), edit(g.kernels[name].source), configs=tuple(configs), origin="tuner")
    perf = GateResult("performance", "pass", "recorded", {"speedup": 1.2, "ci_low": 1.1, "ci_high": 1.3,
                                                           "measured": True})
    res = CascadeResult((name,), cand.content_hash, (GateResult("static", "pass"), perf), "accepted")
    device = device or device_key(backend)
    env = dataclasses.replace(current_environment(), device=device, **environment)
    key = cache_key(g, (name,), input_signature(problem.example_inputs), device)
    KernelCache(tmp_path / "kc").store_accepted(key, cand, [g.kernels[name]], res, problem_id=str(problem_file),
                                                environment=env)
    return key


def _times_two(src):
    line = next(ln for ln in src.splitlines() if "tl.store(" in ln)
    value = line.split(",")[1].strip()
    return src.replace(line, line.replace(f", {value},", f", {value} * 2.0,"))


def test_stale_entry_that_fails_the_gates_is_retired(tmp_path, backend):
    key = _store(tmp_path, backend, _times_two, torch="2.7.0")  # recorded under another torch: stale
    proc = _verify(tmp_path / "kc")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "RETIRED" in out and "torch: recorded 2.7.0" in out, out
    assert KernelCache(tmp_path / "kc").lookup(key) is None, "a retired entry is never served again"
    assert any(Path(tmp_path / "kc").rglob("retired/*/entry.json"))


def _store_for_gpu(tmp_path, backend, edit):
    return _store(tmp_path, backend, edit, device="cuda:sm90", gpu_name="NVIDIA H200", compute_capability="9.0",
                  configs=({"XBLOCK": 1, "num_warps": 2, "num_stages": 1},))


def _verify(cache_dir) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest_kernelopt.cli", "cache", "--cache-dir", str(cache_dir),
                           "verify"], capture_output=True, text=True, timeout=600)


def test_entries_of_another_gpu_are_compile_checked_for_it(tmp_path, backend):
    if backend.name != "cpu":
        pytest.skip("the check for entries of a GPU this machine does not have")
    _store_for_gpu(tmp_path, backend, lambda src: src)
    proc = _verify(tmp_path / "kc")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "compiles" in proc.stdout and "for cuda:90:32" in proc.stdout and "1 compiles, 0 broken" in proc.stdout


def test_a_committed_kernel_that_no_longer_compiles_fails_verify(tmp_path, backend):
    if backend.name != "cpu":
        pytest.skip("the check for entries of a GPU this machine does not have")

    def broken(src):  # on the allowlist, but no longer compiles (arange needs a power-of-2 range)
        line = next(ln for ln in src.splitlines() if "tl.store(" in ln)
        return src.replace(line, line.replace("tl.store(", "tl.store(tl.arange(0, 3) + "), 1)

    _store_for_gpu(tmp_path, backend, broken)
    proc = _verify(tmp_path / "kc")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "BROKEN" in proc.stdout and "power of 2" in proc.stdout


def test_a_committed_kernel_off_the_allowlist_is_refused_before_it_is_loaded(tmp_path, backend):
    def unknown_name(src):
        line = next(ln for ln in src.splitlines() if "tl.store(" in ln)
        return src.replace(line, line.replace("tl.store(", "tl.store(undefined_name + "), 1)

    _store_for_gpu(tmp_path, backend, unknown_name)
    proc = _verify(tmp_path / "kc")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "REFUSED" in proc.stdout and "undefined_name" in proc.stdout and "1 refused" in proc.stdout


def test_the_committed_cache_is_intact_and_compiles_for_its_gpu():
    """CI without a GPU: every kernel in this repository's kernels_cache/ still compiles for its architecture."""
    cache_dir = Path(__file__).resolve().parent.parent / "kernels_cache"
    if not any(cache_dir.rglob("entry.json")):
        pytest.skip("no committed cache entries")
    proc = _verify(cache_dir)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert " 0 corrupt" in proc.stdout and " 0 broken" in proc.stdout
