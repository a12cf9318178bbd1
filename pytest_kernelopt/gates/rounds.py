"""One gate's results over the rounds of a plan, merged into the result of the whole plan.

A judge whose memory cannot hold every seed's records at once (the baseline's run, the float64 truth with its
levels and the candidate's run, per seed) judges the plan in rounds (:meth:`.seed_plan.SeedPlan.rounds`): each
round's records are judged when collected and let go before the next round is collected, so every seed is judged
at every size.  The correctness and float64 gates decide each seed on its own records, so a round that fails
decides the candidate.  Where every round passes, this module merges their results: seeds and lists joined, the
worst figure kept, counts added.

It reads results, never records.
"""

from __future__ import annotations

from typing import Any

from .correctness import passing_reason
from .results import GateResult

#: correctness figures joined over the rounds, added, the largest kept, true only if true in every round / any
_JOINED = ("seed_list", "scales", "special_values_seeds", "integer_valued_seeds", "seeds_beyond_tolerance",
           "special_deferred", "fp64_seeds", "truth_seeds")
_ADDED = ("seeds", "loop_calls_compared", "structure_probes_compared", "level_positions_checked",
          "precision_decades_checked")
_LARGEST = ("max_abs_err", "max_rel_err", "worst_ratio", "precision_ratio", "element_ratio", "positions_ratio",
            "precision_decade_ratio", "noise_floor_vs_fp64", "baseline_err_vs_fp64", "candidate_err_vs_fp64",
            "module_peak_gib", "gate_peak_gib", "gate_peak_ratio", "fp64_peak_gib")
_EVERY = ("within_tolerance",)
_ANY = ("determinism_checked", "bias_checked", "computed")
_BIAS = ("bias", "bias_allowed", "bias_baseline_allowed", "bias_floor")


def _merge_numbers(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for numbers in rounds:
        for key, value in numbers.items():
            if key not in out:
                out[key] = list(value) if key in _JOINED and isinstance(value, (list, tuple)) else value
            elif key in _JOINED and isinstance(value, (list, tuple)):
                out[key] = list(out[key]) + list(value)
            elif key in _ADDED and isinstance(value, (int, float)):
                out[key] = out[key] + value
            elif key in _LARGEST and isinstance(value, (int, float)):
                out[key] = max(out[key], value)
            elif key in _EVERY:
                out[key] = bool(out[key]) and bool(value)
            elif key in _ANY:
                out[key] = bool(out[key]) or bool(value)
            elif key == "tiny_outputs":
                out[key] = sorted(set(out[key]) | set(value))
            elif key == "seed_inputs" and isinstance(value, dict):
                out[key] = {**out[key], **value}
    # the bias figures of the round whose bias came nearest its allowance
    biased = [n for n in rounds if isinstance(n.get("bias"), (int, float)) and n.get("bias_allowed")]
    if biased:
        worst = max(biased, key=lambda n: abs(n["bias"]) - n["bias_allowed"])
        out.update({k: worst[k] for k in _BIAS if k in worst})
    return out


def _said(rounds: list[list[int]]) -> str:
    return (f" (judged in {len(rounds)} rounds of at most {max(map(len, rounds))} seeds, each round's records let "
            "go before the next: the judge's memory held no more at once)")


def merge_correctness(results: list[GateResult], rounds: list[list[int]]) -> GateResult:
    """The correctness gate's passing results of the rounds (seeds ``rounds[i]``) as one result."""
    if len(results) == 1:
        return results[0]
    numbers = _merge_numbers([r.numbers for r in results])
    numbers["rounds"] = rounds
    return GateResult("correctness", "pass", passing_reason(numbers) + _said(rounds), numbers)


def merge_fp64(results: list[GateResult], rounds: list[list[int]]) -> GateResult:
    """The float64 gate's passing results of the rounds as one result: the reason of the round the fallback
    decided with the largest error ratio (the candidate differed from the baseline beyond tolerance there), else
    of the last round."""
    if len(results) == 1:
        return results[0]
    # a round's "seeds" are those it judged against the truth: joined, not added
    numbers = _merge_numbers([{"fp64_seeds" if k == "seeds" else k: v for k, v in r.numbers.items()}
                              for r in results])
    numbers["rounds"] = rounds
    fallback = [r for r in results if r.numbers.get("decisive")]
    said = max(fallback, key=lambda r: r.numbers.get("worst_ratio", 0.0)) if fallback else results[-1]
    return GateResult("fp64", "pass", said.reason + _said(rounds), numbers)
