"""pytest hooks for pytest-kernelopt.  Hooks only: the work lives in harness.py and the modules it calls.

Nothing here imports torch, triton or openai.  Unless the mode is off, the backend's environment is set
before conftests and test modules are imported (on a machine without a GPU: ``TRITON_INTERPRET=1``, which
Triton reads when its JIT functions are made; tests/test_plugin.py::
test_a_suite_that_imports_triton_at_its_top_runs_on_the_cpu_and_is_reported_whole); nothing else is touched in
a run that does not use the ``kernelopt`` fixture, marker or problem collector.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from . import gpu_pinning
from .collector import HARNESS_KEY, KernelOptFailure, ProblemFile, ProblemItem, is_problem_candidate
from .config import FIELDS, SettingError
from .errors import BackendError, InputError, ModuleError
from .harness import MARKER, Harness, marker_kwargs, prepare_before_imports
from .junit import add_suite_properties, per_test_properties
from .problems import find_problem_files
from .sharding import apply_shard


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("kernelopt", "kernel optimization (pytest-kernelopt)")
    group.addoption("--kernelopt", action="store_true", default=False,
                    help="optimize kernels that have no cache entry and write accepted ones to the cache "
                         "(same as --kernelopt-mode=optimize)")
    group.addoption("--kernelopt-problems", action="append", default=[], metavar="PATH",
                    help="collect every Model/get_inputs/get_init_inputs problem file under PATH as a test")
    # every setting, from the one table: --kernelopt-<name> VALUE (booleans: --kernelopt-<name> and
    # --kernelopt-no-<name>) and the ini key kernelopt_<name>; values are parsed and checked in settings_from_config
    for name, spec in FIELDS.items():
        dest = f"kernelopt_{name}"
        names = [spec.option] + [f"--kernelopt-{a}" for a in spec.aliases]
        if spec.kind is bool:
            group.addoption(*names, action="store_const", const=True, dest=dest, default=None,
                            help=spec.help.replace("%", "%%"))
            group.addoption(f"--kernelopt-no-{name.replace('_', '-')}", action="store_const", const=False,
                            dest=dest, default=None, help=f"{name} off (see {spec.option})")
        else:
            group.addoption(*names, dest=dest, default=None, metavar=name.upper(),
                            help=f"{spec.help} ({spec.allowed()})".replace("%", "%%"))
        parser.addini(dest, help=f"pytest-kernelopt: {spec.help} ({spec.allowed()})", default=None)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser, args: list) -> None:
    """Before any conftest or test module can import torch or Triton: an xdist worker takes its GPU
    (CUDA_VISIBLE_DEVICES), and the backend's environment is set (TRITON_INTERPRET=1 without a GPU)."""
    gpu_pinning.pin_this_worker(early_config)
    prepare_before_imports(early_config)


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config):
    """``-n auto`` in a run that times: one xdist worker per GPU (None: xdist decides)."""
    return gpu_pinning.auto_workers(config)


def pytest_configure(config: pytest.Config) -> None:
    gpu_pinning.pin_this_worker(config)  # no-op when pytest_load_initial_conftests pinned this worker already
    config.addinivalue_line("markers", f"{MARKER}(**options): pytest-kernelopt settings for this test "
                                       f"(keywords: {', '.join(FIELDS)})")
    try:
        harness = Harness(config)
    except (TypeError, ValueError) as e:
        raise pytest.UsageError(f"pytest-kernelopt: {e}") from None
    config.stash[HARNESS_KEY] = harness
    config.pluginmanager.register(_Outcomes(harness), "kernelopt-outcomes")
    if harness.settings.mode != "off":
        harness.prepare()  # set already where pytest_load_initial_conftests ran (a plugin registered later)
        # torch warns this for every CPU Triton kernel module Inductor loads; on the CPU backend the plugin runs
        # those kernels in the Triton interpreter, so the warning is expected and says nothing to the user
        config.addinivalue_line("filterwarnings", "ignore:Could not find an active CPU backend:UserWarning")
    problems = config.getoption("kernelopt_problems")
    if problems:
        try:  # a missing path, or a folder with no problem file, is what `kernelopt bench` says it is
            find_problem_files(problems)
        except FileNotFoundError as e:
            raise pytest.UsageError(f"--kernelopt-problems: {e}") from None
        # a broken problem file is a collection error for that file alone: the others still run
        config.option.continue_on_collection_errors = True
        # the problem paths are collection targets, as test paths are: named beside test paths both are collected;
        # alone they take the place of testpaths and the current directory, as `pytest PATH` would (a problem
        # suite run on its own, sharded over hosts, is a set of problems only); the header says so
        if config.args_source == pytest.Config.ArgsSource.ARGS:
            config.args.extend(problems)
        else:
            config.args[:] = list(problems)
            harness.problems_only = True


def pytest_report_header(config: pytest.Config) -> list[str]:
    harness = config.stash.get(HARNESS_KEY, None)
    if harness is not None and harness.problems_only:
        return ["kernelopt: only the problem files are collected (--kernelopt-problems without a test path; name "
                "test paths too to run both)"]
    return []


def pytest_collect_file(file_path: Path, parent: pytest.Collector):
    problems = parent.config.getoption("kernelopt_problems")
    if problems and is_problem_candidate(file_path, [Path(p).resolve() for p in problems]):
        return ProblemFile.from_parent(parent, path=file_path)
    return None


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list) -> None:
    harness = config.stash.get(HARNESS_KEY, None)
    if harness is None:
        return
    harness.shard_note = apply_shard(config, items, harness.settings.shard) or harness.shard_note


@pytest.fixture
def kernelopt(request: pytest.FixtureRequest):
    """``kernelopt(module, inputs, **options)``: compile, apply cached kernels, (optimize), gate.

    Returns a :class:`~pytest_kernelopt.harness.KernelOptResult`; a failed gate
    on a cached kernel or a performance regression fails the test with the
    numbers held against each threshold.
    """
    harness: Harness = request.config.stash[HARNESS_KEY]
    # the test's own JUnit properties where its junit family has them (junit.py); else the suite's, at the end
    record_property = ((lambda name, value: request.node.user_properties.append((name, value)))
                       if per_test_properties(request.config) else None)
    # the user's mistakes (a bad marker keyword or setting, a backend this machine cannot give) fail the test with
    # their message alone: no plugin frames, and pytest.fail outside the except (no "during handling" chain)
    try:
        marks, problem = marker_kwargs(request.node), ""
    except (TypeError, SettingError) as e:
        marks, problem = {}, f"pytest-kernelopt: {e}"
    if problem:
        pytest.fail(problem, pytrace=False)

    def run(module, inputs, **options):
        __tracebackhide__ = True  # a failure shows the test's line, not this plugin's frames
        problem = ""
        try:
            settings = harness.resolve(marks, options)
            result = harness.run_module(request.node.nodeid, module, inputs, settings, record_property)
        except (ModuleError, InputError) as e:
            # the user's error with the module's own frames in its message; raised afresh from here, so the
            # report is the test's line and that message, not the plugin's, torch's and pytest's frames
            raise type(e)(str(e)) from None
        except (SettingError, BackendError) as e:  # cuda without a GPU, say: what to do, no frames
            problem = f"pytest-kernelopt: {type(e).__name__}: {e}"
        if problem:
            pytest.fail(problem, pytrace=False)
        if result.regressions:
            raise KernelOptFailure(result.regressions)
        return result

    return run


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    """pytest-xdist: collect a worker's results on the controller (for the summary and the report)."""
    harness = node.config.stash.get(HARNESS_KEY, None)
    payload = getattr(node, "workeroutput", {}).get("kernelopt")
    if harness is not None and payload:
        harness.import_results(payload, node.workeroutput.get("kernelopt_backend", ""))
    if harness is not None:
        harness.import_worker_extras(getattr(node, "workeroutput", {}))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """Mark the reports of tests that use the plugin (the mark travels to an xdist controller with the report)."""
    report = yield
    if "kernelopt" in getattr(item, "fixturenames", ()) or isinstance(item, ProblemItem):
        report.kernelopt = True
        if report.failed and call.excinfo is not None:
            e = call.excinfo.value
            text = str(e).strip()
            report.kernelopt_error = f"{type(e).__name__}: {text.splitlines()[0] if text else ''}"[:1000]
    return report


class _Outcomes:
    """pytest's outcome of each test that used the plugin, for the summary and the JSON report (a test that
    failed before the plugin had a result, because its module raised, is reported too)."""

    def __init__(self, harness: Harness) -> None:
        self.harness = harness

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not getattr(report, "kernelopt", False) or self.harness.settings.mode == "off":  # off: inert
            return
        outcomes = self.harness.outcomes
        if report.failed:
            if outcomes.get(report.nodeid, ("",))[0] != "failed":
                last = report.longreprtext.strip().splitlines()[-1:]
                outcomes[report.nodeid] = ("failed", getattr(report, "kernelopt_error", "") or
                                           (last[0][:1000] if last else ""))
        elif report.when == "call" or (report.skipped and report.when == "setup"):
            outcomes.setdefault(report.nodeid, (report.outcome, ""))


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    harness = config.stash.get(HARNESS_KEY, None)
    if harness is None:
        return
    interrupted = exitstatus == pytest.ExitCode.INTERRUPTED and harness.settings.mode != "off"
    if not (harness.results or any(o == "failed" for o, _ in harness.outcomes.values()) or interrupted):
        return
    terminalreporter.write_sep("=", "pytest-kernelopt")
    for line in harness.summary_lines():
        terminalreporter.write_line(line)
    if interrupted:
        report = harness.settings.report
        terminalreporter.write_line(
            f"interrupted: {len(harness.results)} kernelopt result(s) finished, shown above"
            + (f" and kept in the report {report} (complete: false)" if report else ""))


@pytest.hookimpl(tryfirst=True)  # before junitxml writes its file
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    harness = session.config.stash.get(HARNESS_KEY, None)
    if harness is None:
        return
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: the controller reports
        workeroutput["kernelopt"] = harness.export_results()
        workeroutput["kernelopt_backend"] = harness.backend_description
        workeroutput["kernelopt_gpu"] = gpu_pinning.current_pin_json()
        workeroutput["kernelopt_shard"] = harness.shard_note
        return
    add_suite_properties(session.config, harness.results)  # xunit2: the kernels' decisions, as the suite's
    if harness.settings.report:  # always, when asked: in mode off (inert) it lists no test
        interrupted = exitstatus == pytest.ExitCode.INTERRUPTED
        # -x or --maxfail stopped it early: some tests never ran
        stopped = bool(getattr(session, "shouldstop", False) or getattr(session, "shouldfail", False))
        harness.write_report(harness.settings.report, complete=not (interrupted or stopped), interrupted=interrupted)
