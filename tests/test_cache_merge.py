"""The cache under several writers: pytest-xdist workers writing at once, and two CI hosts (two shards) whose
caches are committed on two git branches and merged with plain ``git merge``, then ``kernelopt cache verify``."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pytest_kernelopt.cache import KernelCache
from pytest_kernelopt.cache_keys import current_environment
from pytest_kernelopt.sharding import assign

KERNELOPT = str(Path(sys.executable).parent / "kernelopt")
HELPERS = '''
import zlib
from pytest_kernelopt.cache import KernelCache
from pytest_kernelopt.cache_keys import CacheKey
from pytest_kernelopt.candidate import Candidate
from pytest_kernelopt.gates.results import CascadeResult, GateResult
from pytest_kernelopt.graph import TritonKernel


def store(cache, name, env, speedup=1.25, shapes=((8, 32),)):
    """An accepted entry whose baseline (hence key) is distinct per name; its kernels pass the allowlist."""
    src = (f"import triton\\nimport triton.language as tl\\n\\n\\n"
           f"@triton.jit\\ndef {name}(in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr):\\n"
           f"    x = tl.load(in_ptr0) * {zlib.crc32(name.encode())}\\n")
    base = TritonKernel(name, src, "pointwise", "pointwise", ("in_ptr0", "out_ptr0", "xnumel", "XBLOCK"), {}, "x")
    key = CacheKey((base.content_hash,), shapes, ("float32",) * len(shapes), env.device)
    cand = Candidate((name,), src.replace("* ", "*"), configs=({"XBLOCK": 128},), origin="tuner")
    perf = GateResult("performance", "pass", "", {"speedup": speedup, "ci_low": speedup - 0.05,
                                                  "ci_high": speedup + 0.05, "confidence": 0.95})
    result = CascadeResult((name,), cand.content_hash, (perf,), "accepted")
    return cache.store_accepted(key, cand, [base], result, problem_id=f"tests/test_m.py::{name}", environment=env)
'''
namespace: dict = {}
exec(HELPERS, namespace)  # the same helper runs in this process and in the xdist workers below
store = namespace["store"]


def _clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST") and k != "PYTEST_ADDOPTS"}
    return {**env, **extra}


# --------------------------------------------------------------------------- xdist workers writing at once


def test_xdist_workers_writing_one_cache_at_once_lose_and_corrupt_nothing(tmp_path):
    root = tmp_path / "kc"
    (tmp_path / "helpers.py").write_text(HELPERS)
    (tmp_path / "test_writers.py").write_text(textwrap.dedent(f"""
        import os, warnings
        import pytest
        from helpers import store
        from pytest_kernelopt.cache import KernelCache
        from pytest_kernelopt.cache_keys import Environment

        ENV = Environment("2.13.0+cpu", "3.7.1", None, None, None, "cpu")
        ROOT = {str(root)!r}

        @pytest.mark.parametrize("t", range(12))
        def test_write(t):
            cache, strict = KernelCache(ROOT), KernelCache(ROOT, strict=True)
            warnings.simplefilter("error")  # a half-written entry would warn: make that fail
            for j in range(4):
                store(cache, f"k_{{t}}_{{j}}", ENV)
            shared = store(cache, "k_shared", ENV, speedup=1.0 + t / 100)  # every worker rewrites one key too
            for _ in range(5):  # read it while the others replace it: always whole, never missing
                assert strict.lookup(shared.key).candidate().content_hash == shared.candidate_hash
    """))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-n", "4", "-q", "-p", "no:cacheprovider",
                           "--kernelopt-mode=off", "test_writers.py"], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300, env=_clean_env(PYTHONPATH=str(tmp_path)))
    assert proc.returncode == 0 and "12 passed" in proc.stdout, proc.stdout[-3000:] + proc.stderr[-3000:]
    scanned = KernelCache(root, strict=True).scan()
    assert [s.problem for s in scanned if s.problem] == []
    names = sorted(s.entry.kernel_names[0] for s in scanned)
    assert names == sorted([f"k_{t}_{j}" for t in range(12) for j in range(4)] + ["k_shared"])
    assert not list(root.glob("v1/*/.tmp-*")) and not list(root.glob("v1/*/.old-*"))


# --------------------------------------------------------------------------- two hosts, two branches, one merge


def git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    env = {**_clean_env(), "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "HOME": str(repo),
           "GIT_AUTHOR_NAME": "ci", "GIT_AUTHOR_EMAIL": "ci@example.invalid", "GIT_COMMITTER_NAME": "ci",
           "GIT_COMMITTER_EMAIL": "ci@example.invalid"}
    proc = subprocess.run(["git", "-c", "commit.gpgsign=false", *args], cwd=repo, capture_output=True, text=True,
                          env=env, timeout=60)
    if check:
        assert proc.returncode == 0, (args, proc.stdout, proc.stderr)
    return proc


def verify(repo: Path) -> subprocess.CompletedProcess:
    """The entries here were recorded by tests (no problem file reproduces them): verify checks their integrity
    and lists them as not judged, allowed."""
    return subprocess.run([KERNELOPT, "cache", "verify", "--cache-dir", str(repo / "kernels_cache"),
                           "--allow-unjudged"], capture_output=True, text=True, cwd=repo, timeout=300, env=_clean_env())


@pytest.fixture
def repo(tmp_path) -> Path:
    if subprocess.run(["git", "--version"], capture_output=True).returncode != 0:
        pytest.skip("git is not installed")
    repo = tmp_path / "project"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "README.md").write_text("a project\n")
    git(repo, "add", "README.md")
    git(repo, "commit", "-q", "-m", "base")
    return repo


def test_two_shards_caches_merge_with_plain_git_and_verify(repo):
    env = current_environment()  # entries of this machine: verify judges them (not skipped as another device's)
    tests = [f"test_block_{i}" for i in range(16)]
    written = {}
    for k in (1, 2):  # host k runs shard k/2 from the same base commit and commits its cache on its own branch
        git(repo, "checkout", "-q", "-b", f"shard{k}", "main")
        cache = KernelCache(repo / "kernels_cache")
        mine = [t for t, s in zip(tests, assign([f"tests/test_m.py::{t}" for t in tests], 2)) if s == k]
        assert mine
        written.update({store(cache, t, env).digest: t for t in mine})
        git(repo, "add", "kernels_cache")
        git(repo, "commit", "-q", "-m", f"kernels of shard {k}/2")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-edit", "shard1")
    merged = git(repo, "merge", "--no-edit", "shard2", check=False)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert git(repo, "diff", "--name-only", "--diff-filter=U").stdout == ""  # no conflicted path
    assert git(repo, "status", "--porcelain").stdout == ""
    tracked = git(repo, "ls-files", "kernels_cache").stdout.split()
    assert "kernels_cache/.gitignore" in tracked and not [p for p in tracked if "/.locks/" in p or "/.tmp-" in p]
    scanned = KernelCache(repo / "kernels_cache", strict=True).scan()
    assert {s.digest: s.entry.kernel_names[0] for s in scanned} == written and len(written) == len(tests)
    proc = verify(repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"verify: {len(tests)} entries: 0 ok, 0 stale, 0 corrupt" in proc.stdout
    assert f"{len(tests)} not judged, 0 errors" in proc.stdout


def test_one_key_written_on_both_hosts_is_a_conflict_git_names_and_verify_catches(repo):
    """Two problems on two hosts can yield the same key (same kernel, shapes and GPU kind): git then reports
    that entry as conflicted.  A botched resolution (conflict markers committed) is CORRUPT for verify; taking
    one side's entry directory whole (README: git checkout --theirs) passes."""
    env = current_environment()
    for k in (1, 2):
        git(repo, "checkout", "-q", "-b", f"host{k}", "main")
        entry = store(KernelCache(repo / "kernels_cache"), "triton_poi_fused_relu_0", env, speedup=1.1 + k / 10)
        git(repo, "add", "kernels_cache")
        git(repo, "commit", "-q", "-m", f"host {k}")
    entry_dir = entry.path.relative_to(repo).as_posix()
    git(repo, "checkout", "-q", "host1")
    merged = git(repo, "merge", "--no-edit", "host2", check=False)
    assert merged.returncode != 0
    conflicted = git(repo, "diff", "--name-only", "--diff-filter=U").stdout.split()
    assert f"{entry_dir}/entry.json" in conflicted
    assert "kernels_cache/.gitignore" not in conflicted  # written alike on both hosts: merged cleanly
    proc = verify(repo)  # conflict markers in entry.json: not JSON
    assert proc.returncode == 1 and "CORRUPT" in proc.stdout, proc.stdout + proc.stderr
    git(repo, "checkout", "--theirs", "--", entry_dir)
    git(repo, "add", entry_dir)
    git(repo, "commit", "-q", "--no-edit")
    proc = verify(repo)
    assert proc.returncode == 0 and "0 corrupt" in proc.stdout and "1 not judged" in proc.stdout, \
        proc.stdout + proc.stderr
    assert "1.300x" in git(repo, "show", f"HEAD:{entry_dir}/kernel.py").stdout  # host 2's entry, whole
