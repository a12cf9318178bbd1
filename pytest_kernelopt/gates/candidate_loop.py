"""The candidate's own stream of fresh inputs, each call held to the baseline's call of the same number.

A kernel can keep a count of its own calls in the module's state (a tag and a counter in the lowest bits of a running
mean the kernel reads and updates) and go wrong from call T on.  The candidate's loop of calls
(:func:`.trials._carried_call`) finds it while T is within :data:`.seed_plan.CARRIED_CALLS`; the baseline's own loops
(:mod:`.baseline_loop`) never run the candidate, so its counter never moves there: T = 50 passes them, and so do a
counter in a slow EMA that never settles, a counter of batches unlike the one before (real use never repeats a batch;
every loop the candidate makes does), and one wrong at 4 calls of every 8 that repairs its state before each
checkpoint (tests/test_read_only_args.py::
test_a_counter_past_the_loop_of_calls_is_refused_by_the_candidates_own_long_loop and
test_a_counter_of_fresh_batches_or_in_a_loop_that_never_settles_is_refused_by_the_candidates_own_stream).

Here the baseline makes a stream of calls on fresh draws of the problem's inputs
(:func:`.baseline_loop.fresh_stream`: 128 calls, 64 on the CPU interpreter), and the candidate makes the same
calls from the same start.  At each checkpoint (16, 32, 64, 128 calls) its next call is held to the baseline's call
from the same state (:func:`.calls.pair`); and up to the last checkpoint where two baseline runs started a few
roundings apart stayed within the loop tolerance (a stream that does not amplify roundings), its state at each
checkpoint and its outputs and state after every call kept (:data:`.baseline_loop.FRESH_KEEP_BYTES`) are held to
the baseline's after as many calls.  All go to :attr:`.trial_records.CandidateRecord.carried`, judged as the loop of
calls is (within :data:`.seed_plan.CARRIED_SLACK` tolerances).  A count kept past the stream is not found.
"""

from __future__ import annotations

import time
from typing import Any

from . import baseline_loop
from .baseline_loop import fresh_draw, fresh_stream, split_state
from .calls import keep_pair, pair
from .digests import to_host
from .gate_session import GateSession, target_for
from .module_state import copies, put
from .trial_records import Run


def candidate_stream(session: GateSession, swap: Any, fn: Any, seed: int, rec: Any) -> None:
    """The baseline's stream of fresh inputs (:func:`.baseline_loop.fresh_stream`) made again with the candidate's
    kernels, from the same start: at each of its checkpoints, where the baseline's stream does not amplify
    roundings there, the candidate's state against the baseline's after as many calls, and its next call (on
    the next fresh draw) against the baseline's call from the same state; appended to ``rec.carried``."""
    marks, kept, note = fresh_stream(session, swap, fn, seed)
    if note:
        rec.carried_note = "; ".join(filter(None, [rec.carried_note, note]))
    if not marks:
        return
    floats, held = split_state(session)
    session.state.start(target_for(session, seed))
    start_held = copies(held)

    def state_now() -> dict[str, Any]:
        return {f"state:{k}": t.detach().to("cpu", copy=True) for k, t in floats.items()}
    t0, done, stop = time.perf_counter(), 0, ""
    # every call whose baseline outputs and state were kept, up to a checkpoint where the stream does not amplify
    # roundings, is held to the baseline's call of the same number: between checkpoints too (a kernel wrong at 4
    # calls of every 8 can repair its state before each checkpoint)
    stable_until = 0
    for m in marks:
        if not m.stable:
            break
        stable_until = m.calls

    def each(n: int, outputs: Any) -> None:
        if n in kept and n <= stable_until:
            base_out, base_state = kept[n]
            keep_pair(rec, f"call {n} of the candidate's own stream of fresh inputs against the baseline's call "
                      "of the same number in its stream", Run(to_host(outputs), state_now(), ()),
                      Run(base_out, {f"state:{k}": t for k, t in base_state.items()}, ()))

    try:
        for mark in marks:
            done, stop = baseline_loop.stream_calls(session, fn, floats, held, start_held, mark.calls, t0,
                                                    baseline_loop.FRESH_SECONDS, done, baseline=False, each=each)
            if stop:
                break
            if mark.stable:
                then = {f"state:{n}": t for n, t in mark.state.items()}
                keep_pair(rec, f"the state after the candidate's own {done} calls on fresh inputs (the "
                          "baseline's stream made again) against the baseline's state after as many calls",
                          Run((), state_now(), ()), Run((), then, ()))
            if mark.last:  # the baseline's next call raised or overflowed: the stream ends here
                break
            pair(session, swap, fn, seed, fresh_draw(session, done), rec,
                  f"call {done + 1} of the candidate's own stream of fresh inputs")
            put(held, start_held)
            done += 1
    finally:
        rec.carried_note = "; ".join(filter(None, [
            rec.carried_note, f"the candidate's own stream: {done} calls" + (f", {stop}" if stop else "")]))
