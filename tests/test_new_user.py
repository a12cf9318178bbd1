"""What a new user runs into (issue 15), through the public surface: the ``kernelopt`` command in a subprocess
and pytest runs through pytester.

An unreachable LLM endpoint is loud (llm_error=fail fails the test or the problem; warn warns), reports list what
failed, a bad problem file is an error, a module that raises gives its own frames and not the plugin's, optimize
mode on the CPU says why nothing is cached, the README's and docs' first examples run as written.
"""

from __future__ import annotations

import ast
import json
import os
import re
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]

# a long fused kernel name (triton_poi_fused_add_cos_exp_mul_relu_sigmoid_sin_tanh_0, 56 characters)
GOOD = textwrap.dedent('''
    import torch, torch.nn as nn

    class Model(nn.Module):
        def forward(self, x):
            return torch.relu(torch.sigmoid(torch.tanh(torch.sin(torch.cos(torch.exp(x * 2.0 + 1.0))))))

    def get_inputs():
        return [torch.randn(4, 16)]

    def get_init_inputs():
        return []
''')

TYPO = GOOD.replace("class Model(", "class Modle(")

RAISES = textwrap.dedent('''
    import torch, torch.nn as nn

    class Model(nn.Module):
        def forward(self, x):
            return self.helper(x)

        def helper(self, x):
            raise ValueError("my forward is broken")

    def get_inputs():
        return [torch.randn(4, 16)]

    def get_init_inputs():
        return []
''')

DEVICE_LINE = 'DEVICE = "cuda" if torch.cuda.is_available() else "cpu"'


@pytest.fixture(scope="module", autouse=True)
def _inductor_loaded(backend):
    """As in test_plugin.py: Inductor loaded once, outside pytester's sys.modules window."""
    import torch

    from pytest_kernelopt.capture import capture

    capture(lambda x: torch.softmax(x, -1), (torch.randn(2, 8, device=backend.device),), backend=backend)


def closed_port_url() -> str:
    """An OpenAI-compatible base URL on loopback where nothing listens (connection refused at once)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def kernelopt_cli(*argv: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    full = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""), **(env or {}))
    return subprocess.run([sys.executable, "-m", "pytest_kernelopt.cli", *argv], capture_output=True, text=True,
                          cwd=cwd, env=full, timeout=600)


# --------------------------------------------------------------------------- kernelopt bench


def test_bench_reports_bad_and_failing_problems_and_exits_1(tmp_path, backend):
    probs = tmp_path / "probs"
    probs.mkdir()
    (probs / "good.py").write_text(GOOD)
    (probs / "typo.py").write_text(TYPO)  # class Modle: used to be skipped without a word
    (probs / "raises.py").write_text(RAISES)
    (probs / "_helper.py").write_text("VALUE = 1\n")  # private helpers stay out, as in pytest's collector
    proc = kernelopt_cli("bench", "probs", "--no-cache", "--seeds", "2", "--report", "r.json", cwd=tmp_path)
    out = proc.stdout
    assert proc.returncode == 1, out + proc.stderr
    assert "3 problem(s)" in out
    assert "ERROR: ProblemFormatError:" in out and "typo.py: not a problem file: missing Model" in out
    assert "ModuleError: Model raised ValueError: my forward is broken" in out
    assert re.search(r'File ".*raises\.py", line \d+, in helper', out), out  # the user's frame ...
    assert "isolate_worker.py" not in out and "isolate.py" not in out and "Traceback" not in out  # ... not the worker's
    assert "2 of 3 problem(s) failed" in proc.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["meta"]["complete"] is False and report["meta"]["failed"] == 2
    failed = {Path(f["problem"]).name: f["error"] for f in report["failed"]}
    assert set(failed) == {"typo.py", "raises.py"}
    assert "missing Model" in failed["typo.py"] and "my forward is broken" in failed["raises.py"]
    (good,) = report["problems"]
    long_name = good["kernels"][0]["kernel"]
    assert len(long_name) > 48
    # the table cuts a long kernel name with an ellipsis (the report keeps it whole)
    row = next(ln for ln in out.splitlines() if ln.startswith("good "))
    assert long_name[:45] + "..." in row and long_name not in row
    if backend.name == "cpu":  # nothing measured: no made-up 1.000x
        assert good["speedup"] is None and good["measured"] is False
        assert "module speedup not measured" in out and "module speedups: not measured (good)" in out
        assert "1.000x" not in out and "geometric mean" not in out


def test_an_interrupted_bench_says_so_and_keeps_what_finished(tmp_path, monkeypatch, capsys):
    """Ctrl-C during ``kernelopt bench`` ended in raw tracebacks and no word of what had finished: the run says it
    was interrupted, shows and reports the problems that finished (``complete`` false, ``interrupted`` true) and
    exits 130.  (The problem file raises KeyboardInterrupt where a Ctrl-C would land; in this process, nothing
    isolated and nothing searched, so no worker starts.)"""
    from pytest_kernelopt.cli import main
    from pytest_kernelopt.report import META_KEYS

    probs = tmp_path / "probs"
    probs.mkdir()
    (probs / "a_good.py").write_text(GOOD)
    (probs / "b_interrupted.py").write_text("raise KeyboardInterrupt\n")
    (probs / "c_never.py").write_text(GOOD)
    monkeypatch.chdir(tmp_path)
    rc = main(["bench", "probs", "--no-cache", "--no-isolate", "--proposer", "none", "--report", "r.json"])
    out, err = capsys.readouterr()
    assert rc == 130, out + err
    assert "Traceback" not in out + err
    assert f"kernelopt bench: interrupted during {Path('probs') / 'b_interrupted.py'}; 1 of 3 problem(s) " \
           "finished (shown above, and in the report)" in err
    assert "report written to r.json (incomplete: interrupted)" in out and "c_never" not in out
    report = json.loads((tmp_path / "r.json").read_text())
    assert tuple(report["meta"])[:len(META_KEYS)] == META_KEYS and report["meta"]["report"] == "bench"
    assert report["meta"]["complete"] is False and report["meta"]["interrupted"] is True
    assert [p["name"] for p in report["problems"]] == ["a_good"] and report["settings"]["proposer"] == "none"


def test_a_worker_never_sees_the_terminals_ctrl_c():
    """A Ctrl-C reaches every process of the terminal's process group: a worker importing torch printed a
    traceback of its own beside the parent's.  Workers start with SIGINT blocked (interrupts.py); the parent
    handles the interrupt and ends them."""
    import multiprocessing as mp
    import signal
    import time

    from pytest_kernelopt.interrupts import workers_ignore_interrupts

    ctx = mp.get_context("spawn")
    proc = ctx.Process(target=time.sleep, args=(0.3,), daemon=True)
    with workers_ignore_interrupts():
        proc.start()
    os.kill(proc.pid, signal.SIGINT)
    proc.join(30)
    assert proc.exitcode == 0


def test_bench_with_an_unreachable_llm_fails_and_shows_the_whole_error(tmp_path):
    (tmp_path / "good.py").write_text(GOOD)
    env = {"OPENAI_BASE_URL": closed_port_url(), "OPENAI_API_KEY": "test", "NO_PROXY": "127.0.0.1",
           "no_proxy": "127.0.0.1"}
    # no retries: a refused connection is the same error after the SDK's backoff, only later
    args = ("bench", "good.py", "--no-cache", "--seeds", "2", "--proposer", "agents", "--model", "m",
            "--llm-retries", "0")
    proc = kernelopt_cli(*args, "--report", "r.json", cwd=tmp_path, env=env)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "the agents proposer could not run" in proc.stdout
    assert "APIConnectionError: Connection error." in proc.stdout  # whole, not cut to a table cell
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["meta"]["complete"] is False
    assert "APIConnectionError" in report["failed"][0]["error"]
    # llm_error=warn: the run passes, and says so
    proc = kernelopt_cli(*args, "--llm-error", "warn", cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "WARNING: good: the agents proposer could not run" in proc.stdout
    assert "APIConnectionError: Connection error." in proc.stdout


# --------------------------------------------------------------------------- pytest


LLM_TESTS = textwrap.dedent(f'''
    import pytest, torch

    {DEVICE_LINE}

    class Scale(torch.nn.Module):
        def forward(self, x):
            return torch.relu(x * 2 + 1)

    def test_fail(kernelopt):
        kernelopt(Scale(), (torch.randn(4, 16, device=DEVICE),), seeds=2)

    @pytest.mark.kernelopt(llm_error="warn", seeds=3)
    def test_warn(kernelopt):
        kernelopt(Scale(), (torch.randn(4, 16, device=DEVICE),), seeds=2)
''')


def test_an_unreachable_llm_fails_the_test_or_warns_and_the_summary_says_so(pytester, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", closed_port_url())
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    monkeypatch.setenv("no_proxy", "127.0.0.1")
    pytester.makepyfile(test_llm=LLM_TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--kernelopt", "--kernelopt-proposer=agents",
                                           "--kernelopt-model=m", "--kernelopt-cache-dir=kc",
                                           "--kernelopt-report=r.json", "--kernelopt-llm-retries=0")
    result.assert_outcomes(failed=1, passed=1)
    out = result.stdout.str()
    # the failure itself, the warning, and the summary
    assert "KernelOptFailure: the agents proposer could not run" in out and "APIConnectionError" in out
    assert "ProposerWarning: test_llm.py::test_warn: the agents proposer could not run" in out
    result.stdout.fnmatch_lines(["ERROR: test_llm.py::test_fail: the agents proposer could not run: *"
                                 "APIConnectionError*(the test failed: llm_error=fail)",
                                 "WARNING: test_llm.py::test_warn: the agents proposer could not run: *"
                                 "(the test passed with the compiled baseline: llm_error=warn)"])
    report = json.loads((pytester.path / "r.json").read_text())
    tests = {t["test"].split("::")[-1]: t for t in report["tests"]}
    assert tests["test_fail"]["outcome"] == "failed" and tests["test_warn"]["outcome"] == "passed"
    assert all("APIConnectionError" in t["proposer_errors"][0] for t in tests.values())
    # each test's own settings: the marker's llm_error and seeds, the fixture call's seeds over the marker's
    assert tests["test_fail"]["settings"]["llm_error"] == "fail" and tests["test_warn"]["settings"]["llm_error"] == "warn"
    assert tests["test_warn"]["settings"]["seeds"] == 2 and report["settings"]["llm_error"] == "fail"
    # the agents' transcripts: one plain folder per test (no "::" in a folder name)
    folders = [p.name for p in (pytester.path / ".kernelopt" / "transcripts").iterdir()]
    assert sorted(folders) == ["test_llm.py_test_fail", "test_llm.py_test_warn"], folders


BAD_TESTS = textwrap.dedent(f'''
    import torch

    {DEVICE_LINE}

    class Bad(torch.nn.Module):
        def forward(self, x):
            return self.helper(x)

        def helper(self, x):
            raise ValueError("fixture module is broken")

    def test_raises(kernelopt):
        kernelopt(Bad(), (torch.randn(4, 16, device=DEVICE),))

    def test_meta(kernelopt):
        kernelopt(torch.nn.ReLU(), (torch.randn(4, 16, device="meta"),))
''')


def test_a_module_that_raises_gives_its_own_frames_not_the_plugins(pytester):
    probs = pytester.mkdir("probs")
    (probs / "raises.py").write_text(RAISES)
    pytester.makepyfile(test_bad=BAD_TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--kernelopt-problems", "probs", "test_bad.py",
                                           "--kernelopt-report=r.json")
    result.assert_outcomes(failed=3)
    out = result.stdout.str()
    failures = out.split("= FAILURES =")[1].split("short test summary")[0]
    # the problem file: its error and its frames, a few lines (it was about 1,100: pytest, pluggy, the plugin)
    assert "Model raised ValueError: my forward is broken (in eager PyTorch too, so not a compile problem)" in out
    assert re.search(r'File ".*raises\.py", line \d+, in helper', failures)
    # the fixture: the test's line, then the module's frames
    assert "Bad raised ValueError: fixture module is broken" in out
    assert re.search(r'File ".*test_bad\.py", line \d+, in helper', failures)
    # meta tensors are an error, not a silent pass with 0 kernels
    assert "are on the 'meta' device, which has shapes but no data" in out
    for internal in ("pluggy", "_pytest", "pytest_kernelopt/", "torch/_dynamo", "DEBUG"):
        assert internal not in failures, (internal, failures)
    assert len(failures.splitlines()) < 80, failures
    # the JSON report has a record of each failed test, with its error
    report = json.loads((pytester.path / "r.json").read_text())
    errors = {t["test"].split("::")[-1]: t for t in report["tests"]}
    assert set(errors) == {"raises", "test_raises", "test_meta"}
    assert all(t["outcome"] == "failed" for t in errors.values())
    assert "my forward is broken" in errors["raises"]["error"] and "meta" in errors["test_meta"]["error"]
    result.stdout.fnmatch_lines(["FAILED before a kernelopt result: test_bad.py::test_raises: ModuleError: *"])


def test_optimize_mode_on_cpu_says_why_nothing_is_cached(pytester, backend):
    if backend.name != "cpu":
        pytest.skip("the CPU path")
    pytester.makepyfile(test_opt=textwrap.dedent('''
        import torch

        def test_scale(kernelopt):
            kernelopt(torch.nn.Softmax(-1), (torch.randn(4, 16),), seeds=2, max_candidates=1)
    '''))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--kernelopt", "--kernelopt-cache-dir=kc")
    result.assert_outcomes(passed=1)
    row = next(ln for ln in result.stdout.lines if ln.startswith("test_opt.py::test_scale"))
    # Triton kernels, optimized, kept, from cache, no cache entry: the searched kernel is "kept" only
    assert row.split()[1:6] == ["1", "0", "1", "0", "0"], row
    result.stdout.fnmatch_lines(["1 kernel(s) searched and checked for correctness only; nothing was written to "
                                 "the cache (*kc): without a GPU performance is not measured*"])
    assert not any((pytester.path / "kc").rglob("entry.json"))


def _python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_the_readme_usage_example_runs_here_without_the_cpu_backend_warning(pytester):
    readme = (ROOT / "README.md").read_text()
    example = _python_blocks(readme.split("## Using it in your tests")[1])[0]
    pytester.makepyfile(test_readme=example + textwrap.dedent('''

        def test_second_module(kernelopt):  # a second compile: torch's CPU-backend warning came from such loads
            x = torch.randn(4, 16, device=DEVICE)
            kernelopt(torch.nn.Softmax(-1), (x,), seeds=2)
    '''))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--kernelopt-cache-dir=kc")
    result.assert_outcomes(passed=2)
    assert "Could not find an active CPU backend" not in result.stdout.str() + result.stderr.str()


def test_the_shape_fuzzing_doc_example_runs_and_compiles_nothing_at_import(pytester):
    doc = (ROOT / "docs" / "shape-fuzzing.md").read_text()
    example = next(b for b in _python_blocks(doc) if "check_kernel_on_shapes(" in b)
    top_calls = [n for n in ast.parse(example).body if isinstance(n, (ast.Expr, ast.Assign))
                 and any(isinstance(c, ast.Call) and getattr(c.func, "id", "") in ("capture", "replacements_for")
                         for c in ast.walk(n))]
    assert not top_calls, "the example must capture inside the test, not when pytest imports it (pytest --co)"
    pytester.makepyfile(test_doc=example)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-s")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*candidate ran in * drawn example(s)*"])
