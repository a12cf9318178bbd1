"""Gate 3: model-level float64 fallback -- the eager module in float64 is the ground truth."""

from __future__ import annotations

from typing import Any

from .compare import error_vs_truth, flatten
from .results import GateResult
from .runner import run_once


class Fp64Gate:
    """Excuses a disagreement with the baseline only if the candidate is at least as accurate.

    Where the correctness gate found candidate and baseline within tolerance
    this gate passes with its numbers recorded.  Otherwise the candidate
    passes only if, on every seed and output, its relative L2 error against the
    float64 truth is at most ``fp64_factor`` times the baseline's.
    """

    name = "fp64"

    def check(self, session: Any, swap: Any, correctness: GateResult) -> GateResult:
        s = session.settings
        within = bool(correctness.numbers.get("within_tolerance", True))
        if within:
            return GateResult("fp64", "pass", "within tolerance of the baseline: the float64 truth is not needed",
                              {"decisive": False, "computed": False, "factor": s.fp64_factor})
        seeds = correctness.numbers.get("seeds_beyond_tolerance") or session.seeds()[:1]
        worst_ratio = 0.0
        base_errs: list[float] = []
        cand_errs: list[float] = []
        for seed in seeds:
            try:
                truth = session.truth(seed)
            except Exception as e:
                if within:
                    return GateResult("fp64", "pass", "within tolerance; float64 reference unavailable "
                                      f"({type(e).__name__}: {e})", {"fp64_available": False})
                return GateResult("fp64", "fail", "candidate differs from the baseline beyond tolerance and the "
                                  f"float64 reference could not be computed: {type(e).__name__}: {e}",
                                  {"fp64_available": False})
            base = session.baseline_run(seed)
            with swap.applied():
                cand = run_once(session.captured.compiled, session.module, session.inputs(seed),
                                training=session.training, seed=seed)
            t_vals = flatten(truth.outputs) + [truth.grads[k] for k in sorted(truth.grads)]
            b_vals = flatten(base.outputs) + [base.grads[k] for k in sorted(base.grads)]
            c_vals = flatten(cand.outputs) + [cand.grads[k] for k in sorted(cand.grads)]
            eb, ec = error_vs_truth(b_vals, t_vals), error_vs_truth(c_vals, t_vals)
            base_errs.extend(eb)
            cand_errs.extend(ec)
            for b, c in zip(eb, ec):
                ratio = c / b if b > 0 else (1.0 if c <= 1e-12 else float("inf"))
                worst_ratio = max(worst_ratio, ratio)
        numbers = {"seeds": list(seeds), "baseline_err_vs_fp64": max(base_errs, default=0.0),
                   "candidate_err_vs_fp64": max(cand_errs, default=0.0), "worst_ratio": worst_ratio,
                   "factor": s.fp64_factor, "decisive": not within}
        if within:
            return GateResult("fp64", "pass", "within tolerance of the baseline; float64 errors recorded", numbers)
        if worst_ratio <= s.fp64_factor:
            return GateResult("fp64", "pass", f"differs from the baseline but is as close to the float64 truth "
                              f"(error ratio {worst_ratio:.3g} <= {s.fp64_factor:g})", numbers)
        return GateResult("fp64", "fail", f"differs from the baseline beyond tolerance and is farther from the "
                          f"float64 truth: error {numbers['candidate_err_vs_fp64']:.3g} vs baseline "
                          f"{numbers['baseline_err_vs_fp64']:.3g} (ratio {worst_ratio:.3g} > {s.fp64_factor:g})",
                          numbers)
