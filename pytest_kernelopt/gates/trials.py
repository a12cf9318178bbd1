"""What the gates run, kept apart from what they judge.

A *trial* runs the compiled module and records raw results on the host:
outputs, gradients, inputs after the call, module state that changed, timing
samples.  The judging (:mod:`.correctness`, :mod:`.fp64`, :mod:`.perf`) reads
only these records, so it can run in a process that never loaded the
candidate: the isolated worker collects, the parent judges.

* :class:`SeedPlan` -- the seeds and input magnitudes of one run, drawn from the
  OS unless ``base_seed`` pins them (then the run can be replayed), recorded in
  every result.
* :func:`collect_baseline` -- the unmodified compiled module and the float64
  eager truth on every seed of the plan.  A worker runs it before any candidate
  is loaded; its records go to the parent.
* :func:`collect_candidate` -- the module with the candidate swapped in, on the
  same seeds (poisoned allocations; the first seed twice), then, on a GPU,
  baseline and candidate timed interleaved, keeping the candidate's output of
  the last timed call on every timing input set so the judge can check it.

Everything recorded is moved to host memory: a kernel can write device memory
anywhere in its process, but not the host copies, and not another process.
"""

from __future__ import annotations

import functools
import secrets
import time
from dataclasses import dataclass, field
from typing import Any, Callable

#: input magnitudes cycled over the seeds: the example's own scale (the first two seeds), large values (overflow
#: without the usual max subtraction, blocks with large values) and small ones (underflow, tiny outputs)
SCALES: tuple[float, ...] = (1.0, 1.0, 100.0, 0.001)
#: the seed (by index) whose module is used as it is: its inputs exactly as ``get_inputs()`` draws them (no
#: structure, x1) and its state as found.  Every other seed is told apart from real use by something a kernel
#: can read (the first one's state is varied; the others' inputs are structured), so without it a kernel that
#: checks for "weights exactly as initialised and inputs with no structure" is wrong on every real call and
#: right on every other seed (a LayerNorm as built, 99.99% of positions 2.18 off: tests/test_soundness.py::
#: test_a_kernel_wrong_only_on_the_module_used_as_it_is_is_rejected)
PLAIN_SEED_INDEX = 1
#: the seed (by index) whose floating inputs also get a few NaN, +Inf and -Inf: the candidate must treat them
#: as the baseline does (a kernel that turns NaN inputs into zeros is invisible on finite inputs); and a few
#: edge values: exact 0, -0, 1, -1, 2, 0.5, subnormals, large non-integers (seed_values.EDGE_VALUES)
SPECIAL_SEED_INDEX = 4
#: the seed (by index) whose floating inputs are rounded to whole numbers (counts, pixels, one-hot): a kernel
#: that treats integer-valued inputs differently is invisible on standard normal ones (tests/test_redteam3.py, c07)
INTEGER_SEED_INDEX = 5
#: structure given to some seeds' floating inputs, because kernels wrong only on such inputs pass on symmetric normal
#: ones (tests/test_soundness.py::test_some_seeds_carry_structure_a_kernel_could_be_wrong_on): the third seed's are
#: float16 values with an outlier channel (the last dimension's first column 50x the rest: LLM activations); the
#: fourth's are ReLU outputs (half exact zeros, the rest positive) rounded to bfloat16 values; the fifth's rows are
#: sorted (before its NaN / Inf); the sixth's whole numbers sit on an offset of 100x their spread (a one-pass
#: variance, E[x^2] - E[x]^2, loses its digits there and nowhere else)
HALF_SEED_INDEX = 2
NONNEGATIVE_SEED_INDEX = 3
SORTED_SEED_INDEX = 4
#: the seed (by index) whose calls start from a varied module state (parameters, buffers, tensor attributes:
#: :func:`pytest_kernelopt.gates.module_state.varied_values`): modules are judged at their initialisation, where
#: a LayerNorm kernel dropping its weight (1) and bias (0) is invisible (tests/test_module_state.py::
#: test_parameters_at_their_initial_values_do_not_hide_a_kernel_that_drops_them).  The first seed, so that a
#: quick re-check of a cached kernel (its first seeds) covers it too
VARIED_STATE_INDEX = 0
#: the seed whose calls start with the module's integer counters advanced far (1e3 to 1e9 steps), its floating
#: state as found (:data:`pytest_kernelopt.gates.module_state.FAR_COUNTER_DECADES`)
FAR_COUNTER_INDEX = 5
#: (the transforms themselves, and their factors, are in :mod:`pytest_kernelopt.gates.seed_values`)
#: seeds past the fixed magnitudes get one drawn log-uniformly in this range, so that no magnitude between
#: them is safe for a kernel that misbehaves only there (rows with RMS between 5 and 25: tests/adversarial/redteam3,
#: c08)
RANDOM_SCALE_RANGE = (1e-2, 1e2)
TIMING_INPUT_SETS = 2  # two sets alternate, so no call sees the inputs of the call before it


@dataclass(frozen=True)
class SeedPlan:
    """The seeds of one run: correctness seeds with their input scale, and the timing input sets' seeds."""

    base: int
    seeds: tuple[int, ...]
    scales: tuple[float, ...]
    timing: tuple[int, ...]
    drawn: str  # "os" (fresh for this run) or "base_seed" (pinned by the user: a replay)
    #: the input digest's key (:func:`digest`): drawn fresh for every run, pinned base seed or not, and never
    #: published (not in :meth:`to_json`, the results or the cache), so no kernel can be written against it
    digest_key: int = field(default_factory=lambda: secrets.randbits(63), repr=False, compare=False)

    @classmethod
    def make(cls, n: int, base_seed: int | None) -> "SeedPlan":
        drawn = "os" if base_seed is None else "base_seed"
        base = secrets.randbits(30) if base_seed is None else int(base_seed)
        seeds = tuple(base + i + 1 for i in range(n))
        import math
        import random

        rng = random.Random(base)  # replayable from base_seed like everything else of the plan
        lo, hi = (math.log(v) for v in RANDOM_SCALE_RANGE)
        scales = tuple(SCALES[i] if i < len(SCALES) else float(f"{math.exp(rng.uniform(lo, hi)):.4g}")
                       for i in range(n))
        if n > INTEGER_SEED_INDEX:  # whole numbers need a magnitude that leaves most of them nonzero
            scales = scales[:INTEGER_SEED_INDEX] + (float(f"{math.exp(rng.uniform(math.log(4), hi)):.4g}"),) + \
                scales[INTEGER_SEED_INDEX + 1:]
        return cls(base, seeds, scales, tuple(base + 1001 + k for k in range(TIMING_INPUT_SETS)), drawn)

    def scale(self, seed: int) -> float:
        return dict(zip(self.seeds, self.scales)).get(seed, 1.0)

    def plain(self, seed: int) -> bool:
        """Whether ``seed`` is the module used as it is: inputs as drawn, state as found (:data:`PLAIN_SEED_INDEX`)."""
        return self._at(PLAIN_SEED_INDEX, seed)

    def special(self, seed: int) -> bool:
        """Whether ``seed``'s floating inputs carry injected NaN / +Inf / -Inf values."""
        return len(self.seeds) > SPECIAL_SEED_INDEX and seed == self.seeds[SPECIAL_SEED_INDEX]

    def _at(self, index: int, seed: int) -> bool:
        return len(self.seeds) > index and seed == self.seeds[index]

    def half_rounded(self, seed: int) -> bool:
        """Whether ``seed``'s floating inputs are float16 values with an outlier channel."""
        return self._at(HALF_SEED_INDEX, seed)

    def nonnegative(self, seed: int) -> bool:
        """Whether ``seed``'s floating inputs are ReLU outputs rounded to bfloat16 values."""
        return self._at(NONNEGATIVE_SEED_INDEX, seed)

    def sorted_rows(self, seed: int) -> bool:
        """Whether ``seed``'s floating inputs are sorted along their last dimension."""
        return self._at(SORTED_SEED_INDEX, seed)

    def varied_state(self, seed: int) -> bool:
        """Whether ``seed``'s calls start from the varied module state (parameters and buffers off their
        initial values)."""
        return self._at(VARIED_STATE_INDEX, seed)

    def far_counters(self, seed: int) -> bool:
        """Whether ``seed``'s calls start with the module's integer counters advanced far."""
        return self._at(FAR_COUNTER_INDEX, seed)

    def describe(self, seed: int) -> str:
        """``seed``'s inputs in words (the correctness gate's messages)."""
        parts = [f"inputs x{self.scale(seed):g}"]
        if self.plain(seed):
            parts.append("as drawn, state as found")
        if self.varied_state(seed):
            parts.append("parameters and state varied, rows in thirds: 8-bit pixels (multiples of 1/255 in [0, 1]), "
                         "probability rows (positive, summing to 1), every other row repeating the row before")
        if self.far_counters(seed):
            parts.append("integer counters (if any) advanced far")
        parts += [text for cond, text in (
            (self.special(seed), "with NaN/Inf, signed zeros, subnormals, exact 1, 2 and 0.5, large fractions"),
            (self.integral(seed), "whole numbers on an offset, every other batch item repeating the one before, square "
                                  "matrices symmetric (the floating inputs after the first one-hot along their last "
                                  "dimension instead)"),
            (self.half_rounded(seed), "float16 values with an outlier channel (where a call has two or more floating "
                                      "inputs, the first one-hot instead: along dim 1 with four or more dimensions, "
                                      "else along the last)"),
            (self.nonnegative(seed), "ReLU outputs in bfloat16 values, runs of small whole numbers, a dead "
                                     "column (zero in every row); the floating inputs after the first one-hot along "
                                     "dim 1 (channels) where they have three or more dimensions, else multi-hot "
                                     "rows (0 and 1), instead"),
            (self.sorted_rows(seed), "rows sorted up, down, constant and zero, some ending in masked scores "
                                     "(-inf, the dtype's lowest)")) if cond]
        return ", ".join(parts)

    def integral(self, seed: int) -> bool:
        """Whether ``seed``'s floating inputs are rounded to whole numbers."""
        return len(self.seeds) > INTEGER_SEED_INDEX and seed == self.seeds[INTEGER_SEED_INDEX]

    def first(self, n: int) -> "SeedPlan":
        """The same plan with only its first ``n`` correctness seeds (a quick re-check)."""
        return self.trimmed(n)

    def trimmed(self, seeds: int | None = None, timing_sets: int | None = None) -> "SeedPlan":
        """The same plan with only its first ``seeds`` correctness seeds and ``timing_sets`` timing input sets
        (None: all of them): what fits a memory budget."""
        n = len(self.seeds) if seeds is None else max(1, min(int(seeds), len(self.seeds)))
        t = len(self.timing) if timing_sets is None else max(1, min(int(timing_sets), len(self.timing)))
        return SeedPlan(self.base, self.seeds[:n], self.scales[:n], self.timing[:t], self.drawn, self.digest_key)

    def to_json(self) -> dict[str, Any]:
        return {"base": self.base, "seeds": list(self.seeds), "scales": list(self.scales),
                "timing_seeds": list(self.timing), "drawn": self.drawn}


# --------------------------------------------------------------------------- records


def to_host(obj: Any) -> Any:
    """A detached host copy of every tensor in a nested value."""
    import torch

    if isinstance(obj, torch.Tensor):
        return obj.detach().to("cpu", copy=True)
    if isinstance(obj, tuple):
        return tuple(to_host(o) for o in obj)
    if isinstance(obj, list):
        return [to_host(o) for o in obj]
    if isinstance(obj, dict):
        return {k: to_host(v) for k, v in obj.items()}
    return obj


def digest(obj: Any, key: int = 0, exact: bool = False) -> Any:
    """What the input-mutation check compares: every tensor of a nested value as its dtype, shape, strides and
    a 64-bit hash of its bits (NaN payloads made canonical) computed where the tensor lives.

    The hash is a sum, modulo 2**64, of one term per element: splitmix64's mixer applied to the element's bit
    pattern XOR a pseudo-random 64-bit mask of its position (:func:`position_hash` under ``key``, the run's
    secret :attr:`SeedPlan.digest_key`: never published, not derived from the seeds).  The mixer is a
    bijection, so any change of one element changes the hash; several changes cancel with a chance of about
    2**-64, and a kernel cannot aim at a cancellation: the terms are not linear in the bits and the key is not
    in its reach.  The temporaries that held masks are zeroed before they return to the allocator.  A
    multi-GiB input costs a few elementwise passes on the device, not a copy and a hash on the host (the host
    hash took most of a 6 GiB softmax's time on the H200).  ``exact``: NaN payloads are hashed as they are
    (module state, which no honest kernel writes).
    """
    import torch

    if isinstance(obj, torch.Tensor):
        t = obj.detach()
        head = f"{t.dtype}{tuple(t.shape)}{t.stride()}"
        flat = t.reshape(-1)
        if flat.is_complex():
            flat = torch.view_as_real(flat).reshape(-1)
        if flat.numel() == 0:
            return f"tensor:{head}:empty"
        ints = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[flat.element_size()]
        acc = torch.zeros((), dtype=torch.int64, device=flat.device)
        step = chunk_elements(flat.numel(), DIGEST_CHUNK)
        for lo in range(0, flat.numel(), step):
            part = flat[lo:lo + step]
            if part.is_floating_point() and not exact:
                part = torch.where(torch.isnan(part), torch.full_like(part, float("nan")), part)
            z = position_hash(key, lo, part.numel(), flat.device)
            z.bitwise_xor_(part.contiguous().view(ints).to(torch.int64))
            scratch = torch.empty_like(z)
            _mix_(z, scratch)
            acc += z.sum()
            z.zero_()
            scratch.zero_()
            del part, z, scratch
        return f"tensor:{head}:{int(acc)}"
    if isinstance(obj, (tuple, list)):
        return tuple(digest(o, key, exact) for o in obj)
    return obj


DIGEST_CHUNK = 1 << 24  # at most this many elements hashed at a time (int64 temporaries of 128 MiB each)


def position_hash(key: int, start: int, n: int, device: Any) -> Any:
    """64-bit pseudo-random values for positions ``start .. start + n - 1`` under ``key`` (splitmix64: the
    position times the golden-ratio increment plus the key, then its mixer, in wrapping int64 arithmetic),
    computed on ``device``: unlike a seeded generator, whose CUDA stream depends on the GPU's size, the same
    on every device."""
    import torch

    z = torch.arange(start, start + n, dtype=torch.int64, device=device)
    z.mul_(-7046029254386353131).add_(_signed64(key))  # 0x9E3779B97F4A7C15 as int64
    scratch = torch.empty_like(z)
    _mix_(z, scratch)
    scratch.zero_()
    return z


def _signed64(v: int) -> int:
    v %= 2**64
    return v - 2**64 if v >= 2**63 else v


def _mix_(z: Any, scratch: Any) -> None:
    """splitmix64's mixer on int64 values, in place (``scratch``: a tensor of the same shape to work in)."""
    for shift, mult in ((30, -4658895280553007687), (27, -7723592293110705685)):  # 0xBF58..., 0x94D0...
        _shr_into(z, shift, scratch)
        z.bitwise_xor_(scratch).mul_(mult)
    _shr_into(z, 31, scratch)
    z.bitwise_xor_(scratch)


def _shr_into(z: Any, bits: int, out: Any) -> None:
    """``out`` = logical right shift of int64 ``z`` (torch's >> is arithmetic)."""
    import torch

    torch.bitwise_right_shift(z, bits, out=out)
    out.bitwise_and_((1 << (64 - bits)) - 1)


def chunk_elements(numel: int, cap: int) -> int:
    """Elements a chunked reduction over ``numel`` takes at a time: a sixteenth of them, between ``cap / 16``
    and ``cap`` (so the temporaries of a small tensor stay small and a large one needs few launches)."""
    return max(1, min(cap, max(cap // 16, -(-numel // 16))))


@dataclass
class Run:
    """One call of the module on one seed's inputs (host copies; the inputs after the call as digests).

    ``grads`` also holds, as ``state:<name>``, the module state the call changed (every call starts from the
    same state: :class:`pytest_kernelopt.gates.module_state.ModuleState`), compared like the outputs;
    ``state_changed`` names it with its exact digests.  ``noise`` (float64 truths only): per value, in the order
    the float64 gate reads them, how far rounding alone puts it from the truth
    (:func:`pytest_kernelopt.gates.fp64_place.noise_floor`; None where not floating): the float64 gate's noise
    floor.
    """

    outputs: Any
    grads: dict[str, Any]
    inputs_after: tuple
    error: str = ""
    noise: list[float] | None = None
    #: (float64 truths only) the same per decade of |truth| (:func:`pytest_kernelopt.gates.compare.decade_sums`):
    #: the float64 gate's per-decade precision check
    noise_decades: list[dict[int, float] | None] | None = None
    #: (float64 truths only) per value, a uint8 per position (flat, row-major): how far the farthest honest run
    #: of the noise floor lands from the truth there, in tolerances (:func:`.fp64_place.level_codes`)
    levels: list[Any] | None = None
    state_changed: dict[str, str] = field(default_factory=dict)
    #: (the stale-buffer seed's candidate runs) the digest of the outputs and changed state, then of every buffer
    #: Inductor allocated in the call, in order, as the call left it, marked "w:" where the call wrote it and "u:"
    #: where it is as it was handed out: what the next call could find in that memory (past the size
    #: :class:`.runner.Allocations` keeps, the outputs' alone)
    buffers: list[str] | None = None


@dataclass
class BaselineRecord:
    """The unmodified compiled module and the float64 truth over a plan's seeds."""

    plan: SeedPlan
    runs: dict[int, Run] = field(default_factory=dict)
    truths: dict[int, Run | None] = field(default_factory=dict)
    truth_errors: dict[int, str] = field(default_factory=dict)
    deterministic: bool = True
    state_changed: dict[str, Any] = field(default_factory=dict)
    dtype_name: str = "float32"
    io_bytes: int = 0  # bytes of the inputs and outputs of one call: the least any version must move
    peak_bandwidth: float | None = None  # bytes/s of the device, where known
    module_peak_bytes: int = 0  # device memory of one plain call of the compiled module (GPU only)
    baseline_peak_bytes: int = 0  # the gates' peak device memory while the baseline runs were recorded (GPU only)
    truth_memory: dict[str, Any] = field(default_factory=dict)  # where the float64 truth ran, and its peak

    def view(self, plan: SeedPlan) -> "BaselineRecord":
        """The same record judged over a sub-plan (its first seeds: a quick re-check)."""
        from dataclasses import replace

        return replace(self, plan=plan)


@dataclass
class CandidateRecord:
    """The module with a candidate swapped in, over the same seeds, and its timing."""

    runs: dict[int, Run] = field(default_factory=dict)
    again: Run | None = None
    #: the stale-buffer seed (:data:`CANDIDATE_FILLS`) again over each of :data:`START_FILLS`, as digests only
    #: (:attr:`Run.buffers`): neither its result nor what it leaves may depend on what its buffers held
    starts: dict[str, Run] = field(default_factory=dict)
    launches: int = 0
    error: str = ""
    error_seed: int | None = None
    state_changed: dict[str, Any] = field(default_factory=dict)
    timing: dict[str, Any] | None = None  # {"base": [ms], "cand": [ms], "launches": n}
    timed_outputs: dict[int, Any] = field(default_factory=dict)
    device_peak_bytes: int = 0  # the trial's peak device memory (its own baseline runs included; GPU only)
    #: a module whose state some call changed: the first seed's call from the state the candidate's own previous
    #: call left (a loop's next call), and the baseline's call from that same state (:func:`_carried_call`)
    #: [[step, candidate run, baseline run], ...] (past :data:`CARRIED_TOTAL_BYTES`, keyed samples: :func:`keep_pair`)
    carried: list = field(default_factory=list)
    carried_note: str = ""  # why those calls were not made, or stopped early
    carried_bytes: int = 0  # host bytes of the pairs in ``carried`` (:func:`keep_pair`)
    carried_sampled: int = 0  # pairs kept as a keyed sample of positions (past :data:`CARRIED_TOTAL_BYTES`)


# --------------------------------------------------------------------------- collecting


def _run(session: Any, fn: Any, seed: int, fill: str = "nan", record: Any = None, stale: Any = None,
         buffers: bool = False, light: bool = False, carry: bool = False, inputs: tuple | None = None) -> Run:
    """One call on ``seed``'s inputs, from the module state the session started with, with Inductor's
    allocations pre-filled (:func:`.runner.poisoned_allocations`: NaN poison, random values, zeros, or the previous
    run's contents); the state the call changed is part of the run (``state:<name>``).  ``buffers``: the digests
    of its outputs and of every buffer the call allocated, as the call left them (:attr:`Run.buffers`);
    ``light``: those digests alone, no outputs (a run compared bit for bit, never against the baseline);
    ``carry``: the call starts from the state the last call left, as a loop's next iteration does; ``inputs``:
    these instead of the seed's (the seed still seeds the call's random stream)."""
    from .module_state import target_for
    from .runner import Allocations, poisoned_allocations, run_once

    if (buffers or light) and record is None:
        record = Allocations(key=session.plan.digest_key)
    if not carry:
        session.state.start(target_for(session, seed))
    with poisoned_allocations(session.captured.namespaces, fill, record=record, stale=stale):
        r = run_once(fn, session.module, session.inputs(seed) if inputs is None else inputs,
                     training=session.training, seed=seed)
    changed, state = session.state.end()
    key = session.plan.digest_key
    left = _left_behind((r.outputs, r.grads, state), record, key) if buffers or light else None
    inputs_after = digest(r.inputs_after, key)
    if light:
        return Run(None, {}, inputs_after, state_changed=changed, buffers=left)
    return Run(to_host(r.outputs), {**to_host(r.grads), **state}, inputs_after, state_changed=changed, buffers=left)


def _left_behind(results: Any, record: Any, key: int) -> list[str]:
    """:attr:`Run.buffers`: the digest of a call's ``results``, then each buffer of ``record`` (an
    :class:`.runner.Allocations` made with ``key``) as "w:" (the call wrote it) or "u:" (as it was handed out: a
    buffer no kernel writes any more, the intermediate of two kernels a candidate fused) and its digest after the
    call."""
    left = [str(digest(results, key, exact=True))]
    if record.dropped:
        return left + ["allocations not kept"]
    after = (str(digest(t, key, exact=True)) for t in record.tensors)
    return left + [("u:" if a == b else "w:") + a for a, b in zip(after, record.before)]


def device_peak() -> int:
    """Peak device memory allocated since the last reset (0 without a GPU)."""
    import torch

    return int(torch.cuda.max_memory_allocated()) if torch.cuda.is_available() and torch.cuda.is_initialized() else 0


def reset_device_peak() -> None:
    import torch

    if torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()


def _module_peak(session: Any, seed: int) -> int:
    """Device memory one plain call of the compiled module needs: its inputs, parameters and buffers, and what
    the call allocates on top of them (its peak over the memory in use before it): the yardstick of the gates'
    own memory (GPU only, else 0).  Whatever else this process holds is not the module's."""
    import torch

    if not (torch.cuda.is_available() and torch.cuda.is_initialized()):
        return 0
    from .compare import flatten

    inputs = session.inputs(seed)
    torch.cuda.synchronize()
    before = int(torch.cuda.memory_allocated())
    torch.cuda.reset_peak_memory_stats()  # the gates' own peak is counted from here on
    with torch.no_grad():
        out = session.captured.compiled(*inputs)
    torch.cuda.synchronize()
    transient = int(torch.cuda.max_memory_allocated()) - before
    del out
    resident = [t for t in flatten(inputs) if isinstance(t, torch.Tensor) and t.is_cuda]
    module: Any = getattr(session, "module", None)
    if hasattr(module, "parameters"):
        resident += [t for t in list(module.parameters()) + list(module.buffers()) if t.is_cuda]
    owned = {t.untyped_storage().data_ptr(): t.untyped_storage().nbytes() for t in resident}
    return transient + sum(owned.values())


def _out_of_memory(e: BaseException) -> bool:
    import torch

    return isinstance(e, torch.OutOfMemoryError) or "out of memory" in str(e).lower()


def _first_float_dtype(outputs: Any) -> str:
    from .compare import flatten

    for t in flatten(outputs):
        if hasattr(t, "is_floating_point") and t.is_floating_point():
            return str(t.dtype).replace("torch.", "")
    return "float32"


def _io_bytes(inputs: tuple, outputs: Any) -> int:
    from .compare import flatten

    return sum(t.numel() * t.element_size() for t in list(inputs) + flatten(outputs) if hasattr(t, "element_size"))


def device_bandwidth() -> float | None:
    """Peak DRAM bandwidth of the current GPU in bytes/s (memory clock x bus width x 2), None if unknown."""
    import torch

    if not torch.cuda.is_available():
        return None
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    clock_khz = getattr(props, "memory_clock_rate", None)
    bus_bits = getattr(props, "memory_bus_width", None)
    if not clock_khz or not bus_bits:
        return None
    return float(clock_khz) * 1e3 * 2 * float(bus_bits) / 8


def _reversed_programs(session: Any):
    import contextlib

    if session.backend.name != "cpu":
        return contextlib.nullcontext()
    from ..backends.cpu_interpret import programs_reversed

    return programs_reversed()


def collect_baseline(session: Any, plan: SeedPlan, into: BaselineRecord | None = None, *,
                     truths: bool = True, emit: Callable[[int, Run], None] | None = None) -> BaselineRecord:
    """The baseline and the float64 truth on the plan's seeds (and its timing seeds, on a GPU).

    ``into`` is a record collected earlier for a plan with the same seeds: only what it lacks is run (a quick
    re-check over the first seed of a plan pays for that seed alone).  ``truths=False`` skips the float64 runs
    (an isolated candidate's worker records its own baseline; the truth comes from the clean worker).
    ``emit(seed, run)``, if given, receives each run as soon as it is recorded and the record keeps none of
    them (a worker streams them to the judge: one seed's tensors at a time in its own memory).
    The baseline running out of memory is an error of the run (:class:`BaselineRunError`), never a verdict on
    a candidate.
    """
    from ..errors import BaselineRunError

    rec = into if into is not None else BaselineRecord(plan)
    timing = plan.timing if session.backend.measures_time else ()
    needed = [seed for seed in plan.seeds + timing if seed not in rec.runs]
    first = plan.seeds[0]
    try:
        if not rec.io_bytes:
            rec.module_peak_bytes = _module_peak(session, first)
        for seed in needed:
            run = _run(session, session.captured.compiled, seed)
            rec.state_changed.update(run.state_changed)
            if seed == first and not rec.io_bytes:
                _describe(session, rec, run)
            if emit is not None:
                emit(seed, run)
            else:
                rec.runs[seed] = run
            del run
        if not rec.io_bytes:
            _describe(session, rec, rec.runs[first])
        # before the float64 truth resets the peak for its own figure: the gates' peak covers every phase
        rec.baseline_peak_bytes = max(rec.baseline_peak_bytes, device_peak())
    except Exception as e:
        if _out_of_memory(e):
            raise BaselineRunError(f"the unmodified compiled module ran out of memory during the gates' baseline "
                                   f"runs ({type(e).__name__}: {str(e)[:300]}); this is an error of the run, "
                                   "not of any candidate: free device memory, or shrink the problem") from None
        raise
    missing = [seed for seed in plan.seeds if seed not in rec.truths] if truths else []
    if missing:
        got = collect_truths(session, SeedPlan(plan.base, tuple(missing), (), plan.timing, plan.drawn, plan.digest_key),
                             module_peak=rec.module_peak_bytes)
        rec.truths.update(got.truths)
        rec.truth_errors.update(got.truth_errors)
        rec.truth_memory = got.truth_memory
    return rec.view(plan)


def _describe(session: Any, rec: BaselineRecord, first_run: Run) -> None:
    """Once per record, from the first seed's run: determinism of the baseline, dtype, bytes, bandwidth."""
    from .compare import same_values

    first = rec.plan.seeds[0]
    with _reversed_programs(session):
        again = _run(session, session.captured.compiled, first, fill="random")
    rec.deterministic = same_values(again.outputs, first_run.outputs) and same_values(again.grads, first_run.grads)
    rec.dtype_name = _first_float_dtype(first_run.outputs)
    rec.io_bytes = _io_bytes(session.inputs(first), first_run.outputs)
    rec.peak_bandwidth = device_bandwidth() if session.backend.measures_time else None


def _truth_run(outputs: Any, grads: Any, noise: list) -> Run:
    """A float64 truth's Run, its noise floor (:func:`.fp64_place.noise_floor`) kept whole and per decade."""
    from .fp64_place import noise_levels, split_noise

    whole, per_decade = split_noise(noise)
    return Run(outputs, grads, (), noise=whole, noise_decades=per_decade, levels=noise_levels(noise))


def collect_truths(session: Any, plan: SeedPlan, emit: Callable[[int, Run | None, str], None] | None = None,
                   module_peak: int | None = None) -> BaselineRecord:
    """Only the float64 truth on the plan's seeds (an isolated candidate's worker records the baseline runs).

    One seed at a time, each moved to the host as soon as it is computed, with its noise floor (see
    :class:`Run`).  It runs where it fits (:func:`pytest_kernelopt.gates.fp64_place.place`): on the device,
    else on the host, else not at all, and then every seed's error says ``float64 check skipped: would need
    N GiB`` (the float64 gate says so instead of judging against a truth it does not have).  ``emit(seed,
    run or None, error)``, if given, receives each seed's truth instead of the record.  ``module_peak``: the
    module's single-call peak where the caller has measured it (else measured here: one call).
    """
    from .fp64_place import place, truth_on

    rec = BaselineRecord(plan)
    if module_peak is None:
        module_peak = _module_peak(session, plan.seeds[0])
    where, why = place(session, module_peak)
    rec.truth_memory = {"where": where, "reason": why}
    reset_device_peak()
    for seed in plan.seeds:
        run, error = None, why
        if where != "skipped":
            try:
                outputs, grads, noise = truth_on(session, seed, where)
                run = _truth_run(outputs, grads, noise)
            except Exception as e:  # noqa: BLE001 -- recorded; the float64 gate says it could not run
                error = f"{type(e).__name__}: {str(e)[:300]}"
                if where != "cpu" and _out_of_memory(e):
                    where = "cpu"  # the device ran out: the host next, for this seed and the rest
                    rec.truth_memory.update(where="cpu", reason=f"the device ran out of memory ({str(e)[:120]})")
                    try:
                        outputs, grads, noise = truth_on(session, seed, where)
                        run = _truth_run(outputs, grads, noise)
                    except Exception as e2:  # noqa: BLE001
                        error = f"{type(e2).__name__}: {str(e2)[:300]}"
        if emit is not None:
            emit(seed, run, "" if run is not None else error)
        else:
            rec.truths[seed] = run
            if run is None:
                rec.truth_errors[seed] = error
        del run
    rec.truth_memory["device_peak_bytes"] = device_peak()
    return rec


#: the buffers Inductor allocates hold NaN poison on most of the candidate's correctness calls; on the second
#: seed (the plain one: real use, where a loop that drops each result gets that memory back) what a call just
#: before it left in them (the module as found, on a timing input set), on the third zeros; the first seed's
#: repeat gets random values (see collect_candidate).  Not zeros on the plain seed: a kernel could tell it apart
#: by finding them, and be wrong over anything else
CANDIDATE_FILLS = {1: "stale", 2: "zeros"}
#: ... and the stale-buffer seed is run again over each of these: its outputs and every buffer it allocated must come
#: out the same bits whatever they held (a kernel that counts calls only from a start that is not NaN poison passes
#: when the only other start is NaN:
#: tests/test_soundness.py::test_a_counter_that_starts_only_from_memory_that_is_not_poison_is_rejected; no chain can
#: start if no start leaves a trace)
START_FILLS = ("nan", "zeros", "random")
#: what the call before the stale-buffer seed starts from: garbage, as a real loop's first call finds, not NaN
WARM_FILL = "random"


def collect_candidate(session: Any, swap: Any, plan: SeedPlan,
                      emit: Callable[[int, Run], None] | None = None) -> CandidateRecord:
    """The candidate on the plan's seeds (poisoned allocations; the first seed twice); ``emit(seed, run)``, if
    given, receives each run instead of the record (which keeps the first seed's second run)."""
    rec = CandidateRecord()
    fn = session.captured.compiled
    # every launch of the candidate is checked for writes to the pointers the kernel it replaces only reads
    swap.guard = functools.partial(digest, key=plan.digest_key, exact=True)
    try:
        _collect_seeds(session, swap, plan, fn, rec, emit)
    finally:
        swap.guard = None
        rec.state_changed.update({f"{WROTE_READ_ONLY}{w}": "written" for w in sorted(swap.wrote_read_only)})
        rec.state_changed.update({f"{READ_PRIOR}{w}": "read" for w in sorted(swap.read_prior)})
    rec.device_peak_bytes = device_peak()
    return rec


#: how :attr:`CandidateRecord.state_changed` names a pointer the replaced kernel only reads and the candidate wrote
WROTE_READ_ONLY = "read-only argument "
#: and module state the replaced kernel only writes, where what the candidate wrote depended on what it held
READ_PRIOR = "write-only state argument "


#: how many calls in a row the candidate makes from the state its own previous call left, each held to the
#: baseline's call from the same state (a call counter kept in state the kernel reads is found up to this count)
CARRIED_CALLS = 8
#: host bytes of the pairs of runs (outputs and state, the candidate's and the baseline's) kept whole for the judge
#: over a candidate's loops, streams and structure probes together; each pair past them is kept as a keyed sample
#: of positions (:func:`keep_pair`), so every pair is judged and the record stays bounded
CARRIED_TOTAL_BYTES = 2 << 30
#: positions each tensor of a sampled pair keeps: half drawn uniformly, half in :data:`SAMPLE_RUNS` contiguous
#: runs (a row or a few), at positions drawn from the OS after both calls were made
CARRIED_SAMPLE = 1 << 20
SAMPLE_RUNS = 64


def _carried_call(session: Any, swap: Any, fn: Any, seed: int, rec: CandidateRecord) -> None:
    """:data:`CARRIED_CALLS` calls in a row from the state the candidate's last call left (as a loop's next calls
    start), each followed by the baseline's call from the state that call started from: the reference the correctness
    gate holds it to (a tag and a call counter in the lowest bit of a running mean the kernel reads and updates, wrong
    from a loop's second call, passes calls that never start from a state the candidate wrote:
    tests/test_read_only_args.py::
    test_a_counter_in_state_the_kernel_reads_and_updates_is_refused_within_the_carried_calls).
    In the first, every launch that writes module state through a pointer the replaced kernel only writes is checked
    for depending on what that state held (:attr:`KernelSwap.carry`).  Only where some call changed the module's
    state."""
    from .module_state import copies

    if not session.state.known:
        return
    # an integer the module's calls move (a position) that the varied seed could not advance, because the module
    # fails with it advanced (an index out of range: on a GPU a device-side assert ends the process), would be
    # advanced by a loop of calls too: no loop then
    counters = set(session.state.counters or ()) | set(session.state.far_counters)
    if any(n in session.state.known and n not in counters for n in session.state.int_scalars()):
        rec.carried_note = ("no loop of calls: the module's calls move an integer state the module cannot run with "
                            "advanced (see the state note)")
        return
    items = session.state.items
    rec.carried, rec.carried_bytes = [], 0  # (filled as the loop goes: a loop that stops early is judged on the
    # calls it made)
    margin = session.state.margin  # the calls past the varied advance the module was seen to run with
    for step in range(CARRIED_CALLS if margin is None else min(CARRIED_CALLS, margin - 1)):
        before = copies(items)
        swap.carry = {t.untyped_storage().data_ptr() for t in items.values()} if step == 0 else set()
        try:
            cand = _run(session, fn, seed, carry=True)
        except Exception as e:
            # the candidate's error, unless the module itself cannot make this call (the loop went past what it
            # supports): then the loop ends here.  A device fault is the candidate's (and leaves nothing to ask)
            if device_fault(e):
                raise
            failed = baseline_raises(session, swap, fn, seed, None, before)
            if failed:
                rec.carried_note = f"the loop of calls stopped at call {step + 2}: the baseline raised {failed}"
                return
            raise
        finally:
            swap.carry = set()
        _beside_baseline(session, swap, fn, seed, None, before, cand, rec, step)
        del before, cand


#: calls the candidate makes from each state the baseline's own loops reached (:mod:`.baseline_loop`): one from
#: that state, then from what its own calls left
SETTLED_CALLS = 3


def _settled_calls(session: Any, swap: Any, fn: Any, seed: int, rec: CandidateRecord) -> None:
    """The candidate held to the baseline from the states the baseline's own calls lead the module into
    (:func:`.baseline_loop.baseline_states`: a loop on the first seed's inputs until its state settles, then a
    stream of inputs jittered around them): from each, :data:`SETTLED_CALLS` calls in a row, each against the
    baseline's call from the same state; and from the state the loop settled in, one call on each other seed's
    inputs (a settled statistic met by inputs of another scale or kind: a running mean that skips a batch
    far from it once warm, a sensor offset, is exact on every call that starts cold; benchmarks/redteam/rt32/p2 in
    tests/test_read_only_args.py); then a
    stream of fresh inputs made by the candidate itself (:mod:`.candidate_loop`).  Appended to
    :attr:`CandidateRecord.carried`."""
    from .baseline_loop import baseline_states, jittered
    from .candidate_loop import candidate_stream
    from .module_state import put, target_for

    states, note = baseline_states(session, swap, fn, seed)
    if note:
        rec.carried_note = "; ".join(filter(None, [rec.carried_note, note]))
    items = session.state.items

    def from_state(loop_state: Any) -> None:
        session.state.start(None if loop_state.as_built else target_for(session, seed))
        put({n: items[n] for n in loop_state.state}, loop_state.state)

    margin = session.state.margin  # a counter the module runs only so far with: as many calls as it allows
    calls = SETTLED_CALLS if margin is None else max(1, min(SETTLED_CALLS, margin))
    for loop_state in states:
        from_state(loop_state)
        inputs = jittered(session.inputs(seed), *loop_state.jitter) if loop_state.jitter else None
        for extra in range(calls):
            where = f"call {extra + 1} from {loop_state.label}" + (
                " (then from what the candidate's calls left)" if extra else "")
            _pair(session, swap, fn, seed, inputs, rec, where)
    settled = [ls for ls in states if ls.jitter is None]
    for other in session.plan.seeds[1:] if settled else ():
        from_state(settled[-1])
        _pair(session, swap, fn, other, None, rec, f"a call on seed {other}'s inputs from {settled[-1].label}")
    # and a stream of fresh inputs made by the candidate itself, each call held to the baseline's: a count of its
    # own calls kept in the state
    candidate_stream(session, swap, fn, seed, rec)


def _pair(session: Any, swap: Any, fn: Any, seed: int, inputs: tuple | None, rec: CandidateRecord,
          where: str) -> None:
    """The candidate's call on ``seed`` (or ``inputs``) from the module's state as it is, and the baseline's from
    the same state (:func:`_beside_baseline`)."""
    from .module_state import copies

    before = copies(session.state.items)
    cand = _run(session, fn, seed, carry=True, inputs=inputs)
    _beside_baseline(session, swap, fn, seed, inputs, before, cand, rec, where)


def device_fault(e: BaseException) -> bool:
    """An error that ends the device's context: the candidate's, and it leaves nothing to ask the baseline."""
    return any(w in str(e) for w in ("CUDA", "device-side", "illegal memory", "AcceleratorError"))


def baseline_raises(session: Any, swap: Any, fn: Any, seed: int, inputs: tuple | None, before: dict[str, Any]) -> str:
    """After the candidate's call raised: the baseline's call on the same inputs (``seed``'s, or ``inputs``) from
    the state ``before`` (:func:`.module_state.copies`): the name of its error where it raises too (the module
    cannot make this call: not the candidate's doing), else "" (the error is the candidate's)."""
    from .module_state import put

    put(session.state.items, before)
    swap.off()
    try:
        _run(session, fn, seed, carry=True, inputs=inputs)
    except Exception as e:  # noqa: BLE001 -- the baseline fails too
        return type(e).__name__
    finally:
        swap.on()
    return ""


def _beside_baseline(session: Any, swap: Any, fn: Any, seed: int, inputs: tuple | None, before: dict[str, Any],
                     cand: Run, rec: CandidateRecord, key: Any) -> None:
    """After the candidate's call ``cand`` from the state ``before`` (:func:`.module_state.copies`): the baseline's
    call from ``before``, the pair appended to :attr:`CandidateRecord.carried` as ``key`` (a loop's step, or where
    the call started), and the state the candidate's call left put back (a loop's next call starts from it)."""
    from .module_state import copies, put

    items = session.state.items
    after = copies(items)
    put(items, before)
    swap.off()
    try:
        base = _run(session, fn, seed, carry=True, inputs=inputs)
    finally:
        swap.on()
    put(items, after)
    del after
    keep_pair(rec, key, cand, base)


def keep_pair(rec: CandidateRecord, key: Any, cand: Run, base: Run) -> None:
    """Append the pair ``[key, cand, base]`` to :attr:`CandidateRecord.carried`: whole while the pairs kept stay
    within :data:`CARRIED_TOTAL_BYTES`, else each tensor that the two runs hold alike (shape, dtype, strides) as the
    same keyed sample of its positions in both (:func:`_sample_positions`); a tensor they hold otherwise stays
    whole, for the judge to refuse."""
    size = _run_bytes(cand) + _run_bytes(base)
    if rec.carried_bytes + size > CARRIED_TOTAL_BYTES:
        cand, base = _sampled(cand, base)
        size = _run_bytes(cand) + _run_bytes(base)
        rec.carried_sampled += 1
    rec.carried_bytes += size
    rec.carried.append([key, cand, base])


def _sample_positions(numel: int, gen: Any) -> Any:
    """Flat positions of a tensor of ``numel`` values (None: all of them, the tensor is small): half uniform, half in
    :data:`SAMPLE_RUNS` contiguous runs, sorted."""
    import torch

    if numel <= CARRIED_SAMPLE:
        return None
    run = max(1, CARRIED_SAMPLE // (2 * SAMPLE_RUNS))
    starts = torch.randint(0, numel - run + 1, (SAMPLE_RUNS, 1), generator=gen)
    runs = (starts + torch.arange(run)).reshape(-1)
    points = torch.randint(0, numel, (CARRIED_SAMPLE // 2,), generator=gen)
    return torch.cat([runs, points]).sort().values


def _sampled(cand: Run, base: Run) -> tuple[Run, Run]:
    """``cand`` and ``base`` with each tensor they hold alike reduced to the same positions, drawn from a key the
    OS gives now (after both calls: no kernel could have known where its values would be read)."""
    import secrets
    from dataclasses import replace

    import torch

    gen = torch.Generator().manual_seed(secrets.randbits(62))

    def pick(x: Any, y: Any) -> tuple[Any, Any]:
        if not (isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor)) or x.shape != y.shape or \
                x.dtype != y.dtype or (x.numel() > 1 and x.stride() != y.stride()):
            return x, y
        at = _sample_positions(x.numel(), gen)
        if at is None:
            return x, y
        return x.reshape(-1)[at], y.reshape(-1)[at]

    def walk(a: Any, b: Any) -> tuple[Any, Any]:
        if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)) and len(a) == len(b) and \
                type(a) is type(b):  # (host copies: plain tuples and lists, :func:`to_host`)
            pairs = [walk(x, y) for x, y in zip(a, b)]
            kind = list if isinstance(a, list) else tuple
            return kind(p[0] for p in pairs), kind(p[1] for p in pairs)
        if isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys():
            by_key = {k: walk(a[k], b[k]) for k in a}
            return {k: p[0] for k, p in by_key.items()}, {k: p[1] for k, p in by_key.items()}
        return pick(a, b)

    outs = walk(cand.outputs, base.outputs)
    grads = walk(cand.grads, base.grads)
    return replace(cand, outputs=outs[0], grads=grads[0]), replace(base, outputs=outs[1], grads=grads[1])


def _run_bytes(run: Run) -> int:
    import torch

    from .compare import flatten

    return sum(t.numel() * t.element_size() for t in [*flatten(run.outputs), *flatten(run.grads)]
               if isinstance(t, torch.Tensor))


def _collect_seeds(session: Any, swap: Any, plan: SeedPlan, fn: Any, rec: CandidateRecord,
                   emit: Callable[[int, Run], None] | None) -> None:
    from .runner import Allocations
    from .structure_probes import probe_calls

    for n, seed in enumerate(plan.seeds):
        launches = swap.launches
        fill = CANDIDATE_FILLS.get(n, "nan")
        try:
            with swap.applied():
                previous = None
                if fill == "stale":  # the call before it: the module used as it is, on other inputs drawn the
                    # same way (a timing input set), as a loop's previous iteration; a call another seed made
                    # would be told apart by what it left (the varied state leaves marks a kernel could read)
                    previous = Allocations()
                    warm = _run(session, fn, plan.timing[0] if plan.timing else seed + 1_000_003, fill=WARM_FILL,
                                record=previous)
                    rec.state_changed.update(warm.state_changed)
                    del warm
                run = _run(session, fn, seed, fill, stale=previous, buffers=fill == "stale")
                del previous
                # after every call, every bit of the module's state (parameters, buffers, tensor attributes,
                # module-level tensors) against the state every call starts from: state a kernel keeps there (a
                # call counter in the signs of zeros, a bit toggled and toggled back) shows at once
                rec.state_changed.update(run.state_changed)
                if n == 0:  # the same inputs again, over buffers that hold random values instead of NaN, and on
                    # the CPU interpreter with the grid's programs in reverse order
                    with _reversed_programs(session):
                        rec.again = _run(session, fn, seed, fill="random")
                    rec.state_changed.update(rec.again.state_changed)
                    _carried_call(session, swap, fn, seed, rec)
                    _settled_calls(session, swap, fn, seed, rec)
                    # each label and mask structure given to each floating input in turn (.structure_probes)
                    probe_calls(session, swap, fn, seed, rec)
                if fill == "stale":  # and over other starts: what an earlier call left may not change the result
                    # (a kernel that reads its output buffer's low bits, marked by its earlier calls, can be exact
                    # for two calls in a row and wrong from the third: tests/test_soundness.py::
                    # test_a_result_that_depends_on_what_an_earlier_call_left_is_rejected), nor what this one leaves
                    for start in START_FILLS:
                        rec.starts[start] = _run(session, fn, seed, fill=start, light=True)
                        rec.state_changed.update(rec.starts[start].state_changed)
            if emit is not None:
                emit(seed, run)
            else:
                rec.runs[seed] = run
            del run
        except Exception as e:  # noqa: BLE001 -- the candidate raised: recorded, judged a failure
            rec.error, rec.error_seed = f"{type(e).__name__}: {str(e)[:500]}", seed
            break
        if swap.launches == launches:
            rec.error, rec.error_seed = "never ran", seed
            break
        rec.launches = swap.launches


def collect_timing(session: Any, swap: Any, plan: SeedPlan, samples: int | None = None) -> tuple[dict[str, Any], dict]:
    """``samples`` pairs (default ``perf_samples``) of baseline and candidate timed interleaved on the plan's
    timing input sets (GPU only), with the checks' raw material: every timed call's output checksums and the
    candidate's last output on each set, and the round's wall time."""
    from .perf import measure_with_outputs

    launches, t0 = swap.launches, time.perf_counter()
    base, cand, outs = measure_with_outputs(session, swap, plan.timing, samples)
    return {"base": base, "cand": cand, "launches": swap.launches - launches,
            "seconds": time.perf_counter() - t0}, outs
