"""Gate 2: multi-seed correctness of the whole compiled graph against the unmodified one."""

from __future__ import annotations

from typing import Any

from .compare import compare_outputs, same_values
from .results import GateResult
from .runner import poisoned_allocations, run_once


class CorrectnessGate:
    """Candidate vs baseline on fresh inputs per seed.

    Hard failures (shape, dtype, strides, NaN/Inf positions, all zeros where
    the baseline's output is too small to judge by atol, mutated inputs,
    nondeterminism, a kernel that never ran, a crash) fail outright.  Any other
    disagreement beyond the dtype tolerance -- wrong values of normal
    magnitude included -- is recorded as ``within_tolerance: False`` and
    handed to the float64 gate, which rejects it unless the candidate is at
    least as close to the float64 truth as the baseline.
    """

    name = "correctness"

    def check(self, session: Any, swap: Any) -> GateResult:
        s = session.settings
        worst_abs = worst_rel = 0.0
        beyond: list[int] = []
        tiny: set[int] = set()
        seeds = session.seeds()
        for n, seed in enumerate(seeds):
            base = session.baseline_run(seed)
            launches_before = swap.launches
            try:
                with poisoned_allocations(session.captured.namespaces), swap.applied():
                    cand = run_once(session.captured.compiled, session.module, session.inputs(seed),
                                    training=session.training, seed=seed)
                    again = run_once(session.captured.compiled, session.module, session.inputs(seed),
                                     training=session.training, seed=seed) if n == 0 else None
            except Exception as e:
                return GateResult("correctness", "fail", f"seed {seed}: candidate raised {type(e).__name__}: "
                                  f"{str(e)[:500]}", {"seed": seed})
            if swap.launches == launches_before:
                return GateResult("correctness", "fail", f"seed {seed}: the candidate kernel never ran: the compiled "
                                  "module no longer uses the captured wrapper (was torch._dynamo reset, or the module "
                                  "recompiled?), so nothing about the candidate was checked", {"seed": seed,
                                                                                              "launches": 0})
            if not same_values(cand.inputs_after, base.inputs_after):
                return GateResult("correctness", "fail", f"seed {seed}: candidate mutates its inputs "
                                  "(the baseline leaves them as they were)", {"seed": seed})
            if again is not None and not (same_values(again.outputs, cand.outputs)
                                          and same_values(again.grads, cand.grads)):
                base2 = session.baseline_run(seed, fresh=True)
                if same_values(base2.outputs, base.outputs):
                    return GateResult("correctness", "fail", f"seed {seed}: candidate gives different results on "
                                      "identical inputs (a race, or state carried between calls); the baseline "
                                      "is deterministic", {"seed": seed})
            for label, c_val, b_val in (("output", cand.outputs, base.outputs), ("grad", cand.grads, base.grads)):
                if label == "grad" and not b_val and not c_val:
                    continue
                if label == "grad" and sorted(c_val) != sorted(b_val):
                    return GateResult("correctness", "fail", f"seed {seed}: gradients for {sorted(c_val)}, "
                                      f"baseline has {sorted(b_val)}", {"seed": seed})
                cmp = compare_outputs(c_val, b_val, s.tolerance, tiny_factor=s.tiny_output_factor,
                                      tiny_rel_tol=s.tiny_rel_tol, label=label)
                if cmp.hard_failure:
                    return GateResult("correctness", "fail", f"seed {seed}: {cmp.hard_failure}",
                                      {"seed": seed, "max_abs_err": cmp.max_abs_err})
                worst_abs = max(worst_abs, cmp.max_abs_err)
                worst_rel = max(worst_rel, cmp.max_rel_err)
                tiny.update(cmp.tiny_outputs)
                if not cmp.within_tolerance and seed not in beyond:
                    beyond.append(seed)
        rtol, atol = s.tolerance(session.dtype_name)
        numbers = {"seeds": len(seeds), "max_abs_err": worst_abs, "max_rel_err": worst_rel, "rtol": rtol,
                   "atol": atol, "within_tolerance": not beyond, "seeds_beyond_tolerance": beyond,
                   "tiny_outputs": sorted(tiny), "poisoned_allocations": True, "determinism_checked": True}
        if beyond:
            return GateResult("correctness", "pass", f"differs from the baseline beyond tolerance on seeds {beyond} "
                              f"(max abs {worst_abs:.3g} > atol {atol:g}, rtol {rtol:g}); the float64 gate decides",
                              numbers)
        return GateResult("correctness", "pass", f"{len(seeds)} seeds within tolerance (max abs {worst_abs:.3g})",
                          numbers)
