"""What the pytest plugin does, kept out of ``plugin.py`` (which holds hooks only).

:class:`Harness` is built once per pytest session.  It resolves settings
(defaults < ini < command line < marker < fixture call), runs a module or a
problem file through the one workflow (:func:`pytest_kernelopt.workflow.run_workflow`), collects
every result for the terminal summary, the JSON report and JUnit properties,
and shows progress while an optimization runs.

The package's own modules are imported at the top, except :mod:`pytest_kernelopt.workflow`: it imports torch,
so it stays inside the methods that run a module, and importing the plugin (``pytest --help``, every pytest
run with the plugin installed) loads neither torch nor Triton.
"""

from __future__ import annotations

import dataclasses
import json
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .backends import BACKEND_CHOICES, prepare, select_backend
from .config import FIELDS, MODES, SettingError, Settings, check_extras, parse_overrides
from .errors import DeviceWarning, InputError, PerfUnmeasuredError, ProposerWarning
from .gpu_pinning import Pin, kernelopt_mode
from .gpu_pinning import summary_lines as gpu_lines
from .jsonio import write_json
from .junit import test_properties
from .problems import ProblemSpec, build_problem, positional_args, problem_from_objects
from .records import RunRecord
from .report import report_meta, table

MARKER = "kernelopt"
MARKER_SOURCE = "@pytest.mark.kernelopt keyword"
FIXTURE_SOURCE = "kernelopt() keyword"
# (option, settings field, type) of every setting, from config.FIELDS (plugin.py adds them, booleans also as
# --kernelopt-no-<name>; --kernelopt is --kernelopt-mode=optimize)
CLI_OPTIONS: list[tuple[str, str, Any]] = [(f.option, f.name, f.kind) for f in FIELDS.values()]


def settings_from_config(config: Any) -> Settings:
    """Defaults < ini keys < command-line options, every value checked by its FIELDS entry (SettingError)."""
    # pytest only warns of an ini key it does not know; a misspelt kernelopt_ key would leave its setting at the
    # default without a word that matters
    unknown = sorted(k for k in _ini_keys(config) if k.startswith("kernelopt") and k[len("kernelopt_"):] not in FIELDS)
    if unknown:
        raise SettingError(f"unknown ini key(s) {', '.join(unknown)}; pytest-kernelopt's ini keys are "
                           f"kernelopt_<name> for: {', '.join(FIELDS)}")
    ini: dict[str, Any] = {}
    for name in FIELDS:
        val = config.getini(f"kernelopt_{name}")
        if val not in (None, "", []):
            ini[name] = val
    settings = Settings().with_overrides(ini, source="ini key")
    cli = {name: config.getoption(f"kernelopt_{name}") for name in FIELDS}
    if config.getoption("kernelopt") and cli["mode"] is None:
        cli["mode"] = "optimize"
    settings = settings.with_overrides({k: v for k, v in cli.items() if v is not None}, source="command-line option")
    check_extras(settings)
    settings = _anchored(settings, config.rootpath)
    if Path(settings.cache_dir).exists() and not Path(settings.cache_dir).is_dir():
        raise SettingError(f"cache_dir {settings.cache_dir} exists but is not a directory; give a directory "
                           "(--kernelopt-cache-dir, ini kernelopt_cache_dir)")
    return settings


def prepare_before_imports(config: Any) -> None:
    """The backend's environment (``TRITON_INTERPRET=1`` without a GPU), set from the options pytest has parsed
    so far, before conftests and test modules are imported: Triton reads it when its JIT functions are made, so a
    test module importing ``triton`` or ``torch._inductor`` at its top would otherwise make them for the GPU and
    every kernelopt test of the session would fail.  Mode off touches nothing; a bad value is left for
    :func:`settings_from_config` to report."""
    mode, backend, _ = kernelopt_mode(config)
    if mode != "off" and backend in BACKEND_CHOICES:
        prepare(backend)


def _ini_keys(config: Any) -> list[str]:
    """The keys of the ini file pytest read that no plugin registered (pytest's own helper where it has one;
    else every key, read without ``config.inicfg``'s deprecation warning)."""
    unknown = getattr(config, "_get_unknown_ini_keys", None)
    if unknown is not None:
        try:
            return [str(k) for k in unknown()]
        except Exception:  # noqa: BLE001  (a private helper of pytest's: its absence is no error of the user's)
            pass
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [str(k) for k in (getattr(config, "inicfg", None) or {})]


def _anchored(settings: Settings, root: Any) -> Settings:
    """A relative ``cache_dir`` is taken from pytest's rootdir (as pytest's own cache_dir is), not the cwd."""
    if Path(settings.cache_dir).is_absolute() or root is None:
        return settings
    return dataclasses.replace(settings, cache_dir=str(Path(root) / settings.cache_dir))


@dataclass
class KernelOptResult:
    """What the ``kernelopt`` fixture returns."""

    module: Any  # the compiled module, with accepted kernels in place
    kernels: list[Any] = field(default_factory=list)
    regressions: list[str] = field(default_factory=list)
    backend: str = ""
    mode: str = ""
    perf: dict[str, Any] | None = None
    settings: Settings | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.module(*args, **kwargs)

    def benchmark(self, benchmark: Any, *inputs: Any, rounds: int = 20, warmup_rounds: int = 3) -> Any:
        """Time the optimized module with pytest-benchmark's ``benchmark`` fixture.

        The result lands in pytest-benchmark's storage (``--benchmark-autosave``),
        so ``--benchmark-compare`` tracks the module across commits; the
        kernel decisions go into ``extra_info``.  On a GPU every round ends
        with a synchronize, so the host timer sees the device work.
        """
        import torch

        sync = torch.cuda.synchronize if self.backend == "cuda" else (lambda: None)

        def call():
            with torch.no_grad():
                out = self.module(*inputs)
            sync()
            return out

        benchmark.extra_info["kernelopt_backend"] = self.backend
        benchmark.extra_info["kernelopt_kernels"] = {k.kernel: k.decision for k in self.kernels}
        benchmark.extra_info["kernelopt_speedups"] = {k.kernel: k.speedup for k in self.kernels if k.speedup}
        if self.backend != "cuda":
            benchmark.extra_info["kernelopt_note"] = "CPU interpreter timing: not a performance measurement"
        return benchmark.pedantic(call, rounds=rounds, warmup_rounds=warmup_rounds, iterations=1)

    @property
    def from_cache(self) -> list[str]:
        return [k.kernel for k in self.kernels if k.decision == "cached"]

    @property
    def accepted(self) -> list[str]:
        return [k.kernel for k in self.kernels if k.decision in ("cached", "accepted")]


def _test_of(label: str) -> str:
    """The test's node id of a result's label (``<node id> [call 2]`` for a second kernelopt() in one test)."""
    return label.split(" [call ", 1)[0]


class Harness:
    def __init__(self, config: Any) -> None:
        self.config = config
        self.settings = settings_from_config(config)
        self.results: list[tuple[str, Any]] = []  # (test id, RunRecord)
        # pytest's outcome of every test that used the plugin: test id -> (passed | failed | skipped, error)
        self.outcomes: dict[str, tuple[str, str]] = {}
        self._prepared = False
        self.backend_description = ""
        self.gpu_pins: list[Any] = []  # gpu_pinning.Pin of each xdist worker (the controller's summary)
        self.shard_note: str | None = None
        self.problems_only = False  # --kernelopt-problems without a test path: nothing else is collected

    # -- environment ------------------------------------------------------------------------
    def prepare(self) -> None:
        """Set what the backend needs before triton decorates kernels (TRITON_INTERPRET on CPU)."""
        if not self._prepared:
            prepare(self.settings.backend)
            self._prepared = True

    def backend(self, settings: Settings):
        self.prepare()
        _quiet_torch_trace_log()
        backend = select_backend(settings.backend)
        # the summary names the backend chosen, also where the test fails before it has a result
        self.backend_description = self.backend_description or backend.description
        if settings.perf and not backend.measures_time and settings.perf_unmeasured == "fail":
            # before anything is compiled: the test's verdict cannot be what was asked of it
            raise PerfUnmeasuredError(
                "the performance gate (perf, --kernelopt-perf) was requested but performance cannot be measured "
                f"here ({backend.description}); perf_unmeasured=fail makes that a failure (warn only warns)")
        return backend

    def resolve(self, marker_kwargs: dict[str, Any], call_kwargs: dict[str, Any]) -> Settings:
        s = self.settings.with_overrides(marker_kwargs, source=MARKER_SOURCE)
        s = s.with_overrides(call_kwargs, source=FIXTURE_SOURCE)
        return _anchored(s, getattr(self.config, "rootpath", None))

    def progress(self, nodeid: str) -> Callable[[str], None]:
        import contextlib

        tr = self.config.pluginmanager.get_plugin("terminalreporter")
        capman = self.config.pluginmanager.get_plugin("capturemanager")
        start = time.perf_counter()

        def say(msg: str) -> None:
            if tr is None or self.config.getoption("verbose") < 0:
                return
            # shown live even while pytest captures the test's output (optimization can take minutes)
            with capman.global_and_fixture_disabled() if capman is not None else contextlib.nullcontext():
                tr.write_line(f"kernelopt [{time.perf_counter() - start:5.1f}s] {msg}")

        return say

    # -- the fixture ---------------------------------------------------------------------------
    def run_module(self, nodeid: str, module: Any, inputs: Any, settings: Settings,
                   record_property: Callable[[str, Any], None] | None = None) -> KernelOptResult:
        if settings.mode == "off":
            import torch

            return KernelOptResult(torch.compile(module, mode=settings.torch_compile_mode), mode="off",
                                   settings=settings)
        backend = self.backend(settings)
        from .workflow import run_workflow  # imports torch: never at the plugin's import (pytest --help)

        calls = sum(1 for n, _ in self.results if _test_of(n) == nodeid)
        if calls:  # a second kernelopt() in the same test: its own row in the summary and the report
            nodeid = f"{nodeid} [call {calls + 1}]"
        inputs = tuple(positional_args(inputs, f"{nodeid}: kernelopt(module, inputs): inputs", InputError))
        _warn_if_off_device(nodeid, inputs, backend)
        problem = problem_from_objects(module, inputs, nodeid, settings.base_seed or 0)
        # the module stays in this process (keep): it is returned with its kernels in place
        record, local = run_workflow(lambda: problem, problem.spec, settings, backend, name=nodeid, problem_id=nodeid,
                                     progress=self.progress(nodeid), keep=True)
        assert local is not None  # keep=True returns the evaluator
        self._finish(nodeid, record, record_property, settings, backend.description)
        return KernelOptResult(local.session.captured, record.kernels, record.regressions, backend.name,
                               settings.mode, record.perf, settings)

    # -- problem files ----------------------------------------------------------------------
    def run_problem_plain(self, path: Path, settings: Settings) -> None:
        """Mode off: the problem's module under a plain ``torch.compile``, called once on its inputs (on the GPU
        where there is one); no cache, no interpreter, no record (tests/test_plugin.py::test_mode_off_is_inert)."""
        import torch

        device = "cuda" if torch.cuda.is_available() else "cpu"
        problem = build_problem(ProblemSpec.from_file(path), device, interpreted=False)
        compiled = torch.compile(problem.module, mode=settings.torch_compile_mode)
        with torch.set_grad_enabled(settings.training):
            compiled(*problem.example_inputs)

    def run_problem(self, nodeid: str, path: Path, settings: Settings,
                    record_property: Callable[[str, Any], None] | None = None) -> Any:
        backend = self.backend(settings)
        from .workflow import problem_id_for, release_memory, run_problem_spec  # imports torch (as above)

        try:
            record = run_problem_spec(ProblemSpec.from_file(path), settings, backend, name=path.stem,
                                      problem_id=problem_id_for(path, self.config.rootpath),
                                      progress=self.progress(nodeid))
        finally:
            release_memory()
        self._finish(nodeid, record, record_property, settings, backend.description)
        return record

    def _finish(self, nodeid: str, record: Any, record_property: Callable[[str, Any], None] | None,
                settings: Settings | None = None, backend_description: str = "") -> None:
        """Collect one test's record (its settings, the test's own, are in it) for the summary and the report."""
        self.backend_description = self.backend_description or backend_description
        if record.proposer_errors and (settings is None or settings.llm_error == "warn"):
            import warnings

            warnings.warn(ProposerWarning(
                f"{nodeid}: the {record.proposer or 'chosen'} proposer could not run: {record.proposer_errors[0]}; "
                "nothing was searched and the compiled baseline runs (llm_error=warn; llm_error=fail fails the "
                "test)"), stacklevel=2)
        self.results.append((nodeid, record))
        if record_property is not None:  # junit.py says where JUnit properties go
            for name, value in test_properties(record):
                record_property(name, value)

    # -- reporting --------------------------------------------------------------------------
    def summary_lines(self) -> list[str]:
        rows = []
        uncovered = 0
        perf_column = any(r.perf is not None for _, r in self.results)
        for nodeid, r in self.results:
            count = lambda *d, r=r: sum(k.decision in d for k in r.kernels)  # noqa: E731
            spd = [k for k in r.kernels if k.speedup]
            best = max(spd, key=lambda k: k.speedup) if spd else None
            speed = (f"{best.speedup:.3f}x [{best.ci[0]:.3f}, {best.ci[1]:.3f}]"
                     if best is not None and best.ci and None not in best.ci else
                     ("not measured" if r.backend != "cuda" else "-"))
            failed = sorted({g for k in r.kernels for g in k.failed_gates})
            # a kernel searched in this run is counted as optimized or kept, not also as "no cache entry" (without
            # a GPU nothing is written to the cache, so it still has none: said under the table)
            no_entry = sum(n not in _searched(r) for n in r.uncached)
            uncovered += no_entry
            rows.append([nodeid if len(nodeid) <= 60 else "..." + nodeid[-57:], str(r.triton_kernels),
                         str(count("accepted")),
                         str(count("baseline_kept")), str(count("cached")), str(no_entry),
                         speed, ",".join(failed) or "-", str(len(r.regressions))])
            if perf_column:
                p = r.perf or {}
                rows[-1].insert(7, f"{p['speedup']:.3f}x [{p['ci_low']:.3f}, {p['ci_high']:.3f}]"
                                if p.get("measured") else "-")
        header = ["test", "Triton kernels", "optimized", "kept", "from cache", "no cache entry", "best speedup [CI]",
                  "failed gates", "regressions"]
        if perf_column:  # --kernelopt-perf: the whole module with its kernels, measured in this run
            header.insert(7, "module now [CI]")
        lines = [table(rows, header)] if rows else []
        lines.append(f"backend: {self.backend_description or self.settings.backend}; mode: {self.settings.mode}")
        lines += _uncovered_hint(uncovered, sum(len(r.untunable) for _, r in self.results), self.settings.mode)
        ignored = sorted({e for _, r in self.results for e in r.ignored_entries})
        if ignored:  # counted under "no cache entry" above: their kernels ran as if they had none
            lines.append(f"{len(ignored)} cache entr{'y' if len(ignored) == 1 else 'ies'} could not be used and "
                         f"{'was' if len(ignored) == 1 else 'were'} ignored (counted as no cache entry): "
                         + "; ".join(ignored[:3]) + (" ..." if len(ignored) > 3 else "")
                         + "; `kernelopt cache verify` shows why, `kernelopt cache prune` removes them")
        empty = [nodeid for nodeid, r in self.results if r.triton_kernels == 0]
        if empty:
            lines.append(f"{len(empty)} test(s) have no Triton kernel to check or optimize (Inductor compiled "
                         f"nothing, or only library calls): {', '.join(n.split('::')[-1] for n in empty[:5])}"
                         + (" ..." if len(empty) > 5 else ""))
        searching = [r for _, r in self.results if r.mode == "optimize" and r.proposer]
        if searching:
            from .workflow import proposer_reason

            names = sorted({r.proposer for r in searching})
            reason = proposer_reason(self.settings) if names == ["tuner"] or names == ["agents"] else ""
            lines.append(f"proposer: {', '.join(names)}" + (f"; {reason}" if reason else ""))
        if any(r.backend != "cuda" for _, r in self.results):
            checked = any(k.decision == "cached" for _, r in self.results for k in r.kernels)
            lines.append("performance was not measured (no GPU)"
                         + (": kernels were verified for correctness only" if checked else ""))
            if any((r.settings or {}).get("perf", self.settings.perf) for _, r in self.results if r.backend != "cuda"):
                lines.append("WARNING: the whole-module performance gate (perf, --kernelopt-perf) was requested but "
                             "not enforced: there is no GPU here, so no regression could be seen (a CI job that "
                             "relies on it needs a GPU runner; --kernelopt-perf-unmeasured=fail makes this a "
                             "failure)")
        searched = sum(len(_searched(r)) for _, r in self.results if r.backend != "cuda" and r.mode == "optimize")
        if searched:
            cache_dir = next((r.settings or {}).get("cache_dir") for _, r in self.results) or self.settings.cache_dir
            lines.append(f"{searched} kernel(s) searched and checked for correctness only; nothing was written to "
                         f"the cache ({cache_dir}): without a GPU performance is not measured, and the cache "
                         "records only decisions measured on one (a faster kernel, or that the baseline stays), so "
                         "every --kernelopt run on this machine searches them again")
        for nodeid, r in self.results:
            for err in r.proposer_errors:
                fails = (r.settings or {}).get("llm_error", self.settings.llm_error) == "fail"
                lines.append(f"{'ERROR' if fails else 'WARNING'}: {nodeid}: the {r.proposer or 'chosen'} proposer "
                             f"could not run: {err} "
                             + ("(the test failed: llm_error=fail)" if fails else
                                "(the test passed with the compiled baseline: llm_error=warn)"))
        for nodeid, (outcome, error) in self.outcomes.items():
            if outcome == "failed" and not any(_test_of(n) == nodeid for n, _ in self.results):
                lines.append(f"FAILED before a kernelopt result: {nodeid}: {error}")
        lines += gpu_lines(self.gpu_pins) + ([self.shard_note] if self.shard_note else [])
        return lines

    # -- pytest-xdist: workers hand their results to the controller ------------------------------
    def export_results(self) -> str:
        return json.dumps([[nodeid, r.to_json()] for nodeid, r in self.results], default=str)

    def import_results(self, payload: str, backend_description: str = "") -> None:
        for nodeid, d in json.loads(payload):
            self.results.append((nodeid, RunRecord.from_json(d)))
        self.backend_description = self.backend_description or backend_description

    def import_worker_extras(self, workeroutput: dict[str, Any]) -> None:
        """A worker's GPU pin (gpu_pinning.Pin as JSON) and its shard line, for the summary and the report."""
        if workeroutput.get("kernelopt_gpu"):
            self.gpu_pins.append(Pin.from_json(workeroutput["kernelopt_gpu"]))
        self.shard_note = self.shard_note or workeroutput.get("kernelopt_shard")

    def write_report(self, path: str, *, complete: bool = True, interrupted: bool = False) -> None:
        """The JSON report: ``meta`` as bench's (:func:`pytest_kernelopt.report.report_meta`), the session's
        settings, and a record per test; ``complete`` is false for a run interrupted or stopped early."""
        meta = report_meta("pytest", self.settings.mode, self.backend_description, complete=complete,
                           interrupted=interrupted, tests=len({_test_of(n) for n, _ in self.results} |
                                                               set(self.outcomes)))
        doc: dict[str, Any] = {"meta": meta, "settings": dataclasses.asdict(self.settings),
               "gpu_per_worker": {p.worker: {"gpu": p.gpu, "timing": p.timing, "source": p.source,
                                             "shared_with": list(p.shared_with)} for p in self.gpu_pins},
               "shard": self.shard_note,
               # each test's record in the shape an xdist worker sends it (records.RunRecord.to_json); its
               # settings are the test's own (marker and fixture keywords applied)
               "tests": [{"test": nodeid, "outcome": self.outcomes.get(_test_of(nodeid), ("", ""))[0] or None,
                          **r.to_json()} for nodeid, r in self.results]}
        recorded = {_test_of(nodeid) for nodeid, _ in self.results}
        # a test that failed before the plugin had a result (its module raised, say) is in the report too
        doc["tests"] += [{"test": nodeid, "outcome": outcome, "error": error}
                         for nodeid, (outcome, error) in self.outcomes.items()
                         if outcome == "failed" and nodeid not in recorded]
        write_json(path, doc)


def _warn_if_off_device(nodeid: str, inputs: tuple, backend: Any) -> None:
    """On a GPU, CPU tensors compile to Inductor's C++ code: no Triton kernel to check or optimize."""
    import warnings

    import torch

    tensors = [x for x in inputs if isinstance(x, torch.Tensor)]
    meta = [i for i, x in enumerate(inputs) if isinstance(x, torch.Tensor) and x.is_meta]
    if meta:
        raise InputError(f"{nodeid}: input(s) {', '.join(map(str, meta))} are on the 'meta' device, which has shapes "
                         "but no data: nothing can run, so no kernel can be checked or optimized; make them on "
                         f"{backend.device!r} (torch.randn(..., device={backend.device!r}))")
    if backend.name == "cuda" and tensors and not any(x.is_cuda for x in tensors):
        warnings.warn(DeviceWarning(
            f"{nodeid}: the inputs are CPU tensors, so Inductor compiles the module to C++ and there is no Triton "
            "kernel to check or optimize; move the module and its inputs to 'cuda'"), stacklevel=3)


def _searched(r: Any) -> set[str]:
    """The kernels a proposer searched in this run (optimized, or kept after the search)."""
    return {k.kernel for k in r.kernels if k.decision in ("accepted", "baseline_kept") and k.source != "cache"
            and k.note != "no proposer configured"}


def _quiet_torch_trace_log() -> None:
    """torch's structured-trace logger ("torch.__trace") logs every compile step at DEBUG and does not propagate;
    pytest attaches its log capture to such loggers, so a failed test showed dozens of empty "DEBUG
    torch.__trace" lines (and torch did the trace work for nobody).  Unless TORCH_TRACE asks for the trace,
    the logger is silenced."""
    import logging
    import os

    if not os.environ.get("TORCH_TRACE"):
        logging.getLogger("torch.__trace").setLevel(logging.CRITICAL + 1)


def marker_kwargs(item: Any) -> dict[str, Any]:
    """Keywords of the closest ``@pytest.mark.kernelopt``, parsed and checked as every other source of settings
    (:func:`pytest_kernelopt.config.parse_overrides`): an unknown keyword or a bad value is a SettingError."""
    marker = item.get_closest_marker(MARKER)
    if marker is None:
        return {}
    if marker.args:
        raise TypeError(f"@pytest.mark.kernelopt takes keywords only, got positional {marker.args!r}")
    return parse_overrides(marker.kwargs, MARKER_SOURCE)


def _uncovered_hint(uncovered: int, untunable: int, mode: str) -> list[str]:
    """What the summary says of kernels that ran as Inductor compiled them (no cache entry)."""
    agents = "the agents search them (an LLM endpoint and --kernelopt-proposer=agents)"
    tuner_cannot = "the offline tuner has no launch configuration to try for"
    if uncovered and mode == "verify":
        return [f"{uncovered} Triton kernel(s) have no cache entry and ran as Inductor compiled them; "
                "`pytest --kernelopt` on a GPU searches them"
                + (f" ({untunable} of them only with the agents: {tuner_cannot} them)" if untunable else "")]
    if untunable and mode == "optimize":
        return [f"{untunable} Triton kernel(s) have no cache entry and {tuner_cannot} them "
                "(e.g. templates, cooperative reductions); "
                + agents]
    return []


__all__ = ["CLI_OPTIONS", "FIELDS", "Harness", "KernelOptResult", "MARKER", "MODES", "marker_kwargs",
           "settings_from_config"]

