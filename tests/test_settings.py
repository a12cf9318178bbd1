"""Settings through the public surface: one table (config.FIELDS) behind every option, ini key, marker keyword
and `kernelopt` flag, and every value checked, whatever its source, with an error that names it.

The pytest runs here stop at configuration or fixture setup, before anything imports torch, so they run
in-process (pytester.runpytest) and take a fraction of a second each.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_kernelopt.config import FIELDS, Settings, options_table

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parent.parent

# a conftest that prints the settings the plugin resolved (the harness's, after ini keys and options)
SHOW_SETTINGS = '''
import dataclasses, json
from pytest_kernelopt.collector import HARNESS_KEY

def pytest_report_header(config):
    return "SETTINGS " + json.dumps(dataclasses.asdict(config.stash[HARNESS_KEY].settings))
'''

# a valid value, different from the default, for every setting
VALUES = {"mode": "optimize", "backend": "cpu", "compile_mode": "max-autotune-no-cudagraphs", "cache_dir": "kc", "strict_cache": True, "seeds": 3,
          "verify_seeds": 2, "base_seed": 7, "rtol": 0.001, "atol": 0.002, "tiny_output_factor": 5.0,
          "tiny_rel_tol": 0.01, "fp64_factor": 1.5, "fp64_max_gib": 2.0, "min_speedup": 1.1, "perf_samples": 12,
          "perf_max_samples": 24, "perf_max_seconds": 5.0, "perf_warmup": 2, "confidence": 0.9, "perf_regression": 0.1, "isolate": False,
          "timeout": 99.0, "max_candidates": 3, "max_turns": 2, "kernel_time_budget": 11.0,
          "problem_time_budget": 22.0, "run_time_budget": 33.0, "max_tokens": 1000, "proposer": "tuner",
          "model": "m1", "llm_error": "warn", "llm_retries": 1, "llm_timeout": 30.0, "training": True, "ncu": False, "report": "r.json", "perf": True,
          "perf_unmeasured": "fail", "shard": "1/1"}


def _settings_shown(result) -> dict:
    line = next(ln for ln in result.stdout.lines if ln.startswith("SETTINGS "))
    return json.loads(line[len("SETTINGS "):])


def _flag(name: str, value) -> list[str]:
    if isinstance(value, bool):
        return [FIELDS[name].option if value else f"--kernelopt-no-{name.replace('_', '-')}"]
    return [f"{FIELDS[name].option}={value}"]


def test_the_table_covers_every_setting():
    import dataclasses

    assert list(FIELDS) == [f.name for f in dataclasses.fields(Settings)]
    assert set(VALUES) == set(FIELDS), "a new setting needs a value here (and is then tested from every source)"
    Settings().validate()  # the defaults are within their own ranges


def test_every_setting_is_reachable_from_the_pytest_command_line(pytester):
    pytester.makeconftest(SHOW_SETTINGS)
    pytester.makepyfile(test_plain="def test_ok():\n    pass\n")
    args = [a for name, value in VALUES.items() for a in _flag(name, value)]
    result = pytester.runpytest("-p", "no:cacheprovider", *args, "--co")
    shown = _settings_shown(result)
    for name, value in VALUES.items():
        expected = str(pytester.path / value) if name == "cache_dir" else value
        assert shown[name] == expected, name


def test_every_ini_key_and_the_command_line_over_it(pytester):
    pytester.makeconftest(SHOW_SETTINGS)
    pytester.makepyfile(test_plain="def test_ok():\n    pass\n")
    pytester.makeini("[pytest]\n" + "".join(f"kernelopt_{k} = {str(v).lower() if isinstance(v, bool) else v}\n"
                                            for k, v in VALUES.items()))
    shown = _settings_shown(pytester.runpytest("-p", "no:cacheprovider", "--co"))
    for name, value in VALUES.items():
        assert shown[name] == (str(pytester.path / value) if name == "cache_dir" else value), name
    # the command line wins over the ini file, booleans both ways
    shown = _settings_shown(pytester.runpytest("-p", "no:cacheprovider", "--co", "--kernelopt-seeds=4",
                                               "--kernelopt-isolate", "--kernelopt-no-perf", "--kernelopt-budget=5"))
    assert (shown["seeds"], shown["isolate"], shown["perf"], shown["problem_time_budget"]) == (4, True, False, 5.0)


@pytest.mark.parametrize("key, value, allowed", [
    ("backend", "gpu", "one of auto, cuda, cpu"),
    ("seeds", "three", "an integer >= 1"),
    ("min_speedup", "-1", "a number > 0"),
    ("timeout", "0", "a number > 0"),
    ("problem_time_budget", "-5", "a number >= 0"),
    ("perf_regression", "2", "a number >= 0 and < 1"),
    ("proposer", "gpt", "one of auto, agents, tuner, none"),
    ("isolate", "flase", "true or false"),
    ("confidence", "nan", "a number >= 0.5 and < 1"),
])
def test_an_invalid_ini_value_is_a_usage_error_naming_the_key(pytester, key, value, allowed):
    pytester.makeini(f"[pytest]\nkernelopt_{key} = {value}\n")
    pytester.makepyfile(test_plain="def test_ok():\n    pass\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert f"ini key kernelopt_{key}: {value!r} is not allowed; expected {allowed}" in err, err
    assert "INTERNALERROR" not in err + result.stdout.str() and "Traceback" not in err


@pytest.mark.parametrize("option, value, allowed", [
    ("--kernelopt-backend", "gpu", "one of auto, cuda, cpu"),
    ("--kernelopt-seeds", "0", "an integer >= 1"),
    ("--kernelopt-budget", "-5", "a number >= 0"),
    ("--kernelopt-perf-regression", "1", "a number >= 0 and < 1"),
    ("--kernelopt-shard", "3/2", "K/N with 1 <= K <= N, or none"),
])
def test_an_invalid_option_is_a_usage_error_naming_it(pytester, option, value, allowed):
    pytester.makepyfile(test_plain="def test_ok():\n    pass\n")
    result = pytester.runpytest("-p", "no:cacheprovider", f"{option}={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert f"{value!r} is not allowed; expected {allowed}" in result.stderr.str()
    assert option in result.stderr.str()  # the name typed, where it is an alias too (--kernelopt-budget)


MARKED = '''
import pytest

@pytest.mark.kernelopt({keywords})
def test_marked(kernelopt):
    pass
'''


def test_the_marker_is_checked_exactly_like_the_option(pytester):
    pytester.makepyfile(test_marked=MARKED.format(keywords='proposer="gpt"'))
    marked = pytester.runpytest("-p", "no:cacheprovider", "--kernelopt-mode=off")
    marked.assert_outcomes(errors=1)
    option = pytester.runpytest("-p", "no:cacheprovider", "--kernelopt-proposer=gpt")
    assert option.ret == pytest.ExitCode.USAGE_ERROR
    why = "'gpt' is not allowed; expected one of auto, agents, tuner, none"
    assert f"@pytest.mark.kernelopt keyword proposer: {why}" in marked.stdout.str()
    assert f"--kernelopt-proposer: {why}" in option.stderr.str()


@pytest.mark.parametrize("keywords, message", [
    ("seeds=0", "@pytest.mark.kernelopt keyword seeds: 0 is not allowed; expected an integer >= 1"),
    ("min_speedup=-1.0", "keyword min_speedup: -1.0 is not allowed; expected a number > 0"),
    ("max_candidates=2.5", "keyword max_candidates: 2.5 is not allowed; expected an integer >= 0"),
    ("isolate='maybe'", "keyword isolate: 'maybe' is not allowed; expected true or false"),
    ("seedz=3", "unknown @pytest.mark.kernelopt keyword(s) seedz"),
])
def test_bad_marker_keywords(pytester, keywords, message):
    pytester.makepyfile(test_marked=MARKED.format(keywords=keywords))
    result = pytester.runpytest("-p", "no:cacheprovider", "--kernelopt-mode=off")
    result.assert_outcomes(errors=1)
    assert message in result.stdout.str()


def test_a_relative_cache_dir_is_taken_from_the_rootdir_not_the_cwd(pytester, monkeypatch):
    pytester.makeconftest(SHOW_SETTINGS)
    pytester.makeini("[pytest]\nkernelopt_cache_dir = from_ini\n")
    sub = pytester.mkpydir("sub")
    (sub / "test_plain.py").write_text("def test_ok():\n    pass\n")
    monkeypatch.chdir(sub)
    shown = _settings_shown(pytester.runpytest("-p", "no:cacheprovider", "--co"))
    assert shown["cache_dir"] == str(pytester.path / "from_ini")
    shown = _settings_shown(pytester.runpytest("-p", "no:cacheprovider", "--co",
                                               "--kernelopt-cache-dir=from_cli"))
    assert shown["cache_dir"] == str(pytester.path / "from_cli")
    shown = _settings_shown(pytester.runpytest("-p", "no:cacheprovider", "--co",
                                               f"--kernelopt-cache-dir={sub / 'abs'}"))
    assert shown["cache_dir"] == str(sub / "abs")


@pytest.mark.parametrize("argv, message", [
    (["bench", "x.py", "--seeds", "three"], "--seeds: 'three' is not allowed; expected an integer >= 1"),
    (["bench", "x.py", "--budget", "-1"], "--problem-time-budget (or --budget): '-1' is not allowed"),
    (["bench", "x.py", "--proposer", "gpt"], "--proposer: 'gpt' is not allowed; expected one of auto, agents"),
    (["capture", "x.py", "--backend", "gpu"], "--backend: 'gpu' is not allowed; expected one of auto, cuda, cpu"),
    (["judge", "p.py", "c.py", "--min-speedup", "0"], "--min-speedup: '0' is not allowed; expected a number > 0"),
    # red team 17: 2**63 - 1 passed the check and crashed in the seeding (a traceback, exit 1 read as "rejected")
    (["judge", "p.py", "c.py", "--base-seed", str(2**63 - 1)],
     "--base-seed: '9223372036854775807' is not allowed; expected an integer >= 0 and <= 4294967295"),
])
def test_the_kernelopt_command_checks_its_flags_from_the_same_table(argv, message, tmp_path):
    proc = subprocess.run([sys.executable, "-m", "pytest_kernelopt.cli", *argv], capture_output=True, text=True,
                          cwd=tmp_path, timeout=60)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert message in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_readme_lists_every_setting_as_generated():
    readme = (ROOT / "README.md").read_text()
    assert options_table() in readme, ("README.md's table of settings differs from config.FIELDS: paste "
                                      "`python -c 'from pytest_kernelopt.config import options_table as t; "
                                      "print(t())'` over it")
