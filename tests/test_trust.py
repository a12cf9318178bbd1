"""The trust records (pytest_kernelopt/trust.py's rules): no commit can plant one, and the in-process re-check they
allow has the isolated judge's time limit (pytest_kernelopt/time_limit.py)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pytest_kernelopt import trust
from pytest_kernelopt.cache_keys import CacheKey, Environment
from pytest_kernelopt.candidate import Candidate

ROOT = Path(__file__).resolve().parents[1]
ENV = Environment("2.13.0+cpu", "3.7.1", None, None, None, "cpu")
CAND = Candidate(("triton_poi_fused_0",), "@triton.jit\ndef triton_poi_fused_0(x):\n    pass\n", origin="tuner")
CONTEXT = trust.trust_context(CacheKey(("ab" * 32,), ((8,),), ("float32",), "cpu"), "tests/test_m.py::test_m")


def plant(folder: Path) -> Path:
    """A record as anyone can compute it with this package's own functions (no secret of this machine)."""
    name = trust.trust_key(CAND, ENV, CONTEXT)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(json.dumps({"candidate": CAND.content_hash, **CONTEXT, "note": "planted"}))
    return folder / name


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A checkout (a git work tree) as the current directory, and a secret outside it."""
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "repo")
    monkeypatch.setenv("KERNELOPT_TRUST_SECRET", str(tmp_path / "home" / "trust-secret"))
    return tmp_path / "repo"


@pytest.mark.parametrize("where", ["relative", "inside"])
def test_a_trust_folder_in_the_repository_is_refused(repo, monkeypatch, where):
    """KERNELOPT_TRUST_DIR set to a relative path resolved inside the repository, where a pull request can write: a
    planted record there skipped the isolated check.  Such a folder is refused: nothing is read or written there."""
    folder = repo / "kernels_cache" / ".trust"
    monkeypatch.setenv("KERNELOPT_TRUST_DIR", "kernels_cache/.trust" if where == "relative" else str(folder))
    plant(folder)
    with pytest.warns(UserWarning, match="no trust record is read or written"):
        assert not trust.is_trusted(CAND, ENV, CONTEXT)
    with pytest.raises(trust.TrustLocationError, match="relative path" if where == "relative" else "inside the"):
        trust.trust_dir()
    before = sorted(p.name for p in folder.iterdir())
    trust.mark_trusted(CAND, ENV, CONTEXT, "judged")
    assert sorted(p.name for p in folder.iterdir()) == before


def test_a_record_without_this_machines_hmac_is_not_trusted(repo, tmp_path, monkeypatch):
    """Each record carries an HMAC under this machine's secret, kept outside the repository: a record computed
    with the package's functions, or copied from another machine, is not one."""
    folder = tmp_path / "trusted"
    monkeypatch.setenv("KERNELOPT_TRUST_DIR", str(folder))
    record = plant(folder)
    assert not trust.is_trusted(CAND, ENV, CONTEXT)
    trust.mark_trusted(CAND, ENV, CONTEXT, "judged in isolation (test)")
    assert trust.is_trusted(CAND, ENV, CONTEXT)
    assert "mac" in json.loads(record.read_text())
    monkeypatch.setenv("KERNELOPT_TRUST_SECRET", str(tmp_path / "other-machine" / "trust-secret"))
    trust.mark_trusted(CAND, ENV, trust.trust_context("other", "x"), "makes the other machine's secret")
    assert not trust.is_trusted(CAND, ENV, CONTEXT), "another machine's record"
    monkeypatch.setenv("KERNELOPT_TRUST_SECRET", str(repo / "trust-secret"))
    with pytest.warns(UserWarning, match="inside the repository"):
        assert not trust.is_trusted(CAND, ENV, CONTEXT), "a secret in the repository is no secret"


def test_the_in_process_check_has_the_isolated_time_limit(tmp_path, cpu_interpreter):
    """Every in-process evaluation (verify mode's re-check of a cached kernel, --no-isolate) has the ``timeout``
    setting as its limit, as a worker does: a kernel that loops is rejected in the gate it was in.  (A subprocess,
    so that a regression fails this test instead of hanging the suite.)  CPU only: the limit stops Python-level
    loops, the interpreter's; on a GPU this kernel does not compile (Triton 3.6), and one launch that never
    returns is the isolated worker's to end (time_limit.py)."""
    case = json.loads((ROOT / "tests/adversarial/allowlist_attacks/cases/42_while_true_runtime.json").read_text())
    (tmp_path / "loop.json").write_text(json.dumps(case["candidate"]))
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "pytest_kernelopt.cli", "judge", str(ROOT / case["problem"]),
                           str(tmp_path / "loop.json"), "--no-isolate", "--timeout", "2", "--seeds", "1"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "timed out after 2s in the correctness gate" in out and "stopped in this process" in out, out
    assert "decision: rejected" in out and time.monotonic() - t0 < 90


def test_outside_a_git_work_tree_only_a_relative_trust_folder_is_refused(tmp_path, monkeypatch):
    """Running from a folder that is no checkout (a home directory holding ~/.cache) keeps the default records."""
    monkeypatch.chdir(tmp_path)
    assert trust.repository_root() is None
    monkeypatch.setenv("KERNELOPT_TRUST_DIR", str(tmp_path / ".cache" / "trusted"))
    assert trust.trust_dir() == tmp_path / ".cache" / "trusted"
    monkeypatch.setenv("KERNELOPT_TRUST_DIR", "trusted")
    with pytest.raises(trust.TrustLocationError, match="relative path"):
        trust.trust_dir()
