"""The versioned kernel cache: round trips across processes, bad data, concurrency, staleness."""

from __future__ import annotations

import json
import shutil
import os
import subprocess
import sys
import textwrap
import warnings
import zlib
from pathlib import Path

import pytest

from pytest_kernelopt.cache import KernelCache
from pytest_kernelopt.cache_entry import CacheError, CacheWarning
from pytest_kernelopt.cache_keys import SCHEMA_VERSION, CacheKey, Environment, current_environment
from pytest_kernelopt.candidate import Candidate, LaunchSpec
from pytest_kernelopt.errors import KernelOptError
from pytest_kernelopt.gates.results import CascadeResult, GateResult
from pytest_kernelopt.graph import TritonKernel

REPO = Path(__file__).resolve().parents[1]
PYTHON = sys.executable

ENV = Environment(torch="2.13.0+cpu", triton="3.7.1", cuda=None, gpu_name=None, compute_capability=None, device="cpu")


def kernel(name: str, body: str = "x = tl.load(in_ptr0)") -> TritonKernel:
    src = f"import triton\n\n@triton.jit\ndef {name}(in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr):\n    {body}\n"
    return TritonKernel(name, src, "pointwise", "pointwise", ("in_ptr0", "out_ptr0", "xnumel", "XBLOCK"),
                        {"in_ptr0": "*fp32", "out_ptr0": "*fp32", "xnumel": "i32", "XBLOCK": "constexpr"}, "cpu")


def accepted(cand: Candidate, speedup: float = 1.4) -> CascadeResult:
    perf = GateResult("performance", "pass", "fast", {"speedup": speedup, "ci_low": speedup - 0.1,
                                                      "ci_high": speedup + 0.1, "confidence": 0.95})
    gates = (GateResult("static", "pass"), GateResult("correctness", "pass", "", {"max_abs_err": 1e-7}),
             GateResult("fp64", "pass"), perf)
    return CascadeResult(cand.replaces, cand.content_hash, gates, "accepted", origin=cand.origin, seconds=2.5)


def store_one(cache: KernelCache, name: str = "triton_poi_fused_0", shapes=((4, 16),), env: Environment = ENV):
    """Store an accepted entry for a baseline whose body (hence key) is distinct per ``name``."""
    base = kernel(name, f"x = tl.load(in_ptr0) * {zlib.crc32(name.encode())}")
    key = CacheKey.from_inputs([base], [], "cpu")
    key = CacheKey(key.baseline_hashes, shapes, ("float32",) * len(shapes), "cpu")
    cand = Candidate((name,), base.source.replace("tl.load(in_ptr0)", "tl.load(in_ptr0) + 0"),
                     configs=({"XBLOCK": 64, "num_warps": 2},), origin="tuner")
    entry = cache.store_accepted(key, cand, [base], accepted(cand), problem_id=f"tests/test_m.py::{name}",
                                 environment=env, model=None)
    return key, cand, entry


def run_py(code: str, **env: str) -> subprocess.CompletedProcess:
    """Run code in a fresh interpreter of this virtualenv (nothing carried over from this process)."""
    full_env = {**os.environ, **env}
    proc = subprocess.run([PYTHON, "-c", textwrap.dedent(code)], capture_output=True, text=True, cwd=REPO,
                          env=full_env, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


# --------------------------------------------------------------------------- round trip


def test_round_trip_in_fresh_process_fusion_and_baseline_kept(tmp_path):
    cache = KernelCache(tmp_path / "kc")
    k1, k2 = kernel("triton_poi_fused_add_0"), kernel("triton_poi_fused_mul_1", "x = tl.load(in_ptr0) * 2")
    key = CacheKey.from_inputs([k1, k2], [], "cuda:sm90")
    spec = LaunchSpec("fused", ("triton_poi_fused_add_0.in_ptr0", "triton_poi_fused_mul_1.out_ptr0",
                                "triton_poi_fused_add_0.xnumel"), "(cdiv(xnumel, XBLOCK),)", num_warps=8,
                      constexprs={"XBLOCK": 128})
    cand = Candidate((k1.name, k2.name), "import triton\n\n@triton.jit\ndef fused(a, b, xnumel, XBLOCK: "
                     "tl.constexpr):\n    pass\n", launch=spec, origin="agent", description="fuse add+mul")
    cache.store_accepted(key, cand, [k1, k2], accepted(cand, 1.7), problem_id="p1", environment=ENV,
                         model="gpt-test", prompt_hash="ab" * 32)
    k3 = kernel("triton_per_fused_sum_2", "x = tl.sum(tl.load(in_ptr0), 0)")
    kept_key = CacheKey.from_inputs([k3], [], "cpu")
    cache.store_baseline_kept(kept_key, [k3], problem_id="p2", environment=ENV, reason="nothing beat it",
                              attempts=[CascadeResult((k3.name,), "f" * 64, (GateResult("static", "fail", "x"),),
                                                      "rejected")])

    out = run_py(f"""
        import json, sys
        from pytest_kernelopt.cache import KernelCache
        from pytest_kernelopt.cache_keys import CacheKey
        cache = KernelCache({str(tmp_path / 'kc')!r}, strict=True)
        e = cache.lookup(CacheKey.from_json({json.dumps(key.to_json())}))
        c = e.candidate()
        k = cache.lookup(CacheKey.from_json({json.dumps(kept_key.to_json())}))
        print(json.dumps({{"cand": c.to_json(), "hash": c.content_hash, "speedup": e.speedup, "ci": e.speedup_ci,
                          "kept": k.is_baseline_kept, "attempts": len(k.attempts), "torch": "torch" in sys.modules}}))
    """)
    got = json.loads(out.stdout)
    assert got["cand"] == json.loads(json.dumps(cand.to_json()))
    assert got["hash"] == cand.content_hash
    assert got["speedup"] == pytest.approx(1.7) and got["ci"] == pytest.approx([1.6, 1.8])
    assert got["kept"] is True and got["attempts"] == 1
    assert got["torch"] is False  # loading entries never imports torch

    # reviewable files: sorted, indent-2 JSON; the kernel and the baselines as .py; no kernel.py for a kept baseline
    d = cache.entry_dir(key)
    text = (d / "entry.json").read_text()
    meta = json.loads(text)
    assert text == json.dumps(meta, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
    assert meta["schema_version"] == SCHEMA_VERSION
    assert meta["found_by"] == {"origin": "agent", "model": "gpt-test", "prompt_hash": "ab" * 32}
    assert meta["candidate"]["launch"]["constexprs"] == {"XBLOCK": 128} and "source" not in meta["candidate"]
    assert [g["gate"] for g in meta["cascade"]["gates"]] == ["static", "correctness", "fp64", "performance"]
    assert "1.700x" in (d / "kernel.py").read_text().split("# --- end")[0]
    assert (d / "baseline_1.py").read_text().endswith(k2.source)
    kd = cache.entry_dir(kept_key)
    assert sorted(p.name for p in kd.iterdir()) == ["baseline_0.py", "entry.json"]


def test_cached_kernel_applies_in_fresh_process(tmp_path):
    """Capture, store an equivalent rewrite, then in a new process: capture again, look up, apply, compare."""
    import torch

    from pytest_kernelopt.capture import capture

    fn = lambda x: torch.relu(x * 2 + 1).sum(-1)  # noqa: E731
    x = torch.randn(4, 16)
    captured = capture(fn, (x,), backend="cpu")
    (graph, name), = captured.triton_kernels
    base = graph.kernels[name]
    assert "tmp0 * tmp1" in base.source
    cand = Candidate((name,), base.source.replace("tmp0 * tmp1", "tmp0 + tmp0"), origin="manual")
    key = CacheKey.from_inputs([base], [x], "cpu")
    KernelCache(tmp_path / "kc").store_accepted(key, cand, [base], accepted(cand), problem_id="relu_sum",
                                                environment=ENV)

    out = run_py(f"""
        from pytest_kernelopt.backends import prepare
        prepare("cpu")
        import torch
        from pytest_kernelopt.cache import KernelCache
        from pytest_kernelopt.cache_keys import CacheKey
        from pytest_kernelopt.capture import capture
        from pytest_kernelopt.substitute import apply_permanently
        fn = lambda x: torch.relu(x * 2 + 1).sum(-1)
        x = torch.randn(4, 16, generator=torch.Generator().manual_seed(3))
        captured = capture(fn, (x,), backend="cpu")
        (graph, name), = captured.triton_kernels
        entry = KernelCache({str(tmp_path / 'kc')!r}, strict=True).lookup(
            CacheKey.from_inputs([graph.kernels[name]], [x], "cpu"))
        cand = entry.candidate(replaces=(name,))
        assert "tmp0 + tmp0" in cand.source
        before = captured.namespaces[graph.index][name]
        assert apply_permanently(captured, [cand]) == [name]
        assert captured.namespaces[graph.index][name] is not before
        for seed in range(3):
            y = torch.randn(4, 16, generator=torch.Generator().manual_seed(seed)) * 3
            torch.testing.assert_close(captured(y), fn(y))
        print("APPLIED", name)
    """, TRITON_INTERPRET="1")
    assert f"APPLIED {name}" in out.stdout


# --------------------------------------------------------------------------- keys


def test_any_key_mismatch_is_a_quiet_miss(tmp_path):
    cache = KernelCache(tmp_path / "kc")
    key, cand, _ = store_one(cache)
    assert cache.lookup(key).candidate() == cand
    variants = [CacheKey(key.baseline_hashes, ((4, 17),), key.input_dtypes, key.device),
                CacheKey(key.baseline_hashes, key.input_shapes, ("float16",), key.device),
                CacheKey(key.baseline_hashes, key.input_shapes, key.input_dtypes, "cuda:sm90"),
                CacheKey(("0" * 64,), key.input_shapes, key.input_dtypes, key.device),
                CacheKey(key.baseline_hashes * 2, key.input_shapes, key.input_dtypes, key.device)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for v in variants:
            assert v.digest != key.digest
            assert cache.lookup(v) is None


def test_key_is_salted_with_schema_version(monkeypatch):
    key = CacheKey(("a" * 64,), ((2, 3),), ("float32",), "cpu")
    before = key.digest
    monkeypatch.setattr("pytest_kernelopt.cache_keys.SCHEMA_VERSION", SCHEMA_VERSION + 1)
    assert key.digest != before
    assert CacheKey.from_json(key.to_json()) == key


def test_renaming_a_fusion_candidate_to_this_compiles_kernel_names(tmp_path):
    cache = KernelCache(tmp_path / "kc")
    k1, k2 = kernel("k_1"), kernel("k_10", "x = 1")
    spec = LaunchSpec("k_1", ("k_1.in_ptr0", "k_10.out_ptr0"), "(1,)")
    cand = Candidate(("k_1", "k_10"), "@triton.jit\ndef k_1(a, b):\n    k_10 = 1\n", launch=spec)
    key = CacheKey.from_inputs([k1, k2], [], "cpu")
    cache.store_accepted(key, cand, [k1, k2], accepted(cand), problem_id="p", environment=ENV)
    got = cache.lookup(key).candidate(replaces=("k_7", "k_3"))
    assert got.replaces == ("k_7", "k_3")
    assert got.source == "@triton.jit\ndef k_7(a, b):\n    k_3 = 1\n"
    assert got.launch.kernel == "k_7" and got.launch.args == ("k_7.in_ptr0", "k_3.out_ptr0")


def test_store_refuses_inconsistent_records(tmp_path):
    cache = KernelCache(tmp_path / "kc")
    base = kernel("k_0")
    key = CacheKey.from_inputs([base], [], "cpu")
    cand = Candidate(("k_0",), "@triton.jit\ndef k_0(x):\n    pass\n")
    verified = CascadeResult(("k_0",), cand.content_hash, (), "verified")
    with pytest.raises(ValueError, match="only accepted"):
        cache.store_accepted(key, cand, [base], verified, problem_id="p", environment=ENV)
    other = Candidate(("k_0",), "@triton.jit\ndef k_0(x):\n    return\n")
    with pytest.raises(ValueError, match="another candidate"):
        cache.store_accepted(key, cand, [base], accepted(other), problem_id="p", environment=ENV)
    with pytest.raises(ValueError, match="does not hash"):
        cache.store_accepted(key, cand, [kernel("k_0", "x = 2")], accepted(cand), problem_id="p", environment=ENV)
    assert not cache.root.joinpath("v1").exists() or not any(cache.root.joinpath("v1").rglob("entry.json"))


def test_baseline_kept_entry_has_no_candidate(tmp_path):
    cache = KernelCache(tmp_path / "kc")
    base = kernel("k_0")
    key = CacheKey.from_inputs([base], [], "cpu")
    cache.store_baseline_kept(key, [base], problem_id="p", environment=ENV)
    entry = cache.lookup(key)
    assert entry.is_baseline_kept and not entry.is_accepted
    assert entry.baseline_sources == {"k_0": base.source}
    with pytest.raises(CacheError, match="keeps the baseline"):
        entry.candidate()


# --------------------------------------------------------------------------- bad data


def _truncate_json(d: Path) -> None:
    text = (d / "entry.json").read_text()
    (d / "entry.json").write_text(text[: len(text) // 2])


def _garble_json(d: Path) -> None:
    meta = json.loads((d / "entry.json").read_text())
    meta["key"] = {"baseline_hashes": 7}
    (d / "entry.json").write_text(json.dumps(meta))


def _json_not_object(d: Path) -> None:
    (d / "entry.json").write_text("[1, 2, 3]")


def _delete_kernel(d: Path) -> None:
    (d / "kernel.py").unlink()


def _edit_kernel(d: Path) -> None:
    p = d / "kernel.py"
    p.write_text(p.read_text().replace("+ 0", "+ 1"))


def _edit_header_away(d: Path) -> None:
    p = d / "kernel.py"
    p.write_text(p.read_text().split("# --- end of kernelopt header ---\n", 1)[1])


def _edit_baseline(d: Path) -> None:
    p = d / "baseline_0.py"
    p.write_text(p.read_text().replace("tl.load(in_ptr0)", "tl.load(in_ptr0 + 1)"))


def _future_schema(d: Path) -> None:
    meta = json.loads((d / "entry.json").read_text())
    meta["schema_version"] = SCHEMA_VERSION + 1
    (d / "entry.json").write_text(json.dumps(meta))


def _garble_speedup(d: Path) -> None:
    meta = json.loads((d / "entry.json").read_text())
    meta["speedup"] = {"value": "fast", "ci": [1]}
    (d / "entry.json").write_text(json.dumps(meta))


def _delete_json(d: Path) -> None:
    (d / "entry.json").unlink()


def _swap_recorded_hash(d: Path) -> None:
    meta = json.loads((d / "entry.json").read_text())
    meta["candidate"]["hash"] = "0" * 64
    (d / "entry.json").write_text(json.dumps(meta))


def _kernel_to_dev_zero(d: Path) -> None:  # red team 15: a pull request can carry a symbolic link
    (d / "kernel.py").unlink()
    (d / "kernel.py").symlink_to("/dev/zero")


def _json_to_dev_zero(d: Path) -> None:
    (d / "entry.json").unlink()
    (d / "entry.json").symlink_to("/dev/zero")


def _kernel_to_same_content_outside(d: Path) -> None:  # even the right bytes: an entry holds plain files only
    outside = d.parent.parent.parent / "outside_kernel.py"
    outside.write_bytes((d / "kernel.py").read_bytes())
    (d / "kernel.py").unlink()
    (d / "kernel.py").symlink_to(outside)


def _kernel_fifo(d: Path) -> None:  # git cannot carry one, but a reader must not hang on it
    (d / "kernel.py").unlink()
    os.mkfifo(d / "kernel.py")


def _entry_dir_a_link(d: Path) -> None:
    outside = d.parent.parent.parent / "outside_entry"
    d.rename(outside)
    d.symlink_to(outside, target_is_directory=True)


def _huge_json(d: Path) -> None:
    with open(d / "entry.json", "a") as f:
        f.write(" " * (9 << 20))


def _deep_json(d: Path) -> None:  # red team 26: 100,000 nested brackets crashed a JSON reader with RecursionError
    (d / "entry.json").write_text("[" * 100_000 + "]" * 100_000)


DAMAGE = {
    "kernel.py a link to /dev/zero": (_kernel_to_dev_zero, "kernel.py is a symbolic link"),
    "entry.json a link to /dev/zero": (_json_to_dev_zero, "entry.json is a symbolic link"),
    "kernel.py a link outside": (_kernel_to_same_content_outside, "kernel.py is a symbolic link"),
    "kernel.py a FIFO": (_kernel_fifo, "kernel.py is not a regular file"),
    "entry directory a link": (_entry_dir_a_link, "entry directory is a symbolic link"),
    "entry.json too large": (_huge_json, "more than a cache file may be"),
    "truncated json": (_truncate_json, "not valid JSON"),
    "json nested too deep": (_deep_json, "nests too deeply to be read as JSON"),
    "garbled json": (_garble_json, "garbles"),
    "json not an object": (_json_not_object, "not a JSON object"),
    "garbled speedup": (_garble_speedup, "the recorded speedup is not its performance gate"),
    "missing entry.json": (_delete_json, "entry.json is missing"),
    "missing kernel.py": (_delete_kernel, "kernel.py is missing"),
    "kernel edited": (_edit_kernel, "kernel.py was edited: its source"),
    "kernel header removed": (_edit_header_away, "no kernelopt header"),
    "recorded hash changed": (_swap_recorded_hash, "does not match the recorded candidate hash"),
    "baseline edited": (_edit_baseline, "does not match the recorded baseline hash"),
    "unknown schema version": (_future_schema, "unknown schema version"),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_bad_entry_is_a_warning_and_a_miss_or_an_error_when_strict(tmp_path, damage):
    cache = KernelCache(tmp_path / "kc")
    key, _, entry = store_one(cache)
    other_key, other_cand, _ = store_one(cache, "triton_poi_fused_other_1")
    damage_fn, message = DAMAGE[damage]
    damage_fn(entry.path)

    with pytest.warns(CacheWarning, match=message) as seen:
        assert cache.lookup(key) is None
    # what happens is said as it happens: ignored and run as if absent; in strict mode an error, never "ignoring"
    assert "ignoring entry" in str(seen[0].message) and "as if it had no entry" in str(seen[0].message)
    with pytest.warns(CacheWarning, match=message):
        assert [e.digest for e in cache.entries()] == [other_key.digest]  # the good entry still loads
    strict = KernelCache(cache.root, strict=True)
    with pytest.raises(CacheError, match=message) as info:
        strict.lookup(key)
    assert isinstance(info.value, KernelOptError)
    assert "is unusable" in str(info.value) and "ignoring" not in str(info.value), info.value
    assert strict.lookup(other_key).candidate() == other_cand
    (bad,) = [s for s in cache.scan() if s.problem]
    assert bad.digest == key.digest and message in bad.problem
    outside = bad.path.parent.parent.parent / "outside_entry"  # where _entry_dir_a_link moved it
    cache.remove(bad.path)  # what `kernelopt cache prune` does with it
    assert not bad.path.exists() and not bad.path.is_symlink()
    assert not outside.exists() or any(outside.iterdir()), "a link's target is never deleted"


def test_random_corruption_never_crashes_and_never_loads_a_wrong_kernel(tmp_path):
    import random

    cache = KernelCache(tmp_path / "kc")
    key, cand, entry = store_one(cache)
    pristine = {n: (entry.path / n).read_bytes() for n in ("entry.json", "kernel.py")}
    rng = random.Random(0)
    outcomes = {"loaded": 0, "miss": 0}
    for trial in range(200):
        name = rng.choice(list(pristine))
        data = bytearray(pristine[name])
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(data))
            data[i] = rng.choice(b'{}[]",:0123456789abcdefxyz \n')
        for n, b in pristine.items():
            (entry.path / n).write_bytes(bytes(data) if n == name else b)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = cache.lookup(key)
        if got is None:
            assert any(issubclass(w.category, CacheWarning) for w in caught)
            outcomes["miss"] += 1
        else:  # a harmless edit (a header comment, JSON whitespace): the kernel is still exactly the stored one
            got_cand = got.candidate()
            assert (got_cand.source, got_cand.configs, got_cand.replaces) == (cand.source, cand.configs, cand.replaces)
            assert got_cand.content_hash == cand.content_hash
            outcomes["loaded"] += 1
    assert outcomes["miss"] > 0


def test_misfiled_entry_is_never_served_for_another_key(tmp_path):
    cache = KernelCache(tmp_path / "kc")
    key_a, _, a = store_one(cache, "k_a")
    key_b, _, b = store_one(cache, "k_b")
    # an entry copied under another key's directory name: its recorded key no longer hashes to the name
    import shutil

    shutil.rmtree(b.path)
    shutil.copytree(a.path, b.path)
    with pytest.warns(CacheWarning, match="does not hash to this entry's directory"):
        assert cache.lookup(key_b) is None
    assert cache.lookup(key_a) is not None


# --------------------------------------------------------------------------- concurrency


def test_eight_processes_writing_at_once_lose_nothing(tmp_path):
    root = tmp_path / "kc"
    script = textwrap.dedent(f"""
        import sys, warnings
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from test_cache import KernelCache, store_one
        root, i = sys.argv[1], int(sys.argv[2])
        cache, strict = KernelCache(root), KernelCache(root, strict=True)
        warnings.simplefilter("error")  # a half-written entry would warn: make that fail
        for round_ in range(3):
            for j in range(4):
                store_one(cache, f"k_{{i}}_{{j}}")
            shared_key, shared_cand, _ = store_one(cache, "k_shared")  # all writers also rewrite one key
            for _ in range(5):  # read the shared key while others replace it: always whole, never missing
                assert strict.lookup(shared_key).candidate() == shared_cand
        print("done", i)
    """)
    procs = [subprocess.Popen([PYTHON, "-c", script, str(root), str(i)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, cwd=REPO) for i in range(8)]
    outs = [p.communicate(timeout=120) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, out + err
    cache = KernelCache(root, strict=True)
    scanned = cache.scan()
    assert [s.problem for s in scanned if s.problem] == []
    names = sorted(s.entry.kernel_names[0] for s in scanned)
    assert names == sorted([f"k_{i}_{j}" for i in range(8) for j in range(4)] + ["k_shared"])
    for s in scanned:
        assert s.entry.candidate().content_hash == s.entry.candidate_hash
    assert not list(root.glob("v1/*/.tmp-*")) and not list(root.glob("v1/*/.old-*"))


# --------------------------------------------------------------------------- staleness


def test_stale_reasons_name_what_changed(tmp_path):
    recorded = Environment("2.11.0+cu128", "3.6.0", "12.8", "NVIDIA H100 80GB HBM3", "9.0", "cuda:sm90")
    cache = KernelCache(tmp_path / "kc")
    key, _, entry = store_one(cache, env=recorded)
    entry = cache.lookup(key)
    assert entry.stale_reasons(recorded) == []
    now = Environment("2.13.0+cu130", "3.6.0", "13.0", "NVIDIA H200", "9.0", "cuda:sm90")
    reasons = entry.stale_reasons(now)
    assert reasons == ["torch: recorded 2.11.0+cu128, now 2.13.0+cu130", "cuda: recorded 12.8, now 13.0",
                       "gpu_name: recorded NVIDIA H100 80GB HBM3, now NVIDIA H200"]
    assert entry.environment == recorded


def test_current_environment_reads_this_machine():
    import torch

    env = current_environment()
    assert env.torch == torch.__version__
    if torch.cuda.is_available():
        assert env.device.startswith("cuda:sm") and env.gpu_name
    else:
        assert (env.device, env.gpu_name, env.compute_capability) == ("cpu", None, None)


def test_constructing_and_reading_the_cache_does_not_import_torch(tmp_path):
    cache = KernelCache(tmp_path / "kc")
    key, _, _ = store_one(cache)
    out = run_py(f"""
        import sys
        from pytest_kernelopt.cache import KernelCache
        from pytest_kernelopt.cache_keys import CacheKey
        c = KernelCache({str(cache.root)!r})
        e = c.lookup(CacheKey.from_json({key.to_json()!r}))
        e.candidate(); list(c.entries())
        print("torch imported:", "torch" in sys.modules)
    """)
    assert "torch imported: False" in out.stdout


def test_the_compile_mode_is_part_of_the_key_and_the_default_keeps_old_digests():
    from pytest_kernelopt.cache_keys import CacheKey

    old = CacheKey(("a" * 64,), ((4, 8),), ("float32",), "sm90")
    assert "compile_mode" not in old.to_json()  # entries written before the field keep their digests
    same = CacheKey.from_inputs(["a" * 64], [], "sm90")
    assert CacheKey(("a" * 64,), (), (), "sm90").digest == same.digest
    ma = CacheKey(("a" * 64,), ((4, 8),), ("float32",), "sm90", "max-autotune-no-cudagraphs")
    assert ma.digest != old.digest
    assert CacheKey.from_json(ma.to_json()) == ma and CacheKey.from_json(old.to_json()) == old


def test_a_speedup_recorded_under_a_cpu_key_is_never_shown(tmp_path):
    """pytest-kernelopt writes no entry on the CPU (nothing is timed there), so an accepted entry keyed to the CPU
    was made by hand, and its speedup is no measurement: red team 15 had "1.083x [1.053, 1.105]" in the summary
    and in `kernelopt cache list` of a run that said performance was not measured."""
    cache = KernelCache(tmp_path / "kc")
    _, _, entry = store_one(cache)
    assert entry.meta["speedup"]["value"] and entry.key.device == "cpu"
    assert entry.speedup is None and entry.speedup_ci is None and not entry.measured_device
    from pytest_kernelopt.cli_cache import _cells

    (scanned,) = cache.scan()
    cells = _cells(scanned)
    assert cells[1] == "accepted" and cells[2] == "-", cells  # the speedup column
    assert "no measured speedup" in entry.summary() and "x (CI" not in entry.summary()  # cache verify and show


@pytest.mark.parametrize("where", ["retired", "v1", "prefix"])
def test_prune_never_deletes_through_a_symbolic_link(tmp_path, where):
    """Red team 16: a committed `kernels_cache/retired -> ../src` had `kernelopt cache prune` delete the folders of
    src; `v1/ab -> elsewhere` deleted an entry-named folder there."""
    from pytest_kernelopt.cli_cache import main as cache_main

    cache = KernelCache(tmp_path / "kc")
    key, _, entry = store_one(cache)
    outside = tmp_path / "src"
    (outside / "pkg").mkdir(parents=True)
    (outside / "pkg" / "code.py").write_text("x = 1\n")
    (outside / key.digest).mkdir()
    (outside / key.digest / "entry.json").write_text("{}")
    if where == "retired":
        (cache.root / "retired").symlink_to(outside, target_is_directory=True)
    elif where == "v1":
        real = cache.root / "v1"
        real.rename(tmp_path / "v1_real")
        real.symlink_to(tmp_path / "v1_real", target_is_directory=True)
    else:
        (cache.root / "v1" / "zz").symlink_to(outside, target_is_directory=True)
    links = cache.links()
    assert links, "the link is found"
    assert cache_main(["cache", "verify", "--cache-dir", str(cache.root)]) == 1  # reported
    assert cache_main(["cache", "prune", "--cache-dir", str(cache.root)]) == 0
    assert (outside / "pkg" / "code.py").is_file() and (outside / key.digest / "entry.json").is_file()
    assert not any(p.is_symlink() for p in links), "the links themselves are removed"
    with pytest.raises(CacheError, match="behind the symbolic link"):
        (cache.root / "v1").mkdir(exist_ok=True)
        (cache.root / "v1" / "yy").symlink_to(outside, target_is_directory=True)
        cache.remove(cache.root / "v1" / "yy" / "pkg")


@pytest.mark.parametrize("where", ["folder", "lock_file"])
def test_a_symbolic_link_for_the_lock_files_is_refused(tmp_path, capsys, where):
    """A committed `kernels_cache/.locks -> elsewhere` was followed: lock files were created where it points.
    `.locks` and its lock files are plain, like an entry's files: a link is refused (CacheError, exit 1 for the
    command), nothing is written through it, and readers go on without it."""
    from pytest_kernelopt.cli_cache import main as cache_main

    cache = KernelCache(tmp_path / "kc")
    _, _, entry = store_one(cache)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "precious").write_text("keep me\n")
    locks = cache.root / ".locks"
    if where == "folder":
        shutil.rmtree(locks)
        locks.symlink_to(elsewhere, target_is_directory=True)
    else:
        (locks / f"{entry.digest}.lock").unlink(missing_ok=True)
        (locks / f"{entry.digest}.lock").symlink_to(elsewhere / "precious")
    with pytest.raises(CacheError, match="refusing to lock"):
        cache.retire(entry, "test")
    with pytest.raises(CacheError, match="refusing to lock"):
        cache.reaccept(entry, None, ENV)
    assert cache_main(["cache", "retire", entry.digest[:10], "--reason", "x", "--cache-dir", str(cache.root)]) == 1
    assert "refusing to lock" in capsys.readouterr().err
    assert sorted(p.name for p in elsewhere.iterdir()) == ["precious"] and \
        (elsewhere / "precious").read_text() == "keep me\n"
    assert cache.lookup(entry.key) is not None  # reading needs no lock file
    if where == "folder":
        with pytest.raises(CacheError, match="refusing to lock"):
            store_one(cache, "triton_poi_fused_1")
        assert sorted(p.name for p in elsewhere.iterdir()) == ["precious"]
