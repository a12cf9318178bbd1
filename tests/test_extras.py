"""The plugin without its optional dependencies (openai, hypothesis, pytest-benchmark: the extras [llm], [fuzz],
[benchmark]): it works, and a feature that needs a missing one says which extra to install.

The end-to-end check runs pytest in a subprocess where the three packages cannot be imported (None in
sys.modules before pytest starts, plugin autoloading off: as if they were not installed).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from pytest_kernelopt.config import Settings
from pytest_kernelopt.extras import MissingExtraError

BLOCKED = ("openai", "hypothesis", "pytest_benchmark")

RUNNER = textwrap.dedent('''
    import sys

    for name in {blocked!r}:
        sys.modules[name] = None  # import fails (ModuleNotFoundError), importlib.util.find_spec says None
    import pytest
    rc = pytest.main(sys.argv[1:])
    print("LOADED", sorted(m for m in {blocked!r} if sys.modules.get(m) is not None))
    sys.exit(rc)
''').format(blocked=BLOCKED)

TESTS = textwrap.dedent('''
    import pytest, torch


    class Scale(torch.nn.Module):
        def forward(self, x):
            return torch.relu(x * 2.0) + 1.0


    def test_verify_mode_works(kernelopt):
        x = torch.randn(8, 16)
        result = kernelopt(Scale(), (x,))
        assert result.mode == "verify"
        torch.testing.assert_close(result.module(x), torch.relu(x * 2.0) + 1.0)


    @pytest.mark.kernelopt(mode="optimize", proposer="agents")
    def test_the_agents_name_their_extra(kernelopt):
        with pytest.raises(ImportError, match=r"pip install 'pytest-kernelopt\\[llm\\]'"):
            kernelopt(Scale(), (torch.randn(8, 16),))


    def test_shape_fuzzing_names_its_extra():
        from pytest_kernelopt.strategies import shapes_around

        with pytest.raises(ImportError, match=r"pip install 'pytest-kernelopt\\[fuzz\\]'"):
            shapes_around((4, 8))
''')


def test_the_plugin_works_without_openai_hypothesis_and_pytest_benchmark(tmp_path):
    (tmp_path / "test_no_extras.py").write_text(TESTS)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "OPENAI_", "KERNELOPT_MODEL"))}
    env.update(PYTEST_DISABLE_PLUGIN_AUTOLOAD="1", OPENAI_BASE_URL="http://127.0.0.1:9/v1")
    proc = subprocess.run([sys.executable, "-c", RUNNER, "-p", "pytest_kernelopt.plugin", "-p", "no:cacheprovider",
                           "-q", "--kernelopt-backend=cpu", "--kernelopt-no-isolate", "test_no_extras.py"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    assert "3 passed" in out and "LOADED []" in out, out[-4000:]
    assert not (tmp_path / ".benchmarks").exists() and not (tmp_path / ".hypothesis").exists()
    # asked for on the command line, the agents without openai are a usage error before anything runs
    proc = subprocess.run([sys.executable, "-c", RUNNER, "-p", "pytest_kernelopt.plugin", "-p", "no:cacheprovider",
                           "--kernelopt", "--kernelopt-proposer=agents", "test_no_extras.py"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == pytest.ExitCode.USAGE_ERROR, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert ("proposer=agents (the LLM agents) needs the openai package, which is not installed: "
            "pip install 'pytest-kernelopt[llm]'") in proc.stderr


def test_proposer_auto_falls_back_to_the_tuner_without_openai(monkeypatch):
    from pytest_kernelopt.workflow import choose_proposer

    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("KERNELOPT_MODEL", "m")
    assert choose_proposer(Settings(proposer="auto")) == "agents"
    monkeypatch.setitem(sys.modules, "openai", None)  # import openai now fails, as if not installed
    assert choose_proposer(Settings(proposer="auto")) == "tuner"
    with pytest.raises(MissingExtraError, match=r"proposer=agents .* pip install 'pytest-kernelopt\[llm\]'"):
        choose_proposer(Settings(proposer="agents"))


def test_the_client_names_the_llm_extra(monkeypatch):
    from pytest_kernelopt.agents import OpenAIChatModel

    monkeypatch.setitem(sys.modules, "openai", None)
    with pytest.raises(MissingExtraError, match=r"openai package, which is not installed: "
                                                r"pip install 'pytest-kernelopt\[llm\]'"):
        OpenAIChatModel("m", base_url="http://127.0.0.1:9/v1")


def test_kernelopt_bench_with_the_agents_names_the_extra(tmp_path):
    code = ("import sys\nsys.modules['openai'] = None\nfrom pytest_kernelopt.cli import main\n"
            "sys.exit(main(['bench', 'x.py', '--proposer', 'agents']))\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "pip install 'pytest-kernelopt[llm]'" in proc.stderr and "Traceback" not in proc.stderr


def test_the_agents_without_a_model_are_a_usage_error_before_anything_runs(monkeypatch, capsys):
    """``kernelopt bench --proposer agents`` with no model named printed its header, captured the problem and
    started a worker, and only then failed: now a usage error (exit 2) before anything runs.  With
    ``llm_error=warn`` (an agent that cannot run lets the run go on) it is no error."""
    from pytest_kernelopt.cli import main
    from pytest_kernelopt.config import SettingError, Settings, check_extras

    pytest.importorskip("openai")
    for name in ("KERNELOPT_MODEL", "OPENAI_MODEL"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(SystemExit) as exited:
        main(["bench", "no_such_problem.py", "--proposer", "agents"])
    assert exited.value.code == 2
    assert "proposer=agents needs an LLM model" in capsys.readouterr().err
    agents = Settings(mode="optimize", proposer="agents")
    check_extras(Settings(mode="optimize", proposer="agents", llm_error="warn"))
    check_extras(Settings(mode="optimize", proposer="agents", model="m"))
    monkeypatch.setenv("OPENAI_MODEL", "m")
    check_extras(agents)
    monkeypatch.delenv("OPENAI_MODEL")
    with pytest.raises(SettingError, match="KERNELOPT_MODEL or OPENAI_MODEL"):
        check_extras(agents)
