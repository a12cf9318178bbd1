"""Payloads through the public routes: an LLM's answers and a committed cache entry.

Each payload would create a marker file if any of it ran as Python anywhere (the judge, a worker, a
compile).  Through ``kernelopt bench`` with the agents on a scripted OpenAI-compatible server on loopback,
and through ``kernelopt cache verify`` and a pytest verify run over a cache holding the entry, none may
run and none may be accepted; the entry is reported as refused, with the reason.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from llm_server import llm_server, reply, tool_call  # noqa: E402,F401

ROOT = Path(__file__).resolve().parents[1]
PROBLEM = '''
import torch, torch.nn as nn

class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x * 2.0 + 1.0) - 0.5

def get_inputs():
    return [torch.randn(8, 64)]

def get_init_inputs():
    return []
'''


def payloads(marker: Path, kernel_source: str, name: str) -> dict[str, str]:
    """Candidates that each try to run ``os.makedirs(marker / <their name>)`` by a different route."""
    head, _, fn = kernel_source.partition("@triton_heuristics.")
    fn = "@triton_heuristics." + fn
    jit_only = fn[fn.index("@triton.jit"):]
    mk = lambda tag: f"__import__('os').makedirs({str(marker / tag)!r}, exist_ok=True)"  # noqa: E731
    return {
        "module_level": head + f"import os\nos.makedirs({str(marker / 'module_level')!r}, exist_ok=True)\n" + fn,
        "decorator_argument": f"@triton_heuristics.pointwise(size_hints={mk('decorator_argument')})\n" + jit_only,
        "default_value": jit_only.replace("XBLOCK : tl.constexpr)", f"XBLOCK : tl.constexpr = {mk('default_value')})"),
        "annotation": jit_only.replace("XBLOCK : tl.constexpr)", f"XBLOCK : {mk('annotation')})"),
        "kernel_body": jit_only.replace("    xoffset", f"    {mk('kernel_body')}\n    xoffset", 1),
        "re_export": jit_only.replace("    xoffset", "    triton_helpers.torch.ops.aten.empty([1])\n    xoffset", 1),
        "walrus": jit_only.replace("    xoffset", f"    _ = (k := {mk('walrus')})\n    xoffset", 1),
        "reflection": jit_only.replace("    xoffset", "    tl.core.builtins.exec('import os')\n    xoffset", 1),
    }


@pytest.fixture(scope="module")
def problem(tmp_path_factory):
    """A problem file and its only kernel, captured once on this backend."""
    from pytest_kernelopt.backends import select_backend
    from pytest_kernelopt.capture import capture
    from pytest_kernelopt.problems import ProblemSpec, build_problem

    folder = tmp_path_factory.mktemp("payload_problem")
    path = folder / "relu_chain.py"
    path.write_text(PROBLEM)
    backend = select_backend("auto")
    prob = build_problem(ProblemSpec.from_file(path), backend.device)
    cap = capture(prob.module, prob.example_inputs, backend=backend)
    ((graph, name),) = cap.triton_kernels
    return path, name, graph, prob, backend


def _env(**extra) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.update(extra)
    return env


def test_llm_answers_with_payloads_run_nothing_and_are_not_accepted(problem, llm_server, tmp_path):
    pytest.importorskip("openai")  # the agents' extra; without it `--proposer agents` is a usage error
    path, name, graph, _, _ = problem
    marker = tmp_path / f"pwned-{uuid.uuid4().hex[:8]}"
    cands = payloads(marker, graph.kernels[name].source, name)
    llm_server.push(reply("analysis"), reply("plan"),
                    *[tool_call("submit_kernel", {"source": src}) for src in list(cands.values())[:6]])
    report = tmp_path / "report.json"
    proc = subprocess.run([sys.executable, "-m", "pytest_kernelopt.cli", "bench", str(path), "--proposer", "agents",
                           "--model", "scripted", "--no-cache", "--report", str(report), "--seeds", "2"],
                          capture_output=True, text=True, timeout=900, cwd=tmp_path, env=_env())
    out = proc.stdout + proc.stderr
    assert not marker.exists(), f"a payload ran: {sorted(p.name for p in marker.iterdir())}\n{out[-3000:]}"
    assert "Traceback" not in proc.stdout, out[-3000:]
    data = json.loads(report.read_text())
    kernels = [k for p in data["problems"] for k in p["kernels"]] if "problems" in data else data["kernels"]
    assert kernels and all(k["decision"] != "accepted" for k in kernels), kernels
    assert len(llm_server.requests) >= 4, "the agents must have submitted the payloads"
    assert "not on the allowlist" in json.dumps(data) or "import not allowed" in json.dumps(data), data


def _store_entry(problem, tmp_path, source: str) -> Path:
    """An accepted cache entry for the problem's kernel whose kernel.py is ``source`` (hash recomputed)."""
    import dataclasses

    from pytest_kernelopt.cache import KernelCache
    from pytest_kernelopt.cache_keys import current_environment
    from pytest_kernelopt.candidate import Candidate
    from pytest_kernelopt.gates.results import CascadeResult, GateResult
    from pytest_kernelopt.problems import input_signature
    from pytest_kernelopt.workflow import cache_key, device_key

    path, name, graph, prob, backend = problem
    cand = Candidate((name,), source, origin="tuner")
    perf = GateResult("performance", "pass", "recorded", {"speedup": 1.5, "ci_low": 1.4, "ci_high": 1.6,
                                                           "measured": True})
    res = CascadeResult((name,), cand.content_hash, (GateResult("static", "pass"), perf), "accepted")
    device = device_key(backend)
    key = cache_key(graph, (name,), input_signature(prob.example_inputs), device)
    cache_dir = tmp_path / "kc"
    KernelCache(cache_dir).store_accepted(key, cand, [graph.kernels[name]], res, problem_id=str(path),
                                          environment=dataclasses.replace(current_environment(), device=device))
    return cache_dir


@pytest.mark.parametrize("route", ["module_level", "decorator_argument", "kernel_body", "default_value"])
def test_a_cache_entry_with_a_payload_is_refused_by_cache_verify(problem, tmp_path, route):
    path, name, graph, _, _ = problem
    marker = tmp_path / f"pwned-{uuid.uuid4().hex[:8]}"
    src = payloads(marker, graph.kernels[name].source, name)[route]
    cache_dir = _store_entry(problem, tmp_path, src)
    proc = subprocess.run([sys.executable, "-m", "pytest_kernelopt.cli", "cache", "--cache-dir", str(cache_dir),
                           "verify"], capture_output=True, text=True, timeout=600, cwd=tmp_path, env=_env())
    out = proc.stdout + proc.stderr
    assert not marker.exists(), f"the payload ran during cache verify\n{out}"
    assert proc.returncode == 1, out
    assert "not on the allowlist" in out or "import not allowed" in out or "does not parse" in out, out


def test_a_cache_entry_with_a_payload_is_refused_in_a_verify_run(problem, tmp_path):
    path, name, graph, _, _ = problem
    marker = tmp_path / f"pwned-{uuid.uuid4().hex[:8]}"
    src = payloads(marker, graph.kernels[name].source, name)["kernel_body"]
    cache_dir = _store_entry(problem, tmp_path, src)
    report = tmp_path / "verify.json"
    trusted = tmp_path.with_name(f"{tmp_path.name}-trust")  # outside the run's folder (one inside it is refused)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--kernelopt-problems",
                           str(path), "--kernelopt-cache-dir", str(cache_dir), f"--kernelopt-report={report}",
                           "--rootdir", str(tmp_path), "-q"],
                          capture_output=True, text=True, timeout=900, cwd=tmp_path,
                          env=_env(KERNELOPT_TRUST_DIR=str(trusted)))
    out = proc.stdout + proc.stderr
    assert not marker.exists(), f"the payload ran in the verify run\n{out[-3000:]}"
    assert proc.returncode == 1, "a refused cached kernel fails the test that uses it\n" + out[-3000:]
    assert "refused by the isolated check" in out and "not on the allowlist" in out, out[-3000:]
    assert "no trust record is read or written" not in out
    assert not list(trusted.glob("*")), "a refused entry is never recorded as trusted"
