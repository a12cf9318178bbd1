"""Gate 2: multi-seed correctness of the whole compiled graph against the unmodified one.

The gate judges records (:mod:`.trial_records`, collected by :mod:`.trials`): the
baseline's runs and the candidate's, on the same seeds and input magnitudes.  It never runs anything
itself, so it can judge in a process that never loaded the candidate.
"""

from __future__ import annotations

from typing import Any

from . import seed_plan, trial_records
from .compare import compare_outputs, same_values
from .results import GateResult
from .seed_plan import CARRIED_SLACK
from .trial_records import PROBE, READ_PRIOR, WROTE_READ_ONLY

#: a candidate beyond tolerance on some seed (the float64 gate decides it) may differ from the baseline on a
#: structure probe by this many times the most it differed on any seed (the probes have no float64 truth)
PROBE_SEED_FACTOR = 4.0


class CorrectnessGate:
    """Candidate vs baseline on fresh inputs per seed, at several input magnitudes.

    Hard failures (shape, dtype, strides, NaN/Inf positions, all zeros where
    the baseline's output is too small to judge by atol, mutated inputs, module
    parameters or buffers changed that the baseline leaves alone,
    nondeterminism, a kernel that never ran, a crash) fail outright.  Any other
    disagreement beyond the dtype tolerance -- wrong values of normal
    magnitude included -- is recorded as ``within_tolerance: False`` and
    handed to the float64 gate, which rejects it unless the candidate is at
    least as close to the float64 truth as the baseline.
    """

    name = "correctness"

    @staticmethod
    def _carried(s: Any, rec: Any, reorder: bool, probe_atol: float = 0.0) -> GateResult | None:
        """The failure of the calls that started from the state the candidate's own previous call left (a loop's
        next calls), each against the baseline's call from the same state, or None.  There is no float64 truth for
        them, so only a difference beyond :data:`CARRIED_SLACK` tolerances fails: far more than two honest
        roundings of one state apart."""
        def loose(dtype: str) -> tuple[float, float]:
            return tuple(CARRIED_SLACK * v for v in s.tolerance(dtype))

        def probe_loose(dtype: str) -> tuple[float, float]:
            rtol, atol = loose(dtype)
            return rtol, max(atol, probe_atol)

        pairs = getattr(rec, "carried", None) or []
        for k, cand, base in pairs:
            probe = str(k).startswith(PROBE)
            where = (f"call {k + 2} of a loop (the first seed's inputs again, from the state the candidate's own "
                     "previous call left)" if isinstance(k, int) else k)
            if " against " not in where:
                where += " against the baseline's call from that state"
            if sorted(cand.grads) != sorted(base.grads):
                return GateResult("correctness", "fail", f"{where}: it changes state {sorted(cand.grads)}, the "
                                  f"baseline {sorted(base.grads)}", {"carried": k})
            for label, c_val, b_val in (("output", cand.outputs, base.outputs), ("state", cand.grads, base.grads)):
                if label == "state" and not c_val:
                    continue
                # (with a probe_atol, no output is "tiny" against it: the seeds' own spread sets the scale)
                tiny = 0.0 if probe and probe_atol else s.tiny_output_factor
                cmp = compare_outputs(c_val, b_val, probe_loose if probe else loose, tiny_factor=tiny,
                                      tiny_rel_tol=s.tiny_rel_tol, label=label, defer_special=reorder)
                if cmp.hard_failure or not cmp.within_tolerance:
                    what = cmp.hard_failure or f"max abs {cmp.max_abs_err:.3g}, beyond {CARRIED_SLACK:g} tolerances" + (
                        f" (or {probe_atol:.3g}, {PROBE_SEED_FACTOR:g}x its farthest from the baseline on the seeds)"
                        if probe and probe_atol else "")
                    why = ("a kernel may not treat inputs with this structure otherwise than the baseline does: "
                           "real inputs carry it" if str(k).startswith(PROBE) else
                           "what a call leaves in the module's state may not change what the next call does")
                    return GateResult("correctness", "fail", f"{where}: {label} differs: {what} ({why})",
                                      {"carried": k, "max_abs_err": cmp.max_abs_err})
        return None

    def judge(self, s: Any, baseline: Any, rec: Any, reorder: bool = False) -> GateResult:
        """``reorder``: the judge certified every candidate as
        Inductor's own kernel under another launch config (:mod:`.reorder`): NaN or Inf positions that differ
        from the baseline's (a product or sum that overflows in one order and not in the other) are left to the
        float64 gate, which judges each such position against the truth (``special_deferred``)."""
        plan = baseline.plan
        seeds = [sd for sd in plan.seeds if sd in rec.runs or sd == rec.error_seed]
        if rec.error:
            seed = rec.error_seed
            if rec.error == "never ran":
                return GateResult("correctness", "fail", f"seed {seed}: the candidate kernel never ran: the compiled "
                                  "module no longer uses the captured wrapper (was torch._dynamo reset, or the module "
                                  "recompiled?), so nothing about the candidate was checked",
                                  {"seed": seed, "launches": 0})
            return GateResult("correctness", "fail", f"seed {seed}: candidate raised {rec.error}", {"seed": seed})
        unexpected = sorted(set(rec.state_changed) - set(baseline.state_changed))
        wrote = [k[len(WROTE_READ_ONLY):] for k in unexpected if k.startswith(WROTE_READ_ONLY)]
        prior = [k[len(READ_PRIOR):] for k in unexpected if k.startswith(READ_PRIOR)]
        unexpected = [k for k in unexpected if not k.startswith((WROTE_READ_ONLY, READ_PRIOR))]
        if unexpected:
            return GateResult("correctness", "fail", f"candidate changes module state the baseline leaves alone: "
                              f"{unexpected[:5]} (parameters, buffers, tensor attributes or module-level tensors "
                              "written in place)",
                              {"state_changed": unexpected})
        for seed in seeds:
            if not same_values(rec.runs[seed].inputs_after, baseline.runs[seed].inputs_after):
                return GateResult("correctness", "fail", f"seed {seed} ({plan.describe(seed)}): candidate mutates its "
                                  "inputs other than the baseline does (its inputs after the call differ from the "
                                  "baseline's)", {"seed": seed})
        if wrote:  # (what the two checks above name is said in their words first)
            return GateResult("correctness", "fail", f"candidate writes to memory the kernel it replaces only reads: "
                              f"{wrote[:5]} (an input pointer: a graph constant, a tensor the module holds outside "
                              "its parameters and buffers, or an input; state kept there outlives the call)",
                              {"wrote_read_only": wrote})
        if prior:
            return GateResult("correctness", "fail", f"what the candidate writes to module state the kernel it "
                              f"replaces only writes depends on what that state held before: {prior[:5]} (checked "
                              "on a call starting from the state its previous call left; state read back there is "
                              "a call counter's place)", {"read_prior_state": prior})
        worst_abs = worst_rel = 0.0
        beyond: list[int] = []
        tiny: set[int] = set()
        special: list[list] = []  # [seed, label, index] whose NaN/Inf positions differ (reorder only)
        for seed in seeds:
            n = plan.index(seed)  # its role in the whole plan (a round of it: the judge's memory held no more)
            base, cand = baseline.runs[seed], rec.runs[seed]
            where = f"seed {seed} ({plan.describe(seed)})"
            for label, c_val, b_val in (("output", cand.outputs, base.outputs), ("grad", cand.grads, base.grads)):
                if label == "grad" and not b_val and not c_val:
                    continue
                if label == "grad" and sorted(c_val) != sorted(b_val):
                    return GateResult("correctness", "fail", f"{where}: gradients and changed state {sorted(c_val)}, "
                                      f"baseline has {sorted(b_val)}", {"seed": seed})
                cmp = compare_outputs(c_val, b_val, s.tolerance, tiny_factor=s.tiny_output_factor,
                                      tiny_rel_tol=s.tiny_rel_tol, label=label, defer_special=reorder)
                if cmp.hard_failure:
                    return GateResult("correctness", "fail", f"{where}: {cmp.hard_failure}",
                                      {"seed": seed, "max_abs_err": cmp.max_abs_err})
                special.extend([seed, label, i] for i in cmp.special)
                worst_abs = max(worst_abs, cmp.max_abs_err)
                worst_rel = max(worst_rel, cmp.max_rel_err)
                tiny.update(cmp.tiny_outputs)
                if not cmp.within_tolerance and seed not in beyond:
                    beyond.append(seed)
            if seed_plan.CANDIDATE_FILLS.get(n) == "stale" and baseline.deterministic and \
                    cand.buffers is not None:
                for start, other in (getattr(rec, "starts", None) or {}).items():
                    theirs = other.buffers or []
                    kept = buffers_differ(cand.buffers[1:], theirs[1:])
                    if theirs[:1] == cand.buffers[:1] and not kept:
                        continue
                    start = {"nan": "NaN poison", "random": "random values"}.get(start, start)
                    if theirs[:1] != cand.buffers[:1]:
                        what = ("'s result depends on what its buffers held before the call: on identical inputs, "
                                f"over what the previous call left in them and over {start}, it gives "
                                "different results")
                    else:
                        what = (f": with the same results, Inductor's buffers {kept[:5]} of the "
                                f"{len(cand.buffers) - 1} the call allocated hold different bits after it over what "
                                f"the previous call left and over {start}: state carried to the next call in "
                                "memory no output shows")
                    return GateResult("correctness", "fail", f"{where}: candidate{what} (a call's result and what "
                                      "it leaves may not depend on what its memory held); the baseline is "
                                      "deterministic", {"seed": seed, "start": start})
            if n == 0 and rec.again is not None and baseline.deterministic and not (
                    same_values(rec.again.outputs, cand.outputs) and same_values(rec.again.grads, cand.grads)):
                return GateResult("correctness", "fail", f"{where}: candidate gives different results on "
                                  "identical inputs (a race, state carried between calls, or work that depends on "
                                  "what its buffers held or on the order its programs run: the second run's buffers "
                                  "held random values instead of the NaN poison, and on the CPU its programs ran in "
                                  "reverse order); the baseline is deterministic", {"seed": seed})
        rtol, atol = s.tolerance(baseline.dtype_name)
        carried_pairs = getattr(rec, "carried", None) or []
        # after every seed's own comparison (whose messages say more), the calls of a loop after the first
        # a candidate the float64 gate is to judge (beyond tolerance on some seed: more accurate than the baseline,
        # it may say) is held on the structure probes, which have no truth, to what it showed on the seeds
        carried = self._carried(s, rec, reorder, PROBE_SEED_FACTOR * worst_abs if beyond else 0.0)
        if carried is not None:
            return carried
        numbers = {"seeds": len(seeds), "seed_list": list(seeds), "scales": [plan.scale(sd) for sd in seeds],
                   "special_values_seeds": [sd for sd in seeds if plan.special(sd)],
                   "integer_valued_seeds": [sd for sd in seeds if plan.integral(sd)],
                   "seed_inputs": {sd: plan.describe(sd) for sd in seeds},
                   "seeds_drawn": plan.drawn, "base_seed": plan.base, "max_abs_err": worst_abs,
                   "max_rel_err": worst_rel, "rtol": rtol, "atol": atol, "within_tolerance": not beyond,
                   "seeds_beyond_tolerance": beyond, "tiny_outputs": sorted(tiny), "poisoned_allocations": True,
                   "determinism_checked": baseline.deterministic and getattr(rec, "again", None) is not None,
                   "state_checked": True,
                   "loop_calls_compared": sum(not str(k).startswith(PROBE) for k, _, _ in carried_pairs),
                   "structure_probes_compared": sum(str(k).startswith(PROBE) for k, _, _ in carried_pairs)}
        if getattr(rec, "carried_note", ""):
            numbers["loop_note"] = rec.carried_note
        if getattr(rec, "probe_seconds", None):
            numbers["structure_probe_seconds"] = rec.probe_seconds
        if getattr(rec, "carried_sampled", 0):
            numbers["pairs_sampled"] = (f"{rec.carried_sampled} of the {len(carried_pairs)} pairs of calls past "
                                        f"{trial_records.CARRIED_TOTAL_BYTES >> 20} MiB kept were judged on a keyed "
                                        f"sample of {trial_records.CARRIED_SAMPLE} positions a tensor")
        if special:
            numbers["special_deferred"] = special
        return GateResult("correctness", "pass", passing_reason(numbers), numbers)


def passing_reason(numbers: dict[str, Any]) -> str:
    """What a passing correctness result says, from its numbers (one judgement's, or the rounds' merged)."""
    special, beyond = numbers.get("special_deferred") or [], numbers.get("seeds_beyond_tolerance") or []
    worst = float(numbers.get("max_abs_err", 0.0))
    if special:
        return (f"NaN or Inf positions differ from the baseline's on seeds {sorted({sd for sd, _, _ in special})} "
                "(Inductor's own kernel under another launch config: an overflow can land elsewhere in another "
                "order); the float64 gate judges each such position against the truth")
    if beyond:
        return (f"differs from the baseline beyond tolerance on seeds {beyond} (max abs {worst:.3g} > atol "
                f"{numbers['atol']:g}, rtol {numbers['rtol']:g}); the float64 gate decides")
    return f"{numbers['seeds']} seeds within tolerance (max abs {worst:.3g})"


def buffers_differ(a: list[str], b: list[str]) -> list[int]:
    """The buffers (indices) two runs left with different bits (:attr:`.trial_records.Run.buffers`, past the outputs'
    digest): a buffer neither call wrote ("u:") holds only what it was handed, and is skipped; every other one
    must match, including one that a call wrote in one run and left alone in the other."""
    if len(a) != len(b):
        return list(range(max(len(a), len(b))))
    return [i for i, (x, y) in enumerate(zip(a, b))
            if not (x.startswith("u:") and y.startswith("u:")) and x[2:] != y[2:]]
