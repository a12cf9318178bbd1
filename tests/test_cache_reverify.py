"""`kernelopt cache verify` re-runs a stale accepted entry through the gates and retires it when it fails."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from pytest_kernelopt.cache import KernelCache  # noqa: E402
from pytest_kernelopt.cache_keys import current_environment  # noqa: E402
from pytest_kernelopt.candidate import Candidate  # noqa: E402
from pytest_kernelopt.capture import capture  # noqa: E402
from pytest_kernelopt.gates.results import CascadeResult, GateResult  # noqa: E402
from pytest_kernelopt.problems import ProblemSpec, build_problem, input_signature  # noqa: E402
from pytest_kernelopt.workflow import cache_key, device_key  # noqa: E402

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
    proc = _verify(tmp_path / "kc", "--problems", str(tmp_path / "softmax_problem.py"))  # found by its key
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "RETIRED" in out and "torch: recorded 2.7.0" in out, out
    assert KernelCache(tmp_path / "kc").lookup(key) is None, "a retired entry is never served again"
    assert any(Path(tmp_path / "kc").rglob("retired/*/entry.json"))


def _store_for_gpu(tmp_path, backend, edit):
    return _store(tmp_path, backend, edit, device="cuda:sm90", gpu_name="NVIDIA H200", compute_capability="9.0",
                  configs=({"XBLOCK": 1, "num_warps": 2, "num_stages": 1},))


def _verify(cache_dir, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest_kernelopt.cli", "cache", "--cache-dir", str(cache_dir),
                           "verify", *args], capture_output=True, text=True, timeout=600)


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


def test_the_committed_cache_is_intact_and_compiles_for_its_gpu(tmp_path, backend):
    """CI without a GPU: every kernel in this repository's kernels_cache/ still compiles for its architecture.  On
    a GPU every entry is matched to its problem and judged, none refused (one recorded on another GPU is stale
    there, which fails verify by design).  A copy is verified: verify retires what fails, and the repository's
    cache is no test's to change."""
    import shutil

    cache_dir = Path(__file__).resolve().parent.parent / "kernels_cache"
    if not any(cache_dir.rglob("entry.json")):
        pytest.skip("no committed cache entries")
    work = tmp_path / "kernels_cache"
    shutil.copytree(cache_dir, work)
    proc = _verify(work, "--problems", str(cache_dir.parent / "examples" / "problems"))  # their problems
    out = proc.stdout + proc.stderr
    for clean in (" 0 corrupt", " 0 broken", " 0 refused", " 0 not judged", " 0 errors"):
        assert clean in proc.stdout, out
    if backend.name == "cpu":
        assert proc.returncode == 0, out


# --------------------------------------------------------------------------- what verify runs, and what it calls ok
# (rules: pytest_kernelopt/problem_match.py and cli_cache.py)

RELU = PROBLEM.replace("torch.softmax(x * 0.5, dim=-1)", "torch.relu(x) * 3.0")
HANG = "import time\n\nwhile True:\n    time.sleep(0.1)\n"


def _plus_one(src):
    line = next(ln for ln in src.splitlines() if "tl.store(" in ln)
    value = line.split(",")[1].strip()
    return src.replace(line, line.replace(f", {value},", f", {value} + 1.0,"))


@pytest.fixture(scope="module")
def wrong_entry(tmp_path_factory, backend):
    """A current accepted entry for the softmax problem whose kernel adds 1.0 to every output (its problem file
    beside it, and another problem's); each test copies the cache."""
    root = tmp_path_factory.mktemp("wrong_entry")
    (root / "relu_problem.py").write_text(RELU)
    return root, _store(root, backend, _plus_one)


def _set_problem_id(entry, problem_id) -> None:
    """problem_id is covered by no hash: anyone can write anything there."""
    import json

    meta = json.loads((entry.path / "entry.json").read_text())
    meta["problem_id"] = problem_id
    (entry.path / "entry.json").write_text(json.dumps(meta, indent=2, sort_keys=True))


def _copy(wrong_entry, tmp_path, problem_id):
    import shutil

    root, key = wrong_entry
    shutil.copytree(root / "kc", tmp_path / "kc")
    entry = KernelCache(tmp_path / "kc").lookup(key)
    _set_problem_id(entry, problem_id)
    return root, entry


def _verify_here(capsys, *argv: str) -> tuple[int, str]:
    from pytest_kernelopt.cli_cache import main

    try:
        rc = main(["cache", "verify", *argv])
    except SystemExit as e:  # a usage error
        rc = e.code
    out, err = capsys.readouterr()
    return rc, out + err


def test_verify_runs_nothing_an_entry_names(tmp_path, capsys):
    """A Python file beside entry.json, named by the entry's problem_id, ran in a worker and the entry was "ok"."""
    from test_cache_cli import store

    entry = store(KernelCache(tmp_path / "kc"), "k_named", env=current_environment())
    marker = tmp_path / "it-ran"
    (entry.path / "problem.py").write_text(f"open({str(marker)!r}, 'w').close()\n\nclass Model:\n    pass\n\n\n"
                                           "def get_inputs():\n    return []\n\n\ndef get_init_inputs():\n"
                                           "    return []\n")
    _set_problem_id(entry, str(entry.path / "problem.py"))
    rc, out = _verify_here(capsys, "--cache-dir", str(tmp_path / "kc"))
    assert not marker.exists(), f"verify ran a file the entry names\n{out}"
    assert rc == 1 and "NOT JUDGED" in out and "no problem reproduces its key" in out and " 0 ok" in out, out
    # nor when the folder holding the cache is given as the problems: an entry's files are never problems
    rc, out = _verify_here(capsys, "--cache-dir", str(tmp_path / "kc"), "--problems", str(tmp_path))
    assert not marker.exists() and rc == 2 and "the files of the cache are never problems" in out, out


@pytest.mark.parametrize("problem_id", ["missing", "empty", "directory", "unrelated_file", "node_id", "integer",
                                        "another_problem"])
def test_an_entry_that_cannot_be_judged_is_never_ok(wrong_entry, tmp_path, capsys, problem_id):
    """An accepted entry whose kernel adds 1.0 was "ok" whenever its problem_id named nothing loadable or another
    problem: "could not be judged again here" counted as ok.  Whatever problem_id says, it is NOT JUDGED (no
    problem given reproduces its key), and fails verify unless --allow-unjudged; even then it is never ok."""
    import json

    (tmp_path / "folder").mkdir()
    (tmp_path / "notes.py").write_text("x = 1\n")
    pid = {"missing": str(tmp_path / "gone.py"), "empty": "", "directory": str(tmp_path / "folder"),
           "unrelated_file": str(tmp_path / "notes.py"), "node_id": "tests/test_x.py::test_y", "integer": 7,
           "another_problem": str(wrong_entry[0] / "relu_problem.py")}[problem_id]
    _, entry = _copy(wrong_entry, tmp_path, pid)
    rc, out = _verify_here(capsys, "--cache-dir", str(tmp_path / "kc"))
    assert rc == 1 and "NOT JUDGED" in out and "no problem reproduces its key" in out, out
    assert "verify: 1 entries: 0 ok," in out and "1 not judged" in out, out
    rc, out = _verify_here(capsys, "--cache-dir", str(tmp_path / "kc"), "--allow-unjudged")
    assert rc == 0 and "NOT JUDGED" in out and "verify: 1 entries: 0 ok," in out, out
    assert json.dumps(pid) in out or str(pid) in out  # shown, escaped, as the entry says


def test_verify_judges_an_entry_on_the_problem_that_reproduces_its_key(wrong_entry, tmp_path, capsys):
    """Among the problems given, the one whose captured kernel has the entry's key judges it: the +1.0 kernel is
    refused there.  An entry no problem reproduces (another key) is NOT JUDGED, whatever else passed."""
    from test_cache_cli import store

    root, entry = _copy(wrong_entry, tmp_path, "anything")
    store(KernelCache(tmp_path / "kc"), "k_other", env=current_environment())
    rc, out = _verify_here(capsys, "--cache-dir", str(tmp_path / "kc"), "--problems", str(root / "softmax_problem.py"),
                           "--allow-unjudged")
    assert rc == 1, out
    assert f"REFUSED     {entry.digest[:12]}" in out and "judged again in isolation" in out, out
    assert "none of the 1 problem file(s) given reproduces it" in out and "1 refused" in out and "1 not judged" in out


def test_a_problem_that_does_not_return_is_an_error_within_the_timeout(wrong_entry, tmp_path, capsys):
    """A problem file whose import never returned (named by the entry's problem_id) kept verify silent until
    killed.  Problems are imported and captured in a worker under --timeout: one that does not return is its
    error, and verify ends."""
    import time

    (tmp_path / "hang.py").write_text(HANG)
    _copy(wrong_entry, tmp_path, str(tmp_path / "hang.py"))
    t0 = time.monotonic()
    rc, out = _verify_here(capsys, "--cache-dir", str(tmp_path / "kc"), "--problems", str(tmp_path / "hang.py"),
                           "--timeout", "2")
    assert rc == 1, out
    assert f"ERROR       problem {tmp_path / 'hang.py'} could not be captured:" in out and "timed out after 2s" in out
    assert "NOT JUDGED" in out and "1 errors (1 of the errors: problems that could not be captured)" in out, out
    assert time.monotonic() - t0 < 120
