"""The records of a trial: what the gates collect and the judges read.

A *trial* runs the compiled module and records raw results on the host: outputs, gradients, inputs after the call
(as digests), module state that changed, timing samples.  The judges (:mod:`.correctness`, :mod:`.fp64`,
:mod:`.perf`) read only these records, so they can judge in a process that never loaded the candidate: an isolated
worker collects (:mod:`.trials`), its parent judges.

* :class:`Run` -- one call on one seed's inputs;
* :class:`BaselineRecord` -- the unmodified compiled module and the float64 truth over a plan's seeds;
* :class:`CandidateRecord` -- the module with a candidate swapped in, on the same seeds, and its timing; with how
  its ``state_changed`` names what the candidate wrote (:data:`WROTE_READ_ONLY`, :data:`READ_PRIOR`) and how its
  ``carried`` pairs are keyed (:data:`PROBE`) and bounded (:data:`CARRIED_TOTAL_BYTES`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .seed_plan import SeedPlan


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
    #: of the noise floor lands from the truth there, in tolerances (:func:`.compare.level_codes`)
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
    #: seconds the collection spent, by what it did ("runs": the baseline's runs, "truths": the float64 truths)
    seconds: dict[str, float] = field(default_factory=dict)

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
    timed_outputs: dict[str, Any] = field(default_factory=dict)
    device_peak_bytes: int = 0  # the trial's peak device memory (its own baseline runs included; GPU only)
    #: a module whose state some call changed: the first seed's call from the state the candidate's own previous
    #: call left (a loop's next call), and the baseline's call from that same state (:func:`.trials._carried_call`)
    #: [[step, candidate run, baseline run], ...] (past :data:`CARRIED_TOTAL_BYTES`, keyed
    #: samples: :func:`.calls.keep_pair`)
    carried: list = field(default_factory=list)
    carried_note: str = ""  # why those calls were not made, or stopped early
    carried_bytes: int = 0  # host bytes of the pairs in ``carried`` (:func:`.calls.keep_pair`)
    carried_sampled: int = 0  # pairs kept as a keyed sample of positions (past :data:`CARRIED_TOTAL_BYTES`)
    carried_pair_bytes: int = 0  # the last pair's bytes had it been kept whole (whether the next one is sampled)
    #: the checks of :data:`.provenance.CHECKS` the collection made (the judge refuses a record that lacks one its
    #: class needs), and the seconds each took
    checks_run: list[str] = field(default_factory=list)
    check_seconds: dict[str, float] = field(default_factory=dict)
    #: where the structure probes' seconds went: making the inputs, the candidate's calls, the baseline's calls with
    #: the comparison, and each probe's whole (:func:`.structure_probes.probe_calls`)
    probe_seconds: dict[str, Any] = field(default_factory=dict)


#: how :attr:`CandidateRecord.state_changed` names a pointer the replaced kernel only reads and the candidate wrote
WROTE_READ_ONLY = "read-only argument "
#: and module state the replaced kernel only writes, where what the candidate wrote depended on what it held
READ_PRIOR = "write-only state argument "
#: how :attr:`CandidateRecord.carried` keys (and the gate's messages) name a structure probe's pair of calls
#: (:mod:`.structure_probes`)
PROBE = "structure probe: "
#: host bytes of the pairs of runs (outputs and state, the candidate's and the baseline's) kept whole for the judge
#: over a candidate's loops, streams and structure probes together; each pair past them is kept as a keyed sample
#: of positions (:func:`.calls.keep_pair`), so every pair is judged and the record stays bounded
CARRIED_TOTAL_BYTES = 2 << 30
#: positions each tensor of a sampled pair keeps: half drawn uniformly, half in :data:`SAMPLE_RUNS` contiguous
#: runs (a row or a few), at positions drawn from the OS after both calls were made
CARRIED_SAMPLE = 1 << 20
SAMPLE_RUNS = 64
