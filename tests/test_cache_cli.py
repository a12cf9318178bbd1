"""``kernelopt cache ...``: output and exit codes a CI job relies on."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import textwrap
import zlib
from dataclasses import replace
from pathlib import Path

import pytest

from pytest_kernelopt.cache import KernelCache
from pytest_kernelopt.cache_keys import CacheKey, Environment
from pytest_kernelopt.candidate import Candidate
from pytest_kernelopt.cli_cache import add_cache_parser, main, run_cache
from pytest_kernelopt.gates.results import CascadeResult, GateResult
from pytest_kernelopt.graph import TritonKernel

REPO = Path(__file__).resolve().parents[1]
GPU = Environment("2.11.0+cu128", "3.6.0", "12.8", "NVIDIA H200", "9.0", "cuda:sm90")
CPU = Environment("2.13.0+cpu", "3.7.1", None, None, None, "cpu")


def store(cache: KernelCache, name: str, env: Environment = GPU, kept: bool = False):
    src = (f"import triton\nimport triton.language as tl\n\n\n"
           f"@triton.jit\ndef {name}(in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr):\n"
           f"    x = tl.load(in_ptr0) * {zlib.crc32(name.encode())}\n")
    base = TritonKernel(name, src, "pointwise", "pointwise", ("in_ptr0", "out_ptr0", "xnumel", "XBLOCK"), {}, "x")
    key = CacheKey((base.content_hash,), ((8, 32),), ("float16",), env.device)
    if kept:
        return cache.store_baseline_kept(key, [base], problem_id=f"t::{name}", environment=env)
    cand = Candidate((name,), src.replace("* ", "*"), configs=({"XBLOCK": 128},), origin="tuner")
    perf = GateResult("performance", "pass", "", {"speedup": 1.25, "ci_low": 1.2, "ci_high": 1.3, "confidence": 0.95})
    result = CascadeResult((name,), cand.content_hash, (perf,), "accepted")
    return cache.store_accepted(key, cand, [base], result, problem_id=f"t::{name}", environment=env)


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="kernelopt")
    add_cache_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(list(argv))


def cli(capsys, root: Path, *argv: str, **kw) -> tuple[int, str, str]:
    rc = run_cache(parse("cache", "--cache-dir", str(root), *argv), **kw)
    out, err = capsys.readouterr()
    return rc, out, err


class Verdict:
    """A CascadeResult-like answer from a re-verification callback."""

    def __init__(self, decision: str, reason: str = "") -> None:
        self.decision, self.reason = decision, reason

    @property
    def accepted(self) -> bool:
        return self.decision == "accepted"


def test_list_shows_every_entry_and_corrupt_ones(tmp_path, capsys):
    cache = KernelCache(tmp_path)
    a, b = store(cache, "k_a"), store(cache, "k_b", kept=True)
    rc, out, _ = cli(capsys, tmp_path, "list")
    assert rc == 0
    assert a.digest[:12] in out and "1.250x" in out and "cuda:sm90" in out and "t::k_a" in out
    assert b.digest[:12] in out and "baseline_kept" in out
    (a.path / "entry.json").write_text("{")
    rc, out, _ = cli(capsys, tmp_path, "list")
    assert rc == 0 and "CORRUPT" in out and "1 corrupt" in out
    rc, out, _ = cli(capsys, tmp_path, "list", "--json")
    rows = json.loads(out)
    assert {r.get("decision", "corrupt") for r in rows} == {"baseline_kept", "corrupt"}


def test_show_by_prefix_and_its_errors(tmp_path, capsys):
    cache = KernelCache(tmp_path)
    a = store(cache, "k_a")
    rc, out, _ = cli(capsys, tmp_path, "show", a.digest[:8], "--source")
    assert rc == 0
    assert f'"digest": "{a.digest}"' in out and "===== kernel.py =====" in out and "*" in out
    rc, _, err = cli(capsys, tmp_path, "show", "zzzz")
    assert rc == 2 and "0 cache entries match" in err
    (a.path / "kernel.py").unlink()
    rc, out, _ = cli(capsys, tmp_path, "--cache-dir", str(tmp_path), "show", a.digest)
    assert rc == 1 and "CORRUPT: kernel.py is missing" in out


def test_retire_moves_one_entry_out_of_the_lookup_with_its_reason(tmp_path, capsys):
    cache = KernelCache(tmp_path)
    a, b = store(cache, "k_a"), store(cache, "k_b")
    rc, out, _ = cli(capsys, tmp_path, "retire", a.digest[:10], "--reason", "did not reproduce: 0.988x")
    assert rc == 0 and f"retired {a.digest[:12]}" in out
    assert cache.lookup(a.key) is None and cache.lookup(b.key) is not None
    (retired,) = cache.retired()
    assert json.loads((retired / "entry.json").read_text())["retired"]["reason"] == "did not reproduce: 0.988x"
    rc, _, err = cli(capsys, tmp_path, "retire", a.digest[:10], "--reason", "again")
    assert rc == 2 and "0 cache entries match" in err
    with pytest.raises(SystemExit):  # --reason is required: a retirement says why
        parse("cache", "retire", b.digest)


def test_verify_ok_stale_corrupt_and_other_devices(tmp_path, capsys):
    cache = KernelCache(tmp_path)
    store(cache, "k_gpu")
    store(cache, "k_cpu", env=CPU)
    judged = []

    def rejudge(entry):
        judged.append(entry.kernel_names[0])
        return Verdict("verified")

    rc, out, _ = cli(capsys, tmp_path, "verify", environment=GPU, rejudge=rejudge)
    assert rc == 0 and "1 ok" in out and "1 skipped" in out  # the cpu entry is not judged on a GPU machine
    assert judged == ["k_gpu"]
    rc, out, _ = cli(capsys, tmp_path, "verify", environment=GPU)  # nothing judges it: never "ok"
    assert rc == 1 and "NOT JUDGED" in out and "0 ok" in out and "1 not judged" in out

    newer = replace(GPU, torch="2.13.0+cu130")
    rc, out, err = cli(capsys, tmp_path, "verify", environment=newer)
    assert rc == 1 and "STALE" in out and "torch: recorded 2.11.0+cu128, now 2.13.0+cu130" in out
    assert "problems found" in err

    rc, out, _ = cli(capsys, tmp_path, "verify", "--any-device", environment=GPU)
    assert rc == 1 and "1 stale" in out and "device: recorded cpu, now cuda:sm90" in out

    bad = store(cache, "k_bad")
    (bad.path / "entry.json").write_text('{"schema_version": 99}')
    rc, out, _ = cli(capsys, tmp_path, "verify", environment=GPU, rejudge=rejudge)
    assert rc == 1 and "CORRUPT" in out and "unknown schema version 99" in out and "2 ok" not in out


def test_verify_reaccepts_or_retires_stale_entries_through_the_callback(tmp_path, capsys):
    cache = KernelCache(tmp_path)
    keep, drop, kept = store(cache, "k_keep"), store(cache, "k_drop"), store(cache, "k_kept", kept=True)
    unknown = store(cache, "k_unknown")
    now = replace(GPU, gpu_name="NVIDIA H100", triton="3.7.0")
    seen = []

    def reverify(entry):
        seen.append(entry.kernel_names[0])
        return {"k_keep": Verdict("accepted"), "k_drop": Verdict("rejected", "performance: 0.9x"),
                "k_kept": Verdict("baseline_kept"), "k_unknown": None}[entry.kernel_names[0]]

    rc, out, _ = cli(capsys, tmp_path, "verify", reverify=reverify, environment=now)
    assert sorted(seen) == ["k_drop", "k_keep", "k_kept", "k_unknown"]
    assert rc == 1  # one retired, one could not be re-verified
    assert "1 reaccepted" not in out and "2 reaccepted" in out and "1 retired" in out and "1 stale" in out

    refreshed = cache.lookup(keep.key)
    assert refreshed.stale_reasons(now) == [] and refreshed.environment == now
    assert refreshed.meta["history"][0]["previous_environment"] == GPU.to_json()
    assert refreshed.candidate() == keep.candidate()
    assert cache.lookup(kept.key).stale_reasons(now) == []
    assert cache.lookup(drop.key) is None
    (retired,) = cache.retired()
    note = json.loads((retired / "entry.json").read_text())["retired"]
    assert "rejected" in note["reason"] and "0.9x" in note["reason"]
    assert cache.lookup(unknown.key).stale_reasons(now) != []

    seen.clear()
    rc, out, _ = cli(capsys, tmp_path, "verify", reverify=reverify, environment=now)
    assert seen == ["k_unknown"] and rc == 1  # the rest are fresh now


def test_prune_removes_corrupt_retired_and_optionally_stale(tmp_path, capsys):
    cache = KernelCache(tmp_path)
    good, stale, corrupt, gone = (store(cache, n) for n in ("k_good", "k_stale", "k_corrupt", "k_gone"))
    (corrupt.path / "kernel.py").write_text("# tampered\n")
    cache.retire(gone, "test")
    current = replace(GPU, cuda="13.0")
    cache.reaccept(good, None, current)

    rc, out, _ = cli(capsys, tmp_path, "prune", "--stale", "--dry-run", environment=current)
    assert rc == 0 and "would remove 3 item(s)" in out
    assert corrupt.path.exists() and len(cache.retired()) == 1

    rc, out, _ = cli(capsys, tmp_path, "prune", environment=current)
    assert rc == 0 and "removed 2 item(s)" in out
    assert not corrupt.path.exists() and cache.retired() == [] and stale.path.exists()

    rc, out, _ = cli(capsys, tmp_path, "prune", "--stale", environment=current)
    assert rc == 0 and "stale: cuda: recorded 12.8, now 13.0" in out
    assert [e.kernel_names for e in cache.entries()] == [("k_good",)]


def test_export_json_and_tarball(tmp_path, capsys):
    cache = KernelCache(tmp_path / "kc")
    a, b = store(cache, "k_a"), store(cache, "k_b", kept=True)
    bad = store(cache, "k_bad")
    (bad.path / "entry.json").write_text("")

    rc, out, err = cli(capsys, tmp_path / "kc", "export", str(tmp_path / "bundle.json"))
    assert rc == 0 and "exported 2 entries" in out and "left out corrupt entry" in err
    bundle = json.loads((tmp_path / "bundle.json").read_text())
    by_digest = {e["digest"]: e for e in bundle["entries"]}
    assert set(by_digest) == {a.digest, b.digest}
    assert by_digest[a.digest]["files"]["kernel.py"] == (a.path / "kernel.py").read_text()
    assert by_digest[b.digest]["metadata"]["decision"] == "baseline_kept"

    rc, out, _ = cli(capsys, tmp_path / "kc", "export", str(tmp_path / "bundle.tar.gz"))
    assert rc == 0
    with tarfile.open(tmp_path / "bundle.tar.gz") as tar:
        names = set(tar.getnames())
        assert f"v1/{a.digest[:2]}/{a.digest}/kernel.py" in names
        assert f"v1/{b.digest[:2]}/{b.digest}/entry.json" in names
        assert not any(bad.digest in n for n in names)
        data = tar.extractfile(f"v1/{a.digest[:2]}/{a.digest}/entry.json").read().decode()
    assert data == (a.path / "entry.json").read_text()


def test_usage_errors_exit_2_and_every_option_has_help(tmp_path, capsys):
    rc, _, err = cli(capsys, tmp_path)
    assert rc == 2 and "choose a command" in err
    with pytest.raises(SystemExit) as e:
        parse("cache", "show")  # KEY missing
    assert e.value.code == 2
    with pytest.raises(SystemExit) as e:
        main(["cache", "frobnicate"])
    assert e.value.code == 2

    parser = argparse.ArgumentParser()
    cache_parser = add_cache_parser(parser.add_subparsers())
    subs = next(a for a in cache_parser._actions if isinstance(a, argparse._SubParsersAction))
    assert set(subs.choices) == {"list", "show", "verify", "prune", "retire", "export"}
    for p in [cache_parser, *subs.choices.values()]:
        for action in p._actions:
            if not isinstance(action, argparse._HelpAction):
                assert action.help, f"{p.prog}: {action.dest} has no help"


def test_cli_in_a_subprocess(tmp_path):
    cache = KernelCache(tmp_path)
    a, bad = store(cache, "k_a", env=CPU), store(cache, "k_bad", env=CPU)
    (bad.path / "entry.json").write_text("{not json")
    code = textwrap.dedent("""
        import sys
        from pytest_kernelopt.cli_cache import main
        sys.exit(main(sys.argv[1:]))
    """)
    run = lambda *argv: subprocess.run([sys.executable, "-c", code, "cache", *argv], capture_output=True,  # noqa: E731
                                       text=True, cwd=REPO, timeout=120)
    listed = run("--cache-dir", str(tmp_path), "list")
    assert listed.returncode == 0 and a.digest[:12] in listed.stdout and "CORRUPT" in listed.stdout
    verified = run("verify", "--cache-dir", str(tmp_path))
    assert verified.returncode == 1, verified.stdout + verified.stderr
    assert "CORRUPT" in verified.stdout and bad.digest[:12] in verified.stdout
    assert run("show", "--cache-dir", str(tmp_path)).returncode == 2


@pytest.mark.parametrize("command", ["list", "verify"])
def test_a_missing_cache_dir_is_an_error_not_an_empty_cache(tmp_path, command):
    """A mistyped --cache-dir in CI must not pass as "0 entries"."""
    missing = tmp_path / "no_such_cache"
    proc = subprocess.run([sys.executable, "-m", "pytest_kernelopt.cli", "cache", command, "--cache-dir", str(missing)],
                          capture_output=True, text=True, cwd=REPO, timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"the cache directory {missing} does not exist" in proc.stderr
    assert "0 entries" not in proc.stdout and not missing.exists()


def test_read_only_cache_commands_create_no_lock_folder(tmp_path, capsys):
    import shutil

    cache = KernelCache(tmp_path)
    a, bad = store(cache, "k_a", env=CPU), store(cache, "k_bad", env=CPU)
    (bad.path / "entry.json").write_text("{not json")  # a corrupt entry is read twice: the second time locked
    shutil.rmtree(tmp_path / ".locks")  # as a fresh checkout of a committed cache has it
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    rc, out, _ = cli(capsys, tmp_path, "list")
    assert rc == 0 and "CORRUPT" in out and a.digest[:12] in out
    rc, out, _ = cli(capsys, tmp_path, "verify", environment=CPU)
    assert rc == 1 and "CORRUPT" in out
    assert not (tmp_path / ".locks").exists()
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


@pytest.mark.parametrize("edit, why", [
    (lambda e: e["speedup"].update(value=9.99, ci=[9.5, 10.5]), "the recorded speedup is not its performance gate's"),
    (lambda e: next(g for g in e["cascade"]["gates"] if g["gate"] == "performance").update(status="fail"),
     "whose recorded performance gate did not pass (its status is 'fail')"),
    # the decision edited, not the gate: said as such (it read "its performance gate did not pass")
    (lambda e: e["cascade"].update(decision="rejected"), "whose recorded cascade decision is 'rejected', not "
                                                         "'accepted' (its gates passed: the decision in entry.json "
                                                         "was edited)"),
    (lambda e: e.update(decision="baseline_kept"), "entry.json's decision is 'baseline_kept', but it records an "
                                                   "accepted candidate and its cascade: the decision was edited"),
])
def test_an_accepted_entry_shows_only_its_performance_gates_speedup(tmp_path, capsys, edit, why):
    """Red team 17: a hand-edited entry.json (as a pull request could carry) showed 9.99x in list, show and verify
    while its recorded performance gate said the kernel was slower; verify passed it."""
    cache = KernelCache(tmp_path)
    entry = store(cache, "k_forged")
    rc, out, _ = cli(capsys, tmp_path, "list")
    assert rc == 0 and "1.250x" in out and "CORRUPT" not in out  # as stored: the gate's own figure
    meta = json.loads((entry.path / "entry.json").read_text())
    edit(meta)
    (entry.path / "entry.json").write_text(json.dumps(meta))
    for command in ("list", "verify"):
        rc, out, _ = cli(capsys, tmp_path, command, environment=GPU)
        assert "CORRUPT" in out and why in out and "9.990x" not in out, (command, out)
    assert rc == 1  # verify
    with pytest.warns(UserWarning, match=why.split("'")[0][:20]):
        assert KernelCache(tmp_path).lookup(entry.key) is None  # never served


def test_list_columns_line_up_under_their_headers(tmp_path, capsys):
    """The kernels and problem values ran past their headers (fixed widths narrower than the names)."""
    cache = KernelCache(tmp_path)
    store(cache, "triton_per_fused__softmax_add_mul_native_layer_norm_0")
    store(cache, "k_b", kept=True)
    bad = store(cache, "k_bad")
    (bad.path / "entry.json").write_text("{")
    rc, out, _ = cli(capsys, tmp_path, "list")
    assert rc == 0
    header, *rows, footer = out.splitlines()
    assert "3 entries" in footer and len(rows) == 3
    names = ["key", "decision", "speedup", "device", "kernels", "problem", "created"]
    starts = [header.index(n) for n in names]
    for row in rows:
        if "CORRUPT" in row:  # key and decision, then what is wrong
            assert row.index("CORRUPT") == starts[1] and "not valid JSON" in row
            continue
        for name, start, nxt in zip(names, starts, starts[1:] + [None]):
            cell = row[start:nxt]
            if name == "speedup":  # right-aligned under its header
                assert row[starts[2] + len("speedup") - 1] in "x-", row
            else:
                assert cell[:1] != " " and (nxt is None or cell.endswith("  ")), (name, row)
    assert any("t::triton_per_fused__softmax_add_mul_native_layer_norm_0" in r for r in rows)


def test_show_says_which_part_of_an_entry_does_not_match_its_candidate_hash(tmp_path, capsys):
    """Editing only candidate.configs[0].XBLOCK in entry.json was reported as "kernel.py does not match the
    recorded candidate hash", sending the user to a file nobody touched: the hash covers the configs too."""
    cache = KernelCache(tmp_path)
    entry = store(cache, "k_a")
    meta = json.loads((entry.path / "entry.json").read_text())
    meta["candidate"]["configs"][0]["XBLOCK"] = 256
    (entry.path / "entry.json").write_text(json.dumps(meta))
    rc, out, _ = cli(capsys, tmp_path, "show", entry.digest)
    assert rc == 1
    assert ("CORRUPT: the configs in entry.json were edited (they differ from those kernel.py's header recorded when "
            "the entry was written, with which the candidate matches its recorded hash)") in out

    # kernel.py edited, its header's configs line too (where a user sees the configs): kernel.py is named, not the
    # configs in entry.json (which nobody touched)
    other = store(cache, "k_b")
    kernel = other.path / "kernel.py"
    kernel.write_text(kernel.read_text().replace('"XBLOCK": 128', '"XBLOCK": 64') + "# an edit\n")
    rc, out, _ = cli(capsys, tmp_path, "show", other.digest, "--source")
    assert rc == 1
    assert ("CORRUPT: kernel.py was edited: its source (below the header) no longer matches the source hash "
            "entry.json records") in out
    # show says what the corrupt entry holds: its files, entry.json as on disk, and with --source kernel.py
    assert "files: baseline_0.py (" in out and "entry.json (" in out and "kernel.py (" in out
    assert "===== entry.json (as on disk) =====" in out and '"problem_id": "t::k_b"' in out
    assert "===== kernel.py (as on disk) =====" in out and "# an edit" in out

    # the launch in entry.json edited, kernel.py's source as recorded: entry.json is named
    third = store(cache, "k_c")
    meta = json.loads((third.path / "entry.json").read_text())
    meta["candidate"]["hash"] = "0" * 64
    (third.path / "entry.json").write_text(json.dumps(meta))
    rc, out, _ = cli(capsys, tmp_path, "show", third.digest)
    assert rc == 1 and "CORRUPT: entry.json was edited: kernel.py's source is as recorded" in out

    # an entry that records no source hash (written before it did): where nothing tells, both are named
    fourth = store(cache, "k_d")
    meta = json.loads((fourth.path / "entry.json").read_text())
    del meta["candidate"]["source_hash"]
    (fourth.path / "entry.json").write_text(json.dumps(meta))
    kernel = fourth.path / "kernel.py"
    kernel.write_text(kernel.read_text() + "# an edit\n")
    rc, out, _ = cli(capsys, tmp_path, "show", fourth.digest)
    assert rc == 1
    assert ("CORRUPT: the candidate (kernel.py's source with the configs and launch in entry.json) does not match "
            "the recorded candidate hash: kernel.py's source, the configs or launch, or the hash was edited") in out


def test_a_file_as_the_cache_dir_is_a_usage_error(tmp_path, capsys):
    afile = tmp_path / "afile"
    afile.write_text("")
    for command in ("list", "verify"):
        rc, out, err = cli(capsys, afile, command, environment=CPU)
        assert rc == 2 and out == ""
        assert (f"kernelopt cache {command}: the cache directory {afile} exists but is not a directory; give a "
                "directory with --cache-dir") in err


def test_entry_text_reaches_the_terminal_escaped(tmp_path, capsys):
    """Terminal control characters in an entry (its problem_id, kernel.py's header, which no hash covers) were
    printed raw by list, show and verify: an entry could erase its own line and print a fake verify summary.
    Every line these commands print is one line, with each control character escaped (cli_cache's rule)."""
    cache = KernelCache(tmp_path)
    e = store(cache, "k_esc")
    fake = "verify: 1 entries: 1 ok"
    meta = json.loads((e.path / "entry.json").read_text())
    meta["problem_id"] = f"t\x1b[2K\r{fake}\n{fake}\u202e\x07"
    (e.path / "entry.json").write_text(json.dumps(meta, indent=2, sort_keys=True))
    kernel = (e.path / "kernel.py").read_text()
    (e.path / "kernel.py").write_text(f"# \x1b]0;title\x07\x1b[1A\x1b[2K\r{fake}\n" + kernel)  # the header: unhashed
    outputs = []
    for argv, kw in ((("list",), {}), (("show", e.digest[:8], "--source"), {}),
                     (("verify",), {"environment": GPU, "rejudge": lambda entry: Verdict("verified")})):
        rc, out, err = cli(capsys, tmp_path, *argv, **kw)
        assert rc == 0, out + err
        outputs.append(out + err)
        for bad in ("\x1b", "\r", "\x07", "\u202e"):
            assert bad not in out + err, (argv, out)
        assert fake not in (out + err).splitlines(), (argv, out)  # no line of the entry's own
        assert "\\x1b[2K\\r" in out, (argv, out)  # shown, escaped
    assert "\\x1b]0;title\\x07" in outputs[1]  # show --source: the header's controls escaped, its lines kept
    assert "@triton.jit\n" in outputs[1]
    assert "verify: 1 entries: 1 ok, 0 stale" in outputs[2]


def test_output_into_a_pipe_closed_early_ends_quietly(tmp_path):
    """``kernelopt cache list | head -1``: the reader closes the pipe before the command writes.  The command ends
    with 141 (128 + SIGPIPE) and no traceback, where it printed a BrokenPipeError's (and ``capture`` counted it
    as a failed problem)."""
    cache = KernelCache(tmp_path / "kc")
    for i in range(3):
        store(cache, f"triton_poi_fused_{i}")
    proc = subprocess.Popen([sys.executable, "-m", "pytest_kernelopt.cli", "cache", "list", "--cache-dir",
                             str(tmp_path / "kc")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO)
    proc.stdout.close()  # before the command has imported anything, let alone written
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141, err
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
