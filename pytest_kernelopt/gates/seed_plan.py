"""The seed design of one run: which seeds, what each seed's inputs and state are, and the calls a candidate makes.

* :class:`SeedPlan` -- the seeds and input magnitudes of one run, drawn from the OS unless ``base_seed`` pins them
  (then the run can be replayed), recorded in every result.  Which seed carries which structure is fixed here by
  index (:data:`PLAIN_SEED_INDEX`, :data:`SPECIAL_SEED_INDEX`, ...); the transforms themselves are in
  :mod:`pytest_kernelopt.gates.seed_values`.
* What the buffers Inductor allocates hold on each seed's calls (:data:`CANDIDATE_FILLS`, :data:`START_FILLS`,
  :data:`WARM_FILL`), and the loops of calls a stateful module's candidate makes (:data:`CARRIED_CALLS`,
  :data:`SETTLED_CALLS`), held to :data:`CARRIED_SLACK` tolerances of the baseline's.

Data only: nothing here runs a module (the lowest layer of the gates, with the records).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

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
    #: the input digest's key (:func:`.digests.digest`): drawn fresh for every run, pinned base seed or not,
    #: and never published (not in :meth:`to_json`, the results or the cache), so no kernel can be written against it
    digest_key: int = field(default_factory=lambda: secrets.randbits(63), repr=False, compare=False)
    #: (a round of a plan, :meth:`rounds`) the whole plan: each seed's role is its index there
    of: "SeedPlan | None" = None

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

    @property
    def all_seeds(self) -> tuple[int, ...]:
        """The whole plan's seeds (a round's too): where each seed's index gives its role."""
        return (self.of or self).seeds

    @property
    def warm_seed(self) -> int | None:
        """The whole plan's first timing input set (the stale-buffer seed's call before it), if it has one."""
        timing = (self.of or self).timing
        return timing[0] if timing else None

    def index(self, seed: int) -> int:
        """``seed``'s index in the whole plan (its role: :data:`CANDIDATE_FILLS`, the first seed's checks)."""
        return self.all_seeds.index(seed)

    def scale(self, seed: int) -> float:
        whole = self.of or self
        return dict(zip(whole.seeds, whole.scales)).get(seed, 1.0)

    def plain(self, seed: int) -> bool:
        """Whether ``seed`` is the module used as it is: inputs as drawn, state as found (:data:`PLAIN_SEED_INDEX`)."""
        return self._at(PLAIN_SEED_INDEX, seed)

    def special(self, seed: int) -> bool:
        """Whether ``seed``'s floating inputs carry injected NaN / +Inf / -Inf values."""
        return self._at(SPECIAL_SEED_INDEX, seed)

    def _at(self, index: int, seed: int) -> bool:
        return len(self.all_seeds) > index and seed == self.all_seeds[index]

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
        return self._at(INTEGER_SEED_INDEX, seed)

    def first(self, n: int) -> "SeedPlan":
        """The same plan with only its first ``n`` correctness seeds (a quick re-check)."""
        return self.trimmed(n)

    def trimmed(self, seeds: int | None = None, timing_sets: int | None = None) -> "SeedPlan":
        """The same plan with only its first ``seeds`` correctness seeds and ``timing_sets`` timing input sets
        (None: all of them): what fits a memory budget."""
        n = len(self.seeds) if seeds is None else max(1, min(int(seeds), len(self.seeds)))
        t = len(self.timing) if timing_sets is None else max(1, min(int(timing_sets), len(self.timing)))
        return SeedPlan(self.base, self.seeds[:n], self.scales[:n], self.timing[:t], self.drawn, self.digest_key)

    def rounds(self, per_round: int) -> list["SeedPlan"]:
        """The plan in rounds of at most ``per_round`` correctness seeds, in order, for a judge whose memory holds
        no more seeds' records at once: each seed keeps its role (its index in the whole plan), and the timing
        input sets go with the last round.  One round, the plan itself, where all fit."""
        k = max(1, int(per_round))
        if k >= len(self.seeds):
            return [self]
        parts = [self.seeds[i:i + k] for i in range(0, len(self.seeds), k)]
        return [self.only(part, timing_sets=len(self.timing) if i == len(parts) - 1 else 0)
                for i, part in enumerate(parts)]

    def only(self, seeds: Any, timing_sets: int = 0) -> "SeedPlan":
        """A round of this plan: ``seeds`` (some of its correctness seeds, in its order), each keeping its role,
        with the first ``timing_sets`` of its timing input sets (the judge's count: a worker's own plan was made
        before the judge trimmed the sets to what its memory holds)."""
        whole = self.of or self
        part = tuple(sd for sd in whole.seeds if sd in set(seeds))
        if len(part) != len(set(seeds)):
            raise ValueError(f"seeds {sorted(set(seeds) - set(part))} are not this plan's")
        scale = dict(zip(whole.seeds, whole.scales))
        return SeedPlan(self.base, part, tuple(scale[sd] for sd in part), whole.timing[:max(0, int(timing_sets))],
                        self.drawn, self.digest_key, whole)

    def to_json(self) -> dict[str, Any]:
        return {"base": self.base, "seeds": list(self.seeds), "scales": list(self.scales),
                "timing_seeds": list(self.timing), "drawn": self.drawn}


# --------------------------------------------------------------------------- the candidate's calls


#: the buffers Inductor allocates hold NaN poison on most of the candidate's correctness calls; on the second
#: seed (the plain one: real use, where a loop that drops each result gets that memory back) what a call just
#: before it left in them (the module as found, on a timing input set), on the third zeros; the first seed's
#: repeat gets random values (see :func:`.trials.collect_candidate`).  Not zeros on the plain seed: a kernel
#: could tell it apart by finding them, and be wrong over anything else
CANDIDATE_FILLS = {1: "stale", 2: "zeros"}
#: ... and the stale-buffer seed is run again over each of these: its outputs and every buffer it allocated must come
#: out the same bits whatever they held (a kernel that counts calls only from a start that is not NaN poison passes
#: when the only other start is NaN:
#: tests/test_soundness.py::test_a_counter_that_starts_only_from_memory_that_is_not_poison_is_rejected; no chain can
#: start if no start leaves a trace)
START_FILLS = ("nan", "zeros", "random")
#: what the call before the stale-buffer seed starts from: garbage, as a real loop's first call finds, not NaN
WARM_FILL = "random"
#: how many calls in a row the candidate makes from the state its own previous call left, each held to the
#: baseline's call from the same state (a call counter kept in state the kernel reads is found up to this count:
#: :func:`.trials._carried_call`)
CARRIED_CALLS = 8
#: calls the candidate makes from each state the baseline's own loops reached (:mod:`.baseline_loop`,
#: :func:`.trials._settled_calls`): one from that state, then from what its own calls left
SETTLED_CALLS = 3
#: the call from the state the candidate's own previous call left is held to this many tolerances of the
#: baseline's call from the same state (no float64 truth judges it)
CARRIED_SLACK = 10.0
