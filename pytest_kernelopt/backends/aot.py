"""Compile a Triton kernel module ahead of time for a GPU, with or without a GPU present.

:func:`aot_compile` takes a kernel module's source -- as Inductor writes it
(imports, ``triton_helpers.set_driver_to_*()``, a ``@triton_heuristics.<kind>``
decorator over ``@triton.jit``) or a plain module with a ``@triton.jit``
kernel and an explicit signature -- and runs ``triton.compile`` for the target
GPU (default sm90) once per launch configuration the heuristics would use.
Stock PyPI triton does this on a machine without a GPU or libcuda.

In a ``TRITON_INTERPRET=1`` process every ``@triton.jit`` function --
the kernel, its helpers, Inductor's ``triton_helpers`` and triton's own
standard library (``tl.sum``, ``tl.max``, ...) -- is an
``InterpretedFunction``, which the compiler cannot call.  For the duration of
a compile those are swapped for real ``JITFunction`` objects and put back
afterwards; ``triton.language`` is left exactly as it was found (checked).
``libdevice`` calls compile to the real externs because the CPU shim patches
libdevice only while an interpreted launch runs.

The module is loaded in a private namespace (never ``sys.modules`` or the
code cache), so loading it here cannot disturb a copy another component runs.
Loading executes the module's top level: only pass code that the static gate
has checked.
"""

from __future__ import annotations

import ast
import contextlib
import itertools
import linecache
import struct
import sys
import threading
import time
import types
from dataclasses import asdict, dataclass
from typing import Any, Iterable, Mapping, Sequence

from ..kernel_loader import load_kernel_module

Target = tuple  # ("cuda", 90, 32) or ("hip", "gfx942", 64)
DEFAULT_TARGET: Target = ("cuda", 90, 32)

_LOCK = threading.RLock()
_COUNTER = itertools.count()


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class ConfigResult:
    """The compile of one launch configuration.

    ``config`` holds the constexpr values plus ``num_warps`` and ``num_stages``.
    ``shared`` is the static shared memory in bytes; ``n_regs`` the registers
    per thread read from the cubin (None where there is no cubin, e.g. hip).
    """

    config: dict[str, int]
    ok: bool
    error: str = ""
    shared: int | None = None
    n_regs: int | None = None
    seconds: float = 0.0


@dataclass(frozen=True)
class AotResult:
    """Every configuration's compile of one kernel; ``error`` is set when none could be tried."""

    kernel: str
    target: tuple
    configs: tuple[ConfigResult, ...] = ()
    error: str = ""

    @property
    def ok(self) -> bool:
        return not self.error and bool(self.configs) and all(c.ok for c in self.configs)

    @property
    def first_error(self) -> str:
        if self.error:
            return self.error
        bad = next((c for c in self.configs if not c.ok), None)
        return f"config {bad.config}: {bad.error}" if bad is not None else ""

    @property
    def seconds(self) -> float:
        return sum(c.seconds for c in self.configs)

    @property
    def max_shared(self) -> int | None:
        vals = [c.shared for c in self.configs if c.shared is not None]
        return max(vals) if vals else None

    def to_json(self) -> dict[str, Any]:
        return {"kernel": self.kernel, "target": list(self.target), "error": self.error,
                "configs": [asdict(c) for c in self.configs]}


# --------------------------------------------------------------------------- targets


def _gpu_target(target: Any):
    from triton.backends.compiler import GPUTarget

    if isinstance(target, GPUTarget):
        return target
    backend, arch, warp = target
    return GPUTarget(backend, arch, int(warp))


def as_target_tuple(target: Any) -> Target:
    """``("cuda", 90, 32)`` for a tuple, list or ``GPUTarget``."""
    if hasattr(target, "backend"):
        return (target.backend, target.arch, target.warp_size)
    return tuple(target)


def gpu_target_of_current_device() -> Target | None:
    """The current GPU's target, e.g. ``("cuda", 90, 32)``; None without a GPU."""
    import torch

    if not torch.cuda.is_available():
        return None
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    if getattr(torch.version, "hip", None):
        return ("hip", props.gcnArchName.split(":")[0], int(getattr(props, "warp_size", 64) or 64))
    return ("cuda", props.major * 10 + props.minor, 32)


# --------------------------------------------------------------------------- loading


def neutralize_driver_calls(source: str) -> str:
    """``source`` with module-level ``triton_helpers.set_driver_to_*()`` calls made ``pass`` (lines kept)."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    for node in tree.body:
        if (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Attribute)
                and node.value.func.attr in ("set_driver_to_cpu", "set_driver_to_gpu")):
            first = lines[node.lineno - 1]
            indent = first[: len(first) - len(first.lstrip())]
            lines[node.lineno - 1] = indent + "pass\n"
            assert node.end_lineno is not None  # ast.parse sets every node's end position
            for i in range(node.lineno, node.end_lineno):
                lines[i] = "\n"
    return "".join(lines)


def _load_private(source: str, name: str, filename: str) -> dict[str, Any]:
    """The kernel module of ``source`` as a namespace, built from allowlist-checked source by the harness
    (:func:`pytest_kernelopt.kernel_loader.load_kernel_module`; unchecked source is refused there).

    ``filename`` is kept for the caller's bookkeeping; the loader keeps the source in ``linecache`` itself.
    """
    return load_kernel_module(source, name).__dict__


# --------------------------------------------------------------------------- interpreter -> compiler view

_JIT_OF: dict[int, tuple[Any, Any]] = {}  # id(InterpretedFunction) -> (it, its JITFunction)


def _interpreted_type():
    try:
        from triton.runtime.interpreter import InterpretedFunction
    except ImportError:  # pragma: no cover
        return None
    return InterpretedFunction


def _as_jit(fn: Any, cache: bool = False) -> Any:
    """The ``JITFunction`` that ``@triton.jit`` would have made without the interpreter.

    ``cache`` keeps the result for library functions (``tl.sum``, ``triton_helpers.max2``),
    which live as long as the process; a candidate's functions are converted afresh.
    """
    import inspect

    from triton.runtime.jit import JITFunction

    hit = _JIT_OF.get(id(fn))
    if hit is not None and hit[0] is fn:
        return hit[1]
    accepted = inspect.signature(JITFunction.__init__).parameters
    kwargs = {k: v for k, v in getattr(fn, "kwargs", {}).items() if k in accepted}
    jit = JITFunction(fn.fn, **kwargs)
    if cache:
        _JIT_OF[id(fn)] = (fn, jit)
    return jit


def _member_target(value: Any, interp_type: type) -> Any:
    """The InterpretedFunction behind a ``tl.tensor`` member-function wrapper, if any."""
    for cell in getattr(value, "__closure__", None) or ():
        with contextlib.suppress(ValueError):
            if isinstance(cell.cell_contents, interp_type):
                return cell.cell_contents
    return None


@contextlib.contextmanager
def compiler_view(namespaces: Iterable[dict] = ()):
    """Within the block, every interpreted ``@triton.jit`` function is a real ``JITFunction``.

    Covers ``triton.language`` and its submodules, ``tl.tensor``'s member
    functions, Inductor's ``triton_helpers`` and the given namespaces.  Outside
    an interpreter process this does nothing.  Everything is put back on exit.
    """
    interp = _interpreted_type()
    if interp is None:
        yield
        return
    import triton.language as tl

    modules = [m for n, m in list(sys.modules.items()) if m is not None and (
        n == "triton.language" or n.startswith("triton.language.")
        or n == "torch._inductor.runtime.triton_helpers")]
    saved: list[tuple[Any, str, Any]] = []

    def swap(obj: Any, key: str, new: Any) -> None:
        saved.append((obj, key, obj[key] if isinstance(obj, dict) else vars(obj)[key]))  # the raw value
        if isinstance(obj, dict):
            obj[key] = new
        else:
            setattr(obj, key, new)

    try:
        for mod in modules:
            for key, val in list(vars(mod).items()):
                if isinstance(val, interp):
                    swap(mod, key, _as_jit(val, cache=True))
        for key, val in list(vars(tl.core.tensor).items()):
            target = _member_target(val, interp)
            if target is not None:
                swap(tl.core.tensor, key, _as_jit(target, cache=True))
        for ns in namespaces:
            for key, val in list(ns.items()):
                if isinstance(val, interp):
                    swap(ns, key, _as_jit(val))
        yield
    finally:
        for obj, key, old in reversed(saved):
            if isinstance(obj, dict):
                obj[key] = old
            else:
                setattr(obj, key, old)


def _language_snapshot() -> list[tuple[Any, dict]]:
    import triton.language as tl

    objs = [tl, tl.core, tl.math, tl.standard, tl.core.tensor, tl.dtype]
    return [(o, dict(vars(o))) for o in objs]


def _language_changes(snapshot: list[tuple[Any, dict]]) -> list[str]:
    """Attributes changed since ``snapshot`` (a submodule imported for the first time is no change)."""
    changed = []
    for obj, before in snapshot:
        now = vars(obj)
        for key in set(before) | set(now):
            if before.get(key, _MISSING) is not now.get(key, _MISSING):
                if key not in before and isinstance(now[key], types.ModuleType):
                    continue
                changed.append(f"{getattr(obj, '__name__', obj)}.{key}")
    return changed


_MISSING = object()


# --------------------------------------------------------------------------- cubin


def cubin_register_count(cubin: Any, kernel: str) -> int | None:
    """Registers per thread of ``kernel`` in a CUDA cubin, as ``cuobjdump -res-usage`` reports them.

    Read from the ``EIATTR_REGCOUNT`` record of the ``.nv.info`` section whose
    symbol index is that of ``.text.<kernel>``; None if the cubin is not an
    ELF64 file laid out that way.
    """
    if not isinstance(cubin, (bytes, bytearray)) or cubin[:5] != b"\x7fELF\x02":
        return None
    try:
        shoff = struct.unpack_from("<Q", cubin, 0x28)[0]
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", cubin, 0x3A)
        # Elf64_Shdr: name, type, flags, addr, offset, size, link, info, addralign, entsize
        sections = [struct.unpack_from("<IIQQQQIIQQ", cubin, shoff + i * shentsize) for i in range(shnum)]
        names_at = sections[shstrndx][4]

        def name(sec: tuple) -> bytes:
            start = names_at + sec[0]
            return bytes(cubin[start : cubin.index(b"\0", start)])

        by_name = {name(sec): sec for sec in sections}
        symbol = by_name[f".text.{kernel}".encode()][7]
        info = by_name[b".nv.info"]
        pos, end = info[4], info[4] + info[5]
        while pos + 4 <= end:
            fmt, attr, size = cubin[pos], cubin[pos + 1], struct.unpack_from("<H", cubin, pos + 2)[0]
            if fmt == 0x04:  # EIFMT_SVAL: a payload of ``size`` bytes follows
                if attr == 0x2F and size == 8:  # EIATTR_REGCOUNT: (symbol index, count)
                    sym, count = struct.unpack_from("<II", cubin, pos + 4)
                    if sym == symbol:
                        return count
                pos += 4 + size
            else:
                pos += 4
    except (struct.error, ValueError, IndexError, KeyError):
        return None
    return None


# --------------------------------------------------------------------------- compiling


def _config_dicts(configs: Sequence[Any]) -> list[dict[str, int]]:
    out = []
    for c in configs:
        if isinstance(c, Mapping):
            d = {k: int(v) for k, v in c.items()}
            d.setdefault("num_warps", 4)
            d.setdefault("num_stages", 1)
        else:  # triton.Config
            d = {**{k: int(v) for k, v in c.kwargs.items()}, "num_warps": int(c.num_warps),
                 "num_stages": int(c.num_stages)}
            if getattr(c, "maxnreg", None):
                d["maxnreg"] = int(c.maxnreg)
        out.append(d)
    return out


#: Triton IR operations that turn an integer into a pointer or back.  Inductor never writes them (its workspace
#: casts are pointer-to-pointer bitcasts); with them a kernel could build an absolute address and reach memory
#: that is no argument of it, on a GPU where nothing bounds it (``(in_ptr0.to(tl.int64) + 8)
#: .to(tl.pointer_type(tl.float32))`` passes the source allowlist: tests/test_static_gate.py::
#: test_rejects_conversions_between_integers_and_pointers).  A candidate's compile is refused for them.
POINTER_CASTS = ("tt.int_to_ptr", "tt.ptr_to_int")


def _compile_one(fn: Any, name: str, signature: dict, constants: dict, attrs: dict, cfg: dict[str, int],
                 target: Any, extra_options: dict) -> ConfigResult:
    import triton
    from triton.compiler import ASTSource

    kwargs = {k: v for k, v in cfg.items() if k not in ("num_warps", "num_stages", "maxnreg")}
    options = {**extra_options, "num_warps": cfg["num_warps"], "num_stages": cfg["num_stages"]}
    if cfg.get("maxnreg"):  # a register cap is a compile option (ptx .maxnreg), not a constexpr
        options["maxnreg"] = cfg["maxnreg"]
    t0 = time.perf_counter()
    try:
        unknown = [k for k in {**constants, **kwargs} if k not in fn.arg_names]
        if unknown:
            raise ValueError(f"constexpr(s) {unknown} are not parameters of {name}{tuple(fn.arg_names)}")
        src = ASTSource(fn, dict(signature), {**constants, **kwargs}, attrs)
        compiled = triton.compile(src, target=target, options=options)
    except Exception as e:  # noqa: BLE001 -- the compiler's message is the result
        text = str(e) if type(e).__name__ == "CompilationError" else f"{type(e).__name__}: {e}"
        return ConfigResult(cfg, False, error=text.strip(), seconds=time.perf_counter() - t0)
    seconds = time.perf_counter() - t0
    ttir = compiled.asm.get("ttir") if hasattr(compiled, "asm") else None
    cast = next((op for op in POINTER_CASTS if isinstance(ttir, str) and op in ttir), None)
    if cast is not None:
        return ConfigResult(cfg, False, error=f"converts between an integer and a pointer ({cast} in its Triton IR): "
                            "a kernel may address memory only as a tensor argument plus offsets",
                            seconds=seconds)
    shared = getattr(compiled.metadata, "shared", None)
    regs = cubin_register_count(compiled.asm.get("cubin"), compiled.metadata.name) if hasattr(compiled, "asm") else None
    return ConfigResult(cfg, True, shared=int(shared) if shared is not None else None, n_regs=regs, seconds=seconds)


def aot_compile(kernel_source: str, kernel_name: str, *, target: Any = DEFAULT_TARGET,
                configs: Sequence[Any] | None = None, signature: Mapping[str, str] | None = None,
                constexprs: Mapping[str, Any] | None = None) -> AotResult:
    """Compile ``kernel_name`` from ``kernel_source`` for ``target``, once per launch configuration.

    Configurations: ``configs`` if given (dicts such as ``{"XBLOCK": 64,
    "num_warps": 4, "num_stages": 1}`` or ``triton.Config``), else those of the
    Inductor heuristics decorator (the loaded ``CachingAutotuner``'s
    ``.configs``), else one default (4 warps, 1 stage).  ``signature`` and
    ``constexprs`` default to the decorator's ``triton_meta`` and are required
    for a plain ``@triton.jit`` module (``constexpr`` entries may be left out
    of the signature).  Never raises for a bad kernel: problems are reported
    in the result.
    """
    tgt_tuple = as_target_tuple(target)
    with _LOCK:
        snapshot = _language_snapshot()
        try:
            result = _aot_locked(kernel_source, kernel_name, _gpu_target(target), tgt_tuple, configs, signature,
                                 constexprs)
        finally:
            changed = _language_changes(snapshot)
        if changed:  # pragma: no cover -- a bug here, not in the kernel
            raise RuntimeError(f"aot_compile left triton.language changed: {changed[:8]}")
        return result


def _aot_locked(source: str, name: str, target: Any, tgt_tuple: tuple, configs, signature, constexprs) -> AotResult:
    def failed(msg: str) -> AotResult:
        return AotResult(name, tgt_tuple, error=msg)

    try:
        source = neutralize_driver_calls(source)
    except SyntaxError as e:
        return failed(f"source does not parse: line {e.lineno}: {e.msg}")
    filename = f"<kernelopt-aot-{next(_COUNTER)}-{name}>"
    try:
        ns = _load_private(source, name, filename)
    except Exception as e:  # noqa: BLE001
        linecache.cache.pop(filename, None)
        return failed(f"module failed to load: {type(e).__name__}: {e}")
    try:
        obj = ns.get(name)
        meta = getattr(obj, "triton_meta", None) or {}
        fn = getattr(obj, "fn", obj) if meta else obj
        raw = getattr(fn, "fn", fn)
        if obj is None or not hasattr(raw, "__code__"):
            return failed(f"module defines no @triton.jit kernel {name!r}")
        constants = {**meta.get("constants", {}), **(constexprs or {})}
        sig, problem = _full_signature(raw, signature if signature is not None else meta.get("signature"), constants)
        if problem:
            return failed(problem)
        attrs = (meta.get("configs") or [{}])[0] if signature is None else {}
        cfgs = _config_dicts(configs if configs else getattr(obj, "configs", None) or [{}])
        extra = {}
        if meta:
            extra["debug"] = bool((getattr(obj, "inductor_meta", None) or {}).get("assert_indirect_indexing", False))
            if "enable_fp_fusion" in meta:
                extra["enable_fp_fusion"] = bool(meta["enable_fp_fusion"])
        with compiler_view([ns]):
            jit = _as_jit(fn) if _is_interpreted(fn) else fn
            if not hasattr(jit, "arg_names"):
                from triton.runtime.jit import JITFunction

                jit = JITFunction(raw)
            results = tuple(_compile_one(jit, name, sig, constants, attrs if isinstance(attrs, dict) else {}, c,
                                         target, extra) for c in cfgs)
        return AotResult(name, tgt_tuple, results)
    finally:
        linecache.cache.pop(filename, None)


def _full_signature(raw: Any, signature: Mapping[str, str] | None,
                    constants: Mapping[str, Any]) -> tuple[dict[str, str], str]:
    """The signature in parameter order, constexpr parameters filled in; or an error."""
    import inspect

    if not signature:
        return {}, (f"{raw.__name__} has no signature: pass signature= for a kernel without Inductor's "
                    "heuristics decorator")
    params = inspect.signature(raw).parameters
    extra = [k for k in signature if k not in params]
    if extra:
        return {}, f"signature names {extra}, which are not parameters of {raw.__name__}{tuple(params)}"
    sig = {}
    for p, par in params.items():
        if p in signature:
            sig[p] = signature[p]
        elif p in constants or "constexpr" in str(par.annotation):
            sig[p] = "constexpr"
        else:
            return {}, f"signature gives no type for parameter {p!r} of {raw.__name__}"
    return sig, ""


def _is_interpreted(fn: Any) -> bool:
    interp = _interpreted_type()
    return interp is not None and isinstance(fn, interp)
