"""One frozen settings object, built from defaults < ini < command line < marker < fixture call.

Every field has a documented default; :data:`FIELDS` is the single table the
plugin's ``--help``, ini keys, marker keywords and the README are made from.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import Any, Mapping

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
    cache_dir: str = "kernels_cache"
    strict_cache: bool = False
    # gate 2: multi-seed correctness
    seeds: int = 5
    verify_seeds: int = 1  # re-checking a cached kernel recorded on this same environment
    base_seed: int | None = None  # None: the gates' seeds are drawn from the OS for every run (and recorded)
    rtol: float | None = None  # None: per-dtype table above
    atol: float | None = None
    tiny_output_factor: float = 10.0  # outputs with max|x| < factor*atol are judged by a relative measure
    tiny_rel_tol: float = 1e-3
    # gate 3: float64 fallback
    fp64_factor: float = 1.0  # candidate error vs float64 truth must be <= factor * baseline error
    # gate 4: performance
    min_speedup: float = 1.02  # lower bound of the speedup's confidence interval must reach this
    perf_samples: int = 30
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
    training: bool = False
    ncu: bool = True  # Nsight Compute metrics in the profile when ncu is installed (GPU only)
    report: str | None = None
    perf: bool = False
    shard: str | None = None  # "K/N": run only shard K of N (sharding.py); None: every test

    def with_overrides(self, overrides: Mapping[str, Any] | None, source: str = "option") -> "Settings":
        if not overrides:
            return self
        names = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(set(overrides) - names)
        if unknown:
            raise TypeError(f"unknown kernelopt {source}(s): {', '.join(unknown)}; known: {', '.join(sorted(names))}")
        clean = {}
        for k, v in overrides.items():
            if v is None and k not in ("rtol", "atol", "model", "report", "base_seed"):
                continue
            clean[k] = _coerce(k, v)
        new = dataclasses.replace(self, **clean)
        new.validate()
        return new

    def validate(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"kernelopt mode must be one of {MODES}, got {self.mode!r}")
        if self.seeds < 1:
            raise ValueError("kernelopt seeds must be at least 1")
        if self.perf_samples < 5:
            raise ValueError("kernelopt perf_samples must be at least 5 for a confidence interval")
        if not 0.5 <= self.confidence < 1:
            raise ValueError("kernelopt confidence must be in [0.5, 1)")
        if self.fp64_factor < 1.0:
            raise ValueError("kernelopt fp64_factor must be >= 1.0")
        if self.shard is not None:
            from .sharding import parse_shard

            parse_shard(self.shard)

    def tolerance(self, dtype_name: str) -> tuple[float, float]:
        rtol, atol = DEFAULT_TOLERANCES.get(dtype_name, DEFAULT_TOLERANCES["float32"])
        return (self.rtol if self.rtol is not None else rtol, self.atol if self.atol is not None else atol)

    def llm_configured(self) -> bool:
        return bool(os.environ.get("OPENAI_API_KEY") or os.environ.get("OPENAI_BASE_URL"))


def _coerce(name: str, value: Any) -> Any:
    f = {f.name: f for f in dataclasses.fields(Settings)}[name]
    t = str(f.type)
    if isinstance(value, str):
        if "None" in t and value.strip().lower() in ("", "none", "os"):
            return None
        if t.startswith("bool"):
            return value.strip().lower() in ("1", "true", "yes", "on")
        if t.startswith("int"):
            return int(value)
        if t.startswith("float"):
            return float(value)
    return value


# name, help text (the --help group and the README table are generated from this)
FIELDS: dict[str, str] = {
    "mode": "off: inert; verify: apply cached kernels and re-check them; optimize: also search for new kernels",
    "backend": "auto (GPU if present, else CPU interpreter), cuda, or cpu",
    "cache_dir": "directory of the versioned kernel cache",
    "strict_cache": "a corrupt or mismatched cache entry is an error instead of a warning and a miss",
    "seeds": "number of seeds (fresh inputs each) for the correctness gate",
    "verify_seeds": "seeds used to re-check a cached kernel recorded on this environment (stale ones get seeds)",
    "base_seed": "pin the gates' seeds to replay a run (default: drawn from the OS every run and recorded in the "
                 "report as base_seed)",
    "rtol": "relative tolerance (default: per dtype, fp32 1e-4, fp16 1e-2, bf16 2e-2)",
    "atol": "absolute tolerance (default: per dtype, as rtol)",
    "tiny_output_factor": "outputs whose largest magnitude is below factor*atol are checked relatively",
    "tiny_rel_tol": "relative tolerance for such tiny outputs",
    "fp64_factor": "candidate's error vs the float64 truth may be at most factor * the baseline's",
    "min_speedup": "the lower confidence bound of the speedup must reach this",
    "perf_samples": "timed samples per variant for the performance gate",
    "perf_warmup": "untimed warm-up calls per variant",
    "confidence": "confidence level of the speedup interval",
    "perf_regression": "--kernelopt-perf fails when slower than the baseline by more than this fraction",
    "isolate": "judge candidates in worker processes, one per candidate (a crash or hang rejects the candidate "
               "only); verify mode judges an unknown cache entry so before applying it",
    "timeout": "seconds a candidate evaluation may take in the subprocess",
    "max_candidates": "candidates tried per kernel",
    "max_turns": "LLM turns per kernel",
    "kernel_time_budget": "seconds of search per kernel",
    "problem_time_budget": "seconds of search per module or problem",
    "run_time_budget": "seconds of search per run",
    "max_tokens": "LLM tokens per run",
    "proposer": "auto (agents if an LLM is configured, else the offline tuner), agents, tuner, or none",
    "model": "LLM model name for the agents (also OPENAI_MODEL / KERNELOPT_MODEL)",
    "training": "also capture and check the backward graph",
    "ncu": "add Nsight Compute metrics to the profile when ncu is installed (GPU, optimize mode; one extra process)",
    "report": "write a JSON report to this path",
    "perf": "re-measure each module against its compiled baseline and fail on regression",
    "shard": "K/N: run only shard K of N (tests split by a hash of their node id, for N CI hosts)",
}
