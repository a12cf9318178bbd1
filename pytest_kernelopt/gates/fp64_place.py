"""Where the float64 truth runs: on the device if it fits, else on the host, else nowhere (and said so).

A float64 copy of a module needs twice its float32 memory: a 6 GiB softmax input is 12 GiB in float64, and
the eager module's intermediates come on top.  The estimate here is deliberately simple and stated:
``FP64_WORKSPACE`` x (inputs + parameters and buffers) in float64 -- inputs, outputs and one intermediate of
the same size, each held once.  Running out of memory on the device anyway moves the rest to the host
(:func:`pytest_kernelopt.gates.trials.collect_truths`).
"""

from __future__ import annotations

import copy
import math
import os
from typing import Any

from .chunked import chunks, piece, put, spans
from .compare import add_decade_part, any_order, decade_dict, decade_part, raise_levels, values
from .digests import keep, release_device_memory
from .gate_session import GateSession, target_for
from .module_state import ModuleState
from .runner import run_once

#: float64 bytes of (inputs + parameters) times this is what one float64 call is assumed to need
FP64_WORKSPACE = 3.0
#: fraction of the free device / available host memory the float64 truth may plan to use
FREE_FRACTION = 0.85


def estimate_bytes(session: GateSession) -> int:
    """What one float64 call of the eager module is assumed to need (see the module docstring)."""
    import torch

    inputs = session.inputs(session.plan.seeds[0])
    module = session.module
    state = list(module.parameters()) + list(module.buffers()) if hasattr(module, "parameters") else []
    f64 = 0
    for t in list(inputs) + state:
        if isinstance(t, torch.Tensor):
            f64 += t.numel() * (8 if t.is_floating_point() else t.element_size())
    return int(FP64_WORKSPACE * f64)


def record_budget(on_device: bool = False) -> int | None:
    """Bytes of memory a judge may hold in records: ``KERNELOPT_RECORD_BUDGET_GB`` where set (wherever the records
    are kept), else, in host memory, 45% of the memory available when it is asked (a worker needs the rest); on the
    device, None (its free memory is the bound)."""
    env = os.environ.get("KERNELOPT_RECORD_BUDGET_GB")
    if env:
        return int(float(env) * 2**30)
    if on_device:
        return None
    return int(0.45 * host_available()) or 64 * 2**30


def host_available() -> int:
    """Bytes of memory this machine has available now (MemAvailable; 0 where unknown)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _gib(n: float) -> str:
    return f"{n / 2**30:.1f} GiB"


def place(session: GateSession) -> tuple[str, str]:
    """("cuda" | "cpu" | "skipped", why): where this session's float64 truth runs.  On the device whenever it fits
    in the device's free memory (host float64 is about 100x slower than the device's), on the host only when it
    does not, else nowhere, and said so (``tests/test_gates_at_size.py::
    test_the_float64_truth_runs_on_the_device_whenever_it_fits``)."""
    import torch

    need = estimate_bytes(session)
    cap = getattr(session.settings, "fp64_max_gib", None)
    if cap is not None and need > cap * 2**30:
        return "skipped", (f"float64 check skipped: would need about {_gib(need)} (fp64_max_gib is {cap:g}); "
                           "raise fp64_max_gib to run it")
    host = host_available()
    if session.backend.name == "cuda" and torch.cuda.is_available():
        free, _total = torch.cuda.mem_get_info()
        free += torch.cuda.memory_reserved() - torch.cuda.memory_allocated()
        if need <= FREE_FRACTION * free:
            return "cuda", f"about {_gib(need)} needed, {_gib(free)} free on the device"
        if not host or need <= FREE_FRACTION * host:
            return "cpu", (f"about {_gib(need)} needed, {_gib(free)} free on the device: computed on the host "
                           f"({_gib(host)} available)")
        return "skipped", (f"float64 check skipped: would need about {_gib(need)}; {_gib(free)} free on the "
                           f"device, {_gib(host)} available on the host")
    if host and need > FREE_FRACTION * host:
        return "skipped", (f"float64 check skipped: would need about {_gib(need)}; {_gib(host)} available on "
                           "the host")
    return "cpu", f"about {_gib(need)} needed"


def _to(x: Any, device: str) -> Any:
    """A copy of ``x`` with its floating tensors in float64, everything on ``device``.  The float64 conversion
    happens on the host side of a move (moved first to the host, converted after; converted first when moving
    to the device), so the device never holds a float64 temporary of an input bound for the host."""
    import torch

    if isinstance(x, torch.Tensor):
        x = x.detach()
        if not x.is_floating_point():
            return x.to(device, copy=True)
        if x.device == torch.device(device) or x.device.type == device:
            y = x.to(dtype=torch.float64, copy=True)
        elif x.device.type == "cpu":
            y = x.to(dtype=torch.float64).to(device)
        else:
            y = x.to(device, copy=True).to(torch.float64)
        return y.requires_grad_(x.requires_grad)
    if isinstance(x, (list, tuple)):
        return type(x)(_to(v, device) for v in x)
    return x


def _module(session: GateSession, device: str) -> tuple[Any, Any]:
    """The float64 copy of the module on ``device`` and its :class:`.module_state.ModuleState`: copied from the
    state every gate call starts from, its floating parameters, buffers and tensor attributes in float64."""
    if not hasattr(session.module, "double"):
        return _copy(session, device, None, None)
    return _copy(session, device, lambda m: float64_copy(m, device), None)


def float64_copy(module: Any, device: str) -> Any:
    """A copy of ``module`` on ``device`` with its floating parameters, buffers and plain tensor attributes in
    float64."""
    return _with_attributes(copy.deepcopy(module).to(device).double(), lambda v: _to(v, device))


def _native_module(session: GateSession, device: str) -> tuple[Any, Any]:
    """The module in its own precision on ``device`` and its ModuleState: the session's own where it lives
    there, else a copy (kept while the float64 copy it replaces is not needed)."""
    if device == session.backend.device:
        return session.module, session.state
    return _copy(session, f"native:{device}", lambda m: native_copy(m, device), None)


def native_copy(module: Any, device: str) -> Any:
    """A copy of ``module`` in its own precision on ``device``, its plain tensor attributes too."""
    if not hasattr(module, "to"):
        return copy.deepcopy(module)
    return _with_attributes(copy.deepcopy(module).to(device), lambda v: v.detach().to(device, copy=True))


def _with_attributes(m: Any, attribute: Any) -> Any:
    """``m`` with the plain tensor attributes of its submodules, which ``.to()`` and ``.double()`` leave as they
    were, replaced by ``attribute(value)``."""
    import torch

    for sub in m.modules():
        for k, v in list(vars(sub).items()):
            if isinstance(v, torch.Tensor) and not k.startswith("_"):
                setattr(sub, k, attribute(v))
    return m


def _copy(session: GateSession, key: str, make: Any, attribute: Any) -> tuple[Any, Any]:
    """The module as ``make`` copies it (None: the module itself) from the state every gate call starts from,
    with a ModuleState of its own, kept in ``session.fp64_modules`` under ``key`` (one copy at a time); its plain
    tensor attributes, which ``.to()`` and ``.double()`` leave as they were, replaced by ``attribute(value)``
    (None: left alone)."""
    cache = session.fp64_modules
    if key not in cache:
        cache.clear()  # one copy at a time (float64, or native on another device)
        session.state.restore()
        m = session.module if make is None else make(session.module)
        if attribute is not None:
            m = _with_attributes(m, attribute)
        cache[key] = (m, ModuleState(m, session.plan.digest_key))
    return cache[key]


def _moved(inputs: tuple, device: str) -> tuple:
    """``inputs`` on ``device`` in their own dtypes (the same objects where they are there already)."""
    import torch

    return tuple(x.detach().to(device).requires_grad_(x.requires_grad)
                 if isinstance(x, torch.Tensor) and x.is_floating_point() else
                 x.to(device) if isinstance(x, torch.Tensor) else x for x in inputs)


def _distances(got: Any, truth: list, levels: list | None = None, tolerance: Any = None) -> list:
    """For each floating value of ``got`` (None where not floating), over the positions finite in both, a chunk
    at a time on ``got``'s device (the truth, on the host, is moved there a chunk at a time): (sum of squared
    distances to the truth, the same per decade of |truth| (:func:`.compare.decade_sums`)).

    ``levels`` (one host uint8 per position of each floating truth value, None elsewhere): raised in the same
    pass to the code of ``got``'s distance from the truth in ``tolerance(dtype)``s (:func:`level_codes`; 255
    where ``got`` is not finite, or not a floating value of the truth's size): after every honest run, the
    farthest of them."""
    import torch


    levels = levels if levels is not None else [None] * len(truth)
    out: list = []
    for t, q, m in zip(truth, got, levels):
        floating = isinstance(t, torch.Tensor) and t.is_floating_point() and t.numel()
        if not (floating and isinstance(q, torch.Tensor)):
            if m is not None:
                m.fill_(255)
            out.append(None)
            continue
        coded = m is not None and q.is_floating_point() and q.numel() == t.numel()
        if m is not None and not coded:
            m.fill_(255)
        rtol, atol = tolerance(str(q.dtype).replace("torch.", "")) if coded else (0.0, 0.0)
        acc = None
        with any_order():
            for (lo, hi), (tc, qc) in zip(spans(t.numel()), chunks(t, q)):
                acc = add_decade_part(acc, decade_part(tc, qc))
                if coded:
                    raise_levels(m[lo:hi], qc.contiguous(), tc.contiguous(), rtol, atol)
                del tc, qc
        per = {d: r[1] for d, r in decade_dict(acc).items()}
        out.append((sum(per.values()), per))
    return out


def _rms(a: Any, b: Any) -> Any:
    """Two runs' distances (:func:`_distances`) as one: the root mean square, whole and per decade (as L2)."""
    if a is None or b is None:
        return None
    per = {d: math.sqrt((a[1].get(d, 0.0) + b[1].get(d, 0.0)) / 2) for d in set(a[1]) | set(b[1])}
    return math.sqrt((a[0] + b[0]) / 2), per


def split_noise(noise: list) -> tuple[list, list]:
    """:func:`noise_floor`'s values as (the whole value's L2 of each, its L2 per decade of |truth| of each)."""
    return [None if n is None else n[0] for n in noise], [None if n is None else n[1] for n in noise]


def noise_levels(noise: list) -> list:
    """:func:`noise_floor`'s per-position levels (:func:`level_codes`), one uint8 tensor per value (None where not
    floating or not computed)."""
    return [None if n is None or len(n) < 3 else n[2] for n in noise]


def truth_on(session: GateSession, seed: int, device: str) -> tuple[Any, dict, list]:
    """The eager module in float64 on ``device`` for ``seed``'s inputs: (outputs, grads) on the host, and the
    noise floor of every value (None where not floating, see :func:`noise_floor`; :func:`split_noise`)."""
    mod, state = _module(session, device)
    inputs = session.inputs(seed)  # drawn once for the truth and the noise floor (a large seed is not cached)
    try:
        state.start(target_for(session, seed))  # the varied seed's state in float64: its float32 values, widened
        r = run_once(mod, mod, _to(inputs, device), training=session.training, seed=seed, clone=False)
        outputs, grads = keep(r.outputs), {**keep(r.grads), **state.end()[1]}
        del r
        noise = noise_floor(session, seed, values(outputs, grads), inputs, device)
        del inputs
    finally:
        # what the float64 run and the noise floor's four runs held, back to the device: the parent copies this
        # truth there, and the baseline runs that follow need the room
        release_device_memory()
    return outputs, grads, noise


def noise_floor(session: GateSession, seed: int, truth: list, inputs: tuple | None = None,
                device: str | None = None) -> list:
    """How far rounding alone puts each value from the truth, as (L2 distance, {decade of |truth|: L2 distance
    over its positions}): for each of two honest computations in native
    precision -- the compiled module with its own kernels, and the original (uncompiled) module -- the root
    mean square of the distances of two runs, one on the seed's inputs and one on the inputs moved by one
    rounding step of their dtype; the larger of the two.  Where exact arithmetic makes an output insensitive
    to its inputs (the mean of normalised values is 0 whatever the input), rounding of the intermediates
    still moves it, and only a run that rounds them shows by how much.

    Two computations because either alone can round far less than another honest order of the same
    arithmetic: on the H200 a floor taken from the eager module refused a tuner config of the noise-floor
    problem's reduction (1.9x) that one from the compiled module passed; on CPU the reverse held.  The compiled
    runs stay on the device (they need what the module needs); the eager runs happen where the float64 truth
    ran (``device``, default the module's own): where the truth went to the host for want of device memory,
    so do they (a copy of the module in its own precision, the inputs moved in theirs), since the eager
    module's intermediates are not the compiled module's (on the H200 they had taken the gates to 3.5x the
    module's peak: a 2 GiB pointwise chain, 14 GiB)."""
    import torch

    device = device or session.backend.device
    inputs = session.inputs(seed) if inputs is None else inputs
    compiled = _floor_runs(session, seed, truth, inputs, session.captured.compiled, session.module, session.state,
                           local=True)
    module, state = _native_module(session, device)
    local = device == session.backend.device
    eager = _floor_runs(session, seed, truth, inputs if local else _moved(inputs, device), module, module, state,
                        local=local)
    return [None if a is None or b is None else
            (max(a[0], b[0]), {d: max(a[1].get(d, 0.0), b[1].get(d, 0.0)) for d in set(a[1]) | set(b[1])},
             torch.maximum(a[2], b[2]))
            for a, b in zip(compiled, eager)]


def _floor_runs(session: GateSession, seed: int, truth: list, inputs: tuple, fn: Any, module: Any, state: Any,
                local: bool) -> list:
    """One computation's rounding noise (see :func:`noise_floor`): ``fn`` on ``inputs`` and on ``inputs``
    moved by one rounding step, the root mean square of their distances to the truth.  ``local``: the inputs
    are the session's own (cloned for each call); else this call's copies."""
    import torch


    gens: dict[Any, Any] = {}  # one generator per device the inputs live on, each seeded from the seed

    def gen(x: Any) -> Any:
        if x.device not in gens:
            gens[x.device] = torch.Generator(device=x.device).manual_seed(seed + 314159)
        return gens[x.device]

    target = target_for(session, seed)
    dists = []
    levels = [torch.zeros(t.numel(), dtype=torch.uint8, device=t.device) if isinstance(t, torch.Tensor)
              and t.is_floating_point() and t.numel() else None for t in truth]
    tolerance = session.settings.tolerance
    state.start(target)
    r = run_once(fn, module, inputs, training=session.training, seed=seed)
    got = values(r.outputs, {**r.grads, **state.end()[1]})
    dists.append(_distances(got, truth, levels, tolerance))
    del r, got
    # the perturbed floating inputs are this call's own copies: not cloned again (one input's size less on the
    # device); where other tensors (indices, masks) are the seed's own, everything is cloned as usual
    perturbed = tuple(_perturbed(x, gen(x)) if isinstance(x, torch.Tensor) and x.is_floating_point() else x
                      for x in inputs)
    shared = local and any(isinstance(x, torch.Tensor) and not x.is_floating_point() for x in inputs)
    del inputs
    state.start(target)
    r = run_once(fn, module, perturbed, training=session.training, seed=seed, clone=shared)
    del perturbed
    got = values(r.outputs, {**r.grads, **state.end()[1]})
    dists.append(_distances(got, truth, levels, tolerance))
    del r, got
    return [None if (rms := _rms(a, b)) is None else (*rms, m) for a, b, m in zip(*dists, levels)]


def _perturbed(x: Any, gen: Any) -> Any:
    """``x`` with every element times ``1 + eps * u``, ``u`` uniform in [-1, 1) from ``gen`` (a generator on
    ``x``'s device: a host generator drawing a 7 GiB input's worth, a chunk at a time, showed in a stack sample of
    the H200's groupnorm_big gates), drawn a chunk (:data:`.chunked.CHUNK`) at a time: no second full-size temporary."""
    import torch


    eps = torch.finfo(x.dtype).eps
    y = torch.empty_like(x)
    with torch.no_grad():
        for lo, hi in spans(x.numel()):
            u = torch.rand(hi - lo, generator=gen, dtype=torch.float32, device=x.device) * 2 - 1
            put(y, lo, (piece(x, lo, hi) * (1 + eps * u.to(x.dtype))).to(x.dtype))
            del u
    return y.requires_grad_(x.requires_grad)
