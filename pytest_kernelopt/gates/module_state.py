"""The module's state, and every gate call starting from the same one.

A module's output can depend on more than its inputs: a running average kept in a buffer, a step counter, a
table held as a plain tensor attribute or at module level (a rotary cache).  The gates call the module dozens
of times; if each call saw the state the last one left, a baseline run and a candidate run of the same seed
would see different states (a buffer updated from the input turns NaN on the seed with NaN inputs and every
later output with it, so a kernel adding 1.0 to every output would compare "max abs 0"; honest
kernels of a module adding 0.5 to a buffer per call failed the float64 gate by drift), and a kernel could keep
a call counter in state no check looked at (a plain attribute's unused element).

So: :func:`state_items` is every tensor a call can reach besides its inputs (parameters, buffers, plain tensor
attributes of every submodule, also inside lists, tuples and dicts, tensors among the globals of the user's own
``forward`` functions, and tensors held by the user's module classes themselves); :class:`ModuleState` keeps a host copy
of all of it as the session found it, puts back before every gate call whatever differs, and after the call returns what
the call changed, which the gates compare like outputs (``state:<name>`` beside the gradients of a run).
"""

from __future__ import annotations

from typing import Any, Iterator

from ..substitute import storage_bytes
from .digests import digest

#: the packages whose objects are not searched for tensors (a plain object of the user's is: a config, a cache)
_LIBRARY_PACKAGES = ("torch", "builtins", "numpy", "triton", "typing", "functools", "collections", "types", "abc",
                     "enum", "pathlib", "logging", "threading", "weakref")


def _plain_object(value: Any) -> bool:
    """A user's plain object whose attributes may hold tensors (``self.cfg.gain``, ``self.cache.k``): an
    instance with a ``__dict__`` of a class not defined by a library, not a module, class or function."""
    import types

    import torch

    if isinstance(value, (type, types.ModuleType, types.FunctionType, types.MethodType, types.BuiltinFunctionType,
                          torch.nn.Module)):
        return False
    if not hasattr(value, "__dict__") and not any("__slots__" in vars(k) for k in type(value).__mro__[:-1]):
        return False
    return _users(type(value))


#: how deep :func:`_tensors_in` looks below a module attribute, a global or a class attribute, and how many
#: objects it visits from one of them at most (state hidden three levels down: tests/test_read_only_args.py::
#: test_state_held_three_levels_down_in_slots_class_attributes_closures_and_partials_is_found)
STATE_DEPTH = 4
STATE_VISITS = 10_000


def _tensors_in(value: Any, prefix: str, depth: int = STATE_DEPTH, seen: set | None = None
                ) -> Iterator[tuple[str, Any]]:
    """Every tensor reachable from ``value`` within ``depth`` steps: through lists, tuples, dicts, plain objects
    of the user's classes (their ``__dict__``, ``__slots__`` and their classes' attributes), the cells of a
    user's closure and a ``functools.partial``'s arguments."""
    import functools
    import types

    import torch

    seen = set() if seen is None else seen
    if isinstance(value, torch.Tensor):
        yield prefix, value
        return
    if not depth or id(value) in seen or len(seen) >= STATE_VISITS:
        return
    if isinstance(value, (str, bytes, int, float, bool, type(None))):
        return
    seen.add(id(value))
    children: list[tuple[str, Any]] = []
    if isinstance(value, (list, tuple)):
        children = [(f"[{i}]", v) for i, v in enumerate(value)]
    elif isinstance(value, dict):
        children = [(f"[{k!r}]", v) for k, v in value.items()]
    elif isinstance(value, functools.partial):
        children = [(f".args[{i}]", v) for i, v in enumerate(value.args)]
        children += [(f".keywords[{k!r}]", v) for k, v in value.keywords.items()] + [(".func", value.func)]
    elif isinstance(value, types.FunctionType):
        if _users(value) and value.__closure__:
            names = value.__code__.co_freevars
            for name, cell in zip(names, value.__closure__):
                try:
                    children.append((f".<closure {name}>", cell.cell_contents))
                except ValueError:  # an empty cell
                    pass
    elif _plain_object(value):
        children = [(f".{k}", v) for k, v in list(vars(value).items())] if hasattr(value, "__dict__") else []
        for klass in type(value).__mro__:
            if not _users(klass):
                continue
            for slot in (klass.__dict__.get("__slots__", ()) if not isinstance(klass.__dict__.get("__slots__"), str)
                         else (klass.__dict__["__slots__"],)):
                if slot not in ("__dict__", "__weakref__") and hasattr(value, slot):
                    children.append((f".{slot}", getattr(value, slot)))
            children += [(f".<class {klass.__name__}>.{k}", v) for k, v in list(vars(klass).items())
                         if not k.startswith("__") and not callable(v) and not isinstance(v, (property,
                         staticmethod, classmethod))]
    for suffix, v in children:
        yield from _tensors_in(v, prefix + suffix, depth - 1, seen)


def _users(obj: Any) -> bool:
    """Whether ``obj`` (a function or class) is defined outside the libraries of :data:`_LIBRARY_PACKAGES`."""
    return (getattr(obj, "__module__", None) or "builtins").split(".")[0] not in _LIBRARY_PACKAGES


def state_items(module: Any) -> list[tuple[str, Any]]:
    """(name, tensor) for every tensor of ``module``'s state, each once (by identity): parameters, buffers, plain
    tensor attributes of every submodule (also in lists, dicts, plain objects of the user's classes, their
    closures and partials: :func:`_tensors_in`), and the tensors among the globals of the ``forward`` of every
    submodule class not defined in torch itself."""
    import torch

    if not hasattr(module, "named_parameters"):
        return []
    seen: set[int] = set()
    out: list[tuple[str, Any]] = []

    def add(name: str, t: Any) -> None:
        # dense tensors with data only: a sparse, nested or meta tensor has no bits to hash or put back here
        if id(t) not in seen and t.layout == torch.strided and not t.is_meta and not t.is_nested:
            seen.add(id(t))
            out.append((name, t))

    for name, t in list(module.named_parameters()) + list(module.named_buffers()):
        add(name, t)
    classes = []
    for mname, m in module.named_modules():
        for key, value in vars(m).items():
            for name, t in _tensors_in(value, f"{mname + '.' if mname else ''}{key}"):
                add(name, t)
        if type(m) not in classes:
            classes.append(type(m))
    for cls in classes:
        if cls.__module__.split(".")[0] == "torch":
            continue
        scope = getattr(getattr(cls, "forward", None), "__globals__", None) or {}
        for key, value in list(scope.items()):
            for name, t in _tensors_in(value, f"<global {cls.__module__}.{key}>"):
                add(name, t)
        # tensors held by the class itself (shared by its instances: a call counter in ``Model.calls``, red
        # team 11), and by its user-defined bases
        for klass in cls.__mro__:
            if klass.__module__.split(".")[0] in ("torch", "builtins"):
                continue
            for key, value in list(vars(klass).items()):
                for name, t in _tensors_in(value, f"<class {klass.__module__}.{klass.__qualname__}.{key}>"):
                    add(name, t)
    return out


#: the seed whose calls start from a *varied* state (:func:`varied_values`): every floating parameter, buffer
#: and tensor attribute scaled by a factor in [1 - VARY_SCALE, 1 + VARY_SCALE) and offset by up to VARY_OFFSET
#: times its RMS (nonnegative tensors, variances say, stay nonnegative).  A module is judged as it is built, and
#: built modules sit at their initialisation: a LayerNorm's weight 1 and bias 0, where a kernel dropping them is
#: invisible; a trained model's are not (tests/test_module_state.py::
#: test_parameters_at_their_initial_values_do_not_hide_a_kernel_that_drops_them).
VARY_SCALE = 0.25
VARY_OFFSET = 0.1
#: on the same seed, the module's integer *counters* (integer scalars a call changes: a step count, a position)
#: are advanced by 10 ** U(*VARY_COUNTER_DECADES) steps, 3 to 1000: every call starting from step 0, a kernel
#: that reads the counter and goes wrong after step 3 would pass (tests/test_module_state.py::
#: test_a_step_counter_is_advanced_on_the_varied_seed_and_a_time_bomb_is_caught).  Only counters, and only where
#: the eager module on the host runs with them advanced (a position used as an index may not: see
#: :meth:`pytest_kernelopt.gates.cascade.EvaluationSession.find_counters`)
VARY_COUNTER_DECADES = (0.5, 3.0)
#: and on another seed (:data:`pytest_kernelopt.gates.seed_plan.FAR_COUNTER_INDEX`, its floating state as found)
#: by 10 ** U(3, 9) steps: for a kernel wrong only after step 1000, or past 2 ** 24
FAR_COUNTER_DECADES = (3.0, 9.0)


def float_scalars(pristine: dict[str, Any]) -> list[str]:
    """Names of the floating single-element tensors of a state: a counter may be kept in one
    (tests/test_module_state.py::test_a_counter_kept_in_a_float_is_stepped_not_scaled)."""
    return sorted(n for n, t in pristine.items() if t.numel() == 1 and t.is_floating_point())


def int_scalars(pristine: dict[str, Any]) -> list[str]:
    """Names of the integer (not boolean) single-element tensors of a state: what may be a counter."""
    import torch

    return sorted(n for n, t in pristine.items() if t.numel() == 1 and not t.is_floating_point()
                  and not t.is_complex() and t.dtype != torch.bool)


def varied_values(pristine: dict[str, Any], seed: int, counters: Any = (), *, floats: bool = True,
                  decades: tuple[float, float] = VARY_COUNTER_DECADES, caps: dict[str, int] | None = None
                  ) -> dict[str, Any]:
    """The floating state tensors of ``pristine`` ({name: host tensor}) varied for ``seed`` (deterministic: the
    same in every process judging the problem; ``floats=False``: left as found), in their own dtypes; and the
    integer scalars named in ``counters`` advanced by 10 ** U(*decades) steps, never past their dtype's range nor
    past ``caps[name]`` steps (a position the module can only run so far with)."""
    import math

    import torch

    gen = torch.Generator().manual_seed(seed + 271_828)
    out: dict[str, Any] = {}
    steps = torch.Generator().manual_seed(seed + 314_159)  # apart: the floating draws do not depend on counters
    lo, hi = decades
    stepped = set()
    for name in sorted(counters):
        t = pristine.get(name)
        if t is None or t.numel() != 1 or t.dtype == torch.bool or t.is_complex():
            continue
        step = int(round(10 ** (lo + (hi - lo) * float(torch.rand((), generator=steps, dtype=torch.float64)))))
        if caps and name in caps:
            step = min(step, caps[name])
        if t.is_floating_point():  # a counter kept in a float: whole numbers stay exact up to 2 ** mantissa bits
            top = 2 ** (round(-math.log2(torch.finfo(t.dtype).eps)) + 1)
            value = float(t.reshape(-1)[0])
            if not math.isfinite(value):
                continue
            step = min(step, int(top - value))
        else:
            step = min(step, torch.iinfo(t.dtype).max - int(t.reshape(-1)[0]))
        if step > 0:
            out[name] = (t + step).to(t.dtype)
            stepped.add(name)
    for name in sorted(pristine) if floats else ():
        t = pristine[name]
        if not t.is_floating_point() or not t.numel() or name in stepped:
            continue
        x = t.detach().to(torch.float64)
        u = torch.rand(t.shape, generator=gen, dtype=torch.float64) * 2 - 1
        v = torch.rand(t.shape, generator=gen, dtype=torch.float64) * 2 - 1
        finite = x[torch.isfinite(x)]
        rms = float(finite.pow(2).mean().sqrt()) if finite.numel() else 0.0
        rms = rms if rms > 0 and math.isfinite(rms) else 1.0
        nonnegative = bool((x[~torch.isnan(x)] >= 0).all())
        out[name] = (x * (1 + VARY_SCALE * u) + VARY_OFFSET * rms * (v.abs() if nonnegative else v)).to(t.dtype)
    return out


#: how :meth:`ModuleState.end` names the bytes of a state tensor's storage that no state tensor views
BEYOND_VIEW = " (its storage beyond the state's views)"


class _Beyond:
    """The bytes of one storage that hold module state but lie outside every state tensor viewing it (``tap.last =
    buf[0]``, a counter kept in ``buf[1]``: tests/test_read_only_args.py::
    test_the_storage_beyond_a_state_view_is_put_back_and_a_candidate_changing_it_is_refused): as first seen (a
    host copy), where they are (a mask),
    and their digest.  A call may not change them; :class:`ModuleState` puts them back like the state itself."""

    def __init__(self, name: str, flat: Any, mask: Any, key: int) -> None:
        self.name = name + BEYOND_VIEW
        self.flat = flat  # the storage's bytes, a live view
        self.mask = mask  # True: viewed by some state tensor
        self.key = key
        self.pristine = flat.detach().to("cpu", copy=True)
        self.digest = self.now()

    def now(self) -> str:
        return digest(self.flat.masked_fill(self.mask, 0), self.key, exact=True)

    def put_back(self) -> None:
        import torch

        with torch.no_grad():
            self.flat.copy_(torch.where(self.mask, self.flat, self.pristine.to(self.flat.device)))


def beyond_views(items: dict[str, Any], key: int = 0) -> list[_Beyond]:
    """:class:`_Beyond` for every storage of ``items`` ({name: state tensor}) with bytes no state tensor views:
    a state tensor that is a view of a larger tensor no state holds.  Whole tensors have none (nothing to keep)."""
    import torch

    groups: dict[tuple, list[tuple[str, Any]]] = {}
    for name, t in items.items():
        store = t.untyped_storage()
        groups.setdefault((str(t.device), store.data_ptr()), []).append((name, t))
    out = []
    for members in groups.values():
        t0 = members[0][1]
        n = t0.untyped_storage().nbytes()
        if not n or any(t.is_contiguous() and t.storage_offset() == 0 and t.numel() * t.element_size() == n
                        for _, t in members):
            continue
        flat = storage_bytes(t0)
        mask = torch.zeros(n, dtype=torch.bool, device=t0.device)
        for _, t in members:
            if t.numel():
                es = t.element_size()
                mask.as_strided(tuple(t.shape) + (es,), tuple(st * es for st in t.stride()) + (1,),
                                t.storage_offset() * es).fill_(True)
        if not bool(mask.all()):
            out.append(_Beyond(min(name for name, _ in members), flat, mask, key))
    return out


def copies(items: dict[str, Any]) -> dict[str, Any]:
    """A copy of each of ``items`` ({name: state tensor}), where it lives (:func:`put` puts them back)."""
    import torch

    with torch.no_grad():
        return {n: t.detach().clone() for n, t in items.items()}


def put(items: dict[str, Any], saved: dict[str, Any]) -> None:
    """``items``' tensors set to ``saved`` (:func:`copies` of them), in place."""
    import torch

    with torch.no_grad():
        for n, t in items.items():
            t.copy_(saved[n])


class ModuleState:
    """A host copy of ``module``'s state as first seen, put back before each call, and what each call changed.

    ``begin()`` before a call puts back every state tensor whose bits differ from the copy (``fast=True``: only
    those some call has been seen to change, without hashing the rest: the timing loop's path); ``end()`` after
    it returns ``(changed, values)``: the names whose bits the call changed, with their exact digests, and host
    copies of those values as ``{"state:<name>": tensor}``.
    """

    def __init__(self, module: Any, key: int = 0) -> None:
        self.key = key
        self.items = dict(state_items(module))
        self.pristine = {n: t.detach().to("cpu", copy=True) for n, t in self.items.items()}
        self.digests = {n: digest(t, key, exact=True) for n, t in self.items.items()}
        #: the storage beyond the state's views: put back, and a change reported (never compared as a value)
        self.beyond = beyond_views(self.items, key)
        self.known: set[str] = set()  # names some call has changed: what a fast begin() puts back
        self._device: dict[str, Any] = {}  # device copies of the known ones, for the timing loop
        self._ref: dict[str, str] | None = None  # digests a call started from, where not the pristine ones
        self._targets: dict[int, dict[str, str]] = {}  # id(target) -> its digests
        self._varied: dict[int, dict[str, Any]] = {}  # seed -> varied_values(self.pristine, seed)
        #: the integer scalars the varied seed advances (None: not looked for yet; see ``set_counters``), and
        #: those the far-counter seed advances
        self.counters: tuple[str, ...] | None = None
        self.far_counters: tuple[str, ...] = ()
        #: the most steps the varied seed advances a counter the module can only run so far with (a position)
        self.caps: dict[str, int] = {}
        #: the calls past the varied seed's advance the module is known to run with (None: no counter advanced,
        #: nothing bounds the loops), and each counter's step in one call (see ``counters.find_counters``)
        self.margin: int | None = None
        self.per_call: dict[str, int] = {}
        self._far: dict[int, dict[str, Any]] = {}

    def _current(self) -> dict[str, str]:
        return {n: digest(t, self.key, exact=True) for n, t in self.items.items()}

    def _put_back_beyond(self) -> None:
        """The storage beyond the state's views as first seen, where a call changed it (before the views are put
        back: a state view is put back over it where they meet)."""
        for b in self.beyond:
            if b.now() != b.digest:
                b.put_back()

    def _put_back(self, names: Any) -> None:
        import torch

        self._put_back_beyond()
        with torch.no_grad():
            for n in names:
                live = self.items[n]
                src = self._device.get(n)
                if src is None:
                    src = self.pristine[n].to(live.device)
                    if n in self.known:
                        self._device[n] = src
                live.copy_(src)

    def varied(self, seed: int) -> dict[str, Any]:
        """:func:`varied_values` of this state as first seen, for ``seed`` (made once)."""
        if seed not in self._varied:
            self._varied[seed] = varied_values(self.pristine, seed, self.counters or (), caps=self.caps)
        return self._varied[seed]

    def int_scalars(self) -> list[str]:
        return int_scalars(self.pristine)

    def float_scalars(self) -> list[str]:
        return float_scalars(self.pristine)

    def far(self, seed: int) -> dict[str, Any]:
        """The far-counter seed's state: :attr:`far_counters` advanced far (:data:`FAR_COUNTER_DECADES`), the
        rest as first seen (made once)."""
        if seed not in self._far:
            self._far[seed] = varied_values(self.pristine, seed, self.far_counters, floats=False,
                                            decades=FAR_COUNTER_DECADES)
        return self._far[seed]

    def set_counters(self, names: Any, far: Any = (), caps: dict[str, int] | None = None) -> None:
        """The integer scalars the varied seed (``names``, by at most ``caps[name]`` steps where given) and the
        far-counter seed (``far``) advance from now on (states made before are dropped)."""
        self.counters = tuple(sorted(names))
        self.far_counters = tuple(sorted(far))
        self.caps = dict(caps or {})
        self._varied.clear()
        self._far.clear()
        self._targets.clear()

    def start(self, target: dict[str, Any] | None) -> None:
        """Before a call: the state as in ``target`` ({name: host tensor}; a name it lacks as first seen,
        every value in the state's own dtype), or :meth:`begin` where ``target`` is None."""
        if not target:
            self.begin()
            return
        import torch

        self._put_back_beyond()
        sources = {n: (target[n].to(self.pristine[n].dtype) if n in target else self.pristine[n]) for n in self.items}
        if id(target) not in self._targets:
            self._targets[id(target)] = {n: digest(src, self.key, exact=True) for n, src in sources.items()}
        with torch.no_grad():
            for n, src in sources.items():
                live = self.items[n]
                live.copy_(src.to(live.device))
        self._ref = self._targets[id(target)]

    def begin(self, fast: bool = False) -> None:
        self._ref = None
        if fast:
            self._put_back(sorted(self.known))
            return
        now = self._current()
        self._put_back([n for n, d in now.items() if d != self.digests[n]])

    def end(self) -> tuple[dict[str, str], dict[str, Any]]:
        now = self._current()
        ref = self._ref or self.digests
        changed = {n: d for n, d in now.items() if d != ref[n]}
        self.known.update(changed)
        # bytes beyond the views: named when changed, so a candidate changing them where the baseline does not is
        # refused as changing state the baseline leaves alone; not a value (no tolerance applies to them)
        values = {f"state:{n}": self.items[n].detach().to("cpu", copy=True) for n in sorted(changed)}
        changed.update({b.name: d for b in self.beyond if (d := b.now()) != b.digest})
        return changed, values

    def restore(self) -> None:
        """Everything back as first seen (the module as the session found it)."""
        self.begin()
