"""One call of the module recorded as a run, and a call held to the baseline's from the same state.

The pieces the collection (:mod:`.trials`), the structure probes (:mod:`.structure_probes`) and the loops
(:mod:`.candidate_loop`) are made of:

* :func:`run_call` -- one call on a seed's inputs (or given ones), from the state the session starts every call
  from or from the state the last call left, with Inductor's allocations pre-filled (:mod:`.runner`), recorded as a
  :class:`~.trial_records.Run` on the host;
* :func:`pair` / :func:`beside_baseline` -- the candidate's call and the baseline's from the same state, kept with
  :func:`keep_pair` (whole, or past :data:`.trial_records.CARRIED_TOTAL_BYTES` as a keyed sample of positions,
  gathered where the outputs are: :class:`Sample`);
* :func:`baseline_raises` / :func:`device_fault` -- whether an error is the candidate's or the module's own.
"""

from __future__ import annotations

from typing import Any

from . import trial_records
from .compare import flatten
from .digests import digest, keep
from .gate_session import GateSession, target_for
from .module_state import copies, put
from .runner import Allocations, poisoned_allocations, run_once
from .trial_records import CandidateRecord, Run


def run_call(session: GateSession, fn: Any, seed: int, fill: str = "nan", record: Any = None, stale: Any = None,
             buffers: bool = False, light: bool = False, carry: bool = False, inputs: tuple | None = None,
             sample: "Sample | None" = None) -> Run:
    """One call on ``seed``'s inputs, from the module state the session started with, with Inductor's
    allocations pre-filled (:func:`.runner.poisoned_allocations`: NaN poison, random values, zeros, or the previous
    run's contents); the state the call changed is part of the run (``state:<name>``).  ``buffers``: the digests
    of its outputs and of every buffer the call allocated, as the call left them (:attr:`Run.buffers`);
    ``light``: those digests alone, no outputs (a run compared bit for bit, never against the baseline);
    ``carry``: the call starts from the state the last call left, as a loop's next iteration does; ``inputs``:
    these instead of the seed's (the seed still seeds the call's random stream); ``sample``: the outputs and state
    kept only at its positions (:class:`Sample`), gathered where they are, so only those reach the host."""
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
    if sample is not None:
        return Run(keep(sample.take(r.outputs, ("outputs",))), keep(sample.take({**r.grads, **state}, ("grads",))),
                   inputs_after, state_changed=changed, buffers=left)
    return Run(keep(r.outputs), {**keep(r.grads), **state}, inputs_after, state_changed=changed, buffers=left)


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


def pair(session: GateSession, swap: Any, fn: Any, seed: int, inputs: tuple | None, rec: CandidateRecord,
         where: str) -> None:
    """The candidate's call on ``seed`` (or ``inputs``) from the module's state as it is, and the baseline's from
    the same state (:func:`beside_baseline`)."""
    before = copies(session.state.items)
    sample = pair_sample(rec)
    cand = run_call(session, fn, seed, carry=True, inputs=inputs, sample=sample)
    beside_baseline(session, swap, fn, seed, inputs, before, cand, rec, where, sample)


def device_fault(e: BaseException) -> bool:
    """An error that ends the device's context: the candidate's, and it leaves nothing to ask the baseline."""
    return any(w in str(e) for w in ("CUDA", "device-side", "illegal memory", "AcceleratorError"))


def baseline_raises(session: GateSession, swap: Any, fn: Any, seed: int, inputs: tuple | None,
                    before: dict[str, Any]) -> str:
    """After the candidate's call raised: the baseline's call on the same inputs (``seed``'s, or ``inputs``) from
    the state ``before`` (:func:`.module_state.copies`): the name of its error where it raises too (the module
    cannot make this call: not the candidate's doing), else "" (the error is the candidate's)."""
    put(session.state.items, before)
    swap.off()
    try:
        run_call(session, fn, seed, carry=True, inputs=inputs)
    except Exception as e:  # noqa: BLE001 -- the baseline fails too
        return type(e).__name__
    finally:
        swap.on()
    return ""


def beside_baseline(session: GateSession, swap: Any, fn: Any, seed: int, inputs: tuple | None, before: dict[str, Any],
                    cand: Run, rec: CandidateRecord, key: Any, sample: "Sample | None" = None) -> None:
    """After the candidate's call ``cand`` from the state ``before`` (:func:`.module_state.copies`): the baseline's
    call from ``before``, the pair appended to :attr:`CandidateRecord.carried` as ``key`` (a loop's step, or where
    the call started), and the state the candidate's call left put back (a loop's next call starts from it).
    ``sample``: the one ``cand`` was kept at (:func:`pair_sample`), for the baseline's call too."""
    items = session.state.items
    after = copies(items)
    put(items, before)
    swap.off()
    try:
        base = run_call(session, fn, seed, carry=True, inputs=inputs, sample=sample)
    finally:
        swap.on()
    put(items, after)
    del after
    keep_pair(rec, key, cand, base, sample)


def keep_pair(rec: CandidateRecord, key: Any, cand: Run, base: Run, sample: "Sample | None" = None) -> None:
    """Append the pair ``[key, cand, base]`` to :attr:`CandidateRecord.carried`: whole while the pairs kept stay
    within :data:`.trial_records.CARRIED_TOTAL_BYTES`, else each tensor that the two runs hold alike (shape,
    dtype, strides) as the same keyed sample of its positions in both (:func:`_sample_positions`); a tensor they
    hold otherwise stays whole, for the judge to refuse.  ``sample``: the runs were kept at its positions already
    (:func:`pair_sample`: the pair before it showed this one would not fit whole)."""
    if sample is not None:
        rec.carried_sampled += 1
        rec.carried_pair_bytes = sample.whole_bytes
    else:
        size = rec.carried_pair_bytes = run_bytes(cand) + run_bytes(base)
        if rec.carried_bytes + size > trial_records.CARRIED_TOTAL_BYTES:
            cand, base = _sampled(cand, base)
            rec.carried_sampled += 1
    rec.carried_bytes += run_bytes(cand) + run_bytes(base)
    rec.carried.append([key, cand, base])


def pair_sample(rec: CandidateRecord) -> "Sample | None":
    """The keyed sample the next pair of calls is kept at, where a pair the size of the last one would take the
    pairs kept past :data:`.trial_records.CARRIED_TOTAL_BYTES` (:func:`keep_pair`): its positions are gathered on
    the device right after each call, so a sampled pair's whole outputs are never copied to the host; else None
    (kept whole, or sampled on the host by :func:`keep_pair`)."""
    if rec.carried_pair_bytes and rec.carried_bytes + rec.carried_pair_bytes > trial_records.CARRIED_TOTAL_BYTES:
        return Sample()
    return None


class Sample:
    """The same keyed positions of each tensor of a pair of runs (:func:`_sample_positions`), by its place in the
    run, drawn from a key the OS gives when the first run (the candidate's, after its call) is taken: no kernel
    could have known where its values would be read.  A tensor the second run holds otherwise (shape, dtype,
    strides) than the first stays whole, for the judge to refuse."""

    def __init__(self) -> None:
        self._gen: Any = None
        self._at: dict[tuple, tuple[tuple, Any]] = {}
        self.whole_bytes = 0  # the pair's bytes, had it been kept whole

    def take(self, value: Any, path: tuple) -> Any:
        """``value`` with each tensor reduced to its positions (nested through tuples, lists and dicts)."""
        import torch

        if isinstance(value, torch.Tensor):
            self.whole_bytes += value.numel() * value.element_size()
            sig = (tuple(value.shape), value.dtype, value.stride() if value.numel() > 1 else ())
            if path not in self._at:
                if self._gen is None:
                    import secrets

                    self._gen = torch.Generator().manual_seed(secrets.randbits(62))
                self._at[path] = (sig, _sample_positions(value.numel(), self._gen))
            want, at = self._at[path]
            if want != sig or at is None:
                return value
            return value.detach().reshape(-1)[at.to(value.device)]
        if isinstance(value, list):
            return [self.take(v, path + (i,)) for i, v in enumerate(value)]
        if isinstance(value, tuple):
            return tuple(self.take(v, path + (i,)) for i, v in enumerate(value))
        if isinstance(value, dict):
            return {k: self.take(v, path + (k,)) for k, v in value.items()}
        return value


def _sample_positions(numel: int, gen: Any) -> Any:
    """Flat positions of a tensor of ``numel`` values (None: all of them, the tensor is small): half uniform, half in
    :data:`.trial_records.SAMPLE_RUNS` contiguous runs, sorted."""
    import torch

    if numel <= trial_records.CARRIED_SAMPLE:
        return None
    run = max(1, trial_records.CARRIED_SAMPLE // (2 * trial_records.SAMPLE_RUNS))
    starts = torch.randint(0, numel - run + 1, (trial_records.SAMPLE_RUNS, 1), generator=gen)
    runs = (starts + torch.arange(run)).reshape(-1)
    points = torch.randint(0, numel, (trial_records.CARRIED_SAMPLE // 2,), generator=gen)
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


def run_bytes(run: Run) -> int:
    """Bytes of a run's outputs and state (its tensors)."""
    import torch

    return sum(t.numel() * t.element_size() for t in [*flatten(run.outputs), *flatten(run.grads)]
               if isinstance(t, torch.Tensor))
