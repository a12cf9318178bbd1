"""The performance gate's timer and the screening: calls of the whole compiled module timed on the GPU.

Each sample: an untimed call of the same variant on another input set (the
host and the GPU warm again after the previous sample's output checks), flush
L2 (write a buffer of twice the L2 size), synchronise, record a CUDA event,
call the compiled module (Python dispatch, launches, extern calls and all),
record an event, synchronise.  Variants alternate ABBA so drift hits both
alike; inputs rotate over several fresh sets so a kernel cannot replay a cached
result.  Every timed call's output is checksummed outside the timed region
(:func:`checksums`) and scrubbed; the candidate's last output on each input set
is kept for the judge (:func:`measure_with_outputs`).  Without a GPU nothing is
measured.  What the samples decide is :mod:`.perf`'s.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import Any, Callable, Sequence

from ..capture import backward_inputs
from ..launch_space import own_candidate
from ..substitute import KernelSwap
from ..tensor_layout import poison
from . import checksum_kernel, judge_kernels
from .compare import flatten
from .digests import chunk_elements, keep, position_hash
from .gate_session import GateSession

FLUSH_BYTES = 256 * 1024 * 1024  # where the device does not say its L2 size
#: checksums run over at most this many elements at a time (:func:`.digests.chunk_elements`): float64 temporaries of
#: 1/16 of the output, at most 128 MiB each
CHECKSUM_CHUNK = 1 << 24


def flush_bytes() -> int:
    """Bytes written before every sample to empty the L2 cache: twice its size (64-256 MiB)."""
    import torch

    l2 = int(getattr(torch.cuda.get_device_properties(torch.cuda.current_device()), "L2_cache_size", 0) or 0)
    return FLUSH_BYTES if l2 <= 0 else min(FLUSH_BYTES, max(64 << 20, 2 * l2))


def module_call(session: GateSession, inputs: list[tuple]) -> Callable[[int], Any]:
    """What one timed sample runs: the forward pass, or forward and backward for a training module."""
    import torch

    fn = session.captured.compiled
    if not session.training:
        def forward(i: int):
            with torch.no_grad():
                return fn(*inputs[i])

        return forward

    def step(i: int):
        out = fn(*inputs[i])
        outs, grads = backward_inputs(out, 0)
        torch.autograd.backward(outs, grads)
        return out

    return step


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


def _kernel_sums(t: Any) -> list:
    return checksum_kernel.launch(t).tolist()


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

    sums = []
    for t in flatten(outputs):
        if isinstance(t, torch.Tensor) and t.is_floating_point() and t.numel():
            if checksum_kernel.usable(t):
                got = judge_kernels.attempt(checksum_kernel, functools.partial(_kernel_sums, t))
                if got is not None:
                    ws, wa, nans = got
                    sums.append((ws, wa, int(nans), t.numel()))
                    continue
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
    from :func:`pytest_kernelopt.gates.digests.position_hash`, so the same on every device and process."""
    import torch

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

    with torch.no_grad():
        for t in flatten(outputs):
            if isinstance(t, torch.Tensor) and t.numel() and not t.requires_grad:
                poison(t)


def measure_with_outputs(session: GateSession, swap: Any, seeds: Sequence[int], samples: int | None = None,
                         emit_last: Callable[[int, Any], None] | None = None) -> tuple[list[float], list[float], dict]:
    """Baseline and candidate timed interleaved on the input sets of ``seeds``, ``samples`` pairs (default
    ``perf_samples``).

    Every timed call's outputs are checksummed (outside the timed region) and
    then scrubbed; the candidate's last output on each input set is kept on the
    host in full (copied from that call alone: a host copy of every call cost
    seconds per candidate on large outputs).  ``emit_last(seed, outputs)``, if given, receives that output where
    it is instead, before the candidate runs again (a device frame the judge copies before it returns).  Returns
    (baseline ms, candidate ms, {"last": {seed: outputs}, "sums": {"base"|"cand": {seed: [checksums of each
    call]}}}).
    """
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
                if emit_last is not None:
                    emit_last(seeds[k], out)
                else:
                    last[seeds[k]] = keep(out)
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


def screening_reference(session: GateSession, candidates: Sequence[Any]) -> Any:
    """The baseline kernel's own source, to be swapped in like the candidates (None: they replace different
    kernels, or several).  On the H200 the module with nothing swapped screened 1-4% slower than the same
    module with its own kernel swapped in (softmax_scale: A/A 1.039x), so every config looked faster than the
    baseline; the performance gate's two-variant timing shows no such bias (A/A 0.996x)."""
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


def rank_candidates(session: GateSession, candidates: Sequence[Any], samples: int) -> tuple[float, list[float | None]]:
    """Median ms of the baseline and of each candidate, timed interleaved (a screening aid).

    The baseline is timed as its own source swapped in the same way as the candidates where there is one
    (:func:`screening_reference`), else as the module with nothing swapped.
    """
    import statistics

    import torch

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
