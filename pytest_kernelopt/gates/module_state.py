"""The module's state, and every gate call starting from the same one.

A module's output can depend on more than its inputs: a running average kept in a buffer, a step counter, a
table held as a plain tensor attribute or at module level (a rotary cache).  The gates call the module dozens
of times; if each call saw the state the last one left, a baseline run and a candidate run of the same seed
would see different states (red team 10: a buffer updated from the input turned NaN on the seed with NaN
inputs and every later output with it, so a kernel adding 1.0 to every output compared "max abs 0"; honest
kernels of a module adding 0.5 to a buffer per call failed the float64 gate by drift), and a kernel could keep
a call counter in state no check looked at (a plain attribute's unused element).

So: :func:`state_items` is every tensor a call can reach besides its inputs (parameters, buffers, plain tensor
attributes of every submodule, also inside lists, tuples and dicts, and tensors among the globals of the
user's own ``forward`` functions); :class:`ModuleState` keeps a host copy of all of it as the session found it,
puts back before every gate call whatever differs, and after the call returns what the call changed, which the
gates compare like outputs (``state:<name>`` beside the gradients of a run).
"""

from __future__ import annotations

from typing import Any, Iterator


def _tensors_in(value: Any, prefix: str, depth: int = 2) -> Iterator[tuple[str, Any]]:
    import torch

    if isinstance(value, torch.Tensor):
        yield prefix, value
    elif depth and isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from _tensors_in(v, f"{prefix}[{i}]", depth - 1)
    elif depth and isinstance(value, dict):
        for k, v in value.items():
            yield from _tensors_in(v, f"{prefix}[{k!r}]", depth - 1)


def state_items(module: Any) -> list[tuple[str, Any]]:
    """(name, tensor) for every tensor of ``module``'s state, each once (by identity): parameters, buffers, plain
    tensor attributes of every submodule, and the tensors among the globals of the ``forward`` of every
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
    return out


class ModuleState:
    """A host copy of ``module``'s state as first seen, put back before each call, and what each call changed.

    ``begin()`` before a call puts back every state tensor whose bits differ from the copy (``fast=True``: only
    those some call has been seen to change, without hashing the rest: the timing loop's path); ``end()`` after
    it returns ``(changed, values)``: the names whose bits the call changed, with their exact digests, and host
    copies of those values as ``{"state:<name>": tensor}``.
    """

    def __init__(self, module: Any, key: int = 0) -> None:
        from .trials import digest

        self.key = key
        self.items = dict(state_items(module))
        self.pristine = {n: t.detach().to("cpu", copy=True) for n, t in self.items.items()}
        self.digests = {n: digest(t, key, exact=True) for n, t in self.items.items()}
        self.known: set[str] = set()  # names some call has changed: what a fast begin() puts back
        self._device: dict[str, Any] = {}  # device copies of the known ones, for the timing loop

    def _current(self) -> dict[str, str]:
        from .trials import digest

        return {n: digest(t, self.key, exact=True) for n, t in self.items.items()}

    def _put_back(self, names: Any) -> None:
        import torch

        with torch.no_grad():
            for n in names:
                live = self.items[n]
                src = self._device.get(n)
                if src is None:
                    src = self.pristine[n].to(live.device)
                    if n in self.known:
                        self._device[n] = src
                live.copy_(src)

    def begin(self, fast: bool = False) -> None:
        if fast:
            self._put_back(sorted(self.known))
            return
        now = self._current()
        self._put_back([n for n, d in now.items() if d != self.digests[n]])

    def end(self) -> tuple[dict[str, str], dict[str, Any]]:
        now = self._current()
        changed = {n: d for n, d in now.items() if d != self.digests[n]}
        self.known.update(changed)
        values = {f"state:{n}": self.items[n].detach().to("cpu", copy=True) for n in sorted(changed)}
        return changed, values

    def restore(self) -> None:
        """Everything back as first seen (the module as the session found it)."""
        self.begin()
