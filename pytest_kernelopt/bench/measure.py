"""Measuring ``kernelopt bench --compare-modes``: one problem's search, then every mode compiled, checked against
eager and (on a GPU) timed interleaved with the performance gate's timer.  What a problem's record holds is
rendered by :mod:`.render`; which problems run (and resuming) is :mod:`.command`'s."""

from __future__ import annotations

import contextlib
import gc
import math
import re
import statistics
import sys
import time
import types
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

import torch

from ..backends import Backend
from ..capture import CapturedModule, capture
from ..config import Settings
from ..gates.compare import compare_outputs, error_vs_truth
from ..gates.fp64_place import _to, float64_copy
from ..gates.perf import speedup_interval
from ..gates.timing import time_interleaved
from ..launch_space import baseline_config as _baseline
from ..problems import ProblemSpec, build_problem
from ..records import RunRecord
from ..substitute import KernelSwap
from ..tuner import body_hash
from ..workflow import release_memory, run_problem_spec
from .modes import AA, AUTOTUNE_MODES, BASELINES, LABELS, MODES, NOT_MEASURED, key_of

if TYPE_CHECKING:
    from ..candidate import Candidate

Call = Callable[[int], Any]  # one timed call (its argument: the input set, unused here)
Variant = tuple[Callable[[], None], Call]  # (select: put the mode's kernels in place, call)

# --------------------------------------------------------------------------- modes


def autotune_has_cd() -> bool:
    """Whether this torch's ``max-autotune-no-cudagraphs`` already turns coordinate descent on (torch 2.13 does:
    then the two max-autotune columns are one configuration, compiled and timed once)."""
    return bool(torch._inductor.list_mode_options("max-autotune-no-cudagraphs").get("coordinate_descent_tuning"))


def mode_config(mode: str, backend: Backend, cold: bool = True) -> tuple[dict[str, Any], str | None]:
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


def entry_point(module: Callable[..., Any], tag: str) -> Callable[..., Any]:
    """A function with a code object of its own that calls ``module``: Dynamo keeps compiled frames on the code
    object, so a mode compiled through its own entry point starts from a fresh Dynamo state without a
    ``torch._dynamo.reset()`` (which would drop the other modes' compiled code and make them recompile)."""

    def entry(*args):
        return module(*args)

    name = "kernelopt_mode_" + re.sub(r"\W", "_", tag)
    # co_qualname is 3.11's (checked here; mypy reads a conditional expression as 3.10 code)
    code = (entry.__code__.replace(co_name=name, co_qualname=name)  # type: ignore[call-arg]
            if sys.version_info >= (3, 11) else entry.__code__.replace(co_name=name))
    return types.FunctionType(code, entry.__globals__, name, None, entry.__closure__)


@contextlib.contextmanager
def no_recompiles() -> Iterator[None]:
    """While timing: a compiled mode that would recompile raises (an error of that mode) instead of being timed
    as something else."""
    set_stance = getattr(getattr(torch, "compiler", None), "set_stance", None)
    if set_stance is None:
        yield
        return
    with set_stance("fail_on_recompile"):
        yield


def sync(backend: Backend) -> None:
    if backend.name == "cuda":
        torch.cuda.synchronize()


def compile_mode(mode: str, module: Callable[..., Any], inputs: tuple, backend: Backend
                 ) -> tuple[Callable[..., Any], Any, float]:
    """Compile ``module`` in ``mode`` and run it once (compile, autotuning and one call): (compiled, output,
    seconds)."""
    patch, torch_mode = mode_config(mode, backend)
    fn = entry_point(module, mode)
    with torch._inductor.config.patch(patch):
        compiled = torch.compile(fn, backend="inductor", mode=torch_mode)
        t0 = time.perf_counter()
        with torch.no_grad():
            out = compiled(*inputs)
        sync(backend)
        return compiled, out, time.perf_counter() - t0


# --------------------------------------------------------------------------- correctness

#: a mode beyond eager's tolerance is still "as accurate as eager" when its relative L2 error against the float64
#: truth is at most this many times eager's own (a float32 cumsum over 32768 values: every compiled mode, the
#: default compile included, rounds beyond the tolerance of eager's result, not beyond its accuracy)
AS_ACCURATE = 2.0


class Float64Truth:
    """The problem's float64 truth and eager's error against it, computed once, only when a mode's output is
    beyond eager's tolerance: the module rebuilt from its spec and seed (so a forward that changes the module's
    state has not run on it), its floating parameters, buffers, attributes and inputs in float64."""

    def __init__(self, spec: ProblemSpec, device: str, seed: int, eager_out: Any) -> None:
        self.spec, self.device, self.seed, self.eager_out = spec, device, seed, eager_out
        self._truth: Any = None
        self._eager_errs: list[float] | None = None
        self.error: str | None = None

    def errors(self, out: Any) -> tuple[list[float], list[float]] | None:
        """(the mode's, eager's) relative L2 error of each floating output against the truth; None where the
        truth could not be computed (``error`` says why)."""
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
        problem = build_problem(self.spec, self.device, self.seed)
        module = problem.module
        if hasattr(module, "double"):
            module = float64_copy(module, self.device)
        with torch.no_grad():
            return module(*_to(tuple(problem.example_inputs), self.device))


def check_output(out: Any, ref: Any, settings: Settings, truth: Float64Truth | None = None) -> dict[str, Any]:
    """A mode's output against eager's, with the correctness gate's tolerances; beyond them, and with a
    ``truth``, also against the float64 truth: as accurate as eager there (:data:`AS_ACCURATE`) is correct,
    and said so."""
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


# --------------------------------------------------------------------------- failures


def is_oom(e: BaseException) -> bool:
    oom = getattr(torch.cuda, "OutOfMemoryError", ())
    return (bool(oom) and isinstance(e, oom)) or "out of memory" in str(e).lower()


def error_text(e: BaseException) -> str:
    text = f"{type(e).__name__}: {e}"
    text = text if len(text) <= 600 else text[:600] + "..."
    return ("out of memory: " + text) if is_oom(e) and not text.lower().startswith("out of memory") else text


def free_memory(backend: Backend) -> None:
    gc.collect()
    if backend.name == "cuda":
        torch.cuda.empty_cache()


class ModeFailed(Exception):
    def __init__(self, mode: str, error: BaseException) -> None:
        super().__init__(f"{mode}: {error_text(error)}")
        self.mode, self.error = mode, error


def guarded(mode: str, call: Call) -> Call:
    def run(i: int) -> Any:
        try:
            return call(i)
        except Exception as e:
            raise ModeFailed(mode, e) from e

    return run


# --------------------------------------------------------------------------- timing

#: the modes are timed in rounds of ``perf_samples`` each, more while ours' interval against any other compiled mode
#: is wider than this (``hi / lo - 1``: on the H200 30 samples left intervals of 5% on sub-millisecond problems,
#: wider than the 2% the bar asks about), up to :data:`MAX_ROUNDS` rounds; the stopping rule reads the interval's
#: width, never where it lies
PRECISION = 0.02
MAX_ROUNDS = 5


def time_modes(variants: dict[str, Variant], settings: Settings, backend: Backend,
               errors: dict[str, str]) -> dict[str, list[float]]:
    """Every variant timed interleaved with the gate's timer, in rounds until precise enough (:data:`PRECISION`);
    a variant that raises (out of memory, a recompile) is dropped with its error in ``errors`` and the others are
    timed again without it.  Each timed call follows an untimed call of its own variant (``prime``) and the order
    rotates (``rotate``): on the H200 the plain ABBA order had the default column, always in the middle of eager,
    default and max-autotune, 6% slower than max-autotune's with the same kernel source and launch config
    (maxpool1d; tests/test_perf_timer.py::test_rotated_order_puts_every_variant_in_every_slot)."""
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
    ours = times.get("ours") or times.get("default")
    widest = 0.0
    for m, t in times.items():
        if m not in ("eager", AA) and t is not ours and t and ours:
            _, lo, hi = speedup_interval(t, ours, confidence)
            widest = max(widest, hi / lo - 1 if lo > 0 else math.inf)
    return widest


# --------------------------------------------------------------------------- one problem


def measure_problem(path: Path, settings: Settings, backend: Backend, *, use_cache: bool,
                    say: Callable[[str], None], step: Callable[[str], None]) -> dict[str, Any]:
    """One problem: the bench's search, then every mode compiled, checked against eager and (on a GPU) timed;
    returns its record (with the search's outcome under ``outcome``, an object of this process)."""
    p = ProblemModes(path, settings, backend, say, step)
    p.search(use_cache)
    p.eager()
    p.ours()
    p.autotune_modes()
    p.truth = None  # the float64 truth, where one was computed, is not held while timing
    free_memory(backend)
    if not p.measured:
        for m in MODES:
            p.modes[m]["ms"] = NOT_MEASURED
        p.rec["speedup"] = {b: NOT_MEASURED for b in BASELINES}
    else:
        p.time_all()
        p.autotune_picks()
    p.rec["status"] = "done"
    return p.rec


class ProblemModes:
    """One problem's modes, measured step by step into ``rec`` (its record) and ``modes`` (a column each)."""

    def __init__(self, path: Path, settings: Settings, backend: Backend, say: Callable[[str], None],
                 step: Callable[[str], None]) -> None:
        self.path, self.settings, self.backend, self.say, self.step = path, settings, backend, say, step
        self.spec = ProblemSpec.from_file(path)
        self.measured = bool(backend.measures_time)
        self.rec: dict[str, Any] = {"problem": key_of(path), "name": path.stem, "backend": backend.name,
                                    "measured": self.measured, "status": "running"}
        self.modes: dict[str, dict[str, Any]] = {m: {} for m in MODES}
        self.applied: list[Candidate] = []
        self.compiled: dict[str, Callable[..., Any]] = {}  # the modes compiled on entry points of their own
        self.swap: KernelSwap | None = None  # our kernels in ``cap`` (None: nothing applied)
        self.truth: Float64Truth | None = None

    def search(self, use_cache: bool) -> None:
        """1. ours: the bench as it runs without --compare-modes (re-verify cached kernels, search the rest)."""
        self.step("searching")
        t0 = time.perf_counter()
        try:
            record = run_problem_spec(self.spec, self.settings, self.backend, name=self.spec.name,
                                      problem_id=str(self.path), progress=self.say, use_cache=use_cache)
        finally:
            release_memory()
        self.rec["search_s"] = round(time.perf_counter() - t0, 2)
        if record.regressions:
            raise RuntimeError("; ".join(record.regressions))
        self.applied = list(record.applied)
        self.rec["kernels"] = [{"kernel": k.kernel, "kind": k.kind, "decision": k.decision, "source": k.source,
                                "speedup": k.speedup, "ci": list(k.ci) if k.ci else None,
                                "note": (k.note or "")[:300], "phases": k.phases}
                               for k in record.kernels]
        self.rec.update({"triton_kernels": record.triton_kernels, "decisions": _decisions(record),
                         "applied": sorted({n for c in self.applied for n in c.replaces}),
                         "proposer": record.proposer, "outcome": record.outcome,
                         "profile_s": getattr(record.outcome, "profile_s", None)})
        self.rec["modes"] = self.modes

    def eager(self) -> None:
        """2. eager: the reference every mode's output is checked against."""
        self.step("eager reference")
        seed = self.settings.base_seed or 0
        problem = build_problem(self.spec, self.backend.device, seed)
        self.module, self.x = problem.module, problem.example_inputs
        with torch.no_grad():
            self.ref = self.module(*self.x)
        sync(self.backend)
        self.modes["eager"].update({"compile_s": None, "correct": True, "reference": True})
        self.truth = Float64Truth(self.spec, self.backend.device, seed, self.ref)

    def check(self, out: Any) -> dict[str, Any]:
        return check_output(out, self.ref, self.settings, self.truth)

    def ours(self) -> None:
        """3. ours: the module captured (cold) in the settings' compile mode, with our kernels swapped in; in the
        default mode that capture is also the default compile's column."""
        ours_mode, modes = self.settings.compile_mode, self.modes
        self.rec["ours_compile_mode"] = ours_mode
        self.rec["min_speedup"] = self.settings.min_speedup  # the performance gate's bar this problem's search ran at
        self.step("compiling default" if ours_mode == "default" else f"compiling ours' baseline ({ours_mode})")
        patch, _ = mode_config("default", self.backend)
        patch.pop("cpu_backend", None)  # capture() passes the backend's own options itself
        # through an entry point of its own, as every other mode is compiled: on the H200 a torch.compile of the
        # module object itself cost 10 us more host time a call than one of a function calling it, and timed 2-4%
        # slower on 0.4-0.6 ms one-kernel modules -- what max-autotune's column had been credited with
        # (benchmarks/results/h200_s12_mode_overhead.json)
        with torch._inductor.config.patch(patch):
            self.cap = capture(entry_point(self.module, "ours"), self.x, backend=self.backend,
                               mode=self.settings.torch_compile_mode)
        base_check = self.check(self.cap.outputs)
        base_s = round(self.cap.compile_seconds, 2) if self.measured else NOT_MEASURED
        if ours_mode == "default":
            modes["default"].update({"compile_s": base_s, **base_check})
        else:  # the default column compiled on its own entry point (a capture would reset Dynamo under ``cap``)
            self.step("compiling default")
            self.compile_column("default")
        if self.applied:
            self.swap_ours_in()
        elif ours_mode == "default":
            modes["ours"].update({"compile_s": modes["default"]["compile_s"], "same_as": "default",
                                  "correct": modes["default"]["correct"],
                                  "max_abs_err": modes["default"]["max_abs_err"],
                                  "note": "nothing applied: ours is the default compile"})
        else:
            modes["ours"].update({"compile_s": base_s, **base_check,
                                  "note": f"nothing applied: ours is the {ours_mode} compile (timed as its own "
                                          "column)"})

    def compile_column(self, m: str) -> None:
        """A compiled mode's column: compiled, run once and checked; a failure is this mode's only."""
        try:
            fn, out, secs = compile_mode(m, self.module, self.x, self.backend)
            self.compiled[m] = fn
            self.modes[m].update({"compile_s": round(secs, 2) if self.measured else NOT_MEASURED,
                                  **self.check(out)})
            del out
        except Exception as e:  # out of memory, a compile error: this mode only
            self.modes[m].update({"compile_s": None, "error": error_text(e)})
            if m != "default":
                self.say(f"{self.path.stem}: {LABELS[m]} failed: {error_text(e)}")
            free_memory(self.backend)

    def swap_ours_in(self) -> None:
        """Our kernels swapped into the capture and run once: the load's time, and the output checked."""
        t1 = time.perf_counter()
        swap = self.swap = KernelSwap(self.cap, self.applied)
        with torch.no_grad(), swap.applied():
            out = self.cap(*self.x)
            sync(self.backend)
        load_s = time.perf_counter() - t1
        self.modes["ours"].update({"compile_s": round(self.cap.compile_seconds + load_s, 2) if self.measured
                                   else NOT_MEASURED, **self.check(out)})
        del out
        if not swap.launches:
            raise RuntimeError("our kernels never ran in the captured module (their names do not match its "
                               f"kernels: {self.rec['applied']})")

    def autotune_modes(self) -> None:
        """4. the max-autotune modes: on a GPU only (they tune for one), compiled and checked."""
        same = autotune_has_cd()
        self.rec["max_autotune_includes_cd"] = same
        for m in AUTOTUNE_MODES:
            patch, torch_mode = mode_config(m, self.backend)
            column = self.modes[m]
            column["inductor"] = {"mode": torch_mode, "config_patch": patch}
            if not self.measured:
                column.update({"compile_s": NOT_MEASURED, "correct": None,
                               "note": "max-autotune tunes for a GPU: neither compiled nor timed here"})
            elif m == "max-autotune+cd" and same and "max-autotune" in self.compiled:
                column.update({k: v for k, v in self.modes["max-autotune"].items() if k != "inductor"})
                column["same_as"] = "max-autotune"
                column["note"] = ("this torch's max-autotune-no-cudagraphs already turns coordinate descent on: "
                                  "one configuration, compiled and timed once")
            else:
                self.step(f"compiling {LABELS[m]}")
                self.compile_column(m)

    def off(self) -> None:
        if self.swap is not None:
            self.swap.off()

    def variants(self) -> dict[str, Variant]:
        """What is timed: each column's own function (ours: the compiled function itself, as every other mode's
        column calls its own -- CapturedModule's call adds a grad-mode context and a recompile check, host time
        the other columns do not pay), and the default column's function again, in a slot of its own (the
        timer's A/A)."""
        module, x, run, off = self.module, self.x, self.cap.compiled, self.off
        ours_mode = self.settings.compile_mode
        variants: dict[str, Variant] = {"eager": (off, lambda i: module(*x))}
        if ours_mode == "default":
            variants["default"] = (off, lambda i: run(*x))
        if self.swap is not None:
            variants["ours"] = (self.swap.on, lambda i: run(*x))
        elif ours_mode != "default":
            variants["ours"] = (off, lambda i: run(*x))
        for m, fn in self.compiled.items():
            variants[m] = (off, (lambda f: (lambda i: f(*x)))(fn))
        if "default" in variants:
            variants[AA] = variants["default"]
        return variants

    def time_all(self) -> None:
        """5. timing, all modes interleaved in this process: each column's median and samples, ours' speedup over
        each baseline, the timer's A/A."""
        self.step("timing")
        variants = self.variants()
        errors: dict[str, str] = {}
        swap = self.swap
        before = swap.launches if swap is not None else 0
        try:
            times = time_modes(variants, self.settings, self.backend, errors)
        finally:
            self.off()
        if swap is not None and "ours" in times and swap.launches == before:
            times.pop("ours")
            errors["ours"] = "our kernels never ran while timed"
        aa_error = errors.pop(AA, None)
        for m, err in errors.items():
            self.modes[m]["error"] = err
        if self.modes["max-autotune+cd"].get("same_as") and "max-autotune" in errors:
            self.modes["max-autotune+cd"]["error"] = errors["max-autotune"]
        if "ours" not in variants and "default" in times:
            times["ours"] = times["default"]
        for m in MODES:
            src = self.modes[m].get("same_as") if m == "max-autotune+cd" else None
            t = times.get(src or m)
            self.modes[m]["ms"] = round(statistics.median(t), 5) if t else None
            if t:
                self.modes[m]["samples"] = len(t)
        self.rec["speedup"] = self.speedups(times)
        if times.get(AA) and times.get("default"):
            x_, lo, hi = speedup_interval(times["default"], times[AA], self.settings.confidence)
            self.rec["timer_aa"] = {"x": round(x_, 4), "ci": [round(lo, 4), round(hi, 4)]}
        elif aa_error:
            self.rec["timer_aa"] = {"error": aa_error}

    def speedups(self, times: dict[str, list[float]]) -> dict[str, Any]:
        """Ours over each baseline, with its interval (a kept baseline in the default mode: 1.0x over default)."""
        speed: dict[str, Any] = {}
        ours = times.get("ours")
        for b in BASELINES:
            base = times.get(self.modes[b].get("same_as") or b) if b == "max-autotune+cd" else times.get(b)
            if b == "default" and self.swap is None and ours is not None and self.settings.compile_mode == "default":
                speed[b] = {"x": 1.0, "kept": True}
            elif ours and base:
                x_, lo, hi = speedup_interval(base, ours, self.settings.confidence)
                speed[b] = {"x": round(x_, 4), "ci": [round(lo, 4), round(hi, 4)], "kept": self.swap is None}
            else:
                speed[b] = {"error": self.modes["ours"].get("error") or self.modes[b].get("error") or "not timed"}
        return speed

    def autotune_picks(self) -> None:
        """6. where ours and max-autotune differ: the launch config its autotuner picked for each kernel, beside
        the default's and ours (a capture resets Dynamo: last, after every mode was timed)."""
        if not any(m in self.compiled for m in AUTOTUNE_MODES):
            return
        self.step("max-autotune's picks")
        try:
            self.rec["autotune_picks"] = autotune_picks(self.module, self.x, self.backend, self.cap, self.applied)
        except Exception as e:  # a diagnosis only: never the problem's failure
            self.rec["autotune_picks_error"] = error_text(e)


def _decisions(record: RunRecord) -> dict[str, int]:
    counts: dict[str, int] = {}
    for k in record.kernels:
        counts[k.decision] = counts.get(k.decision, 0) + 1
    return counts


def autotune_picks(module: Callable[..., Any], x: tuple, backend: Backend, cap: CapturedModule,
                   applied: list[Candidate]) -> list[dict[str, Any]]:
    """Per Triton kernel of ``max-autotune-no-cudagraphs``'s compile: its launch config, the default compile's
    for the same kernel source (``None`` where that compile has no such kernel: a template, another fusion),
    and ours where ours applied a candidate with its own config."""
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
            kernel = g.kernels.get(t.kernel)
            if kernel is None:
                continue
            same, base = default.get((g.index, body_hash(kernel)), (None, None))  # the default's kernel, if any
            out.append({"kernel": same or t.kernel, "kind": kernel.kind, "max-autotune": _baseline(t),
                        "default": base, "ours": ours.get(same) if same else None,
                        **({"ours_edit": edits[same]} if same and edits.get(same) else {}),
                        "same_source_as_default": same is not None})
    return out
