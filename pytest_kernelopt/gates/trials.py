"""Collection: the runs the gates record, over a plan's seeds, for the judges to read.

* :func:`collect_baseline` -- the unmodified compiled module and the float64 eager truth on every seed of the plan.
  A worker runs it before any candidate is loaded; its records go to the parent.
* :func:`collect_truths` -- the float64 truth alone, wherever it fits (:mod:`.fp64_place`).
* :func:`collect_candidate` -- the module with the candidate swapped in, on the same seeds (poisoned allocations;
  the first seed twice), the loops of calls a stateful module's candidate makes from the states it and the
  baseline reach (:mod:`.baseline_loop`, :mod:`.candidate_loop`) and the structure probes (:mod:`.structure_probes`).
* :func:`collect_timing` -- on a GPU, baseline and candidate timed interleaved (:mod:`.timing`), keeping the
  candidate's output of the last timed call on every timing input set so the judge can check it.

What is collected is a record (:mod:`.trial_records`), moved to host memory: a kernel can write device memory
anywhere in its process, but not the host copies, and not another process.  Nothing here judges.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import time
from typing import Any, Callable

from ..backends.cpu_interpret import programs_reversed
from ..errors import BaselineRunError
from . import calls, seed_plan
from . import provenance as prov
from .baseline_loop import baseline_states, jittered
from .candidate_loop import candidate_stream
from .compare import flatten, same_values
from .digests import digest, records_on_device, release_device_memory
from .fp64_place import noise_levels, place, split_noise, truth_on
from .gate_session import GateSession, target_for
from .module_state import copies, put
from .runner import Allocations
from .seed_plan import CARRIED_CALLS, SETTLED_CALLS, SeedPlan
from .structure_probes import probe_calls
from .timing import measure_with_outputs
from .trial_records import READ_PRIOR, WROTE_READ_ONLY, BaselineRecord, CandidateRecord, Run


def device_peak() -> int:
    """Peak device memory allocated since the last reset (0 without a GPU)."""
    import torch

    return int(torch.cuda.max_memory_allocated()) if torch.cuda.is_available() and torch.cuda.is_initialized() else 0


def reset_device_peak() -> None:
    import torch

    if torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()


def _module_peak(session: GateSession, seed: int) -> int:
    """Device memory one plain call of the compiled module needs: its inputs, parameters and buffers, and what
    the call allocates on top of them (its peak over the memory in use before it): the yardstick of the gates'
    own memory (GPU only, else 0).  Whatever else this process holds is not the module's."""
    import torch

    if not (torch.cuda.is_available() and torch.cuda.is_initialized()):
        return 0
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
    for t in flatten(outputs):
        if hasattr(t, "is_floating_point") and t.is_floating_point():
            return str(t.dtype).replace("torch.", "")
    return "float32"


def _io_bytes(inputs: tuple, outputs: Any) -> int:
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


def _reversed_programs(session: GateSession) -> Any:
    """On the CPU interpreter, the grid's programs run in reverse order (a kernel that depends on the order its
    programs run in shows); elsewhere nothing."""
    if session.backend.name != "cpu":
        return contextlib.nullcontext()
    return programs_reversed()


def collect_baseline(session: GateSession, plan: SeedPlan, into: BaselineRecord | None = None, *,
                     truths: bool = True, emit: Callable[[int, Run], None] | None = None) -> BaselineRecord:
    """The baseline and the float64 truth on the plan's seeds (and its timing seeds, on a GPU).

    ``into`` is a record collected earlier for a plan with the same seeds: only what it lacks is run (a quick
    re-check over the first seed of a plan pays for that seed alone).  ``truths=False`` skips the float64 runs
    (an isolated candidate's worker records its own baseline; the truth comes from the clean worker).
    ``emit(seed, run)``, if given, receives each run as soon as it is recorded and the record keeps none of
    them (a worker streams them to the judge: one seed's tensors at a time in its own memory).
    The baseline running out of memory is an error of the run
    (:class:`~pytest_kernelopt.errors.BaselineRunError`), never a verdict on a candidate.
    """
    rec = into if into is not None else BaselineRecord(plan)
    timing = plan.timing if session.backend.measures_time else ()
    needed = [seed for seed in plan.seeds + timing if seed not in rec.runs]
    first = plan.seeds[0]
    try:
        if not rec.io_bytes:
            rec.module_peak_bytes = _module_peak(session, first)
        for seed in needed:
            run = calls.run_call(session, session.captured.compiled, seed)
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
    if truths:
        add_truths(session, rec, plan.seeds)
    return rec.view(plan)


def add_truths(session: GateSession, rec: BaselineRecord, seeds: Any) -> None:
    """The float64 truths of those of ``seeds`` that ``rec`` lacks, into it (the record's view shares them)."""
    missing = [seed for seed in seeds if seed not in rec.truths]
    if missing:
        plan = rec.plan
        got = collect_truths(session, SeedPlan(plan.base, tuple(missing), (), plan.timing, plan.drawn, plan.digest_key))
        rec.truths.update(got.truths)
        rec.truth_errors.update(got.truth_errors)
        rec.truth_memory = got.truth_memory


def _describe(session: GateSession, rec: BaselineRecord, first_run: Run) -> None:
    """Once per record, from the first seed's run: determinism of the baseline, dtype, bytes, bandwidth."""
    first = rec.plan.seeds[0]
    with _reversed_programs(session):
        again = calls.run_call(session, session.captured.compiled, first, fill="random")
    rec.deterministic = same_values(again.outputs, first_run.outputs) and same_values(again.grads, first_run.grads)
    rec.dtype_name = _first_float_dtype(first_run.outputs)
    rec.io_bytes = _io_bytes(session.inputs(first), first_run.outputs)
    rec.peak_bandwidth = device_bandwidth() if session.backend.measures_time else None


def _truth_run(outputs: Any, grads: Any, noise: list) -> Run:
    """A float64 truth's Run, its noise floor (:func:`.fp64_place.noise_floor`) kept whole and per decade."""
    whole, per_decade = split_noise(noise)
    return Run(outputs, grads, (), noise=whole, noise_decades=per_decade, levels=noise_levels(noise))


def collect_truths(session: GateSession, plan: SeedPlan,
                   emit: Callable[[int, Run | None, str], None] | None = None) -> BaselineRecord:
    """Only the float64 truth on the plan's seeds (an isolated candidate's worker records the baseline runs).

    One seed at a time, each moved to the host as soon as it is computed, with its noise floor (see
    :class:`Run`).  It runs where it fits (:func:`pytest_kernelopt.gates.fp64_place.place`): on the device,
    else on the host, else not at all, and then every seed's error says ``float64 check skipped: would need
    N GiB`` (the float64 gate says so instead of judging against a truth it does not have).  ``emit(seed,
    run or None, error)``, if given, receives each seed's truth instead of the record.
    """
    t0 = time.perf_counter()
    rec = BaselineRecord(plan)
    where, why = place(session)
    rec.truth_memory = {"where": where, "reason": why}
    reset_device_peak()
    for seed in plan.seeds:
        run, error = None, why
        if where != "skipped":
            # (no name here holds a seed's truth past its run: the next seed's truth is computed with the device's
            # room, not beside the last one's)
            run, error, oom = _one_truth(session, seed, where)
            if oom and where != "cpu":
                where = "cpu"  # the device ran out: the host next, for this seed and the rest
                rec.truth_memory.update(where="cpu", reason=f"the device ran out of memory ({error[:120]})")
                # out of the except block that caught it: the failed attempt's frames (its float64 tensors on the
                # device) are gone (a cycle among them collected too), and their memory goes back before the host's
                gc.collect()
                release_device_memory()
                run, error, _ = _one_truth(session, seed, where)
        if emit is not None:
            emit(seed, run, "" if run is not None else error)
        else:
            rec.truths[seed] = run
            if run is None:
                rec.truth_errors[seed] = error
        del run
    rec.truth_memory["device_peak_bytes"] = device_peak()
    rec.seconds["truths"] = round(time.perf_counter() - t0, 4)
    return rec


def _one_truth(session: GateSession, seed: int, where: str) -> tuple[Run | None, str, bool]:
    """``seed``'s float64 truth on ``where``: (its run, "", False), or (None, the error, whether the device ran out
    of memory)."""
    try:
        return _truth_run(*truth_on(session, seed, where)), "", False
    except Exception as e:  # noqa: BLE001 -- recorded; the float64 gate says it could not run
        return None, f"{type(e).__name__}: {str(e)[:300]}", _out_of_memory(e)


def collect_candidate(session: GateSession, swap: Any, plan: SeedPlan,
                      emit: Callable[[int, Run], None] | None = None,
                      provenance: str = prov.FREE_FORM, skip: tuple[str, ...] = (),
                      emit_on_device: bool = False,
                      emit_again: Callable[[Run], None] | None = None) -> CandidateRecord:
    """The candidate on the plan's seeds (poisoned allocations) and the checks its class needs
    (:mod:`.provenance`: the first seed twice, the stale-buffer seed, the read-only guard, the loops of calls, the
    structure probes, for free-form code), less ``skip`` (those the judge found pointless for these candidates);
    ``emit(seed, run)``, if given, receives each run instead of the record (which keeps the first seed's second
    run).  ``emit_on_device``: each seed's run is kept where it was made (a copy on the device, not the host) and
    emitted as soon as its call returns, before the candidate runs again: ``emit`` must hand it over before it
    returns (a device frame the judge copies, :mod:`pytest_kernelopt.device_frames`); so is the rerun, to
    ``emit_again(run)`` where given (the record's ``again`` then keeps all but its outputs).  The record names the
    checks made and the seconds each took."""
    rec = CandidateRecord()
    fn = session.captured.compiled
    checks = _Checks(rec, provenance, skip)
    # every launch of the candidate is checked for writes to the pointers the kernel it replaces only reads
    if checks.wanted("read_only_guard"):
        swap.guard = functools.partial(digest, key=plan.digest_key, exact=True)
    try:
        _collect_seeds(session, swap, plan, fn, rec, emit if emit_on_device else None, emit, checks,
                       emit_again if emit_on_device else None)
    finally:
        swap.guard = None
        rec.state_changed.update({f"{WROTE_READ_ONLY}{w}": "written" for w in sorted(swap.wrote_read_only)})
        rec.state_changed.update({f"{READ_PRIOR}{w}": "read" for w in sorted(swap.read_prior)})
    rec.device_peak_bytes = device_peak()
    return rec


class _Checks:
    """Which checks of :data:`.provenance.CHECKS` a collection makes, recorded in ``rec.checks_run`` as they are
    made, with their seconds in ``rec.check_seconds`` (a check's seconds include the seeds' runs it adds)."""

    def __init__(self, rec: CandidateRecord, provenance_class: str, skip: tuple[str, ...] = ()) -> None:
        self.rec = rec
        self.provenance = provenance_class
        self.skip = skip  # checks the judge found pointless for these candidates beyond their class
        rec.checks_run.append("seeds")
        if self.wanted("read_only_guard"):
            rec.checks_run.append("read_only_guard")  # on every launch, its seconds within the others'

    def wanted(self, check: str) -> bool:
        return prov.runs(check, self.provenance) and check not in self.skip

    @contextlib.contextmanager
    def timed(self, check: str):
        t0 = time.perf_counter()
        try:
            yield
        finally:
            if check not in self.rec.checks_run:
                self.rec.checks_run.append(check)
            self.rec.check_seconds[check] = round(self.rec.check_seconds.get(check, 0.0)
                                                  + time.perf_counter() - t0, 4)


def _carried_call(session: GateSession, swap: Any, fn: Any, seed: int, rec: CandidateRecord) -> None:
    """:data:`CARRIED_CALLS` calls in a row from the state the candidate's last call left (as a loop's next calls
    start), each followed by the baseline's call from the state that call started from: the reference the correctness
    gate holds it to (a tag and a call counter in the lowest bit of a running mean the kernel reads and updates, wrong
    from a loop's second call, passes calls that never start from a state the candidate wrote:
    tests/test_read_only_args.py::
    test_a_counter_in_state_the_kernel_reads_and_updates_is_refused_within_the_carried_calls).
    In the first, every launch that writes module state through a pointer the replaced kernel only writes is checked
    for depending on what that state held (:attr:`KernelSwap.carry`).  Only where some call changed the module's
    state."""
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
        sample = calls.pair_sample(rec)
        try:
            cand = calls.run_call(session, fn, seed, carry=True, sample=sample)
        except Exception as e:
            # the candidate's error, unless the module itself cannot make this call (the loop went past what it
            # supports): then the loop ends here.  A device fault is the candidate's (and leaves nothing to ask)
            if calls.device_fault(e):
                raise
            failed = calls.baseline_raises(session, swap, fn, seed, None, before)
            if failed:
                rec.carried_note = f"the loop of calls stopped at call {step + 2}: the baseline raised {failed}"
                return
            raise
        finally:
            swap.carry = set()
        calls.beside_baseline(session, swap, fn, seed, None, before, cand, rec, step, sample)
        del before, cand


def _settled_calls(session: GateSession, swap: Any, fn: Any, seed: int, rec: CandidateRecord) -> None:
    """The candidate held to the baseline from the states the baseline's own calls lead the module into
    (:func:`.baseline_loop.baseline_states`: a loop on the first seed's inputs until its state settles, then a
    stream of inputs jittered around them): from each, :data:`SETTLED_CALLS` calls in a row, each against the
    baseline's call from the same state; and from the state the loop settled in, one call on each other seed's
    inputs (a settled statistic met by inputs of another scale or kind: a running mean that skips a batch
    far from it once warm, a sensor offset, is exact on every call that starts cold; benchmarks/redteam/rt32/p2 in
    tests/test_read_only_args.py); then a
    stream of fresh inputs made by the candidate itself (:mod:`.candidate_loop`).  Appended to
    :attr:`CandidateRecord.carried`."""
    states, note = baseline_states(session, swap, fn, seed)
    if note:
        rec.carried_note = "; ".join(filter(None, [rec.carried_note, note]))
    items = session.state.items

    def from_state(loop_state: Any) -> None:
        session.state.start(None if loop_state.as_built else target_for(session, seed))
        put({n: items[n] for n in loop_state.state}, loop_state.state)

    margin = session.state.margin  # a counter the module runs only so far with: as many calls as it allows
    repeats = SETTLED_CALLS if margin is None else max(1, min(SETTLED_CALLS, margin))
    for loop_state in states:
        from_state(loop_state)
        inputs = jittered(session.inputs(seed), *loop_state.jitter) if loop_state.jitter else None
        for extra in range(repeats):
            where = f"call {extra + 1} from {loop_state.label}" + (
                " (then from what the candidate's calls left)" if extra else "")
            calls.pair(session, swap, fn, seed, inputs, rec, where)
    settled = [ls for ls in states if ls.jitter is None]
    for other in session.plan.seeds[1:] if settled else ():
        from_state(settled[-1])
        calls.pair(session, swap, fn, other, None, rec, f"a call on seed {other}'s inputs from {settled[-1].label}")
    # and a stream of fresh inputs made by the candidate itself, each call held to the baseline's: a count of its
    # own calls kept in the state
    candidate_stream(session, swap, fn, seed, rec)


def _collect_seeds(session: GateSession, swap: Any, plan: SeedPlan, fn: Any, rec: CandidateRecord,
                   at_once: Callable[[int, Run], None] | None, emit: Callable[[int, Run], None] | None,
                   checks: _Checks, again_at_once: Callable[[Run], None] | None = None) -> None:
    """Each seed's run, into the record or ``emit``; ``at_once``: kept on the device and emitted as soon as the
    call returns (see :func:`collect_candidate`), and the rerun to ``again_at_once`` alike."""
    for seed in plan.seeds:
        n = plan.index(seed)  # its role in the whole plan (a round of it: :meth:`.seed_plan.SeedPlan.rounds`)
        launches = swap.launches
        fill = seed_plan.CANDIDATE_FILLS.get(n, "nan")
        stale = fill == "stale" and checks.wanted("stale_buffers")
        fill = fill if fill != "stale" or stale else "nan"
        try:
            with swap.applied():
                previous = None
                with checks.timed("stale_buffers") if stale else contextlib.nullcontext():
                    if stale:  # the call before it: the module used as it is, on other inputs drawn the
                        # same way (a timing input set), as a loop's previous iteration; a call another seed made
                        # would be told apart by what it left (the varied state leaves marks a kernel could read)
                        previous = Allocations()
                        warm_seed = seed + 1_000_003 if plan.warm_seed is None else plan.warm_seed
                        warm = calls.run_call(session, fn, warm_seed, fill=seed_plan.WARM_FILL, record=previous)
                        rec.state_changed.update(warm.state_changed)
                        del warm
                with checks.timed("seeds"), records_on_device() if at_once else contextlib.nullcontext():
                    run = calls.run_call(session, fn, seed, fill, stale=previous, buffers=stale)
                    if n == 0 and not rec.carried_pair_bytes:
                        # what a pair of calls on these inputs holds: the checks' first pair is then sampled on
                        # the device already where it would not fit whole (calls.pair_sample), not copied whole
                        rec.carried_pair_bytes = 2 * calls.run_bytes(run)
                    if at_once is not None:
                        at_once(seed, run)  # copied by the judge before the candidate runs again
                        run.outputs, run.grads = None, {}  # the device copies go: the judge has its own
                del previous
                # after every call, every bit of the module's state (parameters, buffers, tensor attributes,
                # module-level tensors) against the state every call starts from: state a kernel keeps there (a
                # call counter in the signs of zeros, a bit toggled and toggled back) shows at once
                rec.state_changed.update(run.state_changed)
                if n == 0:
                    _first_seed_checks(session, swap, fn, seed, rec, checks, again_at_once)
                if stale:  # and over other starts: what an earlier call left may not change the result
                    # (a kernel that reads its output buffer's low bits, marked by its earlier calls, can be exact
                    # for two calls in a row and wrong from the third: tests/test_soundness.py::
                    # test_a_result_that_depends_on_what_an_earlier_call_left_is_rejected), nor what this one leaves
                    with checks.timed("stale_buffers"):
                        for start in seed_plan.START_FILLS:
                            rec.starts[start] = calls.run_call(session, fn, seed, fill=start, light=True)
                            rec.state_changed.update(rec.starts[start].state_changed)
            if at_once is None:  # (else emitted as soon as its call returned)
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


def _first_seed_checks(session: GateSession, swap: Any, fn: Any, seed: int, rec: CandidateRecord,
                       checks: _Checks, again_at_once: Callable[[Run], None] | None = None) -> None:
    """After the first seed's run, the checks that start from it, those the candidate's class needs: the same
    inputs again, over buffers that hold random values instead of NaN (and on the CPU interpreter with the grid's
    programs in reverse order; ``again_at_once``: kept on the device and emitted as soon as the call returns); the
    loops of calls; each label and mask structure given to each floating input in turn (:mod:`.structure_probes`)."""
    if checks.wanted("rerun"):
        with checks.timed("rerun"), _reversed_programs(session), \
                records_on_device() if again_at_once else contextlib.nullcontext():
            rec.again = calls.run_call(session, fn, seed, fill="random")
            if again_at_once is not None:
                again_at_once(rec.again)  # copied by the judge before the candidate runs again
                rec.again.outputs, rec.again.grads = None, {}
        rec.state_changed.update(rec.again.state_changed)
    if checks.wanted("loops"):
        with checks.timed("loops"):
            _carried_call(session, swap, fn, seed, rec)
            _settled_calls(session, swap, fn, seed, rec)
    if checks.wanted("structure_probes"):
        with checks.timed("structure_probes"):
            probe_calls(session, swap, fn, seed, rec)


def collect_timing(session: GateSession, swap: Any, plan: SeedPlan, samples: int | None = None,
                   emit_last: Callable[[int, Any], None] | None = None) -> tuple[dict[str, Any], dict]:
    """``samples`` pairs (default ``perf_samples``) of baseline and candidate timed interleaved on the plan's
    timing input sets (GPU only), with the checks' raw material: every timed call's output checksums and the
    candidate's last output on each set (to ``emit_last(seed, outputs)`` where given, as soon as its call
    returns: :func:`.timing.measure_with_outputs`), and the round's wall time."""
    launches, t0 = swap.launches, time.perf_counter()
    base, cand, outs = measure_with_outputs(session, swap, plan.timing, samples, emit_last)
    return {"base": base, "cand": cand, "launches": swap.launches - launches,
            "seconds": time.perf_counter() - t0}, outs
