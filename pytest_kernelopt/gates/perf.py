"""Gate 4: performance of the whole compiled module, baseline and candidate interleaved.

The samples are timed by :mod:`.timing` (CUDA events, L2 flushed, variants
alternating ABBA over rotating input sets) and recorded in the candidate's
record; this module judges them.  The speedup is the median of the per-pair
ratios; its confidence interval is the sign test's (exact for independent
pairs).  Accepted only if the interval's lower bound reaches ``min_speedup``.
Without a GPU nothing is measured.

The gate is *sequential*: it times ``perf_samples`` pairs, and while the
interval straddles ``min_speedup`` (a win of 3% at a 2% bar, say) it times
as many again (looks at 30, 60, 120, ... pairs), up to ``perf_max_samples``
pairs or ``perf_max_seconds`` of timing.  Every look at the data spends part of
the error rate (Bonferroni: each look's interval is at confidence
``1 - (1 - confidence) / looks``, ``looks`` the length of that schedule), so
looking again does not make a false win likelier; doubling keeps the looks few
(six up to 960 pairs) where equal rounds would need 32.  On an H200 a true 3%
win on a 0.1 ms module needs several hundred pairs to clear a 2% bar (pair
ratios spread 2-9%): at 120 pairs the gate found it 26 times in 32, with the looks up to 960 pairs 59 times in
59 (A/A: 0 accepted of 80; docs/results.md).  From 30 pairs on, a candidate whose
median is below three quarters of the way to ``min_speedup`` is given up (:func:`futile`: it only ever rejects).
"""

from __future__ import annotations

from typing import Any

from .compare import compare_outputs
from .results import GateResult


def speedup_interval(base: list[float], cand: list[float], confidence: float) -> tuple[float, float, float]:
    """The speedup (baseline / candidate) as the median of the per-pair ratios, and a distribution-free
    interval for it: the order statistics of the ratios a sign test allows (exact for independent pairs at
    any number of them; without enough pairs for ``confidence`` the interval is (0, inf)).

    Pair ``i`` is the baseline's and the candidate's ``i``-th samples, timed back
    to back (ABBA), so drift between pairs (clocks, the host) cancels within a
    pair.  On the H200 the median of the pair ratios found a true 3% win 46 times
    in 56 where the ratio of the two medians found it 32 times, with the same
    A/A false accepts (``benchmarks/results/h200_s7_timing_study.json``).  A
    percentile bootstrap of that median undercovers at 30-60 pairs (a review
    measured 0.7-0.9% one-sided misses against 0.42% nominal); the sign-test
    interval does not, and replayed on the same H200 samples it accepted A/A 0
    of 56 and the 3% win 26 of 32 (the bootstrap at the same looks: 0 and 27).
    """
    import math

    n = min(len(base), len(cand))
    r = sorted(math.log(max(b, 1e-12) / max(c, 1e-12)) for b, c in zip(base[:n], cand[:n]))
    if not r:
        return 1.0, 0.0, math.inf
    mid = n // 2
    point = math.exp(r[mid] if n % 2 else 0.5 * (r[mid - 1] + r[mid]))
    k = sign_test_rank(n, (1.0 - confidence) / 2.0)
    if k < 0:
        return point, 0.0, math.inf
    return point, math.exp(r[k]), math.exp(r[n - 1 - k])


def sign_test_rank(n: int, alpha: float) -> int:
    """The largest ``k`` (0-based, at most (n-1)/2) with P(Binomial(n, 1/2) <= k) <= alpha: then
    ``[r[k], r[n-1-k]]`` of ``n`` sorted values misses their median with probability at most ``alpha`` on
    each side; -1 when even ``[min, max]`` cannot promise that."""
    import math

    k, cdf = -1, 0.0
    while k + 1 <= (n - 1) // 2:
        p = math.comb(n, k + 1) / 2.0 ** n
        if cdf + p > alpha:
            break
        cdf += p
        k += 1
    return k


#: a candidate may not run faster than moving its inputs and outputs once at this fraction of peak bandwidth
ROOFLINE_SLACK = 0.85


def schedule(s: Any) -> list[int]:
    """The pairs timed by each look: ``perf_samples``, doubled at each further look, the last one
    ``perf_max_samples``."""
    first = max(1, s.perf_samples)
    cap = max(s.perf_max_samples, first)
    out = [first]
    while out[-1] < cap:
        out.append(min(cap, 2 * out[-1]))
    return out


def looks(s: Any) -> int:
    """How many times the sequential gate may look at its samples."""
    return len(schedule(s))


def look_confidence(s: Any) -> float:
    """The confidence of each look's interval (Bonferroni over the looks)."""
    return 1.0 - (1.0 - s.confidence) / looks(s)


def next_round(s: Any, rec: Any) -> int:
    """How many more pairs the sequential gate times (0: it decides now): while the interval straddles
    ``min_speedup``, up to the next look of :func:`schedule`, unless that would take the timing past
    ``perf_max_seconds`` (judging by the pace so far)."""
    timing = rec.timing or {}
    base, cand = timing.get("base") or [], timing.get("cand") or []
    n = min(len(base), len(cand))
    later = [k for k in schedule(s) if k > n]
    if n < 2 or not later:
        return 0
    seconds = float(timing.get("seconds") or 0.0)
    if seconds and seconds + seconds / n * (later[0] - n) > s.perf_max_seconds:
        return 0
    point, lo, hi = speedup_interval(base, cand, look_confidence(s))
    if futile(s, n, point):
        return 0
    return later[0] - n if lo < s.min_speedup <= hi else 0


#: from this many pairs on, the sequential gate gives up on a candidate whose median speedup is below
#: :func:`futility_bar` (three quarters of the way from no speedup to ``min_speedup``)
FUTILITY_MIN_PAIRS = 30


FUTILITY_FRACTION = 0.75


def futility_bar(s: Any) -> float:
    return 1.0 + (s.min_speedup - 1.0) * FUTILITY_FRACTION


def futile(s: Any, n: int, point: float) -> bool:
    """Whether the gate stops sampling a candidate that is not going to clear ``min_speedup``: after
    :data:`FUTILITY_MIN_PAIRS` pairs, a median speedup below :func:`futility_bar`.  Stopping early only ever
    rejects, so it cannot make a false accept likelier; it costs power only where a true win's median falls
    that low by chance.  Measured live on an H200 with this rule (from 30 pairs, three quarters of the way;
    docs/results.md, `benchmarks/results/h200_s10_timing.json`): A/A 0 accepted of 754 candidates, 0.25 s a
    candidate; a true 3% win accepted 306 times of 319 (95.9%).  A stop from 60 pairs, halfway, cost 1.90 s a
    candidate (`h200_s9_aa.json`).  Guarded by tests/test_gates_at_size.py::
    test_the_sequential_gate_gives_up_below_three_quarters_from_30_pairs."""
    return n >= FUTILITY_MIN_PAIRS and point < futility_bar(s)


def merge_timing(rec: Any, timing: dict, outs: dict) -> None:
    """Add a further round of timing (and its output checks) to a candidate's record."""
    if not rec.timing:
        rec.timing, rec.timed_outputs = timing, outs
        return
    rec.timing = {"base": rec.timing["base"] + timing["base"], "cand": rec.timing["cand"] + timing["cand"],
                  "launches": rec.timing.get("launches", 0) + timing.get("launches", 0),
                  "seconds": float(rec.timing.get("seconds") or 0.0) + float(timing.get("seconds") or 0.0),
                  "rounds": rec.timing.get("rounds", 1) + 1}
    old = rec.timed_outputs or {}
    sums = old.get("sums") or {}
    for who, by_seed in (outs.get("sums") or {}).items():
        for seed, calls in by_seed.items():
            sums.setdefault(who, {}).setdefault(seed, []).extend(calls)
    rec.timed_outputs = {"last": {**(old.get("last") or {}), **(outs.get("last") or {})}, "sums": sums}


class PerfGate:
    """Judges timing samples (collected by :func:`pytest_kernelopt.gates.trials.collect_timing`).

    Besides the speedup's interval against ``min_speedup``: every timed call's
    output checksums must agree with the baseline's on the same input set, the
    candidate's last output on each input set must match the clean baseline's
    record, and the candidate's time may not fall below the memory roofline of
    the module (its inputs and outputs moved once at peak bandwidth): a speedup
    beyond what the hardware allows is a failure to explain, not a win.
    """

    name = "performance"

    def judge(self, s: Any, baseline: Any, rec: Any, measures_time: bool, backend_name: str,
              correctness: GateResult | None = None) -> GateResult:
        if not measures_time:
            return GateResult("performance", "not_measured",
                              f"no GPU ({backend_name} backend): performance not measured, so nothing is "
                              "accepted for speed on this machine", {"measured": False})
        timing = rec.timing or {}
        base, cand = timing.get("base") or [], timing.get("cand") or []
        if not timing.get("launches"):
            return GateResult("performance", "fail", "the candidate kernel never ran while being timed (the compiled "
                              "module no longer uses the captured wrapper)", {"measured": False, "launches": 0})
        if len(base) < 2 or len(cand) < 2:
            return GateResult("performance", "fail", "no timing samples came back", {"measured": False})
        import statistics

        conf = look_confidence(s)
        point, lo, hi = speedup_interval(base, cand, conf)
        numbers = {"speedup": point, "ci_low": lo, "ci_high": hi, "confidence": conf,
                   "confidence_overall": s.confidence, "looks_allowed": looks(s),
                   "rounds": int(timing.get("rounds", 1)), "samples": len(base), "baseline_ms": statistics.median(base),
                   "candidate_ms": statistics.median(cand), "min_speedup": s.min_speedup, "measured": True,
                   "method": "cuda_events_l2_flush_interleaved", "timing_seeds": list(baseline.plan.timing)}
        wrong = self._timed_outputs_wrong(s, baseline, rec, correctness)
        if wrong:
            numbers["timed_outputs_checked"] = False
            return GateResult("performance", "fail", f"a timed call's output is wrong: {wrong} (the candidate "
                              "computes differently while it is timed)", numbers)
        numbers["timed_outputs_checked"] = True
        if baseline.peak_bandwidth and baseline.io_bytes:
            floor_ms = baseline.io_bytes / (baseline.peak_bandwidth * ROOFLINE_SLACK) * 1e3
            numbers["roofline_floor_ms"] = floor_ms
            if numbers["candidate_ms"] < floor_ms:
                return GateResult("performance", "fail", f"the candidate ran in {numbers['candidate_ms']:.4g} ms, "
                                  f"below the memory roofline of the module ({floor_ms:.4g} ms to move its "
                                  f"{baseline.io_bytes:,} bytes of inputs and outputs once at "
                                  f"{ROOFLINE_SLACK:.0%} of {baseline.peak_bandwidth / 1e12:.2f} TB/s): "
                                  "work is being skipped or done elsewhere", numbers)
        if lo >= s.min_speedup:
            return GateResult("performance", "pass", f"speedup {point:.3f}x [{lo:.3f}, {hi:.3f}] clears "
                              f"{s.min_speedup:g}", numbers)
        if futile(s, len(base), point) and hi >= s.min_speedup:
            numbers["stopped"] = "futility"
            return GateResult("performance", "fail", f"speedup {point:.3f}x [{lo:.3f}, {hi:.3f}]: lower bound below "
                              f"{s.min_speedup:g}; sampling stopped at {len(base)} pairs, the median below "
                              f"{futility_bar(s):.3g} (halfway to {s.min_speedup:g})", numbers)
        return GateResult("performance", "fail", f"speedup {point:.3f}x [{lo:.3f}, {hi:.3f}]: lower bound below "
                          f"{s.min_speedup:g}", numbers)

    @staticmethod
    def _timed_outputs_wrong(s: Any, baseline: Any, rec: Any, correctness: GateResult | None) -> str:
        """What is wrong with the timed calls' outputs ('' when nothing): checksums of every call against the
        baseline's on the same input set, and the last call on each set in full against the clean baseline; a set
        whose last output or baseline run the judge does not hold fails (a check that could not be made is not
        passed)."""
        outs = rec.timed_outputs or {}
        sums = outs.get("sums") or {}
        rtol, atol = s.tolerance(baseline.dtype_name)
        slack = max(atol, 2.0 * float((correctness.numbers if correctness else {}).get("max_abs_err", 0.0)))
        for seed, cand_calls in (sums.get("cand") or {}).items():
            base_calls = (sums.get("base") or {}).get(seed) or []
            if not base_calls:
                continue
            ref = base_calls[-1]
            for n, call in enumerate(cand_calls):
                if len(call) != len(ref):
                    return f"input set {seed}, call {n}: {len(call)} floating outputs, baseline {len(ref)}"
                for (cs, _, cnan, numel), (bs, babs, bnan, _) in zip(call, ref):
                    if cnan != bnan:
                        return f"input set {seed}, call {n}: {cnan} NaN, baseline {bnan}"
                    # elementwise |c - b| <= slack + rtol |b| bounds the weighted sums' difference (weights < 1.5)
                    if abs(cs - bs) > rtol * babs + 1.5 * numel * slack:
                        return f"input set {seed}, call {n}: weighted output sum {cs:.6g}, baseline {bs:.6g}"
        last = outs.get("last") or {}
        unseen = [sd for sd, calls in (sums.get("cand") or {}).items() if calls and sd not in last]
        if unseen:  # every timed set's last output is compared in full: one that did not come is not passed over
            return f"input set {unseen[0]}: its last timed output did not reach the judge"
        for seed, out in last.items():
            ref_run = baseline.runs.get(seed)
            if ref_run is None:
                return f"input set {seed}: the judge holds no baseline run on it to compare its last timed output with"
            cmp = compare_outputs(out, ref_run.outputs, s.tolerance, tiny_factor=s.tiny_output_factor,
                                  tiny_rel_tol=s.tiny_rel_tol)
            beyond_ok = correctness is not None and not correctness.numbers.get("within_tolerance", True)
            if cmp.hard_failure:
                return f"input set {seed}: {cmp.hard_failure}"
            if not cmp.within_tolerance and not beyond_ok:
                return f"input set {seed}: differs from the baseline beyond tolerance (max abs {cmp.max_abs_err:.3g})"
        return ""
