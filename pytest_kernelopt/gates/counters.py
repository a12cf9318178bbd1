"""Finding a module's integer counters, and checking that they may be advanced (:mod:`.module_state`).

A counter is an integer scalar of the module's state that one call of the compiled module changes (a step count
of a bias-corrected average, a position), or a floating one that a call moves by a whole number.  The varied seed advances them, so that a kernel that reads the counter
and goes wrong only after a few steps is judged past them.  A position may index a table; advanced beyond it,
the module fails -- on a GPU with a device-side assert that ends the process's CUDA context.  So before the
gates use them, the eager module is copied to the host and called there with the counters advanced; if that
raises, no integer is advanced and the session says why.
"""

from __future__ import annotations

from typing import Any


def _whole_step(before: Any, after: Any) -> bool:
    """Whether a floating scalar moved by a whole nonzero number in one call (a counter kept in a float)."""
    import math

    if after is None:
        return False
    d = float(after.reshape(-1)[0]) - float(before.reshape(-1)[0])
    return math.isfinite(d) and d != 0 and d == round(d)


def find_counters(session: Any, seed: int) -> tuple[list[str], list[str], str]:
    """(the counters the varied seed may advance, those the far-counter seed may, a note on what was left out
    and why)."""
    from .fp64_place import _moved, native_copy
    from .module_state import FAR_COUNTER_DECADES, VARY_COUNTER_DECADES, ModuleState, varied_values
    from .runner import run_once

    state = session.state
    ints, floats = state.int_scalars(), state.float_scalars()
    if not (ints or floats):
        return [], [], ""
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
        return [], [], ""
    host = native_copy(session.module, "cpu")
    host_state = ModuleState(host, session.plan.digest_key)
    moved = _moved(inputs, "cpu")
    out: list[list[str]] = []
    notes = []
    for which, decades in (("the varied seed", VARY_COUNTER_DECADES), ("the far-counter seed", FAR_COUNTER_DECADES)):
        target = varied_values(state.pristine, seed, counters, floats=False, decades=decades)
        try:
            try:
                host_state.start(target)
                run_once(host, host, moved, training=session.training, seed=seed)
            finally:
                host_state.begin()  # state shared with the module (held by its class, module-level) put back
            out.append(counters)
        except Exception as e:  # noqa: BLE001 -- the module's own error with its counters advanced
            out.append([])
            notes.append(f"integer counters {', '.join(counters)} not advanced on {which}: the eager module on the "
                         f"host raised with them advanced ({type(e).__name__}: {str(e)[:200]})")
    return out[0], out[1], "; ".join(notes)
