"""The states the baseline's own calls lead a stateful module into, for the candidate to be held to it from there.

A module whose calls update its state (a running mean, a recurrent state, a cache) is judged from the state as
built and along a short loop of the candidate's own calls (:func:`.trials._carried_call`).  The states a long run
reaches are not among them: an update can be wrong only once a running mean agrees with the batch (about 14
calls from zero), or only when, besides, the batch mean overshoots the running mean in a quarter of the features,
as fresh batches do and a repeated one never does (tests/test_read_only_args.py::
test_an_update_wrong_only_once_a_running_mean_has_settled_is_refused_from_the_baselines_settled_state and
test_an_update_wrong_only_when_fresh_batches_overshoot_a_settled_mean_is_refused_from_the_baselines_stream).
So the *baseline* (Inductor's own kernels, trusted) makes two runs of its own, once a session and seed (every
candidate is held to the same states):

* a **settling loop**: the first seed's inputs again and again, each call from the state the last left, until the
  floating state stops changing (:data:`SETTLE_CHECKPOINTS`: the states after 16, 64 and 256 calls, or where it
  stopped, are kept);
* then a **stream**: :data:`STREAM_CALLS` calls on the first seed's inputs each scaled elementwise by a fresh
  ``1 + level * U(-1, 1)``, at each of :data:`STREAM_LEVELS`: a settled state met by inputs that vary around it,
  as real batches do; the state it reached is kept, with the jitter of the input the candidate is then called on.

Integer state is put back after every one of these calls (a position advanced 256 times could index past a cache:
on a GPU a device-side assert that ends the process); the floating state evolves.  A state that turns non-finite
is dropped for the last finite one.  The whole costs at most :data:`SETTLE_SECONDS` of calls a session and seed.
A kernel keeping a count of its own calls in the state is not found here (it never makes these calls): the
candidate makes a stream of fresh inputs itself (:mod:`.candidate_loop`), held to the baseline's.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable

from .compare import compare_outputs, flatten
from .counters import advance
from .digests import to_host
from .gate_session import GateSession, target_for
from .module_state import copies, put
from .runner import run_once
from .seed_plan import CARRIED_SLACK, SETTLED_CALLS

#: the settling loop's states kept: after this many of its calls (and where it stopped, if before)
SETTLE_CHECKPOINTS = (16, 64, 256)
#: the stream's calls at each jitter level, and the levels (relative, elementwise)
STREAM_CALLS = 32
STREAM_LEVELS = (0.2, 0.02, 0.002)
#: wall seconds both runs may take together (the CPU interpreter's calls are slow): past it, what was reached is
#: kept and the note says so
SETTLE_SECONDS = 60.0
#: host bytes the kept states may hold together: past it, the oldest are dropped (the last two always stay)
KEEP_BYTES = 2 << 30


@dataclass
class LoopState:
    """A state the baseline's calls reached (host copies of the state tensors calls change), what reached it, and
    the jitter (level, generator seed) of the inputs the candidate's calls from it take (None: the first seed's
    own)."""

    label: str
    state: dict[str, Any]
    jitter: tuple[float, int] | None = None
    as_built: bool = False  # the state not kept here as built, not as the first seed varies it


def jittered(inputs: tuple, level: float, seed: int) -> tuple:
    """``inputs`` with every floating tensor scaled elementwise by ``1 + level * U(-1, 1)`` (drawn on its device
    from ``seed``), laid out as it was; the rest as given."""
    import torch

    out = []
    with torch.no_grad():
        for i, x in enumerate(inputs):
            if isinstance(x, torch.Tensor) and x.is_floating_point() and x.numel():
                gen = torch.Generator(device=x.device).manual_seed(seed + 7919 * i)
                u = torch.rand(x.shape, generator=gen, device=x.device, dtype=torch.float32)
                y = x.detach().clone()  # the same strides: a compiled module guards on them
                y.mul_(u.mul_(2 * level).add_(1 - level).to(y.dtype))
                out.append(y.requires_grad_(x.requires_grad))
            else:
                out.append(x)
    return tuple(out)


def _keep(kept: list[LoopState], new: LoopState) -> None:
    """``new`` appended to ``kept``, the oldest states dropped while they hold more than :data:`KEEP_BYTES`."""
    kept.append(new)

    def size(ls: LoopState) -> int:
        return sum(t.numel() * t.element_size() for t in ls.state.values())

    while len(kept) > 2 and sum(map(size, kept)) > KEEP_BYTES:
        kept.pop(0)


#: the most calls of the loop from the state as built (:func:`_natural_calls`), and the jitter of their inputs
NATURAL_CALLS = 64
NATURAL_JITTER = 0.5


def _natural_calls(session: GateSession) -> int:
    """How many calls a loop from the state as built may make with the module's integer counters advancing as
    calls move them: within the varied seed's advance and the calls past it the eager module was seen to run with
    (``state.margin``), less the candidate's calls from where it ends; 0 where no counter was advanced."""
    st = session.state
    margin = getattr(st, "margin", None)
    steps = {n: d for n, d in (getattr(st, "per_call", None) or {}).items() if d}
    if margin is None or not steps or not st.counters or not session.plan.seeds:
        return 0
    varied = st.varied(session.plan.seeds[0])
    room = min((advance(varied[n], st.pristine[n]) // d for n, d in steps.items() if n in varied), default=0)

    return max(0, min(NATURAL_CALLS, room + margin - SETTLED_CALLS))


def _finite(state: dict[str, Any]) -> bool:
    return all(bool(t.isfinite().all()) for t in state.values())


def _baseline_call(session: GateSession, fn: Any, inputs: tuple, seed: int, floats: dict,
                   after: Callable[[], None]) -> tuple[str, Any, dict[str, Any]]:
    """One baseline call from the state as it is, ``after()`` run once it returned or raised (integer state put
    back): why it does not count ("the baseline raised ...", "its state overflowed": the floating state put back
    as before it) or "", its result (None where it raised), and the floating state before it."""
    before = copies(floats)
    r = None
    try:
        r = run_once(fn, session.module, inputs, training=session.training, seed=seed)
    except Exception as e:  # noqa: BLE001 -- the module cannot make this call: judged from the state before
        put(floats, before)
        why = f"the baseline raised {type(e).__name__}"
    else:
        why = ""
        if not _finite(floats) and _finite(before):
            put(floats, before)
            why = "its state overflowed"
    after()
    return why, r, before


def split_state(session: GateSession) -> tuple[dict[str, Any], dict[str, Any]]:
    """The module's state tensors that calls change ({name: tensor}): the floating ones, and the others."""
    st = session.state
    known = {n: t for n, t in st.items.items() if n in st.known}
    return ({n: t for n, t in known.items() if t.is_floating_point()},
            {n: t for n, t in known.items() if not t.is_floating_point()})


def _once(session: GateSession, swap: Any, seed: int, make: Callable[[], Any], key: str) -> Any:
    """``make()``'s result, made once a session and seed (under ``key``) with the candidate's kernels off and the
    module's state put back after."""
    cache = session.__dict__.setdefault(key, {})
    if seed not in cache:
        swap.off()
        try:
            cache[seed] = make()
        finally:
            swap.on()
            session.state.start(None)
    return cache[seed]


def baseline_states(session: GateSession, swap: Any, fn: Any, seed: int) -> tuple[list[LoopState], str]:
    """The states of the settling loop and the stream on ``seed`` (made once a session and seed, with the
    candidate's kernels off), and a note on how they ended.  None where no call changed floating module state."""
    return _once(session, swap, seed, lambda: _make(session, fn, seed), "_baseline_loop_states")


def _make(session: GateSession, fn: Any, seed: int) -> tuple[list[LoopState], str]:
    floats, held = split_state(session)
    if not floats:
        return [], ""
    start_held: dict[str, Any] = {}
    t0 = time.perf_counter()
    kept: list[LoopState] = []
    notes: list[str] = []

    def host() -> dict[str, Any]:  # the state calls change (the rest stays as the seed's calls start from it)
        return {n: t.detach().to("cpu", copy=True) for n, t in {**floats, **held}.items()}

    def step(inputs: tuple, hold: bool) -> tuple[str, dict[str, Any]]:
        """One baseline call from the state the last left (``hold``: its integer state put back where the loop
        started): why it does not count, or "", and the floating state before it (:func:`_baseline_call`)."""
        why, _, before = _baseline_call(session, fn, inputs, seed, floats,
                                        (lambda: put(held, start_held)) if hold else (lambda: None))
        return why, before

    def call(inputs: tuple) -> str:
        """One call of the settling loop or the stream; why the loop stops there, or ""."""
        why, before = step(inputs, hold=True)
        if why:
            return why
        if time.perf_counter() - t0 > SETTLE_SECONDS:
            return f"{SETTLE_SECONDS:g} s of calls spent"
        return "settled" if all(bool((before[n] == t).all()) and before[n].shape == t.shape
                                for n, t in floats.items()) else ""

    natural = _natural_calls(session)
    if natural:  # a real loop from the state as built: counters advance as each call moves them, within the
        # range the eager module was seen to run with (a KV cache written up to its position and empty beyond it,
        # as decoding leaves it: a kernel can be wrong only on such a cache, benchmarks/redteam/rt32/p1
        # in tests/test_read_only_args.py)
        session.state.start(None)
        done, stop = 0, ""
        while done < natural and not stop:
            # each call's inputs jittered apart: one input repeated fills a cache with equal rows, over which
            # attending to a few of them or to all gives the same result
            stop, _ = step(jittered(session.inputs(seed), NATURAL_JITTER, seed * 17 + done), hold=False)
            if not stop.startswith("the baseline raised"):
                done += 1
        if done:
            _keep(kept, LoopState(f"the state the baseline's own {done} calls from the state as built reached "
                                  "(counters advanced as calls move them)", host(), as_built=True))
        notes.append(f"the baseline's calls from the state as built: {done}" + (f", {stop}" if stop else ""))
    session.state.start(target_for(session, seed))
    start_held.update(copies(held))
    calls, stop = 0, ""
    for checkpoint in SETTLE_CHECKPOINTS:
        while calls < checkpoint and not stop:
            stop = call(session.inputs(seed))
            calls += 1
        _keep(kept, LoopState(f"the state the baseline's own loop of {calls} calls on the first seed's inputs "
                              "reached", host()))
        if stop:
            break
    notes.append(f"the baseline's loop: {calls} calls, "
                 + ("its state stopped changing" if stop == "settled" else stop or "its state still changing"))
    if stop in ("", "settled"):
        for k, level in enumerate(STREAM_LEVELS):
            n = 0
            for n in range(1, STREAM_CALLS + 1):
                stop = call(jittered(session.inputs(seed), level, seed * 31 + 1000 * k + n))
                if stop and stop != "settled":
                    break
            _keep(kept, LoopState(f"the state a stream of {n} calls on the first seed's inputs jittered by "
                                  f"±{level:g} reached (on such an input)", host(),
                                  (level, seed * 31 + 1000 * k + STREAM_CALLS + 1)))
            if stop and stop != "settled":
                notes.append(f"the stream at ±{level:g}: {stop} at call {n}")
                break
    return kept, "; ".join(notes)


#: the stream of fresh inputs: calls in a row, each on inputs the problem draws afresh, as real use calls a module
#: (a training or serving loop never repeats a batch: a kernel whose count advances only on a batch unlike the one
#: before passes every loop that repeats one input; tests/test_read_only_args.py::
#: test_a_counter_of_fresh_batches_or_in_a_loop_that_never_settles_is_refused_by_the_candidates_own_stream); its
#: checkpoints
FRESH_CALLS = 128
FRESH_CHECKPOINTS = (16, 32, 64, 128)
#: on a backend that does not time kernels (the CPU interpreter, a thousand times slower a call), the stream stops
#: at this many calls
FRESH_CALLS_INTERPRETED = 64

#: the fresh draws' seeds start this far past the run's base seed (apart from every correctness and timing seed)
FRESH_OFFSET = 50_000
#: the start state's floating values scaled by 1 + this many epsilons of their dtype times U(-1, 1) for the
#: stream's second run: where the two runs' states stay within the loop tolerance, the stream does not amplify
#: roundings there, and a candidate's state is held to the baseline's after as many calls
PERTURB_EPS = 8
#: wall seconds the baseline's two runs may take together (draws included)
FRESH_SECONDS = 60.0
#: host bytes of the baseline's outputs and state after each call of the stream, kept for the candidate's call
#: of the same number to be held to: every call's where they fit, else as many calls as fit, drawn from the OS
#: (a kernel that is wrong between checkpoints and repairs its state before each would pass the checkpoints alone:
#: benchmarks/redteam/rt34/p2, in the same test)
FRESH_KEEP_BYTES = 256 << 20


def fresh_checkpoints(session: GateSession) -> tuple[int, ...]:
    """The stream's checkpoints on this session's backend (its last one, the stream's length)."""
    most = FRESH_CALLS if getattr(session.backend, "measures_time", False) else FRESH_CALLS_INTERPRETED
    return tuple(c for c in FRESH_CHECKPOINTS if c <= most)


@dataclass
class FreshMark:
    """The baseline's state after ``calls`` calls of the stream of fresh inputs (host copies), whether two runs
    from start states a few roundings apart stayed within the loop tolerance there (``stable``), and whether the
    stream ended here because its next call raised or overflowed (``last``)."""

    calls: int
    state: dict[str, Any]
    stable: bool
    last: bool = False


def fresh_draw(session: GateSession, k: int) -> tuple:
    """The stream's ``k``-th inputs: the problem's own draw (:meth:`Problem.draw_inputs`) of a seed of its own."""
    return session.problem.draw_inputs(session.plan.base + FRESH_OFFSET + k)


def fresh_stream(session: GateSession, swap: Any, fn: Any,
                 seed: int) -> tuple[list[FreshMark], dict[int, tuple[Any, dict]], str]:
    """The baseline's states along the stream of fresh inputs from ``seed``'s start state (made once a session
    and seed, the candidate's kernels off), its outputs and state after the calls kept ({call number: (outputs,
    state)}, :data:`FRESH_KEEP_BYTES`), and a note on how it ended.  None where no call changed floating module
    state."""
    return _once(session, swap, seed, lambda: _make_fresh(session, fn, seed), "_fresh_stream")


def stream_calls(session: GateSession, fn: Any, floats: dict, held: dict, start_held: dict, until: int, t0: float,
                 seconds: float, done: int = 0, baseline: bool = True,
                 each: Callable[[int, Any], None] | None = None) -> tuple[int, str]:
    """Calls of the stream of fresh inputs from call ``done`` up to ``until`` (the module's state as it is; its
    integer state ``held`` put back to ``start_held`` after each call), each on its own draw: how many calls were
    made in all, and why it stopped early ("... s spent"; for the ``baseline``, "the baseline raised ...", "its
    state overflowed": that call undone) or "".  A candidate's call that raises is the candidate's error.
    ``each(n, outputs)`` after the ``n``-th call (counted from 1) that counts."""
    while done < until:
        if time.perf_counter() - t0 > seconds:
            return done, f"{seconds:g} s of calls spent"
        inputs, call_seed = fresh_draw(session, done), session.plan.base + FRESH_OFFSET + done
        if baseline:  # the stream ends before a call the module cannot make
            why, r, _ = _baseline_call(session, fn, inputs, call_seed, floats, lambda: put(held, start_held))
            if why:
                return done, why
        else:
            r = run_once(fn, session.module, inputs, training=session.training, seed=call_seed)
            put(held, start_held)
        done += 1
        if each is not None:
            each(done, r.outputs)
        del r
    return done, ""


def _bytes(obj: Any) -> int:
    return sum(t.numel() * t.element_size() for t in flatten(obj) if hasattr(t, "element_size"))


def _draw(calls: list[int], k: int) -> list[int]:
    """``k`` of ``calls`` drawn from the OS (no kernel can know which)."""
    import random

    return random.SystemRandom().sample(calls, max(1, min(k, len(calls))))


def _make_fresh(session: GateSession, fn: Any, seed: int) -> tuple[list[FreshMark], dict[int, tuple[Any, dict]], str]:
    import torch


    floats, held = split_state(session)
    if not floats:
        return [], {}, ""
    t0 = time.perf_counter()

    def host() -> dict[str, Any]:
        return {n: t.detach().to("cpu", copy=True) for n, t in floats.items()}

    kept: dict[int, tuple[Any, dict[str, Any]]] = {}  # call number: (outputs, state) after it (host copies)
    chosen: set[int] | None = None  # the calls kept, once the first call's size is known

    def keep(n: int, outputs: Any) -> None:
        nonlocal chosen
        if chosen is None:
            size = max(1, _bytes(outputs) + sum(t.numel() * t.element_size() for t in floats.values()))
            fit = FRESH_KEEP_BYTES // size
            calls = list(range(1, fresh_checkpoints(session)[-1] + 1))
            chosen = set(calls) if fit >= len(calls) else set(_draw(calls, fit))
        if n in chosen:
            kept[n] = (to_host(outputs), host())

    def run(perturb: bool) -> tuple[list[tuple[int, dict[str, Any]]], str]:
        session.state.start(target_for(session, seed))
        start_held = copies(held)
        if perturb:
            gen = torch.Generator(device="cpu").manual_seed(seed + 4242)
            with torch.no_grad():
                for t in floats.values():
                    u = torch.rand(t.shape, generator=gen, dtype=torch.float64).mul_(2).sub_(1)
                    t.mul_((1 + PERTURB_EPS * torch.finfo(t.dtype).eps * u).to(t.device, t.dtype))
        out, done, stop = [], 0, ""
        for checkpoint in fresh_checkpoints(session):
            # the first run may take half the time, the second what is left
            done, stop = stream_calls(session, fn, floats, held, start_held, checkpoint, t0,
                                      FRESH_SECONDS if perturb else FRESH_SECONDS / 2, done,
                                      each=None if perturb else keep)
            if done:
                out.append((done, host()))
            if stop:
                break
        return out, stop

    states, stop = run(False)
    again, stop_again = run(True)
    loose = lambda dtype: tuple(CARRIED_SLACK * v for v in session.settings.tolerance(dtype))  # noqa: E731
    s = session.settings
    marks = []
    for calls, state in states:
        other = next((o for c, o in again if c == calls), None)
        stable = other is not None and all(
            (cmp := compare_outputs(other[n], state[n], loose, tiny_factor=s.tiny_output_factor,
                                    tiny_rel_tol=s.tiny_rel_tol, label="state")).within_tolerance
            and not cmp.hard_failure for n in state)
        marks.append(FreshMark(calls, state, stable))
    if marks and stop and not stop.endswith("spent"):
        marks[-1].last = True
    reached = {c for c, _ in again}
    unstable = [m.calls for m in marks if not m.stable]
    # a checkpoint the second run never reached (its time ran out, or its call raised) is not one where the two
    # runs parted: say which it was
    first = unstable[0] if unstable else None
    note = (f"the baseline's stream of fresh inputs: {marks[-1].calls if marks else 0} calls"
            + (f", {stop}" if stop else "")
            + ("" if first is None else
               f"; two runs a few roundings apart at the start parted beyond the loop tolerance by call {first}: "
               "states compared only before it" if first in reached else
               f"; the second of two runs a few roundings apart stopped at call {max(reached, default=0)} "
               f"({stop_again or 'no reason given'}) before call {first}: states compared only before it"))
    return marks, kept, note
