"""Finding a module's integer counters, and checking that they may be advanced (:mod:`.module_state`).

A counter is an integer scalar of the module's state that one call of the compiled module changes (a step count of a
bias-corrected average, a position), or a floating one that a call moves by a whole number.  The varied seed advances
them, so that a kernel that reads the counter and goes wrong only after a few steps is judged past them.  A position may
index a table; advanced beyond it, the module fails -- on a GPU with a device-side assert that ends the process's CUDA
context.  So before the gates use them, the eager module is copied to the host and called there with the counters
advanced, and :data:`MARGIN_CALLS` calls' steps further (the loop of calls that follows the varied seed's call advances
them again).  If that raises, the varied seed's advance is halved until the module runs (a KV cache of 64 positions: the
position lands within it; a kernel wrong only past position 2 passes when no position is advanced:
tests/test_read_only_args.py::test_a_position_the_module_runs_only_so_far_with_is_advanced_within_its_range), and only
if none runs is no integer advanced; the session says why.
"""

from __future__ import annotations

from typing import Any

from .fp64_place import _moved, native_copy
from .gate_session import GateSession
from .module_state import FAR_COUNTER_DECADES, VARY_COUNTER_DECADES, ModuleState, varied_values
from .runner import run_once


def advance(now: Any, before: Any) -> int:
    """How far a single-element tensor moved from ``before`` to ``now``, as a whole number."""
    return int(float(now.reshape(-1)[0]) - float(before.reshape(-1)[0]))


def _whole_step(before: Any, after: Any) -> bool:
    """Whether a floating scalar moved by a whole nonzero number in one call (a counter kept in a float)."""
    import math

    if after is None:
        return False
    d = float(after.reshape(-1)[0]) - float(before.reshape(-1)[0])
    return math.isfinite(d) and d != 0 and d == round(d)


#: the calls past the varied seed's advance a counter must still run with: the loop of calls from the state the
#: candidate's calls leave (:data:`.seed_plan.CARRIED_CALLS`) and two more
MARGIN_CALLS = 10
#: how many times the varied seed's advance is halved, at most, looking for one the module runs with
HALVINGS = 12
#: the calls past the advance looked for in turn, where the module cannot run :data:`MARGIN_CALLS` more at any
#: advance (a cache of 8 positions): the loops of calls from the varied state are then as long as the one found
MARGINS = (MARGIN_CALLS, 5, 3, 2, 1)


def find_counters(session: GateSession, seed: int) -> tuple[list[str], list[str], str, dict[str, int], dict[str, Any]]:
    """(the counters the varied seed may advance, those the far-counter seed may, a note on what was left out
    and why, the most steps the varied seed may advance each where the module runs only so far, and the limits of
    the loops of calls from the varied state: ``margin``, the calls past its advance the module runs with (None:
    no counter advanced), and ``per_call``, each counter's step in one call)."""
    state = session.state
    ints, floats = state.int_scalars(), state.float_scalars()
    if not (ints or floats):
        return [], [], "", {}, {}
    inputs = session.inputs(seed)
    state.begin()
    try:
        run_once(session.captured.compiled, session.module, inputs, training=session.training, seed=seed)
        changed, after = state.end()
    finally:
        state.begin()
    counters = [n for n in ints if n in changed] + [n for n in floats if n in changed and _whole_step(
        state.pristine[n], after.get(f"state:{n}"))]
    if not counters:
        return [], [], "", {}, {}
    host = native_copy(session.module, "cpu")
    host_state = ModuleState(host, session.plan.digest_key)
    moved = _moved(inputs, "cpu")
    # each counter's step in one call: the loop of calls after the varied seed's advances it this much each call
    per_call = {n: abs(advance(after[f"state:{n}"], state.pristine[n])) for n in counters if f"state:{n}" in after}

    def raises(target: dict[str, Any], margin: int) -> Exception | None:
        ahead = {n: (v + margin * per_call.get(n, 0)).to(v.dtype) if n in per_call else v for n, v in target.items()}
        try:
            try:
                host_state.start(ahead)
                run_once(host, host, moved, training=session.training, seed=seed)
            finally:
                host_state.begin()  # state shared with the module (held by its class, module-level) put back
        except Exception as e:  # noqa: BLE001 -- the module's own error with its counters advanced
            return e
        return None

    def fits(decades: tuple[float, float], margins: tuple[int, ...]) -> tuple[Exception | None, dict, int | None]:
        """(the module's error with the counters advanced by 10 ** U(*decades) steps and each margin's calls more,
        or None; the halved advance it ran with, if the drawn one failed; the margin it ran with).  A margin of 0
        is the advance alone, not halved."""
        target = varied_values(state.pristine, seed, counters, floats=False, decades=decades)
        drawn = {n: advance(target[n], state.pristine[n]) for n in counters if n in target}
        error: Exception | None = None
        for margin in margins:
            error = raises(target, margin)
            if error is None:
                return None, {}, margin
            # a position the module runs only so far with: a smaller advance, then fewer calls past it
            for k in range(1, HALVINGS + 1) if margin else ():
                trial = {n: d >> k for n, d in drawn.items()}
                if not any(trial.values()):
                    break
                if raises(varied_values(state.pristine, seed, counters, floats=False, decades=decades, caps=trial),
                          margin) is None:
                    at_most = ", ".join(f"{n} {v}" for n, v in sorted(trial.items()))
                    tried = ", ".join(str(v) for _, v in sorted(drawn.items()))
                    notes.append(f"integer counters {', '.join(counters)} advanced on the varied seed by at most "
                                 f"{at_most} steps, and loops of calls from there at most {margin} calls long (the "
                                 f"eager module on the host raised with the drawn {tried} and {MARGIN_CALLS} calls "
                                 "more)")
                    return None, trial, margin
        return error, {}, None

    notes: list[str] = []
    out: list[list[str]] = []
    caps: dict[str, int] = {}
    margin_found: int | None = None
    for which, decades, margins in (("the varied seed", VARY_COUNTER_DECADES, MARGINS),
                                    ("the far-counter seed", FAR_COUNTER_DECADES, (0,))):
        error, trial, margin = fits(decades, margins)
        if error is None:
            out.append(counters)
            if margins is MARGINS:
                caps, margin_found = trial, margin
        else:
            out.append([])
            notes.append(f"integer counters {', '.join(counters)} not advanced on {which}: the eager module on the "
                         f"host raised with them advanced ({type(error).__name__}: {str(error)[:200]})")
    limits = {"margin": margin_found if out[0] else None, "per_call": per_call}
    return out[0], out[1], "; ".join(notes), caps, limits
