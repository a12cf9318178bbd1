"""The pytest surface, through pytester: options, ini keys, marker, fixture modes, collector, reports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

pytest_plugins = ["pytester"]


# Runs that import torch go through runpytest_subprocess: an in-process pytester run removes the
# modules first imported inside it, and torch does not survive being imported twice in one process.


@pytest.fixture(scope="module", autouse=True)
def _inductor_loaded(backend):
    """pytester restores sys.modules after each test, dropping modules first imported during it; a capture
    here, before any pytester fixture exists, loads everything Inductor needs once, outside that window."""
    import torch

    from pytest_kernelopt.capture import capture

    capture(lambda x: torch.softmax(x, -1), (torch.randn(2, 8, device=backend.device),), backend=backend)


# the generated tests put their modules on the GPU where there is one: CPU tensors compile to C++ there
DEVICE_LINE = 'DEVICE = "cuda" if torch.cuda.is_available() else "cpu"'

MODULE_TEST = textwrap.dedent('''
    import pytest, torch

    {device_line}

    class Softmax(torch.nn.Module):
        def forward(self, x):
            return torch.softmax(x * 0.5, dim=-1)

    {marker}
    def test_softmax(kernelopt):
        x = torch.randn(4, 16, device=DEVICE)
        result = kernelopt(Softmax(), (x,){extra})
        torch.testing.assert_close(result.module(x), torch.softmax(x * 0.5, dim=-1))
        print("KERNELS", [(k.kernel, k.decision, k.source) for k in result.kernels])
        print("MODE", result.mode, "BACKEND", result.backend)
''')

GOOD_PROBLEM = textwrap.dedent('''
    import torch, torch.nn as nn

    class Model(nn.Module):
        def forward(self, x):
            return torch.relu(x * 2.0 + 1.0)

    def get_inputs():
        return [torch.randn(4, 16)]

    def get_init_inputs():
        return []
''')


def _write_test(pytester, marker: str = "", extra: str = "") -> None:
    pytester.makepyfile(test_mod=MODULE_TEST.format(marker=marker, extra=extra, device_line=DEVICE_LINE))


def test_help_lists_every_option_in_one_group(pytester):
    from pytest_kernelopt.config import FIELDS

    result = pytester.runpytest("--help")
    out = result.stdout.str()
    group = out.split("kernel optimization (pytest-kernelopt):")[1].split("\n\n")[0]
    for opt in ("--kernelopt ", "--kernelopt-mode", "--kernelopt-problems", "--kernelopt-perf", "--kernelopt-backend",
                "--kernelopt-cache-dir", "--kernelopt-seeds", "--kernelopt-min-speedup", "--kernelopt-report",
                "--kernelopt-model", "--kernelopt-proposer", "--kernelopt-budget", "--kernelopt-timeout"):
        assert opt in group, opt
    for name in FIELDS:
        assert f"kernelopt_{name} " in out or f"kernelopt_{name}\n" in out, name


def test_unused_plugin_imports_nothing_heavy_and_creates_no_folder(tmp_path):
    (tmp_path / "test_plain.py").write_text("def test_ok():\n    assert 1 + 1 == 2\n")
    code = ("import sys, pytest\n"
            "rc = pytest.main(['-q', '-p', 'no:cacheprovider', '-p', 'no:benchmark', 'test_plain.py'])\n"
            "print('HEAVY', sorted(m for m in ('torch', 'triton', 'openai') if m in sys.modules))\n"
            "print('LOADED', 'pytest_kernelopt.plugin' in sys.modules)\n"
            "sys.exit(rc)\n")
    # pytest-benchmark (another plugin) makes .benchmarks/ on every run; it is switched off to test ours
    before = {p.name for p in tmp_path.iterdir()}
    env = {"PYTHONDONTWRITEBYTECODE": "1", "PATH": "/usr/bin:/bin"}
    if os.environ.get("PYTHONPATH"):  # where the package is installed by --target (the GPU machine), not in a venv
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, env=env,
                          timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "HEAVY []" in proc.stdout
    assert "LOADED True" in proc.stdout, "the plugin must be active (entry point) for this check to mean anything"
    assert {p.name for p in tmp_path.iterdir()} == before


def test_help_is_fast_and_light():
    code = ("import sys, pytest\n"
            "try:\n    pytest.main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print('HEAVY', sorted(m for m in ('torch', 'triton', 'openai') if m in sys.modules))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          cwd="/")
    assert "HEAVY []" in proc.stdout, proc.stdout[-500:] + proc.stderr[-2000:]


def test_unknown_marker_keyword_is_an_error(pytester):
    _write_test(pytester, marker="@pytest.mark.kernelopt(seedz=3)")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*unknown @pytest.mark.kernelopt keyword(s) seedz*"])


def test_a_users_setting_mistake_shows_its_message_not_the_plugins_frames(pytester):
    """A new user saw the fixture's own source and ``plugin.py:115: UsageError`` for a misspelt marker keyword."""
    _write_test(pytester, marker="@pytest.mark.kernelopt(seedz=3)")
    out = pytester.runpytest_subprocess("-p", "no:cacheprovider").stdout.str()
    assert "pytest-kernelopt: unknown @pytest.mark.kernelopt keyword(s) seedz" in out
    assert "plugin.py" not in out and "def kernelopt(" not in out and "During handling" not in out, out[-3000:]


def test_an_unknown_ini_key_is_a_usage_error(pytester):
    """pytest only warns of an unknown ini key: a misspelt ``kernelopt_sedes`` left the seeds at their default."""
    _write_test(pytester)
    pytester.makeini("[pytest]\nkernelopt_sedes = 3\nkernelopt_seeds = 2\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()[-2000:]
    result.stderr.fnmatch_lines(["*unknown ini key(s) kernelopt_sedes*"])
    assert "kernelopt_seeds" not in result.stderr.str().split("ini keys are")[0]


def test_a_cache_dir_that_is_a_file_is_a_usage_error(pytester):
    _write_test(pytester)
    pytester.makefile(".txt", afile="not a cache")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--kernelopt-cache-dir=afile.txt")
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()[-2000:]
    result.stderr.fnmatch_lines(["*cache_dir *afile.txt exists but is not a directory*"])


def test_the_summary_names_the_proposer_and_an_unenforced_perf_gate(pytester, backend, monkeypatch):
    """The summary said neither which proposer searched (only the JSON report did) nor that ``--kernelopt-perf``
    on a machine without a GPU gates nothing: the run passed green.

    Every kernel searched left a ``kernelopt-kernels-*`` folder in the temporary directory, finished runs too: the
    search here loads candidates in this run's process and its workers, and none is left."""
    if backend.name != "cpu":
        pytest.skip("a machine without a GPU is what this is about")
    from torch._inductor.runtime.cache_dir_utils import cache_dir

    tmp = pytester.mkdir("tmp")
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", cache_dir())  # Inductor's cache stays warm where it was
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.delenv("KERNELOPT_KERNEL_DIR", raising=False)
    _write_test(pytester, marker="@pytest.mark.kernelopt(seeds=1, max_candidates=1)")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--kernelopt", "--kernelopt-perf",
                                           "--kernelopt-cache-dir=kc", "--junitxml=j.xml", "-o", "junit_family=xunit1")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["proposer: tuner; no LLM endpoint configured*the offline tuner runs",
                                 "WARNING: the whole-module performance gate*requested but not enforced*no GPU*"])
    assert "kernel(s) searched and checked for correctness only" in result.stdout.str()
    assert sorted(p.name for p in tmp.glob("kernelopt-kernels-*")) == []
    # xunit1: the test's own properties; a kernel kept where nothing was measured says so (it read
    # "baseline_kept (baseline)", as one measured and kept did)
    junit = (pytester.path / "j.xml").read_text()
    assert 'value="baseline_kept (baseline), not measured (no GPU)' in junit.split("<testcase", 1)[1], junit


def test_perf_where_nothing_can_be_measured_fails_when_asked_to(pytester, backend):
    """``--kernelopt-perf`` without a GPU passed with only a warning, and a CI job meant to gate performance could
    not make that a failure: ``perf_unmeasured=fail`` fails each test saying why, before anything is compiled (the
    default, warn, is test_the_summary_names_the_proposer_and_an_unenforced_perf_gate)."""
    if backend.measures_time:
        pytest.skip("needs a machine where performance is not measured")
    pytester.makeini("[pytest]\nkernelopt_perf_unmeasured = fail\n")
    pytester.makepyfile(test_perf=textwrap.dedent("""
        import torch

        def test_perf(kernelopt):
            kernelopt(torch.nn.Identity(), torch.randn(4, 8))
    """))
    (pytester.mkdir("probs") / "tiny.py").write_text(TINY_PROBLEM)
    result = pytester.runpytest(*QUICK, "--kernelopt-perf", "test_perf.py", "--kernelopt-problems=probs")
    result.assert_outcomes(failed=2)
    said = ("pytest-kernelopt: PerfUnmeasuredError: the performance gate (perf, --kernelopt-perf) was requested but "
            "performance cannot be measured here (CPU: *); perf_unmeasured=fail makes that a failure (warn only warns)")
    result.stdout.fnmatch_lines(["*_ test_perf _*", said, "*_ kernelopt problem tiny.py _*", said])
    assert "Traceback" not in result.stdout.str()
    # the summary names the backend chosen, not the setting's "auto", though no test produced a result
    result.stdout.fnmatch_lines(["backend: CPU: Inductor Triton code run by the Triton interpreter*; mode: verify"])


def test_the_cuda_backend_without_a_gpu_says_so_without_frames(pytester, backend, monkeypatch):
    if backend.name != "cpu":
        pytest.skip("needs a machine without a GPU")
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)  # as on a user's machine (this suite's CPU runs set it)
    _write_test(pytester)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--kernelopt-backend=cuda")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "NoGPUError: the cuda backend was requested but torch sees no CUDA GPU" in out
    assert "backends/__init__.py" not in out and "During handling" not in out, out[-3000:]


def test_unknown_fixture_keyword_is_an_error(pytester):
    _write_test(pytester, extra=", min_speed=2")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*unknown kernelopt() keyword(s) min_speed*"])


def test_a_suite_that_imports_triton_at_its_top_runs_on_the_cpu_and_is_reported_whole(pytester, backend,
                                                                                      monkeypatch):
    """A conftest and a test module that import ``triton`` and ``torch._inductor.config`` at their top made
    Triton's JIT functions before the plugin chose the interpreter (it did so after collection), and every
    kernelopt test of the session failed on a machine without a GPU: the backend's environment is set before
    conftests and test modules are imported.

    The same run is interrupted (a test raises KeyboardInterrupt where a Ctrl-C would land): an interrupted run
    wrote no report; it says it was interrupted and its report keeps what finished, with the ``meta`` bench's
    report has (``complete`` false, ``interrupted`` true)."""
    if backend.name != "cpu":
        pytest.skip("the interpreter is chosen only on a machine without a GPU")
    from pytest_kernelopt.report import META_KEYS

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)  # as on a user's machine (this suite's CPU runs set it)
    pytester.makeconftest("import triton\nimport triton.language as tl\n")
    pytester.makepyfile(test_mod="import torch._inductor.config\nimport triton\n"
                        + MODULE_TEST.format(marker="", extra="", device_line=DEVICE_LINE)
                        + "\n\ndef test_ctrl_c(kernelopt):\n    raise KeyboardInterrupt\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-s", "--kernelopt-cache-dir=kc",
                                           "--kernelopt-report=r.json")
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*MODE verify BACKEND cpu*", "*= pytest-kernelopt =*", "*test_mod.py::test_softmax*",
                                 "interrupted: 1 kernelopt result(s) finished, shown above and kept in the report "
                                 "r.json (complete: false)"])
    report = json.loads((pytester.path / "r.json").read_text())
    assert tuple(report["meta"])[:len(META_KEYS)] == META_KEYS and report["meta"]["report"] == "pytest"
    assert report["meta"]["complete"] is False and report["meta"]["interrupted"] is True
    assert [t["test"] for t in report["tests"]] == ["test_mod.py::test_softmax"]


def test_mode_off_is_inert(pytester, monkeypatch):
    """Mode off is a plain ``torch.compile`` for the fixture and for problem files alike: no interpreter, no cache,
    no capture; ``--kernelopt-report`` writes a report that lists no test.  (A problem file was judged and given
    its cached kernel on a GPU, and captured into the report on the CPU.)"""
    # the test does not call the module: mode off returns torch.compile's wrapper, which would compile the module
    # to C++ on its first call (what torch.compile does is not this plugin's to test, and it took half a minute);
    # the problem's forward has nothing for Inductor to compile, for the same reason
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    pytester.makepyfile(test_mod=textwrap.dedent('''
        import torch

        def test_softmax(kernelopt):
            result = kernelopt(torch.nn.Softmax(-1), (torch.randn(4, 16),))
            assert result.kernels == [] and result.regressions == []
            print("MODE", result.mode, "BACKEND", result.backend)
    '''))
    probs = pytester.mkdir("probs")
    (probs / "plain.py").write_text(textwrap.dedent('''
        import os, torch

        print("INTERPRETER AT IMPORT", os.environ.get("TRITON_INTERPRET"))

        class Model(torch.nn.Module):
            def forward(self, x):
                print("FORWARD RAN")
                return x

        def get_inputs():
            return [torch.randn(4, 16)]

        def get_init_inputs():
            return []
    '''))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-s", "--kernelopt-mode=off",
                                          "--kernelopt-cache-dir=cache_here", "--kernelopt-report=r.json",
                                          "test_mod.py", "--kernelopt-problems=probs")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*INTERPRETER AT IMPORT None*", "*MODE off BACKEND *", "*FORWARD RAN*"])
    out = result.stdout.str()
    assert "= pytest-kernelopt =" not in out and "kernelopt [" not in out, "an inert run reports nothing"
    assert not (pytester.path / "cache_here").exists()
    report = json.loads((pytester.path / "r.json").read_text())
    assert report["meta"]["mode"] == "off" and report["tests"] == []


def test_a_kernels_junit_property_tells_measured_from_not_measured():
    """A kernel kept after its candidates were timed and one that nothing timed both read "baseline_kept
    (baseline)": the value carries the nearest candidate's speedup, or says it was not measured."""
    from pytest_kernelopt.junit import kernel_value
    from pytest_kernelopt.records import KernelRecord

    timed = {"performance": {"measured": True, "speedup": 1.01, "ci_low": 0.99, "ci_high": 1.03}}
    kept = KernelRecord("k", 0, "pointwise", "baseline_kept", "baseline", numbers=timed, failed_gates=["performance"])
    assert kernel_value(kept, "cuda") == ("baseline_kept (baseline), nearest candidate 1.010x [0.990, 1.030]; "
                                          "failed gates: performance")
    untimed = KernelRecord("k", 0, "pointwise", "baseline_kept", "baseline", failed_gates=["correctness"])
    assert kernel_value(untimed, "cuda") == "baseline_kept (baseline), not measured; failed gates: correctness"
    assert kernel_value(KernelRecord("k", 0, "pointwise", "baseline_kept", "baseline"), "cpu") == \
        "baseline_kept (baseline), not measured (no GPU)"
    won = KernelRecord("k", 0, "pointwise", "accepted", "tuner", speedup=1.2, ci=(1.1, 1.3))
    assert kernel_value(won, "cuda") == "accepted (tuner) 1.200x [1.100, 1.300]"


def test_verify_mode_with_ini_marker_report_and_junit(pytester):
    pytester.makeini("[pytest]\nkernelopt_seeds = 2\nkernelopt_cache_dir = mycache\n")
    _write_test(pytester, marker="@pytest.mark.kernelopt(seeds=3, fp64_factor=1.5)")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-s", "--kernelopt-report=out/r.json",
                                          "--junitxml=out/j.xml")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*MODE verify BACKEND *", "*= pytest-kernelopt =*", "*test_mod.py::test_softmax*"])
    report = json.loads((pytester.path / "out" / "r.json").read_text())
    assert report["meta"]["mode"] == "verify" and report["settings"]["seeds"] == 2  # session settings: from ini
    assert report["settings"]["cache_dir"] == str(pytester.path / "mycache")  # relative: from the rootdir
    assert report["tests"][0]["test"].endswith("test_softmax")
    assert report["tests"][0]["triton_kernels"] == 1
    # one Triton kernel, nothing cached for it: the table says so and tells the user how to search it
    result.stdout.fnmatch_lines(["*test_mod.py::test_softmax*1*0*0*0*1*",
                                 "*1 Triton kernel(s) have no cache entry*pytest --kernelopt*"])
    # pytest's default junit family, xunit2, has no per-test properties (record_property warned): the test's
    # properties are the suite's, named by the test (junit.py)
    assert "incompatible with junit_family" not in result.stdout.str()
    junit = (pytester.path / "out" / "j.xml").read_text()
    assert '<property name="kernelopt_mode:test_mod.py::test_softmax" value="verify" />' in junit
    assert "<testcase" in junit and "<properties>" not in junit.split("<testcase", 1)[1]
    # the kernel with no cache entry has its property too, saying so
    (uncached,) = report["tests"][0]["uncached"]
    assert (f'<property name="kernelopt:test_mod.py::test_softmax:{uncached}" '
            'value="no cache entry (ran as Inductor compiled it)" />') in junit, junit


def test_problem_collector_reports_broken_files_alone(pytester):
    probs = pytester.mkdir("probs")
    (probs / "good.py").write_text(GOOD_PROBLEM)
    (probs / "not_a_problem.py").write_text("x = 1\n")
    (probs / "broken.py").write_text("import torch\nraise RuntimeError('boom at import')\n")
    (probs / "_helper.py").write_text("VALUE = 3\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--kernelopt-problems", str(probs),
                                          "--kernelopt-no-isolate", "--kernelopt-seeds=2")
    result.assert_outcomes(passed=1, errors=2)
    out = result.stdout.str()
    assert "missing Model, get_inputs, get_init_inputs" in out
    assert "failed to import: RuntimeError: boom at import" in out
    assert "_helper" not in out.split("short test summary")[0].split("collected")[1].split("\n")[0]


# an in-process run without the plugins that import a package afresh every run (hypothesis' summary: 1-2 s a run)
QUICK = ("-p", "no:cacheprovider", "-p", "no:benchmark", "-p", "no:hypothesispytest")
TINY_PROBLEM = "class Model:\n    pass\n\ndef get_inputs():\n    return []\n\ndef get_init_inputs():\n    return []\n"


def test_problem_paths_are_collection_targets_as_test_paths_are(pytester):
    """``--kernelopt-problems`` without a test path dropped the normal test collection without a word.  The rule:
    problem paths are collection targets as test paths are; named beside test paths both are collected, alone they
    take the place of testpaths and the current directory (as ``pytest probs/`` would), and the header says so."""
    pytester.makeini("[pytest]\ntestpaths = tests\n")
    (pytester.mkdir("tests") / "test_plain.py").write_text("def test_plain():\n    pass\n")
    (pytester.mkdir("probs") / "tiny.py").write_text(TINY_PROBLEM)
    alone = pytester.runpytest(*QUICK, "--collect-only", "--kernelopt-problems=probs")
    assert alone.ret == 0
    alone.stdout.fnmatch_lines(["kernelopt: only the problem files are collected (--kernelopt-problems without a "
                                "test path; name test paths too to run both)", "*<ProblemItem tiny>*"])
    assert "test_plain" not in alone.stdout.str()
    both = pytester.runpytest(*QUICK, "--collect-only", "tests", "--kernelopt-problems=probs")
    both.stdout.fnmatch_lines(["*<Function test_plain>*", "*<ProblemItem tiny>*"])
    assert "only the problem files" not in both.stdout.str()


def test_one_rule_says_which_files_of_a_problem_folder_are_problems(pytester):
    """A helper module in a problem folder was an error ("not a problem file") while ``_scale.py`` was skipped, and
    no rule said so; ``kernelopt bench`` also skipped ``test_*.py`` and hidden folders where pytest's collector took
    them for problems.  One rule (problems.NOT_PROBLEMS) for both; the error names it."""
    from pytest_kernelopt.problems import find_problem_files

    probs = pytester.mkdir("probs")
    for name, text in {"tiny.py": TINY_PROBLEM, "_helpers.py": "VALUE = 1\n", "helpers.py": "VALUE = 1\n",
                       "test_checks.py": "def test_checks():\n    pass\n", "conftest.py": "",
                       ".hidden/tiny.py": TINY_PROBLEM, "sub/other.py": TINY_PROBLEM}.items():
        (probs / name).parent.mkdir(exist_ok=True)
        (probs / name).write_text(text)
    assert [p.relative_to(probs).as_posix() for p in find_problem_files([probs])] == ["helpers.py", "sub/other.py",
                                                                                       "tiny.py"]
    result = pytester.runpytest(*QUICK, "--collect-only", "probs", "--kernelopt-problems=probs")
    result.stdout.fnmatch_lines(["*<ProblemItem other>*", "*<Function test_checks>*", "*<ProblemItem tiny>*",
                                 "*helpers.py: not a problem file: missing Model, get_inputs, get_init_inputs*a "
                                 "helper module of a problem folder is named _*.py, and is then no problem*"])
    out = result.stdout.str()
    assert "_helpers" not in out and ".hidden" not in out and "<ProblemItem test_checks>" not in out


def test_problem_collector_with_isolation(pytester):
    probs = pytester.mkdir("probs")
    (probs / "good.py").write_text(GOOD_PROBLEM)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--kernelopt-problems", str(probs),
                                          "--kernelopt-seeds=2", "--kernelopt-report=r.json")
    result.assert_outcomes(passed=1)
    report = json.loads((pytester.path / "r.json").read_text())
    assert report["tests"][0]["test"].endswith("good.py::good")


def test_a_problem_path_with_no_problem_file_is_a_usage_error_saying_so(pytester):
    """A missing path is a usage error; a folder with no problem file ran nothing ("no tests ran", exit 5) without
    a word: it is a usage error too, saying what ``kernelopt bench`` says."""
    pytester.mkdir("empty")
    (pytester.mkdir("helpers_only") / "_scale.py").write_text("SCALE = 1\n")
    for path, said in (("nowhere", "no such file or directory: nowhere"),
                       ("empty", "no problem files (*.py) under empty (not problems: helpers (_*.py), tests "
                                 "(test_*.py), conftest.py, and files in hidden or __pycache__ folders)"),
                       ("helpers_only", "no problem files (*.py) under helpers_only")):
        result = pytester.runpytest("-p", "no:cacheprovider", "--kernelopt-problems", path)
        assert result.ret == pytest.ExitCode.USAGE_ERROR, path
        result.stderr.fnmatch_lines([f"*--kernelopt-problems: {said}*"])


def _seed_cache(cache_dir, backend, edit):
    """Store a cache entry for the Softmax kernel, as an optimize run on this device would."""
    import torch

    from pytest_kernelopt.cache import KernelCache
    from pytest_kernelopt.candidate import Candidate
    from pytest_kernelopt.capture import capture
    from pytest_kernelopt.gates.results import CascadeResult, GateResult
    from pytest_kernelopt.problems import input_signature
    from pytest_kernelopt.workflow import cache_key, device_key

    class Softmax(torch.nn.Module):
        def forward(self, x):
            return torch.softmax(x * 0.5, dim=-1)

    x = torch.randn(4, 16, device=backend.device)
    cap = capture(Softmax(), (x,), backend=backend)
    g = cap.graphs[0]
    (name,) = g.kernels
    cand = Candidate((name,), edit(g.kernels[name].source), origin="tuner")
    perf = GateResult("performance", "pass", "recorded", {"speedup": 1.2, "ci_low": 1.1, "ci_high": 1.3,
                                                           "measured": True})
    res = CascadeResult((name,), cand.content_hash, (GateResult("static", "pass"), GateResult("correctness", "pass"),
                                                    GateResult("fp64", "pass"), perf), "accepted", "tuner")
    key = cache_key(g, (name,), input_signature((x,)), device_key(backend))
    KernelCache(cache_dir).store_accepted(key, cand, [g.kernels[name]], res, problem_id="test_mod.py::test_softmax")
    return name


def test_cached_kernel_is_reverified_and_applied(pytester, backend):
    same = lambda src: src.replace("tl.store(", "tl.store(", 1)  # noqa: E731  (an equivalent kernel)
    name = _seed_cache(pytester.path / "kc", backend, same)  # judged in a worker first, then applied
    _write_test(pytester, marker="@pytest.mark.kernelopt(seeds=2)")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-s", "--kernelopt-cache-dir=kc")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([f"*KERNELS*('{name}', 'cached', 'cache')*"])
    row = next(ln for ln in result.stdout.lines if ln.startswith("test_mod.py::test_softmax"))
    assert row.split()[1:6] == ["1", "0", "0", "1", "0"], row  # kernels, optimized, kept, from cache, no entry
    assert "have no cache entry" not in result.stdout.str()
    # the entry made unusable: its kernel runs as if it had none, and the summary says an entry was ignored
    (entry_json,) = (pytester.path / "kc").glob("v*/*/*/entry.json")
    entry_json.write_text("{not json")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-s", "--kernelopt-cache-dir=kc")
    result.assert_outcomes(passed=1)
    row = next(ln for ln in result.stdout.lines if ln.startswith("test_mod.py::test_softmax") and len(ln.split()) > 5)
    assert row.split()[1:6] == ["1", "0", "0", "0", "1"], row
    result.stdout.fnmatch_lines(["1 cache entry could not be used and was ignored (counted as no cache entry): "
                                 f"*{entry_json.parent.name}: entry.json is not valid JSON*kernelopt cache verify*"])


def test_cached_kernel_that_fails_a_gate_fails_the_test_with_numbers(pytester, backend):
    def plus(src):
        line = next(ln for ln in src.splitlines() if "tl.store(" in ln)
        value = line.split(",")[1].strip()
        return src.replace(line, line.replace(f", {value},", f", {value} + 0.01,"))

    _seed_cache(pytester.path / "kc", backend, plus)
    _write_test(pytester)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--kernelopt-cache-dir=kc", "--kernelopt-seeds=2")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "cached kernel for" in out and "fp64 gate failed" in out
    assert "thresholds: factor=1.0" in out


CLI_VALUES = {"--kernelopt-backend": ("backend", "cpu"), "--kernelopt-cache-dir": ("cache_dir", "kc2"),
              "--kernelopt-seeds": ("seeds", 2), "--kernelopt-min-speedup": ("min_speedup", 1.07),
              "--kernelopt-timeout": ("timeout", 77.0), "--kernelopt-budget": ("problem_time_budget", 33.0),
              "--kernelopt-proposer": ("proposer", "none"), "--kernelopt-model": ("model", "some-model"),
              "--kernelopt-perf-regression": ("perf_regression", 0.2)}


def test_every_command_line_option_reaches_the_settings(pytester, backend):
    if backend.name != "cpu":
        pytest.skip("forces the cpu backend")
    _write_test(pytester)
    args = [f"{opt}={val}" for opt, (_, val) in CLI_VALUES.items()]
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--kernelopt-report=r.json", "--kernelopt-perf",
                                           "--kernelopt-strict-cache", "--kernelopt-no-isolate",
                                           "--kernelopt-mode=verify", *args)
    result.assert_outcomes(passed=1)
    settings = json.loads((pytester.path / "r.json").read_text())["settings"]
    for opt, (name, val) in CLI_VALUES.items():  # a relative cache_dir is taken from the rootdir
        assert settings[name] == (str(pytester.path / val) if name == "cache_dir" else val), opt
    assert settings["perf"] is True and settings["strict_cache"] is True and settings["isolate"] is False
    assert settings["report"] == "r.json" and settings["mode"] == "verify"
    # --kernelopt-perf without a GPU says the regression gate could not run, it does not pass silently
    report = json.loads((pytester.path / "r.json").read_text())
    assert report["tests"][0]["perf"]["measured"] is False
    assert "could not run" in report["tests"][0]["perf"]["note"]
    header = next(ln for ln in result.stdout.lines if ln.startswith("test ") and "module now" in ln)
    row = next(ln for ln in result.stdout.lines if ln.startswith("test_mod.py::test_softmax"))
    assert row[header.index("module now")] == "-", (header, row)  # not measured without a GPU


def test_xdist_workers_share_the_cache(pytester, backend):
    pytest.importorskip("xdist")
    name = _seed_cache(pytester.path / "kc", backend, lambda src: src.replace("tl.store(", "tl.store(", 1))
    body = MODULE_TEST.format(marker="", extra="", device_line=DEVICE_LINE)
    pytester.makepyfile(test_a=body, test_b=body)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2", "--kernelopt-cache-dir=kc",
                                           "--kernelopt-seeds=2", "--kernelopt-report=r.json")
    result.assert_outcomes(passed=2)
    assert not list((pytester.path / "kc").rglob(".tmp-*"))
    # both workers applied the cached kernel; the controller's summary and report hold both tests
    report = json.loads((pytester.path / "r.json").read_text())
    assert sorted(t["test"].split("::")[0] for t in report["tests"]) == ["test_a.py", "test_b.py"]
    for t in report["tests"]:
        assert [(k["kernel"], k["decision"]) for k in t["kernels"]] == [(name, "cached")]
    result.stdout.fnmatch_lines(["*= pytest-kernelopt =*", "*test_a.py::test_softmax*"])


def test_fixture_optimize_mode_runs_candidates_in_a_worker(pytester, backend):
    _write_test(pytester, marker="@pytest.mark.kernelopt(seeds=2, max_candidates=1)")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-s", "--kernelopt", "--kernelopt-cache-dir=kc",
                                           "--kernelopt-report=r.json")
    result.assert_outcomes(passed=1)
    out = result.stdout.str()
    assert "searching them in a worker process" in out, out[-3000:]
    # where the search's time went, per kernel: the isolated judge's waits for its workers among it
    (test,) = json.loads((pytester.path / "r.json").read_text())["tests"]
    phases = [k["phases"] for k in test["kernels"]]
    assert phases and all(p["gates"] > 0 and p["worker_starts"] >= 0 for p in phases), phases  # 0: a spare was ready
    # and its other activities, parts of the gates' time.  The tuner's candidates carry no code of their own: the
    # clean worker judges them where their records are (gates/provenance.py), so this process collects no float64
    # truth and takes no statistics; what it reads from the worker is the verdicts
    assert all(p["truths"] == 0 and p["judging"] == 0 and 0 <= p["transfer"] <= p["gates"] + 0.02
               for p in phases), phases
    # none overlaps another: on the CPU every second of them is the gates' (nothing is screened)
    assert all(p["worker_starts"] + p["truths"] + p["transfer"] + p["judging"] <= p["gates"] + 0.05
               for p in phases), phases
    assert "evaluating in this process" not in out and "does not pickle" not in out, out[-3000:]
    assert "MODE optimize" in out
    if backend.name == "cpu":
        assert "'baseline_kept', 'baseline'" in out  # nothing is accepted for speed without a GPU
        assert "performance was not measured" in out
        assert not any((pytester.path / "kc").rglob("entry.json")), "a CPU run must not write cache decisions"
    else:  # the tuner searched on the GPU: it kept the baseline or a measured winner
        assert "'baseline_kept', 'baseline'" in out or "'accepted', 'tuner'" in out, out[-3000:]


def test_two_kernelopt_calls_in_one_test_have_a_row_each(pytester, backend):
    """Red team 16: two kernelopt() calls in one test printed two identical rows under the same node id."""
    if backend.name != "cpu":
        pytest.skip("checks the summary's bookkeeping")
    pytester.makepyfile(test_two=textwrap.dedent('''
        import torch

        def test_two(kernelopt):
            x = torch.randn(4, 16)
            a = kernelopt(torch.nn.ReLU(), (x,), seeds=1)
            b = kernelopt(torch.nn.Tanh(), (x,), seeds=1)
            torch.testing.assert_close(a.module(x), torch.relu(x))
            torch.testing.assert_close(b.module(x), torch.tanh(x))
    '''))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--kernelopt-no-isolate",
                                           "--kernelopt-cache-dir=kc", "--kernelopt-report=r.json")
    result.assert_outcomes(passed=1)
    assert sum("[call 2]" in ln for ln in result.stdout.lines) == 1, result.stdout.str()[-3000:]
    tests = json.loads((pytester.path / "r.json").read_text())["tests"]
    assert [(t["test"], t["outcome"]) for t in tests] == [("test_two.py::test_two", "passed"),
                                                           ("test_two.py::test_two [call 2]", "passed")]


def test_fixture_with_an_unpicklable_module_says_it_is_not_isolated(pytester, backend):
    if backend.name != "cpu":
        pytest.skip("checks the CPU path")
    pytester.makepyfile(test_local=textwrap.dedent('''
        import torch

        def test_local(kernelopt):
            class Local(torch.nn.Module):  # a local class cannot be pickled by reference
                def forward(self, x):
                    return torch.relu(x * 2 + 1)
            x = torch.randn(4, 16)
            result = kernelopt(Local(), (x,), seeds=2, max_candidates=1)
            torch.testing.assert_close(result.module(x), torch.relu(x * 2 + 1))
    '''))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--kernelopt", "--kernelopt-cache-dir=kc")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*does not pickle, so candidates are evaluated in this process (no isolation)*"])


def test_results_go_into_pytest_benchmark_storage(pytester, monkeypatch):
    # when this suite itself runs under xdist, the inner run must not look like an xdist worker to
    # pytest-benchmark (a worker leaves saving to its controller)
    for var in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
        monkeypatch.delenv(var, raising=False)
    pytester.makepyfile(test_bm=textwrap.dedent('''
        import torch

        DEVICE = "cuda" if torch.cuda.is_available() else "cpu"

        def test_bm(kernelopt, benchmark):
            x = torch.randn(4, 16, device=DEVICE)
            result = kernelopt(torch.nn.Softmax(-1), (x,), seeds=2)
            out = result.benchmark(benchmark, x, rounds=2, warmup_rounds=0)
            torch.testing.assert_close(out, torch.softmax(x, -1))
    '''))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--benchmark-autosave",
                                           "--benchmark-storage=file://./bm")
    result.assert_outcomes(passed=1)
    saved = list((pytester.path / "bm").rglob("*.json"))
    assert len(saved) == 1
    bench = json.loads(saved[0].read_text())["benchmarks"][0]
    assert bench["name"] == "test_bm" and bench["stats"]["rounds"] == 2
    assert "kernelopt_kernels" in bench["extra_info"] and bench["extra_info"]["kernelopt_backend"] in ("cpu", "cuda")


def test_cpu_tensors_on_a_gpu_are_warned_about(pytester, backend):
    if backend.name != "cuda":
        pytest.skip("on the CPU backend, CPU tensors are what Inductor generates Triton code for")
    pytester.makepyfile(test_mod=MODULE_TEST.format(marker="", extra="", device_line='DEVICE = "cpu"'))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--kernelopt-cache-dir=kc")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*DeviceWarning*the inputs are CPU tensors*no Triton kernel*move the module*"])


def test_a_problem_too_large_for_the_interpreter_is_a_clear_error(pytester, backend):
    if backend.name != "cpu":
        pytest.skip("the CPU interpreter's size guard")
    probs = pytester.mkdir("probs")
    (probs / "huge.py").write_text(GOOD_PROBLEM.replace("torch.randn(4, 16)", "torch.randn(4096, 4096)"))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--kernelopt-problems", str(probs))
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*16,777,216 elements, too many for the CPU backend*"])


def test_training_through_the_marker_checks_the_backward_graph(pytester):
    pytester.makepyfile(test_train=textwrap.dedent('''
        import pytest, torch

        DEVICE = "cuda" if torch.cuda.is_available() else "cpu"

        @pytest.mark.kernelopt(training=True, seeds=2, max_candidates=1)
        def test_train(kernelopt):
            torch.manual_seed(0)
            m = torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.GELU(), torch.nn.LayerNorm(16)).to(DEVICE)
            x = torch.randn(4, 16, requires_grad=True, device=DEVICE)
            result = kernelopt(m, (x,))
            out = result.module(x)
            out.sum().backward()
            assert x.grad is not None and torch.isfinite(x.grad).all()
    '''))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--kernelopt", "--kernelopt-cache-dir=kc",
                                           "--kernelopt-report=r.json")
    result.assert_outcomes(passed=1)
    report = json.loads((pytester.path / "r.json").read_text())
    kernels = [k["kernel"] for k in report["tests"][0]["kernels"]]
    assert any("backward" in k for k in kernels), kernels  # the backward graph's kernels were searched too
    assert {k["decision"] for k in report["tests"][0]["kernels"]} <= {"baseline_kept", "accepted"}
