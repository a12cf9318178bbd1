"""One frozen settings object, built from defaults < ini < command line < marker < fixture call.

Every field has a documented default; :data:`FIELDS` is the single table the
plugin's options, ini keys, marker and fixture keywords, the ``kernelopt``
command's flags and the README's table are made from, and that checks every value.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from .extras import MissingExtraError, check

MODES = ("off", "verify", "optimize")

# dtype name -> (rtol, atol).  fp32 follows KernelBench's current table; half types torchbench's.
DEFAULT_TOLERANCES: dict[str, tuple[float, float]] = {
    "float64": (1e-7, 1e-7),
    "float32": (1e-4, 1e-4),
    "float16": (1e-2, 1e-2),
    "bfloat16": (2e-2, 2e-2),
}


@dataclass(frozen=True)
class Settings:
    mode: str = "verify"
    backend: str = "auto"
    compile_mode: str = "default"  # the baseline: torch.compile's default, or max-autotune-no-cudagraphs
    cache_dir: str = "kernels_cache"
    strict_cache: bool = False
    # gate 2: multi-seed correctness
    seeds: int = 6
    verify_seeds: int = 1  # re-checking a cached kernel recorded on this same environment
    base_seed: int | None = None  # None: the gates' seeds are drawn from the OS for every run (and recorded)
    rtol: float | None = None  # None: per-dtype table above
    atol: float | None = None
    tiny_output_factor: float = 10.0  # outputs with max|x| < factor*atol are judged by a relative measure
    tiny_rel_tol: float = 1e-3
    # gate 3: float64 fallback
    fp64_factor: float = 1.0  # candidate error vs float64 truth must be <= factor * baseline error
    fp64_max_gib: float | None = None  # None: the float64 truth runs wherever it fits (device, else host)
    # gate 4: performance
    min_speedup: float = 1.02  # lower bound of the speedup's confidence interval must reach this
    perf_samples: int = 30
    perf_max_samples: int = 960  # the sequential gate doubles its pairs (30, 60, 120, ...) up to this while undecided
    perf_max_seconds: float = 60.0  # ... or until its timing would take longer than this
    perf_warmup: int = 5
    confidence: float = 0.95
    perf_regression: float = 0.05  # --kernelopt-perf fails when slower than baseline by more than this
    # isolation and budgets
    isolate: bool = True
    timeout: float = 300.0  # seconds per candidate evaluation in the subprocess
    max_candidates: int = 8  # per kernel
    max_turns: int = 6  # agent turns per kernel
    kernel_time_budget: float = 90.0  # seconds of search per kernel
    problem_time_budget: float = 180.0  # seconds of search per module (the tuner's bar: 3 minutes a problem)
    run_time_budget: float = 3600.0
    max_tokens: int = 200_000  # per run
    # proposer
    proposer: str = "auto"  # auto | agents | tuner | none
    model: str | None = None
    llm_error: str = "fail"  # fail | warn: when the chosen proposer (the LLM agents) could not run
    llm_retries: int = 4  # retries of a failed LLM request (the openai SDK's, with its bounded backoff)
    llm_timeout: float = 120.0  # seconds an LLM request may take
    training: bool = False
    ncu: bool = True  # Nsight Compute metrics in the profile when ncu is installed (GPU only)
    report: str | None = None
    perf: bool = False
    perf_unmeasured: str = "warn"  # warn | fail: perf requested where performance cannot be measured
    shard: str | None = None  # "K/N": run only shard K of N (sharding.py); None: every test

    def with_overrides(self, overrides: Mapping[str, Any] | None, source: str = "option") -> "Settings":
        """These settings with ``overrides`` applied, each value parsed and checked by its :data:`FIELDS` entry.

        ``None`` means "not given" (kept as is), except for the fields whose value may be None.  ``source``
        says where the values came from (see :func:`label`); a bad name or value raises :class:`SettingError`.
        """
        clean = parse_overrides(overrides, source)
        return dataclasses.replace(self, **clean) if clean else self

    def validate(self) -> None:
        """Every field's value in its range (for settings built directly rather than through :meth:`with_overrides`)."""
        for name, spec in FIELDS.items():
            spec.parse(getattr(self, name), name)

    @property
    def torch_compile_mode(self) -> str | None:
        """``torch.compile``'s ``mode=`` for the baseline (None: its default)."""
        return None if self.compile_mode == "default" else self.compile_mode

    def tolerance(self, dtype_name: str) -> tuple[float, float]:
        rtol, atol = DEFAULT_TOLERANCES.get(dtype_name, DEFAULT_TOLERANCES["float32"])
        return (self.rtol if self.rtol is not None else rtol, self.atol if self.atol is not None else atol)

    def llm_configured(self) -> bool:
        return bool(os.environ.get("OPENAI_API_KEY") or os.environ.get("OPENAI_BASE_URL"))


class SettingError(ValueError):
    """An unknown setting, or a value of the wrong type or out of range; the message names where it came from."""


BACKENDS = ("auto", "cuda", "cpu")
#: torch.compile modes the baseline may be compiled in (CUDA-graph modes are refused: kernels replaced after
#: capture would not be replayed)
COMPILE_MODES = ("default", "max-autotune-no-cudagraphs")
PROPOSERS = ("auto", "agents", "tuner", "none")
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")
_NONE = ("", "none")

# the `kernelopt` subcommands a setting is a flag of (pytest takes every setting)
_CAPTURE = ("capture", "bench", "judge")
_GATES = ("bench", "judge")
_BENCH = ("bench",)


@dataclass(frozen=True)
class Field:
    """One setting: its help text, type and allowed values, and the flags it is given by.

    ``kind`` and whether None is allowed come from :class:`Settings`' annotation; the default from its default.
    """

    name: str
    help: str
    kind: type = str
    optional: bool = False  # None allowed ("none" or empty from the command line or an ini file)
    choices: tuple[str, ...] = ()
    low: float | None = None  # smallest value allowed (excluded when low_open)
    low_open: bool = False
    high: float | None = None  # largest value allowed (excluded when high_open)
    high_open: bool = False
    aliases: tuple[str, ...] = ()  # other flag names: "budget" is --kernelopt-budget and `kernelopt bench --budget`
    commands: tuple[str, ...] = ()  # the `kernelopt` subcommands that take it as --<name>
    default_text: str | None = None  # README's default column where the default value alone would mislead
    check: Callable[[Any], Any] | None = None  # a further check of a parsed value; raises ValueError
    form: str = ""  # the allowed values in words, where check decides them

    @property
    def option(self) -> str:
        """The pytest command-line option."""
        return "--kernelopt-" + self.name.replace("_", "-")

    @property
    def default(self) -> Any:
        return _DEFAULTS[self.name]

    def allowed(self) -> str:
        """The allowed values, in words (for error messages, --help and the README)."""
        if self.form:
            return self.form + (", or none" if self.optional else "")
        if self.kind is bool:
            return "true or false"
        if self.choices:
            return "one of " + ", ".join(self.choices)
        kind = {int: "an integer", float: "a number", str: "a non-empty string"}[self.kind]
        lo = hi = ""
        if self.low is not None:
            lo = f"{'>' if self.low_open else '>='} {_bound(self.low)}"
        if self.high is not None:
            hi = f"{'<' if self.high_open else '<='} {_bound(self.high)}"
        bounds = " and ".join(b for b in (lo, hi) if b)
        return kind + (f" {bounds}" if bounds else "") + (", or none" if self.optional else "")

    def parse(self, value: Any, where: str) -> Any:
        """``value`` (a string from an ini file or the command line, or a Python value) as this field's type,
        checked against its range; :class:`SettingError` naming ``where`` and the allowed values otherwise."""

        def bad() -> SettingError:
            return SettingError(f"{where}: {value!r} is not allowed; expected {self.allowed()}")

        v = value.strip() if isinstance(value, str) else value
        if v is None or (self.optional and isinstance(v, str) and v.lower() in _NONE):
            if self.optional:
                return None
            raise bad()
        if self.kind is bool:
            if isinstance(v, bool):
                return v
            if isinstance(v, int) and v in (0, 1):
                return bool(v)
            if isinstance(v, str) and v.lower() in _TRUE + _FALSE:
                return v.lower() in _TRUE
            raise bad()
        if self.kind is str:
            if not isinstance(v, str) or not v:
                raise bad()
            if self.choices and v not in self.choices:
                raise bad()
            if self.check is not None:
                try:
                    self.check(v)
                except ValueError:
                    raise bad() from None
            return v
        if isinstance(v, bool):
            raise bad()
        try:
            if self.kind is int:
                if isinstance(v, float):
                    raise ValueError
                v = int(v)
            else:
                v = float(v)
        except (TypeError, ValueError):
            raise bad() from None
        if v != v:  # NaN
            raise bad()
        if self.low is not None and (v <= self.low if self.low_open else v < self.low):
            raise bad()
        if self.high is not None and (v >= self.high if self.high_open else v > self.high):
            raise bad()
        return v


def _bound(v: float) -> str:
    return str(v) if isinstance(v, int) else f"{v:g}"


def _spec(name: str, help: str, **kw: Any) -> Field:
    t = _ANNOTATIONS[name].replace(" ", "")
    kind = {"bool": bool, "int": int, "float": float, "str": str}[t.split("|")[0]]
    return Field(name, help, kind=kind, optional="None" in t.split("|"), **kw)


_ANNOTATIONS = {f.name: str(f.type) for f in dataclasses.fields(Settings)}
_DEFAULTS = {f.name: f.default for f in dataclasses.fields(Settings)}

#: The one option table: pytest's command-line options (``--kernelopt-<name>``, booleans also
#: ``--kernelopt-no-<name>``) and ini keys (``kernelopt_<name>``), the marker's and the fixture's keywords, the
#: ``kernelopt`` command's flags and the README's table are all made from it, and every value is checked by it.
FIELDS: dict[str, Field] = {f.name: f for f in (
    _spec("mode", "off: inert; verify: apply cached kernels and re-check them; optimize: also search for new kernels "
                  "(--kernelopt is --kernelopt-mode=optimize)", choices=MODES),
    _spec("backend", "auto (GPU if present, else the CPU interpreter), cuda, or cpu", choices=BACKENDS,
          commands=_CAPTURE),
    _spec("compile_mode", "the baseline the gates and the search start from: torch.compile's default mode, or "
                          "max-autotune-no-cudagraphs (Inductor autotunes its Triton kernels and may replace vendor "
                          "GEMMs with Triton templates; slower to compile, and cache entries are kept apart per mode)",
          choices=COMPILE_MODES, commands=_CAPTURE),
    _spec("cache_dir", "directory of the versioned kernel cache (a relative path is taken from pytest's rootdir)",
          commands=_BENCH),
    _spec("strict_cache", "a corrupt or mismatched cache entry is an error instead of a warning and a miss",
          commands=_BENCH),
    _spec("seeds", "number of seeds (fresh inputs each) for the correctness gate", low=1, commands=_GATES),
    _spec("verify_seeds", "seeds used to re-check a cached kernel recorded on this environment (a stale entry gets "
                          "the full cascade)", low=1, commands=_BENCH),
    _spec("base_seed", "pin the gates' seeds to replay a run (default: drawn from the OS every run and recorded in "
                       "the report as base_seed)", low=0, high=2**32 - 1, commands=_GATES,
          default_text="(from the OS)"),
    _spec("rtol", "relative tolerance (default: per dtype, fp32 1e-4, fp16 1e-2, bf16 2e-2, fp64 1e-7)", low=0,
          commands=_GATES, default_text="per dtype"),
    _spec("atol", "absolute tolerance (default: per dtype, as rtol)", low=0, commands=_GATES,
          default_text="per dtype"),
    _spec("tiny_output_factor", "outputs whose largest magnitude is below factor x atol are checked relatively",
          low=0, commands=_GATES),
    _spec("tiny_rel_tol", "relative (L2) tolerance for such tiny outputs", low=0, low_open=True, commands=_GATES),
    _spec("fp64_factor", "a candidate's error vs the float64 truth may be at most factor x the baseline's", low=1,
          commands=_GATES),
    _spec("fp64_max_gib", "GiB the float64 truth may take; above it the float64 check is skipped and says so "
                          "(default: it runs wherever it fits, the device, else the host)", low=0, low_open=True,
          commands=_GATES, default_text="(no cap)"),
    _spec("min_speedup", "the lower confidence bound of the speedup must reach this", low=0, low_open=True,
          commands=_GATES),
    _spec("perf_samples", "timed samples per variant for the performance gate", low=5, commands=_GATES),
    _spec("perf_max_samples", "the sequential performance gate doubles its samples (perf_samples, twice that, ...) "
                              "up to this many while undecided", low=5, commands=_GATES),
    _spec("perf_max_seconds", "... or until its timing would take longer than this many seconds", low=0,
          low_open=True, commands=_GATES),
    _spec("perf_warmup", "untimed warm-up calls per variant", low=0, commands=_GATES),
    _spec("confidence", "confidence level of the speedup interval", low=0.5, high=1, high_open=True,
          commands=_GATES),
    _spec("perf_regression", "--kernelopt-perf fails when slower than the baseline by more than this fraction",
          low=0, high=1, high_open=True),
    _spec("isolate", "judge candidates in worker processes, free-form code one worker per candidate and Inductor's "
                     "own code under another launch config in one clean worker (a crash or hang rejects the "
                     "candidate only); verify mode judges a free-form cache entry so the first time this machine "
                     "sees it. false judges in the test process: only for your own trusted kernels",
          commands=_GATES),
    _spec("timeout", "seconds a candidate evaluation may take in the worker (the baseline's float64 truths: each "
                     "seed's)", low=0, low_open=True, commands=_GATES),
    _spec("max_candidates", "candidates gated per kernel", low=0, commands=_BENCH),
    _spec("max_turns", "LLM turns per kernel", low=0, commands=_BENCH),
    _spec("kernel_time_budget", "seconds of search per kernel", low=0, commands=_BENCH),
    _spec("problem_time_budget", "seconds of search per module or problem (the tuner's bar: 3 minutes a problem)",
          low=0, aliases=("budget",), commands=_BENCH),
    _spec("run_time_budget", "seconds of search per run", low=0, commands=_BENCH),
    _spec("max_tokens", "LLM tokens per run", low=0, commands=_BENCH),
    _spec("proposer", "auto (agents if an LLM is configured and openai installed, else the offline tuner), "
                      "agents, tuner, or none", choices=PROPOSERS, commands=_BENCH),
    _spec("model", "LLM model name for the agents (also KERNELOPT_MODEL / OPENAI_MODEL)", commands=_BENCH),
    _spec("llm_error", "when the chosen proposer could not run (the LLM endpoint unreachable or refusing): fail "
                       "fails the test (kernelopt bench: the problem, exit 1); warn only warns, and the test "
                       "passes with the compiled baseline", choices=("fail", "warn"), commands=_BENCH),
    _spec("llm_retries", "retries of an LLM request that failed in a retryable way (connection error, timeout, "
                         "408, 409, 429, 5xx), with the openai SDK's bounded exponential backoff", low=0,
          commands=_BENCH),
    _spec("llm_timeout", "seconds one LLM request may take", low=0, low_open=True, commands=_BENCH),
    _spec("training", "also capture and check the backward graph (forward + backward)", commands=_CAPTURE),
    _spec("ncu", "on a GPU, add Nsight Compute metrics to the profile the LLM agents see when ncu is installed "
                 "(on PATH, $KERNELOPT_NCU, or /usr/local/cuda/bin); one extra process per module (never for the "
                 "offline tuner, which does not read them)",
          commands=_BENCH),
    _spec("report", "write a JSON report to this path"),
    _spec("perf", "re-measure each module against its compiled baseline in the same run and fail on a regression "
                  "beyond perf_regression (needs a GPU)"),
    _spec("perf_unmeasured", "when perf is requested but performance cannot be measured here (no GPU, or a GPU "
                             "two xdist workers share): warn (the default, so that the same command line or ini "
                             "still passes on a laptop or a CPU job) only warns in the summary; fail fails each "
                             "test, for a CI job that relies on the performance gate",
          choices=("warn", "fail")),
    _spec("shard", "K/N: run only shard K of N (tests split by a hash of their node id, for N CI hosts)",
          check=lambda v: __import__("pytest_kernelopt.sharding", fromlist=["parse_shard"]).parse_shard(v),
          form="K/N with 1 <= K <= N"),
)}
assert list(FIELDS) == list(_DEFAULTS), "every Settings field has exactly one FIELDS entry, in the same order"


def label(source: str, name: str) -> str:
    """How an error names setting ``name`` given through ``source``."""
    if source == "ini key":
        return f"ini key kernelopt_{name}"
    aliases = FIELDS[name].aliases if name in FIELDS else ()
    if source == "command-line option":  # an alias's value lands on the same field: both names, either was typed
        flag = FIELDS[name].option if name in FIELDS else f"--kernelopt-{name.replace('_', '-')}"
        return flag + "".join(f" (or --kernelopt-{a})" for a in aliases)
    if source == "kernelopt option":  # the `kernelopt` command's flags
        return f"--{name.replace('_', '-')}" + "".join(f" (or --{a})" for a in aliases)
    return f"{source} {name}"


def parse_overrides(overrides: Mapping[str, Any] | None, source: str = "option") -> dict[str, Any]:
    """``overrides`` parsed and checked, field by field: the one validation of every setting, whatever its source.

    ``None`` values are dropped (not given), except for fields that may be None.  An unknown name or a bad
    value raises :class:`SettingError` naming it (``source``: "ini key", "command-line option",
    "@pytest.mark.kernelopt keyword", "kernelopt() keyword", ...).
    """
    if not overrides:
        return {}
    unknown = sorted(set(overrides) - set(FIELDS))
    if unknown:
        raise SettingError(f"unknown {source}(s) {', '.join(unknown)}; known: {', '.join(sorted(FIELDS))}")
    clean = {}
    for name, value in overrides.items():
        spec = FIELDS[name]
        if value is None and not spec.optional:
            continue
        clean[name] = spec.parse(value, label(source, name))
    return clean


def named_model(explicit: str | None) -> str | None:
    """The agents' model: ``explicit`` (the ``model`` setting), else ``KERNELOPT_MODEL``, else ``OPENAI_MODEL``;
    None where none is named."""
    return explicit or os.environ.get("KERNELOPT_MODEL") or os.environ.get("OPENAI_MODEL") or None


def check_extras(settings: Settings) -> None:
    """Settings that cannot run as given, before anything runs: ``proposer=agents`` in optimize mode needs openai
    (``pytest-kernelopt[llm]``: a SettingError naming the extra) and, where an agent that cannot run fails the run
    (``llm_error=fail``), a model (the ``model`` setting, ``KERNELOPT_MODEL`` or ``OPENAI_MODEL``)."""
    if settings.mode == "optimize" and settings.proposer == "agents":
        try:
            check("openai", "proposer=agents (the LLM agents)")
        except MissingExtraError as e:
            raise SettingError(str(e)) from None
        if settings.llm_error == "fail" and not named_model(settings.model):
            raise SettingError("proposer=agents needs an LLM model: set the model setting (pytest: --kernelopt-model "
                               "NAME or the ini key kernelopt_model; kernelopt bench: --model NAME) or the "
                               "environment variable KERNELOPT_MODEL or OPENAI_MODEL (llm_error=warn runs on "
                               "without the agents instead)")


def options_table() -> str:
    """The README's table of settings (tests/test_settings.py checks that README.md holds it as generated)."""

    def default(f: Field) -> str:
        if f.default_text is not None:
            return f.default_text
        if f.default is None:
            return ""
        if isinstance(f.default, bool):
            return str(f.default).lower()
        return f"{f.default:g}" if isinstance(f.default, float) else str(f.default)

    def flags(f: Field) -> str:
        names = [f.option] + [f"--kernelopt-{a}" for a in f.aliases]
        if f.kind is bool:
            names.append(f"--kernelopt-no-{f.name.replace('_', '-')}")
        if f.name == "mode":
            names.insert(0, "--kernelopt")
        return ", ".join(f"`{n}`" for n in names)

    rows = ["| name | pytest option | default | allowed | meaning |", "|---|---|---|---|---|"]
    rows += [f"| {f.name} | {flags(f)} | {default(f)} | {f.allowed()} | {f.help} |" for f in FIELDS.values()]
    return "\n".join(rows) + "\n"
