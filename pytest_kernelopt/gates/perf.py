"""Gate 4: performance of the whole compiled module, baseline and candidate interleaved.

Each sample: an untimed call of the same variant on another input set (the
host and the GPU warm again after the previous sample's output checks), flush
L2 (write a buffer of twice the L2 size), synchronise, record a CUDA event,
call the compiled module (Python dispatch, launches, extern calls and all),
record an event, synchronise.  Variants alternate ABBA so drift hits both
alike; inputs rotate over several fresh sets so a kernel cannot replay a cached
result.  The speedup is the median of the per-pair ratios; its confidence
interval is the sign test's (exact for independent pairs).  Accepted only if the
interval's lower bound reaches ``min_speedup``.  Without a GPU nothing is
measured.

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

from typing import Any, Callable, Sequence

from .results import GateResult

FLUSH_BYTES = 256 * 1024 * 1024  # where the device does not say its L2 size
#: checksums run over at most this many elements at a time (trials.chunk_elements): float64 temporaries of
#: 1/16 of the output, at most 128 MiB each
CHECKSUM_CHUNK = 1 << 24


def flush_bytes() -> int:
    """Bytes written before every sample to empty the L2 cache: twice its size (64-256 MiB)."""
    import torch

    l2 = int(getattr(torch.cuda.get_device_properties(torch.cuda.current_device()), "L2_cache_size", 0) or 0)
    return FLUSH_BYTES if l2 <= 0 else min(FLUSH_BYTES, max(64 << 20, 2 * l2))


def module_call(session: Any, inputs: list[tuple]) -> Callable[[int], Any]:
    """What one timed sample runs: the forward pass, or forward and backward for a training module."""
    import torch

    fn = session.captured.compiled
    if not session.training:
        def forward(i: int):
            with torch.no_grad():
                return fn(*inputs[i])

        return forward
    from ..capture import backward_inputs

    def step(i: int):
        out = fn(*inputs[i])
        outs, grads = backward_inputs(out, 0)
        torch.autograd.backward(outs, grads)
        return out

    return step


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


def _flush_buffer() -> Any:
    import torch

    return torch.empty(flush_bytes(), dtype=torch.int8, device="cuda")


def interleave_order(n: int, i: int, rotate: bool = False) -> list[int]:
    """The variants' order in sample ``i``: ABBA (reversed every other sample), or with ``rotate`` turned by
    ``i`` slots and reversed every other full turn (each variant in each slot equally often over ``2 * n``
    samples)."""
    order = list(range(n))
    if not rotate or n < 3:
        return order[::-1] if i % 2 else order
    k = i % n
    order = order[k:] + order[:k]
    return order[::-1] if (i // n) % 2 else order


def time_interleaved(variants: list[tuple[Callable[[], Any], Callable[[int], Any]]], n_inputs: int, samples: int,
                     warmup: int, after: Callable[[int, int, Any], None] | None = None,
                     rewarm: Callable[[Any], None] | None = None,
                     before: Callable[[], None] | None = None, prime: bool = False,
                     rotate: bool = False) -> list[list[float]]:
    """Milliseconds per call for each ``(select, call)`` variant; CUDA events, L2 flushed before every sample.

    ``select()`` switches the variant in (outside the timed region); ``call(i)``
    runs the module on input set ``i``.  ``after(variant, input_set, output)``,
    if given, sees every timed call's output once the call has been timed
    (outside the timed region).  Python's garbage collector is off while
    sampling, as ``timeit`` does: a collection inside a timed call is host time
    that belongs to neither variant.  Only the young generations are collected
    before (a full collection took 0.2 s on CPU with four compiled modules
    loaded, and the sequential gate times several rounds a candidate).

    ``rewarm(output)``, if given, makes every sample start with an untimed call
    of its variant on the next input set (never the one about to be timed), the
    output handed to ``rewarm`` (the gate scrubs it).  ``before()``, if given, runs
    before every call, outside the timed region (the gate puts back the module
    state a call changes: every call then starts from the same state).  ``prime=True`` (without ``rewarm``) makes
    every sample start with an untimed call of its own variant, its output dropped, on the next input set (the
    one about to be timed only where there is one set: the bench's compiled modes, trusted code): each timed
    call then follows a call of its own variant, whatever the order, as in a loop that calls one module.
    ``rotate=True`` turns the order by one variant each sample (and reverses it every other full turn), so
    that with more than two variants each one takes every slot equally often; plain ABBA keeps a middle
    variant in the middle.  On the H200 the output
    checks between samples had made the timed calls of a 0.09 ms module 35%
    slower and five times noisier (layernorm_gelu, A/A); a real win was diluted
    into the noise (``benchmarks/results/h200_s7_timing_study.json``).
    """
    import gc

    import torch

    flush = _flush_buffer()
    for j, (select, call) in enumerate(variants):
        select()
        for i in range(warmup):
            if before is not None:
                before()
            out = call(i % n_inputs)
            if after is not None:
                after(j, i % n_inputs, out)
            del out
    torch.cuda.synchronize()
    times: list[list[float]] = [[] for _ in variants]
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    gc.collect(1)  # the young generations only: a full collection took 0.2 s a round with compiled modules loaded
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        for i in range(samples):
            order = interleave_order(len(variants), i, rotate)
            for j in order:
                select, call = variants[j]
                select()
                if rewarm is not None and n_inputs > 1:
                    if before is not None:
                        before()
                    rewarm(call((i + 1) % n_inputs))
                elif prime:
                    if before is not None:
                        before()
                    call((i + 1) % n_inputs)  # its output dropped at once
                if before is not None:
                    before()
                flush.zero_()
                torch.cuda.synchronize()
                start.record()
                out = call(i % n_inputs)
                end.record()
                torch.cuda.synchronize()
                times[j].append(start.elapsed_time(end))
                if after is not None:
                    after(j, i % n_inputs, out)
                del out
    finally:
        if was_enabled:
            gc.enable()
    return times


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


def time_sequentially(session: Any, swap: Any, plan: Any, rec: Any) -> None:
    """Time ``rec``'s candidate in this process as the sequential gate does: a first round, then the rounds of
    :func:`next_round` while it is undecided (the isolated judge runs the same exchange across its pipe)."""
    from .trials import collect_timing

    rec.timing, rec.timed_outputs = collect_timing(session, swap, plan)
    while more := next_round(session.settings, rec):
        merge_timing(rec, *collect_timing(session, swap, plan, more))


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
    """Judges timing samples (collected by :func:`pytest_kernelopt.gates.trials.collect_candidate`).

    Besides the speedup's interval against ``min_speedup``: every timed call's
    output checksums must agree with the baseline's on the same input set, the
    candidate's last output on each input set must match the clean baseline's
    record, and the candidate's time may not fall below the memory roofline of
    the module (its inputs and outputs moved once at peak bandwidth): a speedup
    beyond what the hardware allows is a failure to explain, not a win.
    """

    name = "performance"

    def check(self, session: Any, swap: Any) -> GateResult:
        """Collect (sequentially, as the cascade does) and judge in this process (the isolated path collects
        in a worker and judges in its parent)."""
        from .trials import CandidateRecord

        if not session.backend.measures_time:
            return self.judge(session.settings, session.baseline_record(), CandidateRecord(), False,
                              session.backend.name)
        rec = CandidateRecord()
        time_sequentially(session, swap, session.plan, rec)
        return self.judge(session.settings, session.baseline_record(), rec, True, session.backend.name)

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
        baseline's on the same input set, and the last call on each set in full against the clean baseline."""
        from .compare import compare_outputs

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
        for seed, out in (outs.get("last") or {}).items():
            ref_run = baseline.runs.get(seed)
            if ref_run is None:
                continue
            cmp = compare_outputs(out, ref_run.outputs, s.tolerance, tiny_factor=s.tiny_output_factor,
                                  tiny_rel_tol=s.tiny_rel_tol)
            beyond_ok = correctness is not None and not correctness.numbers.get("within_tolerance", True)
            if cmp.hard_failure:
                return f"input set {seed}: {cmp.hard_failure}"
            if not cmp.within_tolerance and not beyond_ok:
                return f"input set {seed}: differs from the baseline beyond tolerance (max abs {cmp.max_abs_err:.3g})"
        return ""


def checksums(outputs: Any, weights: dict) -> list[tuple[float, float, int, int]]:
    """(weighted sum, weighted sum of magnitudes, NaN count, numel) of every floating output, in float64.

    The weights are random in [0.5, 1.5), one per element position: a plain sum
    cannot tell a softmax of one input from a softmax of another (every row sums
    to one), a weighted one can.  They are a hash of the output's size and the
    position (the same on every device), made a chunk (``chunk_elements``) at a
    time so the float64 temporaries stay bounded whatever the output's size;
    ``weights`` caches the chunks of small outputs.  On a GPU the judge's own
    Triton kernel (:mod:`pytest_kernelopt.gates.checksum_kernel`) computes the
    same weighted sums in one pass (torch's twenty launches per chunk had made
    the checks of a 64M-element output cost about 8 ms a call); where it cannot
    run, torch does, for the rest of the process.
    """
    import torch

    from . import checksum_kernel
    from .compare import flatten
    from .trials import chunk_elements

    sums = []
    for t in flatten(outputs):
        if isinstance(t, torch.Tensor) and t.is_floating_point() and t.numel():
            if checksum_kernel.usable(t):
                try:
                    ws, wa, nans = checksum_kernel.launch(t).tolist()
                    sums.append((ws, wa, int(nans), t.numel()))
                    continue
                except Exception as exc:  # noqa: BLE001 - torch sums instead, for this whole process
                    checksum_kernel.disable(f"{type(exc).__name__}: {exc}")
            flat = t.detach().reshape(-1)
            acc = torch.zeros(3, dtype=torch.float64, device=t.device)  # one host sync per output, not per chunk
            step = chunk_elements(flat.numel(), CHECKSUM_CHUNK)
            for lo in range(0, flat.numel(), step):
                d = flat[lo:lo + step].double()
                w = _chunk_weights(weights, t.numel(), lo, d.numel(), t.device)
                nan = torch.isnan(d)
                d = torch.where(nan, torch.zeros_like(d), d)
                acc += torch.stack([(w * d).sum(), (w * d.abs()).sum(), nan.sum().double()])
                del d, w, nan
            ws, wa, nans = acc.tolist()
            nans = int(nans)
            sums.append((ws, wa, nans, t.numel()))
    return sums


def _chunk_weights(cache: dict, numel: int, start: int, n: int, device: Any) -> Any:
    """The weights of positions ``start .. start + n - 1`` of an output of ``numel`` elements, in [0.5, 1.5):
    from :func:`pytest_kernelopt.gates.trials.position_hash`, so the same on every device and process."""
    import torch

    from .trials import position_hash

    key = (numel, start, n, str(device))
    w = cache.get(key)
    if w is None:
        bits = _top53(position_hash(numel, start, n, device))
        w = bits.to(torch.float64) * 2.0 ** -53 + 0.5
        if numel <= CHECKSUM_CHUNK // 4:  # small outputs' weights are kept; large ones are made again each call
            cache[key] = w
    return w


def _top53(z: Any) -> Any:
    return (z >> 11) & ((1 << 53) - 1)


def scrub(outputs: Any) -> None:
    """Overwrite a timed call's outputs with NaN / max-int before they are freed.

    The next call's buffers are often these very blocks: a kernel that skips its
    work unless its output holds the correctness gate's poison would otherwise
    find the right answer there (the stale-buffer trick) and be timed doing nothing.
    """
    import torch

    from ..tensor_layout import poison
    from .compare import flatten

    with torch.no_grad():
        for t in flatten(outputs):
            if isinstance(t, torch.Tensor) and t.numel() and not t.requires_grad:
                poison(t)


def measure_with_outputs(session: Any, swap: Any, seeds: Sequence[int],
                         samples: int | None = None) -> tuple[list[float], list[float], dict]:
    """Baseline and candidate timed interleaved on the input sets of ``seeds``, ``samples`` pairs (default
    ``perf_samples``).

    Every timed call's outputs are checksummed (outside the timed region) and
    then scrubbed; the candidate's last output on each input set is kept on the
    host in full (copied from that call alone: a host copy of every call cost
    seconds per candidate on large outputs).  Returns (baseline ms, candidate ms, {"last": {seed: outputs},
    "sums": {"base"|"cand": {seed: [checksums of each call]}}}).
    """
    from .trials import to_host

    s = session.settings
    inputs = [session.inputs(seed) for seed in seeds]
    call = module_call(session, inputs)
    sums: dict[str, dict[int, list]] = {"base": {sd: [] for sd in seeds}, "cand": {sd: [] for sd in seeds}}
    last: dict[int, Any] = {}
    weights: dict = {}
    # calls per input set (warmup and timed): only the candidate's final call on each set is copied to the host
    samples = s.perf_samples if samples is None else int(samples)
    calls = [sum(1 for n in (s.perf_warmup, samples) for i in range(n) if i % len(inputs) == k)
             for k in range(len(inputs))]
    seen = [0] * len(inputs)

    def after(variant: int, k: int, out: Any) -> None:
        who = "base" if variant == 0 else "cand"
        sums[who][seeds[k]].append(checksums(out, weights))
        if who == "cand":
            seen[k] += 1
            if seen[k] >= calls[k]:
                last[seeds[k]] = to_host(out)
        scrub(out)

    try:
        state = getattr(session, "state", None)
        if state is not None:
            state.begin()  # every timed call starts from the state the correctness runs started from
        base, cand = time_interleaved([(swap.off, call), (swap.on, call)], len(inputs), samples,
                                      s.perf_warmup, after, rewarm=scrub,
                                      before=(lambda: state.begin(fast=True)) if state is not None and state.known
                                      else None)
    finally:
        swap.off()
    return base, cand, {"last": last, "sums": sums}


def screening_reference(session: Any, candidates: Sequence[Any]) -> Any:
    """The baseline kernel's own source, to be swapped in like the candidates (None: they replace different
    kernels, or several).  On the H200 the module with nothing swapped screened 1-4% slower than the same
    module with its own kernel swapped in (softmax_scale: A/A 1.039x), so every config looked faster than the
    baseline; the performance gate's two-variant timing shows no such bias (A/A 0.996x)."""
    from dataclasses import replace

    from ..launch_space import own_candidate

    kernels = {c.replaces for c in candidates}
    if len(kernels) != 1 or len(next(iter(kernels))) != 1:
        return None
    (ref,) = next(iter(kernels))
    try:
        graph, name = session.captured.find(ref)
    except KeyError:
        return None
    # launched with the baseline's own config, not the first of its decorator's list (launch_space.own_candidate)
    return replace(own_candidate(graph, name), replaces=(ref,))


def rank_candidates(session: Any, candidates: Sequence[Any], samples: int) -> tuple[float, list[float | None]]:
    """Median ms of the baseline and of each candidate, timed interleaved (a screening aid).

    The baseline is timed as its own source swapped in the same way as the candidates where there is one
    (:func:`screening_reference`), else as the module with nothing swapped.
    """
    import statistics

    import torch

    from ..substitute import KernelSwap

    swaps: list[Any] = []
    ref = screening_reference(session, candidates)
    for cand in ([ref] if ref is not None else []) + list(candidates):
        try:
            swaps.append(KernelSwap(session.captured, [cand]))
        except Exception:
            swaps.append(None)
    inputs = [session.inputs(2000 + k) for k in range(3)]
    call = module_call(session, inputs)

    for k, swap in enumerate(swaps):  # a config that fails to compile or launch is dropped, not timed
        if swap is None:
            continue
        try:
            with swap.applied():
                call(0)
                torch.cuda.synchronize()
        except Exception:
            swaps[k] = None
    live = [s for s in swaps if s is not None]

    def select(swap):
        def _select():
            for s in live:
                if s.active:
                    s.off()
            if swap is not None:
                swap.on()
        return _select

    base = swaps.pop(0) if ref is not None else None  # None: no reference, or it failed: the unswapped module
    variants = [(select(base), call)] + [(select(s), call) for s in swaps if s is not None]
    try:
        # primed and rotating: in plain ABBA the reference, first, follows itself every other sample and the
        # configs in the middle never do (a bias of up to 6% the bench's modes showed on an H200;
        # tests/test_optimize.py::test_the_screening_times_primed_and_rotating)
        times = time_interleaved(variants, len(inputs), samples, 2, prime=True, rotate=True)
    finally:
        select(None)()
    meds = [statistics.median(t) for t in times]
    it = iter(meds[1:])
    return meds[0], [next(it) if s is not None else None for s in swaps]
