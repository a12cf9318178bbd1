"""The candidate's own long loop: the baseline's settling loop made again with the candidate's kernels in.

A kernel can keep a count of its own calls in the module's state (red team 29: a tag and a counter in the lowest
bits of a running mean the kernel reads and updates) and go wrong from call T on.  The candidate's loop of calls
(:func:`.trials._carried_call`) finds it while T is within :data:`.trials.CARRIED_CALLS`; the baseline's own loops
(:mod:`.baseline_loop`) never run the candidate, so its counter never moves there: T = 50 was verified.

Here the candidate makes the calls of the baseline's settling loop itself: the first seed's inputs again and
again, from the state the first seed varies, integer state put back after each call (as there), up to the count of
calls that loop made (at most 256, within :data:`LOOP_SECONDS`).  At each of that loop's checkpoints (16, 64, 256
calls, or where it stopped):

* where the baseline's loop settled (its state stopped changing: a contracting loop, over which two honest
  roundings of one update stay apart by a rounding), the candidate's floating state is held to the baseline's
  state after as many calls: a kernel wrong once, at call T, leaves its mark in the state for the calls after it;
* its next call is held to the baseline's call from the same state (:func:`.trials._pair`), as the loop of calls
  holds each of its calls: a kernel wrong from call T on is wrong there (none where the baseline's loop ended
  because its next call raised or overflowed: that call is not made).

Both go to :attr:`.trials.CandidateRecord.carried`, judged as that loop's calls are (within
:data:`.correctness.CARRIED_SLACK` tolerances).  A count kept past the baseline's loop (past 256 calls) is not
found.
"""

from __future__ import annotations

import time
from typing import Any

#: wall seconds the candidate's calls may take a candidate (the CPU interpreter's calls are slow): past it, the
#: checkpoints reached are judged and the note says where the loop stopped
LOOP_SECONDS = 60.0


def _start(session: Any, seed: int) -> tuple[dict, dict, dict]:
    """The module's state put where ``seed``'s calls start: its floating and integer state tensors that calls
    change ({name: tensor}), and a copy of the integer ones, put back after each call."""
    from .baseline_loop import split_state
    from .module_state import copies, target_for

    floats, held = split_state(session)
    session.state.start(target_for(session, seed))
    return floats, held, copies(held)


def candidate_loop(session: Any, swap: Any, fn: Any, seed: int, rec: Any, states: list) -> None:
    """The settling loop's calls made with the candidate's kernels (``states``: :func:`.baseline_loop.baseline_states`
    of ``seed``), its states and calls at the loop's checkpoints appended to ``rec.carried``, and how far it went
    to ``rec.carried_note``."""
    from .module_state import put
    from .runner import run_once
    from .trials import Run, _pair

    marks = [ls for ls in states if ls.calls]
    if not marks:
        return
    floats, held, start_held = _start(session, seed)
    t0, calls, stop = time.perf_counter(), 0, ""

    def call(pair: str = "") -> None:
        nonlocal calls
        if pair:
            _pair(session, swap, fn, seed, None, rec, pair)
        else:
            run_once(fn, session.module, session.inputs(seed), training=session.training, seed=seed)
        put(held, start_held)
        calls += 1

    try:
        for mark in marks:
            while calls < mark.calls and not stop:
                if time.perf_counter() - t0 > LOOP_SECONDS:
                    stop = f"stopped, {LOOP_SECONDS:g} s of calls spent"
                else:
                    call()
            if stop:
                break
            if mark.settled:
                now = {f"state:{n}": t.detach().to("cpu", copy=True) for n, t in floats.items()}
                then = {f"state:{n}": t for n, t in mark.state.items() if n in floats}
                rec.carried.append([f"the state after the candidate's own {calls} calls on the first seed's inputs "
                                    "(the baseline's settling loop made again) against the baseline's state after "
                                    "as many calls", Run((), now, ()), Run((), then, ())])
            if mark.last:  # the baseline's next call raised or overflowed: the loop ends here
                break
            call(f"call {calls + 1} of the candidate's own loop on the first seed's inputs (the baseline's settling "
                 "loop made again)")
    finally:
        rec.carried_note = "; ".join(filter(None, [
            rec.carried_note, f"the candidate's own loop: {calls} calls" + (f", {stop}" if stop else "")]))


def candidate_stream(session: Any, swap: Any, fn: Any, seed: int, rec: Any) -> None:
    """The baseline's stream of fresh inputs (:func:`.baseline_loop.fresh_stream`) made again with the candidate's
    kernels, from the same start: at each of its checkpoints, where the baseline's stream does not amplify
    roundings there, the candidate's state against the baseline's after as many calls, and its next call (on
    the next fresh draw) against the baseline's call from the same state; appended to ``rec.carried``."""
    from .baseline_loop import FRESH_SECONDS, fresh_draw, fresh_stream, stream_calls
    from .module_state import put
    from .trials import Run, _pair, to_host

    marks, kept, note = fresh_stream(session, swap, fn, seed)
    if note:
        rec.carried_note = "; ".join(filter(None, [rec.carried_note, note]))
    if not marks:
        return
    floats, held, start_held = _start(session, seed)
    t0, done, stop = time.perf_counter(), 0, ""
    # every call whose baseline outputs and state were kept, up to a checkpoint where the stream does not amplify
    # roundings, is held to the baseline's call of the same number: between checkpoints too (red team 34 had a
    # kernel wrong at 4 calls of every 8 that repaired its state before each checkpoint)
    stable_until = 0
    for m in marks:
        if not m.stable:
            break
        stable_until = m.calls

    def each(n: int, outputs: Any) -> None:
        if n in kept and n <= stable_until:
            base_out, base_state = kept[n]
            now = {f"state:{k}": t.detach().to("cpu", copy=True) for k, t in floats.items()}
            rec.carried.append([f"call {n} of the candidate's own stream of fresh inputs against the baseline's "
                                "call of the same number in its stream", Run(to_host(outputs), now, ()),
                                Run(base_out, {f"state:{k}": t for k, t in base_state.items()}, ())])

    try:
        for mark in marks:
            done, stop = stream_calls(session, fn, floats, held, start_held, mark.calls, t0, FRESH_SECONDS,
                                      done, baseline=False, each=each)
            if stop:
                break
            if mark.stable:
                now = {f"state:{n}": t.detach().to("cpu", copy=True) for n, t in floats.items()}
                then = {f"state:{n}": t for n, t in mark.state.items()}
                rec.carried.append([f"the state after the candidate's own {done} calls on fresh inputs (the "
                                    "baseline's stream made again) against the baseline's state after as many calls",
                                    Run((), now, ()), Run((), then, ())])
            if mark.last:  # the baseline's next call raised or overflowed: the stream ends here
                break
            _pair(session, swap, fn, seed, fresh_draw(session, done), rec,
                  f"call {done + 1} of the candidate's own stream of fresh inputs")
            put(held, start_held)
            done += 1
    finally:
        rec.carried_note = "; ".join(filter(None, [
            rec.carried_note, f"the candidate's own stream: {done} calls" + (f", {stop}" if stop else "")]))
