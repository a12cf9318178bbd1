"""Compile a module with Inductor and capture every generated graph.

:func:`capture` compiles with ``torch.compile``, records each wrapper Inductor
writes (when the FX graph cache serves a graph instead, the wrapper module that
ran is read back from its file), parses it into a :class:`KernelGraph`, and records each Triton
launch as it happens (grid, config, warps, argument shapes: since torch 2.7
the grid is not in the wrapper text).  It also keeps a handle on each live
wrapper module's namespace, which is how :mod:`pytest_kernelopt.substitute`
swaps kernels into the *same* compiled module without recompiling.
"""

from __future__ import annotations

import contextlib
import sys
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

from .backends import Backend, select_backend
from .errors import CaptureError, ModuleError, RecompiledWarning, UnsupportedGeneratedCode, user_traceback
from .graph import KernelGraph, LaunchTrace
from .parse import parse_output_code

NOTHING_COMPILED = ("Inductor generated no code for this module (it runs as library calls, or fell back to eager): "
                    "nothing to check or optimize")


@dataclass
class CapturedModule:
    """A compiled module, its parsed graphs, and the live wrapper namespaces."""

    compiled: Callable
    original: Callable
    graphs: list[KernelGraph]
    backend: Backend
    training: bool
    compile_seconds: float
    namespaces: dict[int, dict] = field(default_factory=dict)
    outputs: Any = None
    note: str = ""
    _warned: bool = field(default=False, repr=False)

    def graph_of_kernel(self, kernel: str) -> KernelGraph:
        hits = [g for g in self.graphs if kernel in g.kernels]
        if not hits:
            raise KeyError(f"no captured graph has a Triton kernel named {kernel!r}")
        return hits[0]

    def find(self, ref: str) -> tuple[KernelGraph, str]:
        """Resolve ``"name"`` or ``"g<index>:name"`` to (graph, kernel name)."""
        if ":" in ref and ref.startswith("g"):
            gi, name = ref[1:].split(":", 1)
            g = self.graphs[int(gi)]
            if name not in g.kernels:
                raise KeyError(f"graph {gi} has no Triton kernel {name!r}")
            return g, name
        return self.graph_of_kernel(ref), ref

    @property
    def triton_kernels(self) -> list[tuple[KernelGraph, str]]:
        return [(g, name) for g in self.graphs for name in g.kernels]

    def __call__(self, *args, **kwargs):
        """The compiled module in the grad mode it was captured (and judged) in: without gradients for an
        inference capture, with them for ``training=True``.  Called in the other mode, Dynamo would compile a
        second graph that holds none of the substituted kernels and that no gate has seen (the fixture's
        module, called with grad enabled, would run Inductor's baseline while the summary says its kernel came from
        the cache: tests/test_capture.py::test_the_captured_module_runs_in_the_grad_mode_it_was_judged_in)."""
        import torch
        from torch._dynamo.utils import counters

        before = counters["stats"]["unique_graphs"]
        with torch.set_grad_enabled(self.training):
            out = self.compiled(*args, **kwargs)
        if counters["stats"]["unique_graphs"] != before and not self._warned:
            # another shape, layout, dtype or inference mode: Dynamo compiled a graph no gate has seen, which runs
            # Inductor's own kernels, not those the summary lists, which would still say "from cache"
            # (tests/test_capture.py::test_a_call_that_compiles_another_graph_says_so)
            import warnings


            self._warned = True
            warnings.warn(RecompiledWarning(
                "kernelopt: this call compiled a new graph (its inputs differ from those the module was judged on "
                "in shape, layout, dtype, requires_grad or inference mode): it runs Inductor's code, not the kernels "
                "the pytest-kernelopt summary lists for this test"), stacklevel=2)
        return out

    def summary(self) -> str:
        head = f"{len(self.graphs)} graph(s) on {self.backend.name}; compiled in {self.compile_seconds:.1f}s"
        return "\n".join([head] + [g.summary() for g in self.graphs] + ([self.note] if self.note else []))


def torch_version() -> str:
    import torch

    return torch.__version__


def _wrap_inputs(inputs: Any) -> tuple:
    if isinstance(inputs, (list, tuple)):
        return tuple(inputs)
    return (inputs,)


def _eager_error(fn: Callable, args: tuple) -> Exception | None:
    """After a failed compile: the module's own error when it raises in eager PyTorch too (None when it runs)."""
    import torch


    try:
        with torch.no_grad():
            fn(*args)
    except Exception as e:  # noqa: BLE001 -- whatever the module raises is reported as its error
        frames = user_traceback(e)
        where = f"\nthe module's traceback (most recent call last):\n{frames.rstrip()}" if frames else ""
        err = ModuleError(f"{type(fn).__name__} raised {type(e).__name__}: {e} (in eager PyTorch too, so not a "
                          f"compile problem){where}")
        err.original = e  # type: ignore[attr-defined]
        return err
    return None


def _tensors_in(obj: Any) -> list:
    import torch

    out: list = []
    if isinstance(obj, torch.Tensor):
        out.append(obj)
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            out.extend(_tensors_in(o))
    elif isinstance(obj, dict):
        for o in obj.values():
            out.extend(_tensors_in(o))
    return out


def backward_inputs(outputs: Any, seed: int = 0) -> tuple[list, list]:
    """Differentiable outputs and seeded random gradients for them."""
    import torch

    outs = [t for t in _tensors_in(outputs) if t.requires_grad and t.is_floating_point()]
    gen = torch.Generator(device="cpu").manual_seed(seed + 7919)
    grads = [torch.randn(t.shape, generator=gen, dtype=t.dtype).to(t.device) for t in outs]
    return outs, grads


class _Recorder:
    """Collects generated wrappers and run-time launch traces during one compile+run."""

    def __init__(self) -> None:
        self.codes: list[tuple[str, bool]] = []
        self.traces: list[tuple[dict, LaunchTrace]] = []
        self.phases: dict[int, bool] = {}  # id(namespace) -> first launched during backward
        self.backward = False
        self._files: list[tuple[dict, str]] | None = None  # read after the run, when every launch is recorded

    def save_output_code(self, code: str) -> None:
        is_backward = False
        with contextlib.suppress(Exception):
            from torch._inductor.virtualized import V

            is_backward = bool(getattr(V.graph, "is_backward", False))
        # backward graphs are compiled lazily, during the backward call
        self.codes.append((code, is_backward or self.backward))

    def record_launch(self, autotuner: Any, args: tuple, kwargs: dict, namespace: dict) -> None:
        self.phases.setdefault(id(namespace), self.backward)
        self.traces.append((namespace, trace_launch(autotuner, args, kwargs)))

    def namespace_files(self) -> list[tuple[dict, str]]:
        """Each wrapper module that ran, once, with the text of the file it was loaded from (read once)."""
        if self._files is None:
            self._files = []
            seen: set[int] = set()
            for ns, _ in self.traces:
                if id(ns) in seen:
                    continue
                seen.add(id(ns))
                path = ns.get("__file__")
                if not path:
                    continue
                try:
                    with open(path) as f:
                        self._files.append((ns, f.read()))
                except OSError:
                    continue
        return self._files

    def cached_codes(self) -> list[tuple[str, bool]]:
        """Wrappers served by the FX graph cache: no codegen ran, but their modules ran, from files."""
        known = {c.strip() for c, _ in self.codes}
        out: list[tuple[str, bool]] = []
        for ns, text in self.namespace_files():
            if text.strip() not in known and "def call(" in text:
                known.add(text.strip())
                out.append((text, self.phases.get(id(ns), False)))
        return out

    def namespace_for(self, graph: KernelGraph) -> dict | None:
        """The live module dict whose file holds exactly this graph's wrapper source."""
        source = graph.source.strip()
        for ns, text in self.namespace_files():
            if all(k in ns for k in graph.kernels) and (text.strip() == source or source in text):
                return ns
        return None


def trace_launch(autotuner: Any, args: tuple, kwargs: dict) -> LaunchTrace:
    """Grid, config and argument shapes of one CachingAutotuner launch (after it ran)."""
    import torch

    name = getattr(getattr(autotuner, "fn", None), "__name__", None) or autotuner.inductor_meta.get("kernel_name", "?")
    launchers = getattr(autotuner, "launchers", None) or []
    cfg = getattr(launchers[0], "config", None) if launchers else None
    if cfg is None and getattr(autotuner, "configs", None):
        cfg = autotuner.configs[0]
    grid = None
    if "grid" in kwargs:  # torch < 2.7 passed the grid at the call site
        g = kwargs["grid"]
        grid = tuple(g(dict(cfg.kwargs)) if callable(g) else g) if cfg is not None else None
    elif cfg is not None and hasattr(autotuner, "_interpret_args_grid"):
        with contextlib.suppress(Exception):
            _, grid = autotuner._interpret_args_grid(args, cfg)
            grid = tuple(int(v) for v in grid)
    shapes = tuple(tuple(a.shape) if isinstance(a, torch.Tensor) else None for a in args)
    dtypes = tuple(str(a.dtype).replace("torch.", "") if isinstance(a, torch.Tensor) else None for a in args)
    return LaunchTrace(
        kernel=name,
        grid=grid,
        config=dict(cfg.kwargs) if cfg is not None else {},
        num_warps=getattr(cfg, "num_warps", None),
        num_stages=getattr(cfg, "num_stages", None),
        arg_shapes=shapes,
        arg_dtypes=dtypes,
    )


@contextlib.contextmanager
def _recording(rec: _Recorder):
    from torch._inductor.graph import GraphLowering
    from torch._inductor.runtime.triton_heuristics import CachingAutotuner

    orig_save = GraphLowering.save_output_code
    orig_run = CachingAutotuner.run

    def run(self, *args, **kwargs):
        result = orig_run(self, *args, **kwargs)
        namespace = sys._getframe(1).f_globals
        with contextlib.suppress(Exception):
            rec.record_launch(self, args, kwargs, namespace)
        return result

    # patched for the block and restored after it
    GraphLowering.save_output_code = rec.save_output_code  # type: ignore[method-assign]
    CachingAutotuner.run = run  # type: ignore[method-assign]
    try:
        yield
    finally:
        GraphLowering.save_output_code = orig_save  # type: ignore[method-assign]
        CachingAutotuner.run = orig_run  # type: ignore[method-assign]


@contextlib.contextmanager
def _quiet_meta_failures():
    """torch's fake tensors log a traceback of their own (about 40 lines, at ERROR) when a module's op fails
    while Dynamo traces it -- a shape mismatch, say -- before the exception reaches us, and we then report the
    module's own error and frames (:func:`_eager_error`): the log only buried that under torch's frames."""
    import logging

    log = logging.getLogger("torch._subclasses.fake_tensor")
    level = log.level
    log.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        log.setLevel(level)


def capture(
    fn: Callable,
    inputs: Sequence[Any] | Any,
    *,
    training: bool = False,
    backend: Backend | str = "auto",
    options: dict[str, Any] | None = None,
    mode: str | None = None,
    dynamic: bool | None = None,
    seed: int = 0,
) -> CapturedModule:
    """Compile ``fn`` with Inductor, run it once on ``inputs`` and capture every graph.

    ``training=True`` also runs a backward pass (seeded random output gradients),
    which captures the backward graph(s).  ``options`` are Inductor config
    patches passed to ``torch.compile``; ``mode`` is ``torch.compile``'s mode
    (modes that use CUDA graphs are refused: kernels replaced after capture
    would not be replayed).
    """
    import torch

    if isinstance(backend, str):
        backend = select_backend(backend)
    if mode in ("reduce-overhead", "max-autotune"):
        raise CaptureError(f"mode={mode!r} uses CUDA graphs, which freeze kernels at capture time; "
                           "use 'default' or 'max-autotune-no-cudagraphs'")
    if not callable(fn):
        raise CaptureError(f"expected a torch.nn.Module or callable, got {type(fn).__name__}")
    args = _wrap_inputs(inputs)
    opts = {**backend.inductor_options, **(options or {})}
    rec = _Recorder()
    torch._dynamo.reset()
    # the same call a user makes (default dynamic, no empty option patch), so the baseline is what they get
    # and the FX graph cache is shared with their own torch.compile of the module
    if mode not in (None, "default") and opts:
        # torch.compile takes a mode or options, not both: the mode's own options, then the backend's and ours
        opts = {**torch._inductor.list_mode_options(mode), **opts}
        mode = None
    compiled = torch.compile(fn, backend="inductor", options=opts or None, mode=mode, dynamic=dynamic)
    t0 = time.perf_counter()
    with _recording(rec), _quiet_meta_failures():
        try:
            if training:
                out = compiled(*args)
                outs, grads = backward_inputs(out, seed)
                if not outs:
                    raise CaptureError("training=True but the module returned no differentiable output")
                rec.backward = True
                torch.autograd.backward(outs, grads)
            else:
                with torch.no_grad():
                    out = compiled(*args)
        except (CaptureError, UnsupportedGeneratedCode):
            raise
        except Exception as e:  # a bad module, a compile failure, a kernel crash
            eager = _eager_error(fn, args)
            if eager is not None:  # the module itself raises: the user's error and frames, not a compile problem
                raise eager from None
            hint = ""
            if "outside of the scope of a kernel" in str(e):
                hint = ("; Triton's JIT functions were made before TRITON_INTERPRET=1 was set (a test module or "
                        "conftest importing torch._inductor or triton code at its top, before the plugin chose the "
                        "CPU backend): import it inside the test, or set TRITON_INTERPRET=1 in the environment")
            raise CaptureError(f"torch.compile failed for {type(fn).__name__}: {type(e).__name__}: {e}{hint}") from e
    elapsed = time.perf_counter() - t0
    rec.codes.extend(rec.cached_codes())
    if not rec.codes:
        # nothing compiled (an LSTM or GRU runs as one ATen call; the whole function fell back to eager):
        # a normal outcome with nothing to check or optimize, said in the module's summary
        return CapturedModule(compiled, fn, [], backend, training, elapsed, {}, out,
                              note=NOTHING_COMPILED)
    version = torch.__version__
    graphs: list[KernelGraph] = []
    namespaces: dict[int, dict] = {}
    n_fwd = n_bwd = 0
    for i, (code, is_bwd) in enumerate(rec.codes):
        # the CPU backend's interpreter runs Inductor's GPU code on host tensors: a graph with no Triton kernel
        # would be read as "cuda" from its allocations; there everything is on the host
        g = parse_output_code(code, index=i, role="inference", torch_version=version,
                              device="cpu" if backend.name == "cpu" else None)
        ns = rec.namespace_for(g) if g.kernels else None
        # a graph is backward if its kernels first ran during the backward call (AOTAutograd may compile
        # the backward graph early, or serve it from its cache, so the compile-time flag is not enough)
        is_bwd = is_bwd or (ns is not None and rec.phases.get(id(ns), False))
        role = "backward" if is_bwd else ("forward" if training else "inference")
        g = replace(g, role=role)
        mine = [t for n, t in rec.traces if n is ns] if ns is not None else []
        # keep the first trace of each kernel, in launch order
        firsts: dict[str, LaunchTrace] = {}
        for t in mine:
            firsts.setdefault(t.kernel, t)
        g = replace(g, traces=tuple(firsts.values()))
        graphs.append(g)
        if ns is not None:
            namespaces[i] = ns
        n_bwd += is_bwd
        n_fwd += not is_bwd
    if training and n_bwd == 0:
        raise CaptureError("training=True but no backward graph was generated")
    return CapturedModule(compiled=compiled, original=fn, graphs=graphs, backend=backend, training=training,
                          compile_seconds=elapsed, namespaces=namespaces, outputs=out)
