"""``kernelopt bench --compare-modes``: ours against eager, default compile and max-autotune, per problem.

For each problem file the bench first runs as usual (re-verify cached kernels, search the rest: our search
time), then, in this one process:

* **eager**: the module itself;
* **default**: ``torch.compile`` as a user calls it (captured, so kernels can be swapped into it);
* **max-autotune**: ``torch.compile(mode="max-autotune-no-cudagraphs")`` as torch defines that mode;
* **max-autotune+cd**: max-autotune with ``coordinate_descent_tuning=True`` (no CUDA graphs);
* **ours**: the default compile with the accepted and cached kernels swapped in (the bench's result).

Each compiled mode gets an entry point of its own (its own code object, so no Dynamo cache entry is shared with another
mode), is compiled with Inductor's config patched by ``torch._inductor.config.patch`` around the compile and the first
call (where lazy compilation and autotuning happen) and with Inductor's caches off (``force_disable_caches``: cold
compile times, comparable across modes and runs).  All modes are then timed interleaved with the performance gate's
timer (:func:`pytest_kernelopt.gates.timing.time_interleaved`: CUDA events, L2 flushed, each timed call after an untimed
one of the same mode, the order rotating so that every mode takes every slot), the default column twice (the timer's A/A
control: ``timer_aa``), under ``fail_on_recompile`` (a mode that would recompile while timed is an error of that mode,
never a silent measurement of something else).  A mode that fails (out of memory, a compile error) is recorded and the
others go on; a problem that fails is recorded and the run goes on.

Without a GPU (or on a GPU this process may not time on) nothing is timed: eager, default and ours are
compiled and checked for correctness against eager, every timing column says "not measured", and the
max-autotune modes, which tune for a GPU, are neither compiled nor timed ("not measured").

Results go to ``<out>/compare_modes.json``, rewritten (atomically) after every problem: a rerun skips the
problems already done there, so a run cut off after N problems resumes at problem N+1.  One folder holds
one GPU's records: a run on another GPU is refused (exit 2) and given its own ``--out``.  ``compare_modes.md``
(a table and the geometric means) and ``compare_modes.png`` (speedup per problem against both max-autotune
modes, when matplotlib is installed: ``pip install pytest-kernelopt[plot]``) are written next to it.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import re
import statistics
import sys
import time
import traceback
from pathlib import Path
from typing import Any, Callable

from . import __version__

MODES = ("eager", "default", "max-autotune", "max-autotune+cd", "ours")
BASELINES = ("eager", "default", "max-autotune", "max-autotune+cd")
AUTOTUNE_MODES = ("max-autotune", "max-autotune+cd")
LABELS = {"eager": "eager", "default": "compile default", "max-autotune": "max-autotune-no-cudagraphs",
          "max-autotune+cd": "max-autotune + coordinate descent", "ours": "ours"}
SHORT = {"eager": "eager", "default": "default", "max-autotune": "MA", "max-autotune+cd": "MA+CD", "ours": "ours"}
NOT_MEASURED = "not measured"
#: the timer's A/A control: the default column's own function timed again in a slot of its own; its "speedup"
#: over the default column is the timer's error on that problem (1.0x when slots are fair)
AA = "default A/A"
DEFAULT_OUT = "benchmarks/results/compare_modes"
RESULTS = "compare_modes"
#: the issue-14 bar against max-autotune: never below this on any problem
FLOOR = 0.98

KEPT_NOTE = ("a problem where ours applied no kernel (every baseline kept) runs exactly the default compile: it "
             "counts 1.0x over default compile, and the default compile's times stand for ours against the "
             "other baselines")


# --------------------------------------------------------------------------- modes


def autotune_has_cd() -> bool:
    """Whether this torch's ``max-autotune-no-cudagraphs`` already turns coordinate descent on (torch 2.13 does:
    then the two max-autotune columns are one configuration, compiled and timed once)."""
    import torch._inductor as inductor

    return bool(inductor.list_mode_options("max-autotune-no-cudagraphs").get("coordinate_descent_tuning"))


def mode_config(mode: str, backend: Any, cold: bool = True) -> tuple[dict[str, Any], str | None]:
    """(Inductor config patch, torch.compile mode) of a compiled mode."""
    patch: dict[str, Any] = {**backend.inductor_options}
    if cold:
        patch["force_disable_caches"] = True
    if mode == "max-autotune":
        return patch, "max-autotune-no-cudagraphs"
    if mode == "max-autotune+cd":
        patch.update({"max_autotune": True, "coordinate_descent_tuning": True, "triton.cudagraphs": False})
        return patch, None
    if mode == "default":
        return patch, None
    raise ValueError(f"not a compiled mode: {mode}")


def entry_point(module: Any, tag: str) -> Callable:
    """A function with a code object of its own that calls ``module``: Dynamo keeps compiled frames on the code
    object, so a mode compiled through its own entry point starts from a fresh Dynamo state without a
    ``torch._dynamo.reset()`` (which would drop the other modes' compiled code and make them recompile)."""
    import types

    def entry(*args):
        return module(*args)

    name = "kernelopt_mode_" + re.sub(r"\W", "_", tag)
    # co_qualname is 3.11's (checked here; mypy reads a conditional expression as 3.10 code)
    code = (entry.__code__.replace(co_name=name, co_qualname=name)  # type: ignore[call-arg]
            if sys.version_info >= (3, 11) else entry.__code__.replace(co_name=name))
    return types.FunctionType(code, entry.__globals__, name, None, entry.__closure__)


@contextlib.contextmanager
def no_recompiles():
    """While timing: a compiled mode that would recompile raises (an error of that mode) instead of being timed
    as something else."""
    import torch

    set_stance = getattr(getattr(torch, "compiler", None), "set_stance", None)
    if set_stance is None:
        yield
        return
    with set_stance("fail_on_recompile"):
        yield


def sync(backend: Any) -> None:
    if backend.name == "cuda":
        import torch

        torch.cuda.synchronize()


def compile_mode(mode: str, module: Any, inputs: tuple, backend: Any) -> tuple[Callable, Any, float]:
    """Compile ``module`` in ``mode`` and run it once (compile, autotuning and one call): (compiled, output,
    seconds)."""
    import torch

    patch, torch_mode = mode_config(mode, backend)
    fn = entry_point(module, mode)
    with torch._inductor.config.patch(patch):
        compiled = torch.compile(fn, backend="inductor", mode=torch_mode)
        t0 = time.perf_counter()
        with torch.no_grad():
            out = compiled(*inputs)
        sync(backend)
        return compiled, out, time.perf_counter() - t0


#: a mode beyond eager's tolerance is still "as accurate as eager" when its relative L2 error against the float64
#: truth is at most this many times eager's own (a float32 cumsum over 32768 values: every compiled mode, the
#: default compile included, rounds beyond the tolerance of eager's result, not beyond its accuracy)
AS_ACCURATE = 2.0


class Float64Truth:
    """The problem's float64 truth and eager's error against it, computed once, only when a mode's output is
    beyond eager's tolerance: the module rebuilt from its spec and seed (so a forward that changes the module's
    state has not run on it), its floating parameters, buffers, attributes and inputs in float64."""

    def __init__(self, spec: Any, device: str, seed: int, eager_out: Any) -> None:
        self.spec, self.device, self.seed, self.eager_out = spec, device, seed, eager_out
        self._truth: Any = None
        self._eager_errs: list[float] | None = None
        self.error: str | None = None

    def errors(self, out: Any) -> tuple[list[float], list[float]] | None:
        """(the mode's, eager's) relative L2 error of each floating output against the truth; None where the
        truth could not be computed (``error`` says why)."""
        from .gates.compare import error_vs_truth

        if self.error is not None:
            return None
        try:
            if self._truth is None:
                self._truth = self._compute()
                self._eager_errs = error_vs_truth(self.eager_out, self._truth)
            return error_vs_truth(out, self._truth), list(self._eager_errs or [])
        except Exception as e:  # an op with no float64 kernel, out of memory: the comparison is missing
            self.error, self._truth = error_text(e), None
            return None

    def _compute(self) -> Any:
        import torch

        from .gates.fp64_place import _to, float64_copy
        from .problems import build_problem

        problem = build_problem(self.spec, self.device, self.seed)
        module = problem.module
        if hasattr(module, "double"):
            module = float64_copy(module, self.device)
        with torch.no_grad():
            return module(*_to(tuple(problem.example_inputs), self.device))


def check_output(out: Any, ref: Any, settings: Any, truth: Float64Truth | None = None) -> dict[str, Any]:
    """A mode's output against eager's, with the correctness gate's tolerances; beyond them, and with a
    ``truth``, also against the float64 truth: as accurate as eager there (:data:`AS_ACCURATE`) is correct,
    and said so."""
    from .gates.compare import compare_outputs

    try:
        cmp = compare_outputs(out, ref, settings.tolerance, tiny_factor=settings.tiny_output_factor,
                              tiny_rel_tol=settings.tiny_rel_tol)
    except Exception as e:  # e.g. out of memory comparing multi-GiB outputs: the check is missing, not failed
        return {"correct": None, "check_error": error_text(e)}
    ok = cmp.hard_failure is None and cmp.within_tolerance
    res: dict[str, Any] = {"correct": ok, "max_abs_err": cmp.max_abs_err}
    if ok:
        return res
    beyond = f"beyond tolerance: {cmp.worst or f'max abs {cmp.max_abs_err:.3g}'}"
    res["differs"] = cmp.hard_failure or beyond
    if cmp.hard_failure is None and truth is not None:
        errs = truth.errors(out)
        if errs is None:
            res["differs"] += f"; float64 truth not computed: {truth.error}"
        else:
            mine, eager = errs
            res["vs_float64"] = {"rel_l2": mine, "eager_rel_l2": eager}
            if len(mine) == len(eager) and all(m <= AS_ACCURATE * e + 1e-12 for m, e in zip(mine, eager)):
                res["correct"] = True
                res["as_accurate_as_eager"] = beyond
                del res["differs"]
            else:
                res["differs"] += (f"; less accurate than eager against float64 (relative L2 "
                                   f"{', '.join(f'{m:.3g}' for m in mine)} against eager's "
                                   f"{', '.join(f'{e:.3g}' for e in eager)})")
    return res


def is_oom(e: BaseException) -> bool:
    import torch

    oom = getattr(torch.cuda, "OutOfMemoryError", ())
    return (bool(oom) and isinstance(e, oom)) or "out of memory" in str(e).lower()


def error_text(e: BaseException) -> str:
    text = f"{type(e).__name__}: {e}"
    text = text if len(text) <= 600 else text[:600] + "..."
    return ("out of memory: " + text) if is_oom(e) and not text.lower().startswith("out of memory") else text


def free_memory(backend: Any) -> None:
    import gc

    gc.collect()
    if backend.name == "cuda":
        import torch

        torch.cuda.empty_cache()


class ModeFailed(Exception):
    def __init__(self, mode: str, error: BaseException) -> None:
        super().__init__(f"{mode}: {error_text(error)}")
        self.mode, self.error = mode, error


def guarded(mode: str, call: Callable[[int], Any]) -> Callable[[int], Any]:
    def run(i: int) -> Any:
        try:
            return call(i)
        except Exception as e:
            raise ModeFailed(mode, e) from e

    return run


#: the modes are timed in rounds of ``perf_samples`` each, more while ours' interval against any other compiled mode
#: is wider than this (``hi / lo - 1``: on the H200 30 samples left intervals of 5% on sub-millisecond problems,
#: wider than the 2% the bar asks about), up to :data:`MAX_ROUNDS` rounds; the stopping rule reads the interval's
#: width, never where it lies
PRECISION = 0.02
MAX_ROUNDS = 5


def time_modes(variants: dict[str, tuple[Callable, Callable]], settings: Any, backend: Any,
               errors: dict[str, str]) -> dict[str, list[float]]:
    """Every variant timed interleaved with the gate's timer, in rounds until precise enough (:data:`PRECISION`);
    a variant that raises (out of memory, a recompile) is dropped with its error in ``errors`` and the others are
    timed again without it.  Each timed call follows an untimed call of its own variant (``prime``) and the order
    rotates (``rotate``): on the H200 the plain ABBA order had the default column, always in the middle of eager,
    default and max-autotune, 6% slower than max-autotune's with the same kernel source and launch config
    (maxpool1d; tests/test_perf_timer.py::test_rotated_order_puts_every_variant_in_every_slot)."""
    import torch

    from .gates.timing import time_interleaved

    live = dict(variants)
    while live:
        names = list(live)
        times: dict[str, list[float]] = {m: [] for m in names}
        turn = 2 * len(names)  # a whole number of rotations: every variant in every slot equally often
        samples = -(-max(2, settings.perf_samples) // turn) * turn
        try:
            for _ in range(MAX_ROUNDS):
                with torch.no_grad(), no_recompiles():
                    got = time_interleaved([(sel, guarded(m, call)) for m, (sel, call) in live.items()], 1,
                                           samples, settings.perf_warmup, prime=True, rotate=True)
                for m, t in zip(names, got):
                    times[m].extend(t)
                if widest_interval(times, settings.confidence) <= PRECISION:
                    break
            return times
        except ModeFailed as f:
            errors[f.mode] = "while timed: " + error_text(f.error)
            live.pop(f.mode, None)
            free_memory(backend)
    return {}


def widest_interval(times: dict[str, list[float]], confidence: float) -> float:
    """The widest relative interval (``hi / lo - 1``) of ours (else the default compile) over another compiled
    mode; 0.0 where there is nothing to compare."""
    from .gates.perf import speedup_interval

    ours = times.get("ours") or times.get("default")
    widest = 0.0
    for m, t in times.items():
        if m not in ("eager", AA) and t is not ours and t and ours:
            _, lo, hi = speedup_interval(t, ours, confidence)
            widest = max(widest, hi / lo - 1 if lo > 0 else math.inf)
    return widest


# --------------------------------------------------------------------------- one problem


def _decisions(record: Any) -> dict[str, int]:
    counts: dict[str, int] = {}
    for k in record.kernels:
        counts[k.decision] = counts.get(k.decision, 0) + 1
    return counts


def measure_problem(path: Path, settings: Any, backend: Any, *, use_cache: bool,
                    say: Callable[[str], None], step: Callable[[str], None]) -> dict[str, Any]:
    """One problem: the bench's search, then every mode compiled, checked against eager and (on a GPU) timed."""
    import torch

    from .capture import capture
    from .gates.perf import speedup_interval
    from .problems import ProblemSpec, build_problem
    from .session import release_memory, run_problem_spec
    from .substitute import KernelSwap

    measured = bool(backend.measures_time)
    rec: dict[str, Any] = {"problem": key_of(path), "name": path.stem, "backend": backend.name,
                           "measured": measured, "status": "running"}
    spec = ProblemSpec.from_file(path)

    # 1. ours: the bench as it runs without --compare-modes (re-verify cached kernels, search the rest)
    step("searching")
    t0 = time.perf_counter()
    try:
        record = run_problem_spec(spec, settings, backend, name=spec.name, problem_id=str(path), progress=say,
                                  use_cache=use_cache)
    finally:
        release_memory()
    rec["search_s"] = round(time.perf_counter() - t0, 2)
    if record.regressions:
        raise RuntimeError("; ".join(record.regressions))
    applied = list(record.applied)
    rec["kernels"] = [{"kernel": k.kernel, "kind": k.kind, "decision": k.decision, "source": k.source,
                       "speedup": k.speedup, "ci": list(k.ci) if k.ci else None, "note": (k.note or "")[:300],
                       "phases": k.phases}
                      for k in record.kernels]
    rec.update({"triton_kernels": record.triton_kernels, "decisions": _decisions(record),
                "applied": sorted({n for c in applied for n in c.replaces}), "proposer": record.proposer,
                "outcome": record.outcome, "profile_s": getattr(record.outcome, "profile_s", None)})
    modes: dict[str, dict[str, Any]] = {m: {} for m in MODES}
    rec["modes"] = modes

    # 2. eager: the reference every mode's output is checked against
    step("eager reference")
    problem = build_problem(spec, backend.device, settings.base_seed or 0)
    module, x = problem.module, problem.example_inputs
    with torch.no_grad():
        ref = module(*x)
    sync(backend)
    modes["eager"].update({"compile_s": None, "correct": True, "reference": True})
    truth: Float64Truth | None = Float64Truth(spec, backend.device, settings.base_seed or 0, ref)

    # 3. ours: the module captured (cold) in the settings' compile mode, with our kernels swapped in; in the
    #    default mode that capture is also the default compile's column
    ours_mode = settings.compile_mode
    rec["ours_compile_mode"] = ours_mode
    rec["min_speedup"] = settings.min_speedup  # the performance gate's bar this problem's search ran at
    step("compiling default" if ours_mode == "default" else f"compiling ours' baseline ({ours_mode})")
    patch, _ = mode_config("default", backend)
    patch.pop("cpu_backend", None)  # capture() passes the backend's own options itself
    # through an entry point of its own, as every other mode is compiled: on the H200 a torch.compile of the
    # module object itself cost 10 us more host time a call than one of a function calling it, and timed 2-4%
    # slower on 0.4-0.6 ms one-kernel modules -- what max-autotune's column had been credited with
    # (benchmarks/results/h200_s12_mode_overhead.json)
    with torch._inductor.config.patch(patch):
        cap = capture(entry_point(module, "ours"), x, backend=backend, mode=settings.torch_compile_mode)
    base_check = check_output(cap.outputs, ref, settings, truth)
    base_s = round(cap.compile_seconds, 2) if measured else NOT_MEASURED
    compiled: dict[str, Callable] = {}
    if ours_mode == "default":
        modes["default"].update({"compile_s": base_s, **base_check})
    else:  # the default column compiled on its own entry point (a capture would reset Dynamo under ``cap``)
        step("compiling default")
        try:
            fn, out, secs = compile_mode("default", module, x, backend)
            compiled["default"] = fn
            modes["default"].update({"compile_s": round(secs, 2) if measured else NOT_MEASURED,
                                     **check_output(out, ref, settings, truth)})
            del out
        except Exception as e:  # this mode only
            modes["default"].update({"compile_s": None, "error": error_text(e)})
            free_memory(backend)
    swap = None
    if applied:
        t1 = time.perf_counter()
        swap = KernelSwap(cap, applied)
        with torch.no_grad(), swap.applied():
            out = cap(*x)
            sync(backend)
        load_s = time.perf_counter() - t1
        modes["ours"].update({"compile_s": round(cap.compile_seconds + load_s, 2) if measured else NOT_MEASURED,
                              **check_output(out, ref, settings, truth)})
        del out
        if not swap.launches:
            raise RuntimeError("our kernels never ran in the captured module (their names do not match its "
                               f"kernels: {rec['applied']})")
    elif ours_mode == "default":
        modes["ours"].update({"compile_s": modes["default"]["compile_s"], "same_as": "default",
                              "correct": modes["default"]["correct"], "max_abs_err": modes["default"]["max_abs_err"],
                              "note": "nothing applied: ours is the default compile"})
    else:
        modes["ours"].update({"compile_s": base_s, **base_check,
                              "note": f"nothing applied: ours is the {ours_mode} compile (timed as its own column)"})

    # 4. the max-autotune modes: on a GPU that is timed only
    same = autotune_has_cd()
    rec["max_autotune_includes_cd"] = same
    for m in AUTOTUNE_MODES:
        patch, torch_mode = mode_config(m, backend)
        modes[m]["inductor"] = {"mode": torch_mode, "config_patch": patch}
        if not measured:
            modes[m].update({"compile_s": NOT_MEASURED, "correct": None,
                             "note": "max-autotune tunes for a GPU: neither compiled nor timed here"})
            continue
        if m == "max-autotune+cd" and same and "max-autotune" in compiled:
            modes[m].update({k: v for k, v in modes["max-autotune"].items() if k != "inductor"})
            modes[m]["same_as"] = "max-autotune"
            modes[m]["note"] = ("this torch's max-autotune-no-cudagraphs already turns coordinate descent on: "
                                "one configuration, compiled and timed once")
            continue
        step(f"compiling {LABELS[m]}")
        try:
            fn, out, secs = compile_mode(m, module, x, backend)
            compiled[m] = fn
            modes[m].update({"compile_s": round(secs, 2), **check_output(out, ref, settings, truth)})
            del out
        except Exception as e:  # out of memory, a compile error: this mode only
            modes[m].update({"compile_s": None, "error": error_text(e)})
            say(f"{path.stem}: {LABELS[m]} failed: {error_text(e)}")
            free_memory(backend)

    # 5. timing, all modes interleaved in this process
    truth = None  # the float64 truth, where one was computed, is not held while timing
    free_memory(backend)
    if not measured:
        for m in MODES:
            modes[m]["ms"] = NOT_MEASURED
        rec["speedup"] = {b: NOT_MEASURED for b in BASELINES}
        rec["status"] = "done"
        return rec
    step("timing")

    def off() -> None:
        if swap is not None:
            swap.off()

    # the compiled function itself, as every other mode's column calls its own (CapturedModule's call adds a
    # grad-mode context and a recompile check: host time the other columns do not pay)
    run = cap.compiled
    variants: dict[str, tuple[Callable, Callable]] = {"eager": (off, lambda i: module(*x))}
    if ours_mode == "default":
        variants["default"] = (off, lambda i: run(*x))
    if swap is not None:
        variants["ours"] = (swap.on, lambda i: run(*x))
    elif ours_mode != "default":
        variants["ours"] = (off, lambda i: run(*x))
    for m, fn in compiled.items():
        variants[m] = (off, (lambda f: (lambda i: f(*x)))(fn))
    if "default" in variants:  # the timer's own A/A: the default column's function again, in a slot of its own
        variants[AA] = variants["default"]
    errors: dict[str, str] = {}
    before = swap.launches if swap is not None else 0
    try:
        times = time_modes(variants, settings, backend, errors)
    finally:
        off()
    if swap is not None and "ours" in times and swap.launches == before:
        times.pop("ours")
        errors["ours"] = "our kernels never ran while timed"
    aa_error = errors.pop(AA, None)
    for m, err in errors.items():
        modes[m]["error"] = err
    if modes["max-autotune+cd"].get("same_as") and "max-autotune" in errors:
        modes["max-autotune+cd"]["error"] = errors["max-autotune"]
    if "ours" not in variants and "default" in times:
        times["ours"] = times["default"]
    for m in MODES:
        src = modes[m].get("same_as") if m == "max-autotune+cd" else None
        t = times.get(src or m)
        modes[m]["ms"] = round(statistics.median(t), 5) if t else None
        if t:
            modes[m]["samples"] = len(t)
    speed: dict[str, Any] = {}
    ours = times.get("ours")
    for b in BASELINES:
        base = times.get(modes[b].get("same_as") or b) if b == "max-autotune+cd" else times.get(b)
        if b == "default" and swap is None and ours is not None and ours_mode == "default":
            speed[b] = {"x": 1.0, "kept": True}
        elif ours and base:
            x_, lo, hi = speedup_interval(base, ours, settings.confidence)
            speed[b] = {"x": round(x_, 4), "ci": [round(lo, 4), round(hi, 4)], "kept": swap is None}
        else:
            speed[b] = {"error": modes["ours"].get("error") or modes[b].get("error") or "not timed"}
    rec["speedup"] = speed
    if times.get(AA) and times.get("default"):
        x_, lo, hi = speedup_interval(times["default"], times[AA], settings.confidence)
        rec["timer_aa"] = {"x": round(x_, 4), "ci": [round(lo, 4), round(hi, 4)]}
    elif aa_error:
        rec["timer_aa"] = {"error": aa_error}
    # 6. where ours and max-autotune differ: the launch config its autotuner picked for each kernel, beside the
    #    default's and ours (a capture resets Dynamo: last, after every mode was timed)
    if any(m in compiled for m in AUTOTUNE_MODES):
        step("max-autotune's picks")
        try:
            rec["autotune_picks"] = autotune_picks(module, x, backend, cap, applied)
        except Exception as e:  # a diagnosis only: never the problem's failure
            rec["autotune_picks_error"] = error_text(e)
    rec["status"] = "done"
    return rec


def autotune_picks(module: Any, x: tuple, backend: Any, cap: Any, applied: list) -> list[dict[str, Any]]:
    """Per Triton kernel of ``max-autotune-no-cudagraphs``'s compile: its launch config, the default compile's
    for the same kernel source (``None`` where that compile has no such kernel: a template, another fusion),
    and ours where ours applied a candidate with its own config."""
    import torch

    from .capture import capture
    from .launch_space import baseline_config as _baseline
    from .tuner import body_hash

    patch, _ = mode_config("default", backend, cold=False)
    patch.pop("cpu_backend", None)
    with torch._inductor.config.patch(patch):
        ma = capture(module, x, backend=backend, mode="max-autotune-no-cudagraphs")

    default = {}
    for g in cap.graphs:
        traces = {t.kernel: t for t in g.traces}
        for name, k in g.kernels.items():
            if name in traces:
                default[(g.index, body_hash(k))] = (name, _baseline(traces[name]))
    ours = {n: dict(c.configs[0]) for c in applied if len(c.configs) == 1 and c.launch is None for n in c.replaces}
    # what else than the config the applied candidate changed (the tuner's pipelined reduction loop)
    edits = {n: c.description.split("launch config")[0].strip(" ,") for c in applied
             if c.description and "launch config" in c.description for n in c.replaces}
    out = []
    for g in ma.graphs:
        for t in g.traces:
            k = g.kernels.get(t.kernel)
            if k is None:
                continue
            name, base = default.get((g.index, body_hash(k)), (None, None))
            out.append({"kernel": name or t.kernel, "kind": k.kind, "max-autotune": _baseline(t), "default": base,
                        "ours": ours.get(name) if name else None,
                        **({"ours_edit": edits[name]} if name and edits.get(name) else {}),
                        "same_source_as_default": name is not None})
    return out


# --------------------------------------------------------------------------- results file, resume


def gpu_name(backend: Any) -> str | None:
    """The GPU a run times on (None on the CPU): the results folder records it, one GPU a folder."""
    if backend.name != "cuda":
        return None
    import torch

    return torch.cuda.get_device_name()


def key_of(path: Path) -> str:
    """How a problem is named in the results (and recognised on resume): relative to the working directory."""
    try:
        return Path(path).resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return Path(path).resolve().as_posix()


def load_results(path: Path) -> dict[str, Any]:
    import json

    if not path.is_file():
        return {"meta": {}, "problems": []}
    try:
        doc = json.loads(path.read_text())
        if not isinstance(doc.get("problems"), list):
            raise ValueError("no problems list")
        return doc
    except (ValueError, AttributeError) as e:
        raise SystemExit(f"kernelopt bench: {path} is not a compare-modes results file ({e}); move it away "
                         "or choose another --out") from None


def upsert(doc: dict[str, Any], rec: dict[str, Any]) -> None:
    doc["problems"] = [r for r in doc["problems"]
                       if (r.get("problem"), r.get("backend")) != (rec["problem"], rec["backend"])] + [rec]


def geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(max(v, 1e-12)) for v in values) / len(values))


def summarize(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Geometric means of ours over each baseline (all done problems, and those with Triton kernels)."""
    out: dict[str, Any] = {}
    done = [r for r in records if r.get("status") == "done"]
    for b in BASELINES:
        rows = [(r["name"], r["speedup"][b]["x"], r.get("triton_kernels", 0)) for r in done
                if isinstance(r.get("speedup", {}).get(b), dict) and "x" in r["speedup"][b]]
        if not rows:
            out[b] = NOT_MEASURED
            continue
        worst = min(rows, key=lambda t: t[1])
        entry: dict[str, Any] = {"geomean": round(geomean([s for _, s, _ in rows]), 4), "problems": len(rows),
                                 "min": round(worst[1], 4), "min_problem": worst[0],
                                 "below_floor": sorted(n for n, s, _ in rows if s < FLOOR)}
        triton = [s for _, s, k in rows if k]
        if triton:
            entry["geomean_with_triton_kernels"] = round(geomean(triton), 4)
            entry["problems_with_triton_kernels"] = len(triton)
        out[b] = entry
    return out


# --------------------------------------------------------------------------- markdown and chart


def _cell_ms(v: Any) -> str:
    if isinstance(v, (int, float)):
        return f"{v:.4g}"
    return NOT_MEASURED if v == NOT_MEASURED else "-"


def _cell_s(v: Any) -> str:
    if isinstance(v, (int, float)):
        return f"{v:.1f}"
    return NOT_MEASURED if v == NOT_MEASURED else "-"


def _cell_speed(v: Any) -> str:
    if not isinstance(v, dict):
        return NOT_MEASURED if v == NOT_MEASURED else "-"
    if "x" not in v:
        return f"failed ({v.get('error', '?')[:60]})"
    if v.get("kept") and "ci" not in v:
        return f"{v['x']:.3f}x (kept)"
    lo, hi = v.get("ci", (None, None))
    return f"{v['x']:.3f}x [{lo:.3f}, {hi:.3f}]" + (" (kept)" if v.get("kept") else "")


def _cell_correct(rec: dict[str, Any]) -> str:
    bad, failed = [], []
    for m in MODES[1:]:
        mr = rec["modes"].get(m, {})
        if mr.get("error"):
            failed.append(f"{SHORT[m]} failed: {mr['error'][:80]}")
        elif mr.get("correct") is False:
            bad.append(f"{SHORT[m]} differs ({mr.get('differs', '')[:60]})")
    correct = [m for m in MODES[1:] if rec["modes"].get(m, {}).get("correct") is True]
    match = [SHORT[m] for m in correct if not rec["modes"][m].get("as_accurate_as_eager")]
    accurate = [SHORT[m] for m in correct if rec["modes"][m].get("as_accurate_as_eager")]
    parts = ([f"{', '.join(match)} match eager"] if match else []) + (
        [f"{', '.join(accurate)} beyond eager's tolerance, as accurate as eager against float64"] if accurate else [])
    text = "; ".join(bad + failed + parts) or "-"
    return text.replace("|", "/")


def _cell_aa(rec: dict[str, Any]) -> str:
    aa = rec.get("timer_aa")
    if not isinstance(aa, dict):
        return "-"  # not timed, or timed before the A/A control existed
    if "x" not in aa:
        return f"failed ({aa.get('error', '?')[:60]})"
    return _cell_speed(aa)


def aa_summary(records: list[dict[str, Any]]) -> str | None:
    """One line on the timer's A/A control across the problems that have one (None where none has)."""
    rows = [(r["name"], r["timer_aa"]) for r in records if r.get("status") == "done"
            and isinstance(r.get("timer_aa"), dict) and "x" in r["timer_aa"]]
    if not rows:
        return None
    worst = max(rows, key=lambda t: abs(math.log(t[1]["x"])))
    excl = [n for n, a in rows if not a["ci"][0] <= 1.0 <= a["ci"][1]]
    return (f"- the timer's A/A (the default column's function timed again in a slot of its own): geomean "
            f"{geomean([a['x'] for _, a in rows]):.3f}x across {len(rows)} problem(s), farthest from 1.0x "
            f"{worst[1]['x']:.3f}x ({worst[0]}); "
            + (f"its interval excludes 1.0x on {len(excl)}: {', '.join(excl)}" if excl
               else "every interval includes 1.0x"))


def _cfg(c: Any) -> str:
    if not c:
        return "-" if c is None else "kept"
    return ", ".join(f"{k}={v}" for k, v in c.items() if v is not None)


def _proposers(records: list[dict[str, Any]], meta: dict[str, Any]) -> str:
    """The proposer of the records, or of each share of them where runs with different proposers wrote them (a
    ``--proposer none`` rerun times the cache's decisions again without searching)."""
    counts: dict[str, int] = {}
    for r in records:
        if r.get("status") == "done":
            counts[r.get("proposer") or "?"] = counts.get(r.get("proposer") or "?", 0) + 1
    if len(counts) <= 1:
        return next(iter(counts), meta.get("proposer", "?"))
    return ", ".join(f"{p} ({n} problems{': the cache timed again, no search' if p == 'none' else ''})"
                     for p, n in sorted(counts.items(), key=lambda kv: -kv[1]))


def render_markdown(doc: dict[str, Any], backend_name: str, chart_note: str) -> str:
    meta = doc.get("meta", {})
    records = [r for r in doc["problems"] if r.get("backend") == backend_name]
    others = len(doc["problems"]) - len(records)
    done = [r for r in records if r.get("status") == "done"]
    failed = [r for r in records if r.get("status") != "done"]
    lines = ["# kernelopt bench --compare-modes", "",
             f"- backend: {meta.get('backend_description', backend_name)}",
             f"- pytest-kernelopt {meta.get('version', '?')}, torch {meta.get('torch', '?')}, "
             f"triton {meta.get('triton', '?')}; proposer {_proposers(records, meta)}",
             f"- problems: {len(done)} done, {len(failed)} failed"
             + ("" if meta.get("complete") else " (incomplete: a rerun resumes)")]
    if meta.get("not_measured"):
        lines.append(f"- **performance not measured**: {meta['not_measured']}")
    else:
        lines.append(f"- timing: the performance gate's timer (CUDA events, L2 flushed, interleaved ABBA), "
                     f"{meta.get('samples', '?')} samples a mode"
                     + (f", and as many again (at most {meta['rounds']} rounds) while ours' interval against a "
                        f"compiled mode is wider than {meta['precision']:.0%} (each problem's count: "
                        f"`modes.*.samples` in the JSON)" if meta.get("rounds") else "")
                     + f", median ms; speedups are ours over the baseline with a {meta.get('confidence', 0.95):.0%} "
                       "paired-bootstrap interval; each timed call follows an untimed call of its own mode and the "
                       "order rotates, so every mode takes every slot (records without a timer A/A cell were timed "
                       "before that, in plain ABBA order: on the H200 the default column, always in the middle, "
                       "timed up to 6% behind max-autotune's with the same kernels)")
        if meta.get("compile_mode", "default") == "default":
            lines.append(f"- {KEPT_NOTE}")
        if meta.get("max_autotune_includes_cd"):
            lines.append("- this torch's `max-autotune-no-cudagraphs` already turns coordinate descent on: the MA and "
                         "MA+CD columns are one configuration, compiled and timed once")
    mode = meta.get("compile_mode", "default")
    if mode != "default":
        lines.append(f"- **ours starts from the `{mode}` compile** (`--compile-mode {mode}`): our kernels are tuned "
                     "and gated against that baseline; a problem where ours applied nothing is that compile, timed "
                     "as its own column")
    lines.append(f"- compile s: a cold compile (Inductor's caches off) and the first call; ours = {mode} compile + "
                 "loading our kernels; search s: this run's bench (cache re-verification and search)")
    bars = sorted({r["min_speedup"] for r in records if isinstance(r.get("min_speedup"), (int, float))})
    if bars:
        lines.append("- the performance gate's bar (`min_speedup`, the lower confidence bound a kernel of ours had to "
                     "reach): " + (f"{bars[0]:g}" if len(bars) == 1 else
                                   "per problem (`min_speedup` in the JSON): " + ", ".join(f"{b:g}" for b in bars))
                     + (f"; {sum('min_speedup' not in r for r in records)} record(s) from before it was recorded "
                        "(1.02)" if any("min_speedup" not in r for r in records) else ""))
    if others:
        lines.append(f"- {others} record(s) of another backend are kept in the JSON and not shown here")
    lines += ["", "| problem | Triton kernels | ours applied | search s | compile s default / MA / MA+CD | "
                  "eager ms | default ms | MA ms | MA+CD ms | ours ms | ours vs eager | ours vs default | "
                  "ours vs MA | ours vs MA+CD | timer A/A | correctness |",
              "|---" * 16 + "|"]
    for r in done:
        m = r["modes"]
        comp = " / ".join(_cell_s(m[k].get("compile_s")) if not m[k].get("error") else "failed"
                          for k in ("default", "max-autotune", "max-autotune+cd"))
        lines.append("| " + " | ".join([
            r["name"], str(r.get("triton_kernels", "-")), str(len(r.get("applied", []))), _cell_s(r.get("search_s")),
            comp, *(_cell_ms(m[k].get("ms")) for k in MODES),
            *(_cell_speed(r.get("speedup", {}).get(b)) for b in BASELINES), _cell_aa(r), _cell_correct(r)]) + " |")
    lines += ["", "## Geometric means of ours over each baseline", ""]
    summary = summarize(records)
    for b in BASELINES:
        s = summary[b]
        if not isinstance(s, dict):
            lines.append(f"- over {LABELS[b]}: {NOT_MEASURED}")
            continue
        text = (f"- over {LABELS[b]}: **{s['geomean']:.3f}x** across {s['problems']} problem(s)"
                + (f" ({s['geomean_with_triton_kernels']:.3f}x across the {s['problems_with_triton_kernels']} with "
                   "Triton kernels)" if "geomean_with_triton_kernels" in s else "")
                + f"; lowest {s['min']:.3f}x ({s['min_problem']})")
        if b in AUTOTUNE_MODES:
            text += (f"; below {FLOOR}x: {', '.join(s['below_floor'])}" if s["below_floor"]
                     else f"; none below {FLOOR}x")
        lines.append(text)
    if summary["default"] != NOT_MEASURED and meta.get("compile_mode", "default") == "default":
        lines.append(f"- kept baselines count 1.0x over default compile ({KEPT_NOTE})")
    if (aa_line := aa_summary(records)) is not None:
        lines.append(aa_line)
    picks = [(r["name"], p) for r in done for p in r.get("autotune_picks") or ()
             if p.get("max-autotune") != p.get("default")]
    if picks:
        lines += ["", "## Where max-autotune's autotuner picked another launch config", "",
                  "| problem | kernel | default | max-autotune | ours |", "|---|---|---|---|---|"]
        for name, p in picks:
            lines.append(f"| {name} | {p['kernel']} | {_cfg(p.get('default'))} | {_cfg(p.get('max-autotune'))} | "
                         f"{_cfg(p.get('ours')) if p.get('ours') else 'kept'}"
                         f"{' (' + p['ours_edit'] + ')' if p.get('ours') and p.get('ours_edit') else ''} |")
    spent = [(r["name"], r.get("search_s"), ph) for r in done if (ph := search_phases(r))]
    if spent:
        lines += ["", "## Where the search time went (s)", "",
                  "The last four are parts of the screening and the gates, not more time: worker_starts, waiting "
                  "for a judge worker to start and capture the module (a fresh one for each screening round and "
                  "each candidate); truths, the float64 truths' runs and noise floors (once a problem, in its first "
                  "gate); transfer, reading and decoding what workers send (records of outputs above all); "
                  "judging, the judge's own statistics on those records. None of the four overlaps another",
                  "",
                  "| problem | search | " + " | ".join(PHASES) + " |", "|---" * (len(PHASES) + 2) + "|"]
        for name, total, ph in spent:
            lines.append(f"| {name} | {_cell_s(total)} | " + " | ".join(_cell_s(ph.get(k)) for k in PHASES) + " |")
    if failed:
        lines += ["", "## Failed problems", ""]
        lines += [f"- {r['name']} ({r['problem']}): {r.get('error', '?')}".replace("\n", " ") for r in failed]
    lines += ["", f"Chart: {chart_note}", ""]
    return "\n".join(lines)


PHASES = ("profile", "autotune_picks", "looped_variants", "screening", "gates", "worker_starts", "truths", "transfer",
          "judging")


def search_phases(rec: dict[str, Any]) -> dict[str, float]:
    """Seconds of a problem's search by phase: the profile, then each phase summed over its kernels ({} when the
    record has none: nothing searched, or a record written before phases were kept)."""
    out: dict[str, float] = {}
    if rec.get("profile_s"):
        out["profile"] = float(rec["profile_s"])
    for k in rec.get("kernels") or ():
        for phase, sec in (k.get("phases") or {}).items():
            out[phase] = round(out.get(phase, 0.0) + float(sec), 2)
    return out if any(v for v in out.values()) else {}


def write_chart(records: list[dict[str, Any]], path: Path) -> str:
    """Speedup of ours per problem over both max-autotune modes, sorted; returns what was done, in words."""
    rows = []
    for r in records:
        sp = r.get("speedup", {}) if r.get("status") == "done" else {}
        vals = [sp.get(b, {}).get("x") if isinstance(sp.get(b), dict) else None for b in AUTOTUNE_MODES]
        if any(v is not None for v in vals):
            rows.append((r["name"], *vals))
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        plt = None
    missing = "matplotlib not installed (pip install pytest-kernelopt[plot])"
    if not rows:
        return "chart skipped: no speedup over max-autotune was measured" + ("" if plt else f"; {missing}")
    if plt is None:
        return f"chart skipped: {missing}"
    rows.sort(key=lambda t: (t[2] if t[2] is not None else t[1] or 0.0))
    n = len(rows)
    fig, ax = plt.subplots(figsize=(max(6.0, 0.38 * n + 2), 4.8))
    xs = range(n)
    w = 0.4
    for k, (b, color) in enumerate(zip(AUTOTUNE_MODES, ("#4c72b0", "#dd8452"))):
        # bars from 1.0: a gain goes up, a loss down
        ax.bar([i + (k - 0.5) * w for i in xs], [t[1 + k] - 1.0 if t[1 + k] is not None else 0.0 for t in rows],
               w, bottom=1.0, label=f"ours over {LABELS[b]}", color=color)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.axhline(FLOOR, color="red", linewidth=0.8, linestyle="--", label=f"{FLOOR}x")
    ax.set_xticks(list(xs))
    ax.set_xticklabels([t[0] for t in rows], rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("speedup (median ms of baseline / ours)")
    ax.set_title("kernelopt vs max-autotune, per problem (sorted)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return f"{path.name} ({n} problem(s))"


# --------------------------------------------------------------------------- progress


class Progress:
    """A progress bar on stderr: one line per step, with elapsed time and an estimate of what is left."""

    def __init__(self, total: int, stream: Any = None) -> None:
        self.total, self.stream = total, stream or sys.stderr
        self.t0 = time.perf_counter()
        self.durations: list[float] = []
        self.index, self.name, self.started = 0, "", self.t0

    def start(self, index: int, name: str) -> None:
        self.index, self.name, self.started = index, name, time.perf_counter()
        self.step("starting")

    def finish(self, ran: bool = True) -> None:
        if ran:
            self.durations.append(time.perf_counter() - self.started)

    def step(self, what: str) -> None:
        done = self.index - 1
        width = 24
        fill = int(width * done / max(1, self.total))
        elapsed = time.perf_counter() - self.t0
        left = self.total - done
        eta = f", ~{_dur(statistics.mean(self.durations) * left)} left" if self.durations else ""
        print(f"[{'#' * fill}{'.' * (width - fill)}] {done}/{self.total} {self.name}: {what} "
              f"({_dur(elapsed)} elapsed{eta})", file=self.stream, flush=True)


def _dur(s: float) -> str:
    s = int(s)
    return f"{s // 3600}h{s % 3600 // 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s"


# --------------------------------------------------------------------------- the command


def run_compare_modes(args: argparse.Namespace, settings: Any, backend: Any, problems: list[Path],
                      proposer: str) -> int:
    """``kernelopt bench --compare-modes``: returns the exit status (1 if a problem failed)."""
    import torch
    import triton

    from .jsonio import write_json

    if settings.training:
        print("kernelopt bench --compare-modes: times inference (forward) only; drop --training", file=sys.stderr)
        return 2
    out_dir = Path(args.out or DEFAULT_OUT)
    json_path, md_path, png_path = (out_dir / f"{RESULTS}.{ext}" for ext in ("json", "md", "png"))
    doc = load_results(json_path)
    measured = bool(backend.measures_time)
    gpu = gpu_name(backend)
    was = doc.get("meta", {}).get("gpu")
    if gpu is not None and was and was != gpu and any(r.get("backend") == "cuda" for r in doc["problems"]):
        # one results folder, one GPU: the records are compared and averaged together, and a rerun would resume
        # (skip the problems done) on another card
        print(f"kernelopt bench --compare-modes: {json_path} holds records timed on {was}; this GPU is {gpu}. "
              "Give this GPU its own --out folder", file=sys.stderr)
        return 2
    not_measured = "" if measured else (
        ("no GPU (the CPU backend runs Inductor's Triton code in the Triton interpreter)" if backend.name != "cuda"
         else f"this process may not time on the GPU ({backend.description})")
        + ": correctness only (eager, default and ours compiled and checked against eager); run and compile times "
        "are not measured, and the max-autotune modes, which tune for a GPU, are neither compiled nor timed")
    doc["meta"] = {**doc.get("meta", {}), "backend_description": backend.description, "backend": backend.name,
                   "version": __version__, "torch": torch.__version__, "triton": triton.__version__,
                   "proposer": proposer, "samples": max(2, settings.perf_samples), "warmup": settings.perf_warmup,
                   "rounds": MAX_ROUNDS, "precision": PRECISION,
                   "confidence": settings.confidence, "max_autotune_includes_cd": autotune_has_cd(),
                   "not_measured": not_measured, "kept_baseline": KEPT_NOTE, "complete": False,
                   "compile_mode": settings.compile_mode}
    if gpu is not None:
        doc["meta"]["gpu"] = gpu
    # a record counts as done only for this backend and this compile mode of ours (another mode's is measured again
    # and replaced: give each mode its own --out to keep both)
    done_before = {r["problem"]: r.get("status") for r in doc["problems"] if r.get("backend") == backend.name
                   and r.get("ours_compile_mode", "default") == settings.compile_mode}
    skip = {"done"} | ({"failed"} if args.skip_failed else set())
    redo = {n.strip() for v in (getattr(args, "redo", None) or ()) for n in v.split(",") if n.strip()}
    unknown = sorted(redo - {p.stem for p in problems})
    if unknown:
        print(f"kernelopt bench --compare-modes: --redo names no problem given: {', '.join(unknown)}", file=sys.stderr)
        return 2
    for p in problems:
        if p.stem in redo:
            done_before.pop(key_of(p), None)
    todo = [p for p in problems if done_before.get(key_of(p)) not in skip]
    print(f"compare modes: {len(problems) - len(todo)} of {len(problems)} problem(s) already in {json_path} "
          f"(skipped); {len(todo)} to run" + ("" if measured else f"; {NOT_MEASURED}: {not_measured}"), flush=True)
    outcomes: list[Any] = []
    progress = Progress(len(problems))
    start = time.perf_counter()
    stopped = False

    def write_all() -> str:
        chart = write_chart([r for r in doc["problems"] if r.get("backend") == backend.name], png_path)
        doc["meta"]["chart"] = chart
        write_json(json_path, doc)
        from .jsonio import atomic_write

        atomic_write(md_path, render_markdown(doc, backend.name, chart))
        return chart

    for i, path in enumerate(problems, 1):
        key = key_of(path)
        progress.start(i, path.stem)
        if done_before.get(key) in skip:
            progress.step(f"skipped ({done_before[key]} in {json_path.name})")
            progress.finish(ran=False)
            continue
        if args.stop_after is not None and time.perf_counter() - start > args.stop_after:
            progress.step(f"not started: --stop-after {args.stop_after:g}s reached (a rerun resumes here)")
            stopped = True
            break
        print(f"[{i}/{len(problems)}] {path} ...", flush=True)
        t0 = time.perf_counter()
        try:
            rec = measure_problem(path, settings, backend, use_cache=not args.no_cache,
                                  say=lambda m: print(f"    {m}", flush=True), step=progress.step)
            outcome = rec.pop("outcome", None)
            if outcome is not None:
                outcomes.append(outcome)
        except (Exception, SystemExit) as e:  # one problem's failure is recorded and the run goes on
            rec = {"problem": key, "name": path.stem, "backend": backend.name, "measured": measured,
                   "status": "failed", "error": error_text(e),
                   "traceback": "".join(traceback.format_exception(type(e), e, e.__traceback__)[-6:])}
            print(f"    ERROR: {error_text(e)}", flush=True)
        finally:
            from .session import release_memory

            with contextlib.suppress(Exception):
                release_memory()
        rec["seconds"] = round(time.perf_counter() - t0, 2)
        upsert(doc, rec)
        write_all()
        progress.finish()
        if rec["status"] == "done":
            sp = rec["speedup"]
            shown = ", ".join(f"vs {SHORT[b]} {_cell_speed(sp[b])}" for b in BASELINES) if measured else \
                f"correctness: {_cell_correct(rec)}; timing {NOT_MEASURED}"
            print(f"    done in {rec['seconds']:.1f}s: {shown}", flush=True)
    mine = [r for r in doc["problems"] if r.get("backend") == backend.name]
    status = {r["problem"]: r.get("status") for r in mine}
    failed = [r for r in mine if r["problem"] in {key_of(p) for p in problems} and r.get("status") != "done"]
    doc["meta"]["complete"] = not stopped and all(status.get(key_of(p)) == "done" for p in problems)
    chart = write_all()
    print()
    print(render_markdown(doc, backend.name, chart))
    print(f"results: {json_path}, {md_path}" + (f", {png_path}" if png_path.is_file() and
                                                 chart.startswith(png_path.name) else f" ({chart})"))
    print(f"total {time.perf_counter() - start:.1f}s")
    if args.report:
        from .report import write_json as write_report

        write_report(args.report, outcomes, {"backend": backend.description, "proposer": proposer,
                                             "version": __version__, "complete": not failed,
                                             "problems": len(problems), "failed": len(failed)},
                     failed=[{"problem": r["problem"], "error": r.get("error", "")} for r in failed])
    if failed:
        print(f"kernelopt bench: {len(failed)} of {len(problems)} problem(s) failed", file=sys.stderr)
    return 1 if failed else 0
