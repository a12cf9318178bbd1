"""Gate 3: model-level float64 fallback -- the eager module in float64 is the ground truth.

Two checks, both on records (:mod:`.trial_records`):

* **the fallback**: where the correctness gate found candidate and baseline
  apart beyond tolerance, the candidate passes only if, on every such seed and
  output, its L2 error against the float64 truth is at most ``fp64_factor``
  (plus :data:`NOISE_MARGIN`) times the larger of the baseline's error and the
  output's *noise floor*: :data:`NOISE_K` times how far the uncompiled module,
  run in its own precision, lands from the truth (two runs: on the inputs, and
  on the inputs moved by one rounding step).  An
  output that is itself rounding noise (the mean of normalised values, say)
  has errors of that size in any order of summation; judging them by their
  ratio alone is a coin flip.  A lower-precision computation (float16
  rounding) is hundreds of floors away and still fails;
* **the bias test**, always where the truth could be computed: the candidate's
  mean signed error against the truth may not exceed the baseline's by more
  than the statistical margin of such a mean (:data:`BIAS_SIGMAS` standard
  errors of the candidate's per-element errors, plus the baseline's own
  bias), once that excess also matters at the scale of the tolerance
  (:data:`BIAS_TOL_FRACTION` of ``atol + rtol * mean|truth|``).  A kernel that
  adds a small constant to every element stays inside the elementwise
  tolerance but not this.
"""

from __future__ import annotations

import math
from typing import Any, Iterator

from . import judge_kernels, moments_kernel
from .chunked import chunks
from .compare import (
    ZERO_DECADE,
    beyond_counts,
    decade_sums,
    far_at,
    finite_l2,
    finite_max_errors,
    special_positions,
    values,
)
from .results import GateResult

BIAS_SIGMAS = 6.0
#: the bias test's standard error is also taken from the means of this many contiguous batches of elements (in
#: row-major order), and the larger one counts: the rounding errors of a scan are a random walk along each row,
#: so neighbouring elements' errors are correlated and the spread of single elements understates the mean's
#: (a 64 x 4096 cumprod's honest reorder was refused at -7.02 against 7.0 allowed).  Rows beyond this many are
#: grouped, whole or nearly so, into each batch
BIAS_BATCHES = 64
BIAS_SPREAD_RATIO = 4.0
BIAS_TOL_FRACTION = 0.05
#: two orderings of the same float32 arithmetic land at errors a few percent apart against the truth; the
#: fallback treats a candidate within this fraction above ``fp64_factor`` x the baseline's error as equally
#: accurate (a coin flip between equally rounded results is not a verdict).  Lower precision (fp16 rounding)
#: is hundreds of times farther and still fails.
NOISE_MARGIN = 0.25
#: within tolerance, a candidate may still not be this many times farther from the truth than the baseline
#: once its error is clearly above rounding (:data:`PRECISION_EPS` x the output dtype's epsilon, relative L2):
#: a float32 softmax computed in float16 stays inside atol on small outputs, and is 100-1000x farther
PRECISION_RATIO = 4.0
PRECISION_EPS = 8.0
#: ... but for half-precision outputs (float16, bfloat16: epsilon HALF_EPS and coarser) the output's own rounding
#: is most of any honest error, and PRECISION_EPS epsilons is beyond the tolerance (bfloat16: 8 eps = 6.25%
#: against rtol 2%), so the check could never fire there: a bfloat16 kernel 3.8% off at the median (18x the
#: baseline's relative error, 10x the eager module's) would pass (tests/test_precision_downgrades.py::
#: test_a_half_precision_output_made_sloppy_within_tolerance_is_rejected).  For these the check starts at
#: HALF_PRECISION_EPS epsilons, and the noise floor it reads is the honest runs' own distance from the truth
#: (factor 1, not :func:`noise_k`'s 4 to 20): a kernel rounding once lands near the baseline, one rounding after
#: every operation near the eager module, which the noise runs include
HALF_EPS = 2.0 ** -10
HALF_PRECISION_EPS = 1.0
#: the noise floor of an output: this many times the distance from the truth of the uncompiled module run in
#: its own precision (root mean square of two runs: see :func:`.fp64_place.noise_floor`); another order of the
#: same arithmetic lands within a few times that, float16 rounding thousands of times
#: (not 10: an honest reordering of the noise-floor problem's reduction landed 14x from the truth
#: on inputs with an outlier channel, where float16 rounding stays thousands of floors away)
NOISE_K = 20.0
#: ... but only for outputs whose rounding noise is itself large against their size (ill-conditioned: the noise's L2
#: norm at least NOISE_K epsilons of the output dtype relative to the truth's): for a well-conditioned output (a
#: softmax, an activation) every honest computation lands within a few epsilons, and 20x the noise had let a softmax
#: rounded to 16 mantissa bits (52x farther from the truth than the baseline) and a float16 activation rounded to 6
#: (16x) through (tests/test_precision_downgrades.py::
#: test_a_softmax_rounded_to_16_mantissa_bits_is_rejected_and_the_honest_one_verified).  The factor is the output's
#: relative noise in epsilons, clamped to [NOISE_K_WELL, NOISE_K]
NOISE_K_WELL = 4.0


#: the precision check also reads the parts of an output by the decade of |truth|: an output mixing scales (tanh x 1e4
#: beside tanh x 1e-3) has a whole-output L2 error that the large part's rounding decides, and the small part rounded
#: to bfloat16, to multiples of 1/16 or zeroed went through (tests/test_precision_decades.py::
#: test_a_downgrade_of_the_small_part_of_a_mixed_scale_output_is_rejected).  Decades are read from the largest down, a
#: group once it holds DECADE_MIN values (thin decades together), by the mean of each decade's relative squared error
#: weighted by its count (no decade's scale hides another's), against the larger of the baseline's error there and
#: that part's own noise floor (the noise runs per decade; an exp2 softmax's smallest values, 15 eps from the truth
#: against an exact exp's 1, are that far from it when the inputs move by one rounding step:
#: tests/test_precision_decades.py::test_an_exp2_softmax_is_verified).  Subnormal decades are not read.
DECADE_MIN = 32


def noise_k(noise: float, norm: float, eps: float) -> float:
    """How many times its rounding noise an output's noise floor is (see :data:`NOISE_K_WELL`)."""
    if not norm > 0:
        return NOISE_K
    return min(NOISE_K, max(NOISE_K_WELL, noise / (norm * eps)))


def precision_k(noise: float, norm: float, eps: float) -> float:
    """The noise floor's factor in the precision check: :func:`noise_k`'s, or 1 for half precision
    (:data:`HALF_EPS`)."""
    return 1.0 if eps >= HALF_EPS else noise_k(noise, norm, eps)


def precision_eps(eps: float) -> float:
    """How many epsilons of relative error the precision check starts at (:data:`HALF_PRECISION_EPS`)."""
    return HALF_PRECISION_EPS if eps >= HALF_EPS else PRECISION_EPS
#: beside the L2 ratio, the fallback counts positions: among the positions where the baseline is within tolerance of
#: the truth, a candidate that is not Inductor's own kernel (:mod:`.reorder`) may be beyond it at no more than
#: POSITIONS_FACTOR times the share of positions where the baseline is beyond it, plus POSITIONS_SLACK of them.  The
#: L2 ratio is a whole-output figure: a kernel that wrote exact values where the baseline was wrong (2% of positions,
#: an ill-conditioned (x + 1e8) - 1e8) and values 2-10% off at 76% of the rest, where the baseline, eager and the
#: truth agree exactly, passed it (benchmarks/redteam/rt19; tests/test_fallback_positions.py::
#: test_the_count_allows_the_baselines_share_three_times_over_plus_one_percent).  An honest kernel's errors against
#: the truth are spread like the baseline's: its share beyond the tolerance where the baseline is within it is about
#: the baseline's own share.  An ``fp64_factor`` above 1 multiplies the allowance.  (Not for a certified reorder:
#: Inductor's own arithmetic, whose ill-conditioned outputs would be judged by chance.)
POSITIONS_FACTOR = 3.0
POSITIONS_SLACK = 0.01
#: ... and position by position: an uncertified candidate may be at most CALM_MAX tolerances from the truth, or
#: LEVEL_FACTOR times as far as the farthest honest run of the noise floor lands there (the compiled and the eager
#: module, on the seed's inputs and on inputs moved by one rounding step: :func:`.compare.level_codes`), if that is
#: more (times ``fp64_factor`` above 1), at all but LEVEL_SLACK of the positions.  The count above bounds how many
#: positions are wrong, not by how much, and the whole-output figures let errors hide where the baseline is wrong
#: elsewhere (1e4 off on unit-scale values at 2.8% of positions; 5000 off where sin(3000 x)'s honest runs land a
#: tolerance or so from the truth, 25 tolerances off with no planted error at all: benchmarks/redteam/rt20, rt21;
#: tests/test_fallback_positions.py::test_a_large_error_at_calm_positions_is_refused_however_few).  An honest
#: computation lands beyond ten times the farthest of four honest runs at about one position in ten thousand, when all
#: are rounding noise of one size
CALM_MAX = 10.0
LEVEL_FACTOR = 10.0
LEVEL_SLACK = 1e-3
#: beside the L2 ratio, the fallback bounds single elements: a candidate's largest excess over the tolerance against the
#: truth may be at most this many times (or ``fp64_factor`` x 1.25, if larger) the larger of the baseline's largest
#: error against the truth and NOISE_K times the rounding noise per element (the noise floor's RMS).  On an
#: ill-conditioned output (cos(1000 x)) the L2 floor is the tolerance's own L2 norm, and a kernel spent that whole
#: budget on two elements, each 470x the tolerance
#: (tests/test_chunked_stats.py::test_the_fallback_bounds_single_elements)
ELEMENT_RATIO = 4.0


def _float_errors(run: Any, truth: Any, tolerance: Any, capped: bool = True,
                  k: Any = noise_k) -> list[tuple[float, float, float]]:
    """(L2 error, noise floor, L2 norm of the truth) of each floating value of ``run`` against ``truth``.

    The noise floor is :data:`NOISE_K` times the value's measured rounding noise, but never more than the tolerance
    itself (the L2 norm of ``atol + rtol * |truth|``): rounding noise may excuse a disagreement with the baseline only
    as far as the candidate stays within tolerance of the truth.  Without that cap an output that is ill-conditioned
    but computed exactly (``(x - 1000) * 100`` for x near 1000: no rounding error in float32, a wide spread when the
    inputs move by one rounding step) excused errors hundreds of times the tolerance (tests/test_redteam3.py: c02,
    c04, c10).  ``capped=False`` for a certified reorder (:mod:`.reorder`): Inductor's own arithmetic, which cannot be
    that attack, judged against the rounding noise itself (an output that is rounding noise around zero, where a
    capped floor refused two of three honest configs by a coin flip:
    tests/test_reorder.py::test_a_reorder_on_an_output_that_is_rounding_noise_is_no_coin_flip).
    """
    import torch

    out = []
    noise = truth.noise or []
    for i, (x, t) in enumerate(zip(_values(run), _values(truth))):
        if not (isinstance(x, torch.Tensor) and x.is_floating_point() and x.numel()):
            continue
        rtol, atol = tolerance(str(x.dtype).replace("torch.", ""))
        n, err, norm, cap = finite_l2(x, t, rtol, atol)  # over the positions finite in both, a chunk at a time
        if not n:
            out.append((0.0, 0.0, 0.0))
            continue
        nz = noise[i] if i < len(noise) and noise[i] is not None else 0.0
        floor = k(nz, norm, torch.finfo(x.dtype).eps) * nz
        floor = min(cap, floor) if capped else floor
        out.append((err, floor, norm))
    return out


def _rel(x: float, norm: float) -> float:
    """Relative to the truth's norm; absolute where the truth is exactly zero (reported, never compared)."""
    return x / norm if norm > 0 else x


def _ratio(ec: float, eb: float, floor: float) -> float:
    """The candidate's error over the larger of the baseline's and the noise floor."""
    ref = max(eb, floor)
    return ec / ref if ref > 0 else (1.0 if ec <= 1e-12 else float("inf"))


def _values(run: Any) -> list:
    return values(run.outputs, run.grads)


def _floating(s: Any, baseline: Any, rec: Any, seeds: list) -> Iterator[tuple]:
    """The per-position checks' loop: ``(seed, i, candidate, baseline, truth, rtol, atol)`` for each non-empty
    floating value ``i`` of the candidate's run of each seed, with the tolerance of its dtype."""
    import torch

    for seed in seeds:
        for i, (c, b, t) in enumerate(zip(_values(rec.runs[seed]), _values(baseline.runs[seed]),
                                          _values(baseline.truths[seed]))):
            if isinstance(c, torch.Tensor) and c.is_floating_point() and c.numel():
                yield (seed, i, c, b, t, *s.tolerance(str(c.dtype).replace("torch.", "")))


def _error_moments(cand: Any, base: Any, truth: Any) -> tuple[int, tuple, tuple, float, tuple]:
    """Over the positions where ``cand``, ``base`` and ``truth`` are all finite, in float64, a chunk at a time:
    (count, (mean, sum of squared deviations) of ``cand - truth``, the same of ``base - truth``, mean |truth|,
    (finite count, sum of ``cand - truth``, sum of ``base - truth``) in each of :data:`BIAS_BATCHES` contiguous
    batches of the row-major order).  The chunks' moments are merged with Chan et al.'s pairwise formula (as
    accurate as one pass of torch's).  On a GPU the judge's Triton kernel takes them in one pass
    (:mod:`.moments_kernel`)."""
    import torch

    if moments_kernel.usable(cand, base, truth, BIAS_BATCHES):
        got = judge_kernels.attempt(moments_kernel, lambda: moments_kernel.launch(cand, base, truth, BIAS_BATCHES))
        if got is not None:
            return got
    n, abs_sum, lo, total = 0, 0.0, 0, truth.numel()
    moments = [(0.0, 0.0), (0.0, 0.0)]
    batches = None
    for cc, bc, tc in chunks(cand, base, truth):
        c, b, t = cc.double(), bc.double(), tc.double()
        ok = torch.isfinite(c) & torch.isfinite(b) & torch.isfinite(t)
        ids = (torch.arange(lo, lo + t.numel(), device=t.device) * BIAS_BATCHES // max(total, 1))[ok]
        lo += t.numel()
        t = t[ok]
        k = t.numel()
        if batches is None:
            batches = [torch.zeros(BIAS_BATCHES, dtype=torch.float64, device=t.device) for _ in range(3)]
        if not k:
            continue
        batches[0] += torch.bincount(ids, minlength=BIAS_BATCHES).double()
        for j, e in enumerate(((c[ok] - t), (b[ok] - t))):
            batches[1 + j] += torch.bincount(ids, weights=e, minlength=BIAS_BATCHES)
            mean_k = float(e.mean())
            m2_k = float(((e - mean_k) ** 2).sum())
            mean, m2 = moments[j]
            delta = mean_k - mean
            moments[j] = (mean + delta * k / (n + k), m2 + m2_k + delta * delta * n * k / (n + k))
        abs_sum += float(t.abs().sum())
        n += k
        del c, b, t, ok, ids
    per_batch = tuple(x.cpu() for x in batches) if batches is not None else ()
    return n, moments[0], moments[1], abs_sum / n if n else 0.0, per_batch


def batch_se(counts: Any, sums: Any, mean: float) -> float:
    """The standard error of a mean over elements grouped in batches whose errors may be correlated within and
    are independent between (the cluster-robust form: sqrt(B/(B-1) * sum((sum_j - count_j * mean)^2)) / n,
    over the B batches with any element); 0 with fewer than two such batches."""
    used = counts > 0
    b = int(used.sum())
    if b < 2:
        return 0.0
    dev = (sums[used] - counts[used] * mean)
    n = float(counts.sum())
    return math.sqrt(b / (b - 1) * float((dev * dev).sum())) / n if n else 0.0


def bias_excess(cand: Any, base: Any, truth: Any, rtol: float, atol: float) -> tuple[float, float, float] | None:
    """(candidate bias, allowed bias, tolerance-scale floor) of one output, or None where it cannot be judged."""
    import torch

    if not (isinstance(cand, torch.Tensor) and cand.is_floating_point() and cand.numel() >= 64):
        return None
    n, (bias_c, m2_c), (bias_b, m2_b), abs_t, (counts, sums_c, sums_b) = _error_moments(cand, base, truth)
    if n < 64:
        return None
    # the standard error of the mean comes from the baseline's spread, which the candidate cannot inflate; the
    # candidate's own counts only up to BIAS_SPREAD_RATIO times it (an honest reordering rounds a little
    # differently).  Taken from the candidate alone, noise added on purpose bought room for a constant shift
    # (+0.004 on every element with +-0.04 alternating: tests/test_redteam3.py, c05).
    # Each standard error is the larger of the elements' (independent errors) and the batches' (errors correlated
    # along rows, as a scan's are: :data:`BIAS_BATCHES`).
    se_b = max(math.sqrt(m2_b / (n - 1)) / math.sqrt(n), batch_se(counts, sums_b, bias_b))
    se_c = max(math.sqrt(m2_c / (n - 1)) / math.sqrt(n), batch_se(counts, sums_c, bias_c))
    se = max(se_b, min(se_c, BIAS_SPREAD_RATIO * se_b))
    allowed = abs(bias_b) + BIAS_SIGMAS * se
    floor = BIAS_TOL_FRACTION * (atol + rtol * abs_t)
    return bias_c, allowed, floor


class Fp64Gate:
    """Excuses a disagreement with the baseline only if the candidate is at least as accurate; refuses bias."""

    name = "fp64"

    def judge(self, s: Any, baseline: Any, rec: Any, correctness: GateResult,
              reorder: tuple[str, ...] = (), longer_chain: bool = False) -> GateResult:
        """``reorder``: what the judge certified each candidate to be when all are Inductor's own kernels under
        other launch configs (:mod:`.reorder`); the precision check is then measured and reported, not applied,
        unless ``longer_chain`` (reduction blocks smaller than the baseline's: :mod:`.provenance`)."""
        within = bool(correctness.numbers.get("within_tolerance", True))
        rtol, atol = s.tolerance(baseline.dtype_name)
        seeds = [sd for sd in baseline.plan.seeds if sd in rec.runs]
        available = [sd for sd in seeds if baseline.truths.get(sd) is not None]
        numbers: dict[str, Any] = {"factor": s.fp64_factor, "decisive": not within,
                                   "bias_sigmas": BIAS_SIGMAS, "bias_tol_fraction": BIAS_TOL_FRACTION}
        if reorder:
            numbers["reorder_of_inductor"] = list(reorder)
        if correctness.numbers.get("special_deferred"):
            verdict = self._special(s, baseline, rec, correctness, numbers, bool(reorder))
            if verdict is not None:
                return verdict
        if not within:
            verdict = self._fallback(s, baseline, rec, correctness, seeds, numbers, bool(reorder))
            if verdict is not None:
                return verdict
        return self._bias(s, baseline, rec, available, rtol, atol, numbers, within,
                          reported=bool(reorder) and not longer_chain)

    @staticmethod
    def _fallback(s: Any, baseline: Any, rec: Any, correctness: GateResult, seeds: list, numbers: dict,
                  reorder: bool = False):
        """Beyond tolerance: a failing GateResult unless the candidate is as close to the truth (None: it is)."""
        beyond = correctness.numbers.get("seeds_beyond_tolerance") or seeds[:1]
        missing = [sd for sd in beyond if baseline.truths.get(sd) is None]
        if missing:
            why = baseline.truth_errors.get(missing[0], "not computed")
            numbers["fp64_available"] = False
            numbers["fp64_skipped"] = why
            return GateResult("fp64", "fail", "candidate differs from the baseline beyond tolerance and could not "
                              f"be verified against a float64 truth (a limit of this run, not a finding against the "
                              f"candidate): {why}", numbers)
        worst_ratio = 0.0
        base_errs: list[float] = []
        cand_errs: list[float] = []
        floors: list[float] = []
        for seed in beyond:
            truth = baseline.truths[seed]
            eb = _float_errors(baseline.runs[seed], truth, s.tolerance, capped=not reorder)
            ec = _float_errors(rec.runs[seed], truth, s.tolerance, capped=not reorder)
            for (b, fl, norm), (c, _, _) in zip(eb, ec):
                base_errs.append(_rel(b, norm))
                cand_errs.append(_rel(c, norm))
                floors.append(_rel(fl, norm))
                worst_ratio = max(worst_ratio, _ratio(c, b, fl))
        numbers["noise_floor_vs_fp64"] = max(floors, default=0.0)
        numbers.update(noise_k=NOISE_K, noise_k_well=NOISE_K_WELL)
        numbers.update({"seeds": list(beyond), "baseline_err_vs_fp64": max(base_errs, default=0.0),
                        "candidate_err_vs_fp64": max(cand_errs, default=0.0), "worst_ratio": worst_ratio})
        bound = s.fp64_factor * (1.0 + NOISE_MARGIN)
        numbers["ratio_bound"] = bound
        if worst_ratio <= bound:
            element = Fp64Gate._elements(s, baseline, rec, beyond, numbers)
            if element is not None:
                return element
            if not reorder:
                spread = Fp64Gate._positions(s, baseline, rec, beyond, numbers)
                if spread is None:
                    spread = Fp64Gate._levels(s, baseline, rec, beyond, numbers)
                if spread is not None:
                    return spread
            numbers["fallback"] = (f"differs from the baseline but is as close to the float64 truth "
                                   f"(error ratio {worst_ratio:.3g} <= {bound:.3g}, against the larger of the "
                                   f"baseline's error and the noise floor: fp64_factor {s.fp64_factor:g} plus a "
                                   f"{NOISE_MARGIN:.0%} margin for rounding noise)")
            return None
        return GateResult("fp64", "fail", f"differs from the baseline beyond tolerance and is farther from the "
                          f"float64 truth: error {numbers['candidate_err_vs_fp64']:.3g} vs baseline "
                          f"{numbers['baseline_err_vs_fp64']:.3g}, noise floor {numbers['noise_floor_vs_fp64']:.3g} "
                          f"(ratio {worst_ratio:.3g} > {bound:.3g}: fp64_factor {s.fp64_factor:g} plus a "
                          f"{NOISE_MARGIN:.0%} margin for rounding noise)",
                          numbers)

    @staticmethod
    def _special(s: Any, baseline: Any, rec: Any, correctness: GateResult, numbers: dict,
                 reorder: bool) -> GateResult | None:
        """NaN or Inf positions that differ from the baseline's (deferred by the correctness gate for a certified
        reorder): each judged against the float64 truth (:func:`.compare.special_positions`); a failing result
        where the candidate is wrong where the baseline is not, else None (the rest of the gate goes on)."""
        seeds = sorted({sd for sd, _, _ in correctness.numbers["special_deferred"]})
        if not reorder:  # only the judge's own certification defers these; anything else is a hard failure
            return GateResult("fp64", "fail", f"seeds {seeds}: NaN or Inf positions differ from the baseline's, "
                              "and the candidate is not Inductor's own kernel under another launch config",
                              numbers)
        missing = [sd for sd in seeds if baseline.truths.get(sd) is None]
        if missing:
            why = baseline.truth_errors.get(missing[0], "not computed")
            numbers.update(fp64_available=False, fp64_skipped=why)
            return GateResult("fp64", "fail", f"seed {missing[0]}: NaN or Inf positions differ from the baseline's "
                              f"and could not be judged against a float64 truth (a limit of this run, not a finding "
                              f"against the candidate): {why}", numbers)
        total = {"differ": 0, "better": 0, "both_wrong": 0, "worse": 0}
        for seed, i, c, b, t, rtol, atol in _floating(s, baseline, rec, seeds):
            got = special_positions(c, b, t, rtol, atol)
            for k in total:
                total[k] += got[k]
            if got["worse"]:
                numbers["special_positions"] = {**got, "seed": seed, "value": i}
                return GateResult("fp64", "fail", f"seed {seed}: NaN or Inf positions differ from the "
                                  f"baseline's, and at {got['worse']} of {got['differ']} such positions of "
                                  f"output value {i} the candidate is wrong against the float64 truth where "
                                  "the baseline is not (or NaN or Inf where the baseline has a number)", numbers)
        numbers["special_positions"] = total
        return None

    @staticmethod
    def _positions(s: Any, baseline: Any, rec: Any, seeds: list, numbers: dict) -> GateResult | None:
        """A failing result where the candidate is beyond the tolerance against the truth at many positions where
        the baseline is within it (:data:`POSITIONS_FACTOR`); None otherwise."""
        worst = 0.0
        for seed, i, c, b, t, rtol, atol in _floating(s, baseline, rec, seeds):
            n, base_out, cand_out = beyond_counts(c, b, t, rtol, atol)
            if not n or n == base_out:
                continue
            share_b, share_c = base_out / n, cand_out / (n - base_out)
            # a lenient fp64_factor (lower precision allowed on purpose) widens the count as much
            allowed = max(1.0, s.fp64_factor) * (POSITIONS_FACTOR * share_b + POSITIONS_SLACK)
            worst = max(worst, share_c / allowed)
            if share_c > allowed:
                numbers.update(positions_beyond=cand_out, positions_baseline_within=n - base_out,
                               positions_baseline_beyond=base_out, positions_allowed_share=allowed, seed=seed)
                return GateResult("fp64", "fail", f"seed {seed}: output value {i} is beyond the tolerance "
                                  f"against the float64 truth at {cand_out} of the {n - base_out} positions "
                                  f"where the baseline is within it ({share_c:.1%}; the baseline is beyond it "
                                  f"at {share_b:.1%} of all positions; at most {allowed:.1%} is allowed: "
                                  f"{POSITIONS_FACTOR:g} times that plus {POSITIONS_SLACK:.0%}, times "
                                  "fp64_factor where it is above 1): accurate where the baseline is not, wrong "
                                  "where it is right", numbers)
        numbers["positions_ratio"] = worst
        return None

    @staticmethod
    def _levels(s: Any, baseline: Any, rec: Any, seeds: list, numbers: dict) -> GateResult | None:
        """A failing result where the candidate is far from the truth against the honest runs' own distance there
        (:data:`LEVEL_FACTOR`); None otherwise, and where the truth has no levels."""
        factor = max(1.0, s.fp64_factor)
        checked = 0
        for seed, i, c, _, t, rtol, atol in _floating(s, baseline, rec, seeds):
            levels = getattr(baseline.truths[seed], "levels", None) or []
            lv = levels[i] if i < len(levels) else None
            if lv is None or c.numel() != lv.numel():
                continue
            n, far = far_at(c, t, lv, rtol, atol, factor * CALM_MAX, factor * LEVEL_FACTOR)
            checked += n
            if far > int(LEVEL_SLACK * n):
                numbers.update(level_positions=n, level_far=far, level_factor=factor * LEVEL_FACTOR,
                               calm_max=factor * CALM_MAX, seed=seed)
                return GateResult("fp64", "fail", f"seed {seed}: output value {i} is farther from the float64 "
                                  f"truth than {factor * LEVEL_FACTOR:g} times the farthest honest run there "
                                  f"(and than {factor * CALM_MAX:g} tolerances) at {far} of {n} positions (at "
                                  f"most {LEVEL_SLACK:.1%} allowed; the honest runs: the compiled and the eager "
                                  "module, on the inputs and on inputs moved by one rounding step): an error "
                                  "rounding cannot make", numbers)
        numbers["level_positions_checked"] = checked
        return None

    @staticmethod
    def _elements(s: Any, baseline: Any, rec: Any, seeds: list, numbers: dict) -> GateResult | None:
        """A failing result when some element of the candidate is far beyond the tolerance against the truth
        where the baseline's elements are not (:data:`ELEMENT_RATIO`); None otherwise."""
        limit = max(ELEMENT_RATIO, s.fp64_factor * (1.0 + NOISE_MARGIN))
        worst = 0.0
        for seed, i, c, b, t, rtol, atol in _floating(s, baseline, rec, seeds):
            n, _, over = finite_max_errors(c, t, rtol, atol)
            if over <= 0.0:
                continue
            _, base_worst, _ = finite_max_errors(b, t, rtol, atol)
            noise = baseline.truths[seed].noise or []
            rms_noise = (noise[i] / math.sqrt(n)) if i < len(noise) and noise[i] is not None and n else 0.0
            ref = max(base_worst, NOISE_K * rms_noise)
            ratio = over / ref if ref > 0 else math.inf
            worst = max(worst, ratio)
            if ratio > limit:
                numbers.update(element_ratio=ratio, element_excess=over, baseline_worst_element=base_worst,
                               element_noise=NOISE_K * rms_noise, seed=seed)
                return GateResult("fp64", "fail", f"seed {seed}: an element is {over:.3g} beyond the tolerance "
                                  f"against the float64 truth, {ratio:.3g}x the larger of the baseline's worst "
                                  f"element error ({base_worst:.3g}) and the rounding noise per element "
                                  f"({NOISE_K * rms_noise:.3g}; at most {limit:g}x): an error "
                                  "concentrated in a few elements", numbers)
        numbers["element_ratio"] = worst
        return None

    @staticmethod
    def _precision(s: Any, baseline: Any, rec: Any, available: list, numbers: dict, limit: float) -> GateResult | None:
        """A failing result when the candidate is far less accurate than the baseline (a precision downgrade)."""
        import torch

        worst = 0.0
        for seed in available:
            truth = baseline.truths[seed]
            eps_of = [torch.finfo(v.dtype).eps for v in _values(rec.runs[seed])
                      if isinstance(v, torch.Tensor) and v.is_floating_point() and v.numel()]
            for eps, (ec, fl, norm), (eb, _, _) in zip(
                    eps_of, _float_errors(rec.runs[seed], truth, s.tolerance, k=precision_k),
                    _float_errors(baseline.runs[seed], truth, s.tolerance, k=precision_k)):
                ratio = _ratio(ec, eb, fl)
                ec, eb, fl = _rel(ec, norm), _rel(eb, norm), _rel(fl, norm)
                floor = max(precision_eps(eps) * eps, fl)
                if ec > floor:
                    worst = max(worst, ratio)
                if ec > floor and ratio > limit:
                    numbers.update(precision_ratio=ratio, candidate_err_vs_fp64=ec, baseline_err_vs_fp64=eb,
                                   noise_floor_vs_fp64=fl, seed=seed)
                    return GateResult("fp64", "fail", f"seed {seed}: {ratio:.3g}x farther from the "
                                      f"float64 truth than the baseline (relative error {ec:.3g} vs {eb:.3g}, noise "
                                      f"floor {fl:.3g}; at most {limit:g}x once above {precision_eps(eps):g} eps): a "
                                      "lower-precision computation", numbers)
            part = Fp64Gate._decades(rec.runs[seed], baseline.runs[seed], truth, limit, numbers)
            if part is not None:
                numbers["seed"] = seed
                return GateResult("fp64", "fail", f"seed {seed}: {part}: a "
                                  "lower-precision computation of part of the output", numbers)
        numbers["precision_ratio"] = worst
        return None

    @staticmethod
    def _decades(cand: Any, base: Any, truth: Any, limit: float, numbers: dict) -> str | None:
        """The precision check by decades of |truth| (:data:`DECADE_MIN`): what failed, or None."""
        import torch


        checked = numbers.get("precision_decades_checked", 0)
        worst = numbers.get("precision_decade_ratio", 0.0)
        noises = getattr(truth, "noise_decades", None) or []
        try:
            for i, (c, b, t) in enumerate(zip(_values(cand), _values(base), _values(truth))):
                if not (isinstance(c, torch.Tensor) and c.is_floating_point() and c.numel() >= DECADE_MIN):
                    continue
                eps = torch.finfo(c.dtype).eps
                normal = math.floor(math.log10(torch.finfo(c.dtype).tiny)) + 1
                noise = (noises[i] if i < len(noises) else None) or {}
                sums = decade_sums(t, c, b)
                # count, count-weighted relative squared errors: cand, base, noise
                group: list[Any] = [0, 0.0, 0.0, 0.0, []]
                # the group checked last: a tail of fewer than DECADE_MIN values is read with it
                last: list[Any] | None = None
                for d in sorted((d for d in sums if d != ZERO_DECADE and d >= normal), reverse=True):
                    n, sc, sb, st = sums[d]
                    if not st > 0:
                        continue
                    nz = noise.get(d, 0.0)
                    group[0] += n
                    group[1] += sc / st * n
                    group[2] += sb / st * n
                    group[3] += nz * nz / st * n
                    group[4].append(d)
                    if group[0] < DECADE_MIN:
                        continue
                    last, group = group, [0, 0.0, 0.0, 0.0, []]
                    checked += 1
                    worst, failed = Fp64Gate._decade_group(last, i, eps, limit, worst, numbers)
                    if failed:
                        return failed
                if group[0] and last is not None:  # the smallest decades' few values, with the group above them
                    merged = [last[0] + group[0], *(a + b for a, b in zip(last[1:4], group[1:4])), last[4] + group[4]]
                    worst, failed = Fp64Gate._decade_group(merged, i, eps, limit, worst, numbers)
                    if failed:
                        return failed
        finally:
            numbers.update(precision_decades_checked=checked, precision_decade_ratio=worst)
        return None

    @staticmethod
    def _decade_group(group: list, i: int, eps: float, limit: float, worst: float, numbers: dict
                      ) -> tuple[float, str | None]:
        """One group of decades of output value ``i`` (count, count-weighted relative squared errors of the
        candidate, the baseline and the noise, its decades from the largest): the worst ratio so far, and what
        failed (None: it passed)."""
        n, rc, rb, rn = group[0], *(math.sqrt(v / group[0]) for v in group[1:4])
        decades = group[4]
        floor = precision_k(rn, 1.0, eps) * rn
        ratio = rc / max(rb, floor, 0.5 * eps)
        if rc > precision_eps(eps) * eps:
            worst = max(worst, ratio)
        if rc > precision_eps(eps) * eps and ratio > limit:
            where = (f"[1e{decades[-1]}, 1e{decades[0] + 1})")
            numbers.update(precision_decades=[min(decades), max(decades)], precision_decade_values=n)
            return worst, (f"where |truth| is in {where} (output value {i}: {n} elements) it is {rc / eps:.3g} "
                           f"epsilons from the float64 truth (relative RMS) against the baseline's "
                           f"{rb / eps:.3g} and a noise floor of {floor / eps:.3g} ({ratio:.3g}x; at most "
                           f"{limit:g}x once above {precision_eps(eps):g} eps)")
        return worst, None

    @staticmethod
    def _bias(s: Any, baseline: Any, rec: Any, available: list, rtol: float, atol: float, numbers: dict,
              within: bool, reported: bool = False) -> GateResult:
        """The bias test on every seed with a truth; the final verdict when it passes (``reported``: the
        precision check's finding is reported, not a verdict)."""
        worst = None
        for seed in available:
            truth = baseline.truths[seed]
            for c, b, t in zip(_values(rec.runs[seed]), _values(baseline.runs[seed]), _values(truth)):
                got = bias_excess(c, b, t, rtol, atol)
                if got is None:
                    continue
                bias_c, allowed, floor = got
                # what passes: |bias| up to the baseline's allowance plus the tolerance-scale floor (both reported:
                # ``bias_allowed`` is the whole allowance, so a passing bias is never shown above it)
                if worst is None or abs(bias_c) - (allowed + floor) > worst[0] - worst[1]:
                    worst = (abs(bias_c), allowed + floor, allowed, floor)
                if abs(bias_c) > allowed + floor:
                    numbers.update(bias=bias_c, bias_allowed=allowed + floor, bias_baseline_allowed=allowed,
                                   bias_floor=floor, seed=seed)
                    return GateResult("fp64", "fail", f"seed {seed}: the candidate's errors against the float64 "
                                      f"truth are biased: mean signed error {bias_c:.3g}, beyond the "
                                      f"{allowed + floor:.3g} allowed (the baseline's bias plus {BIAS_SIGMAS:g} "
                                      "standard errors, "
                                      f"{allowed:.3g}, and {BIAS_TOL_FRACTION:g} of the tolerance, {floor:.3g}): a "
                                      "systematic offset, not rounding", numbers)
        numbers["bias_checked"] = worst is not None
        if worst is not None:
            numbers.update(bias=worst[0], bias_allowed=worst[1], bias_baseline_allowed=worst[2], bias_floor=worst[3])
        downgrade = Fp64Gate._precision(s, baseline, rec, available, numbers,
                                        max(PRECISION_RATIO, s.fp64_factor * (1.0 + NOISE_MARGIN)))
        if downgrade is not None and reported:
            # the same arithmetic in another order: what the check measured is reported, and is no verdict
            numbers["precision_not_applied"] = ("Inductor's own kernel under another launch config (the same "
                                                "arithmetic, another reduction order): " + downgrade.reason)
        elif downgrade is not None:
            return downgrade
        extra = ("; farther from the truth than the baseline, as another reduction order of Inductor's own kernel "
                 f"may be (precision ratio {numbers.get('precision_ratio', 0.0):.3g}: reported, not a verdict)"
                 if "precision_not_applied" in numbers else "")
        if not within:
            return GateResult("fp64", "pass", numbers.pop("fallback") + extra, numbers)
        numbers["computed"] = bool(available)
        skipped = next((baseline.truth_errors[sd] for sd in baseline.plan.seeds
                        if baseline.truths.get(sd) is None and sd in baseline.truth_errors), "")
        if skipped:
            numbers["fp64_skipped"] = skipped
            return GateResult("fp64", "pass", f"within tolerance of the baseline; no float64 truth, so no bias or "
                              f"precision check: {skipped}", numbers)
        return GateResult("fp64", "pass", "within tolerance of the baseline" + (
            "; no bias against the float64 truth" if worst is not None else
            ": the float64 truth is not needed") + extra, numbers)
