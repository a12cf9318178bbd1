"""Run Inductor's Triton output on a machine without a GPU.

Inductor can generate Triton code for CPU tensors (``cpu_backend="triton"``) and
the Triton interpreter (``TRITON_INTERPRET=1``) can execute it, but stock
PyPI triton needs five patches for that to work reliably:

1. an *active driver* (stock triton has only GPU drivers, none active here);
2. ``libdevice`` functions (stubs that only the compiler remaps) get numpy
   implementations while an interpreted launch runs;
3. reductions with ``@triton.jit`` combine functions (max2, argmax, welford)
   are reduced as a vectorised, order-preserving pairwise tree instead of one
   Python call per element (25-100x faster), and nested device-function calls
   skip re-patching ``triton.language``;
4. out-of-bounds loads, stores and atomics raise :class:`TritonOOBError`
   instead of corrupting the heap;
5. ``triton.language`` is snapshotted and restored around each outermost
   launch, so a later real ``triton.compile`` in the same process works.

Not a fix but a third of the time: the integer-overflow check that ``debug=False``
throws away is not computed (:func:`_skip_dead_overflow_checks`), numpy dtypes
are looked up in a table built once (:func:`_cache_numpy_dtypes`), and the list of
the language's builtins each launch patches is kept between launches
(:func:`_cache_builtin_lists`).

Everything here touches private triton/torch internals; it was written
against triton 3.3-3.7 and torch 2.7-2.13.  :func:`install` is idempotent.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from typing import Any

from ..errors import BackendError, TritonOOBError
from ..problem_scale import use_small_problems

_INSTALLED = False
_STATE = threading.local()


def _depth() -> int:
    return getattr(_STATE, "depth", 0)


def interpreter_requested() -> bool:
    return os.environ.get("TRITON_INTERPRET", "0") == "1"


def prepare_environment() -> None:
    """Set ``TRITON_INTERPRET=1``; must happen before triton decorates kernels.

    Also ``KERNELOPT_PROBLEM_SCALE=small`` (unless set): problem files that read
    it at import (the bundled examples do) pick interpreter-sized inputs.  It
    must be set before the collector imports them.
    """
    os.environ["TRITON_INTERPRET"] = "1"
    use_small_problems()


def install() -> None:
    """Make Inductor's CPU-Triton code generation and the interpreter usable."""
    global _INSTALLED
    if _INSTALLED:
        return
    if not interpreter_requested():
        prepare_environment()
    import sys

    helpers = sys.modules.get("torch._inductor.runtime.triton_helpers")
    if helpers is not None and type(getattr(helpers, "maximum", None)).__name__ == "JITFunction":
        raise BackendError(
            "the CPU backend needs TRITON_INTERPRET=1 before torch._inductor.runtime.triton_helpers "
            "is imported; set it in the environment (or let pytest-kernelopt's plugin set it) "
            "before importing code that compiles Triton kernels"
        )
    import warnings

    import torch  # noqa: F401  (torch before triton: torch pins the triton it was built against)
    import triton  # noqa: F401

    # printed by every CPU-Triton kernel module Inductor loads; expected here, since nothing is compiled
    warnings.filterwarnings("ignore", message="Could not find an active CPU backend")
    # numpy's notes on NaN/Inf arithmetic inside interpreted kernels: the gates feed NaN, +Inf and -Inf inputs
    # on purpose (one seed), and the results are compared, not these warnings (the interpreter's reductions
    # call numpy's, whose warnings are attributed to numpy's fromnumeric: a new user saw them, unexplained)
    warnings.filterwarnings("ignore", category=RuntimeWarning,
                            module=r"(triton\.runtime\.interpreter|numpy\.(_core|core)\.fromnumeric)",
                            message=r"(invalid value|divide by zero|overflow) encountered")
    _install_driver()
    _patch_grid_executor()
    _patch_reductions()
    _patch_nested_calls()
    _cache_builtin_lists()
    _patch_bounds_checks()
    _patch_program_order()
    _skip_dead_overflow_checks()
    _cache_numpy_dtypes()
    _fewest_programs_first()
    _INSTALLED = True


def _block_numel(config) -> int:
    n = 1
    for key, value in dict(getattr(config, "kwargs", {}) or {}).items():
        if key.endswith("BLOCK") and isinstance(value, int):
            n *= value
    return n


def _fewest_programs_first() -> None:
    """Inductor's configuration list for a kernel is ordered for a GPU; here its first entry is the one with the
    largest block (the fewest programs, each a Python pass of the interpreter), ties in Inductor's order.

    Every launch configuration Inductor lists is one it generated the kernel for; which one a launch uses is
    pinned to the list's first (:func:`pytest_kernelopt.substitute.load_kernel`), for the baseline and a candidate
    alike.  On the interpreter the time of a launch is its programs' count times a block's Python overhead, so the
    largest block is what Inductor's own autotuner would pick here too.  ``KERNELOPT_INTERP_CONFIG_ORDER=inductor``
    (or :func:`inductor_config_order`) keeps Inductor's order.
    """
    from torch._inductor.runtime import triton_heuristics as th

    tuner = th.CachingAutotuner
    if getattr(tuner, "_kernelopt_order", False):
        return
    orig = tuner.__init__

    def init(self, fn, triton_meta, configs, *args, **kwargs):
        if not getattr(_STATE, "inductor_order", False) and \
                os.environ.get("KERNELOPT_INTERP_CONFIG_ORDER", "fewest-programs") == "fewest-programs":
            configs = sorted(configs, key=lambda c: -_block_numel(c))
        return orig(self, fn, triton_meta, configs, *args, **kwargs)

    tuner.__init__ = init  # type: ignore[method-assign]  # patched for the process, once
    tuner._kernelopt_order = True


@contextlib.contextmanager
def _flag_set(name: str):
    """Within the block, this thread's interpreter flag ``name`` is on (as it was before, after)."""
    before = getattr(_STATE, name, False)
    setattr(_STATE, name, True)
    try:
        yield
    finally:
        setattr(_STATE, name, before)


def inductor_config_order():
    """Within the block, kernels built keep Inductor's configuration order (see :func:`_fewest_programs_first`)."""
    return _flag_set("inductor_order")


def _cache_numpy_dtypes() -> None:
    """The interpreter's ``_get_np_dtype`` builds a 20-entry dict on every call (a million calls in one attention
    case); look scalar types up in one built once, from the function itself, and leave anything else to it."""
    import triton.language as tl
    from triton.runtime import interpreter as interp

    orig = getattr(interp, "_get_np_dtype", None)
    if orig is None or getattr(orig, "_kernelopt_cached", False):
        return
    table = {}
    for name in ("int1", "float16", "float32", "float64", "int8", "uint8", "int16", "uint16", "int32", "uint32",
                 "int64", "uint64", "bfloat16", "float8e5", "float8e5b16", "float8e4nv", "float8e4b8",
                 "float8e4b15"):
        ty = getattr(tl, name, None)
        if ty is not None:
            with contextlib.suppress(Exception):
                table[ty] = orig(ty)
    block, pointer = tl.block_type, tl.pointer_type

    def _get_np_dtype(tt_dtype):
        ty = tt_dtype.element_ty if isinstance(tt_dtype, block) else tt_dtype
        if not isinstance(ty, pointer):
            found = table.get(ty)
            if found is not None:
                return found
        return orig(tt_dtype)

    _get_np_dtype._kernelopt_cached = True  # type: ignore[attr-defined]  # a marker on the wrapper
    interp._get_np_dtype = _get_np_dtype


def _skip_dead_overflow_checks() -> None:
    """Turn off the interpreter's integer-overflow sanitizer where its check is thrown away anyway.

    Triton builds that check (widen to int64, compare with the type's bounds) for every 32-bit integer add, sub and
    mul, then hands it to ``device_assert``, which does nothing unless ``debug`` is on.  On a GPU the compiler drops
    the unused check; the interpreter computes it in numpy, a third of an index-heavy kernel's time here.  Kernels
    run exactly as before (integer arithmetic still wraps as it does on a GPU); with ``debug`` on it stays.
    """
    import dataclasses

    from triton.runtime import interpreter as interp

    builder = interp.interpreter_builder
    options = getattr(builder, "options", None)
    if (dataclasses.is_dataclass(options) and not getattr(options, "debug", True)
            and getattr(options, "sanitize_overflow", False)):
        # is_dataclass admits a dataclass type too; the builder's options are an instance
        builder.options = dataclasses.replace(options, sanitize_overflow=False)  # type: ignore[type-var]


def _patch_program_order() -> None:
    """While :func:`programs_reversed` is active, the interpreter runs a grid's programs last to first.

    The interpreter runs programs one after another in ascending order, so a kernel whose programs depend on
    each other (one writes another's block, which then repairs it) looks deterministic here and races on a
    GPU; running the same launch in the opposite order shows it.
    """
    from triton.runtime import interpreter as interp

    builder = type(interp.interpreter_builder)
    if getattr(builder, "_kernelopt_order", False):
        return
    orig = builder.set_grid_idx

    def set_grid_idx(self, x, y, z):
        if getattr(_STATE, "reverse", False) and not getattr(_STATE, "in_order", False):
            nx, ny, nz = self.grid_dim
            x, y, z = nx - 1 - x, ny - 1 - y, nz - 1 - z
        return orig(self, x, y, z)

    builder.set_grid_idx = set_grid_idx
    builder._kernelopt_order = True


def programs_reversed():
    """Within the block, interpreted launches run their programs in reverse order (see _patch_program_order)."""
    return _flag_set("reverse")


def inductor_options() -> dict[str, Any]:
    """Inductor config patches that make it emit Triton for CPU tensors."""
    return {"cpu_backend": "triton"}


# --------------------------------------------------------------------------- driver


def _cpu_benchmark(fn, warmup=1, rep=3, *args, **kwargs):
    fn()
    times = []
    for _ in range(max(1, int(rep) if isinstance(rep, int) else 3)):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    return times[len(times) // 2]


def _install_driver() -> None:
    import torch
    from triton.backends.compiler import GPUTarget
    from triton.backends.driver import DriverBase
    from triton.runtime.driver import driver

    class InterpreterCPUDriver(DriverBase):
        """A driver that only answers the questions codegen asks; nothing is compiled."""

        @classmethod
        def is_active(cls):
            return False

        def map_python_to_cpp_type(self, ty):
            return ty

        def get_current_target(self):
            return GPUTarget("cuda", 80, 32)

        def get_active_torch_device(self):
            return torch.device("cpu")

        def get_benchmarker(self):
            return _cpu_benchmark

        def get_current_device(self):
            return 0

        def set_current_device(self, i):
            return None

        def get_current_stream(self, i=None):
            return 0

        def get_device_interface(self):
            return torch.cpu

        def get_empty_cache_for_benchmark(self):
            return torch.empty(1, dtype=torch.int8)

        def clear_cache(self, cache):
            return None

    driver.set_active(InterpreterCPUDriver())


# --------------------------------------------------------------------------- libdevice


def _libdevice_table():
    import math

    import numpy as np

    def _erfinv(x):
        # Giles' approximation refined with two Newton steps on erf.
        x = np.asarray(x, dtype=np.float64)
        w = -np.log((1.0 - x) * (1.0 + x))
        small = w < 5.0
        ws = w - 2.5
        wl = np.sqrt(np.where(small, 5.0, w)) - 3.0
        p_s = 2.81022636e-08
        for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
                  -0.00417768164, 0.246640727, 1.50140941):
            p_s = c + p_s * ws
        p_l = -0.000200214257
        for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
                  0.00943887047, 1.00167406, 2.83297682):
            p_l = c + p_l * wl
        y = np.where(small, p_s, p_l) * x
        verf = np.vectorize(math.erf)
        for _ in range(2):
            err = verf(y) - x
            y = y - err / (2.0 / math.sqrt(math.pi) * np.exp(-y * y))
        return np.where(np.abs(x) == 1.0, np.copysign(np.inf, x), y)

    verf = np.vectorize(math.erf, otypes=[np.float64])
    verfc = np.vectorize(math.erfc, otypes=[np.float64])
    vlgamma = np.vectorize(lambda v: math.lgamma(v) if v not in (0.0,) and not (v < 0 and v == int(v)) else math.inf,
                           otypes=[np.float64])
    vtgamma = np.vectorize(lambda v: math.gamma(v) if not (v <= 0 and v == int(v)) else math.nan, otypes=[np.float64])

    def _ilogb(x):
        _, e = np.frexp(x)
        return (e - 1).astype(np.int32)

    unary = {
        "abs": np.abs, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "rint": np.rint,
        "nearbyint": np.rint, "round": lambda x: np.where(x >= 0, np.floor(x + 0.5), np.ceil(x - 0.5)),
        "exp": np.exp, "exp2": np.exp2, "exp10": lambda x: np.power(10.0, x), "expm1": np.expm1,
        "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p,
        "sqrt": np.sqrt, "sqrt_rn": np.sqrt, "rsqrt": lambda x: 1.0 / np.sqrt(x), "cbrt": np.cbrt,
        "rcbrt": lambda x: 1.0 / np.cbrt(x),
        "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
        "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "asinh": np.arcsinh, "acosh": np.arccosh,
        "atanh": np.arctanh, "sinpi": lambda x: np.sin(np.pi * x), "cospi": lambda x: np.cos(np.pi * x),
        "erf": verf, "erfc": verfc, "erfinv": _erfinv, "lgamma": vlgamma, "tgamma": vtgamma,
        "normcdf": lambda x: 0.5 * verfc(-x / math.sqrt(2.0)),
        "fast_expf": np.exp, "fast_logf": np.log, "fast_log2f": np.log2, "fast_log10f": np.log10,
        "fast_tanhf": np.tanh, "fast_sinf": np.sin, "fast_cosf": np.cos, "fast_tanf": np.tan,
        "fast_exp10f": lambda x: np.power(10.0, x),
        "rcp_rn": lambda x: 1.0 / x, "saturatef": lambda x: np.clip(x, 0.0, 1.0),
    }
    predicates = {"isnan": np.isnan, "isinf": np.isinf, "signbit": np.signbit,
                  "isfinited": np.isfinite, "finitef": np.isfinite}
    binary = {
        "pow": np.power, "fast_powf": np.power, "atan2": np.arctan2, "hypot": np.hypot, "fmod": np.fmod,
        "remainder": np.remainder, "copysign": np.copysign, "nextafter": np.nextafter,
        "fdim": lambda a, b: np.maximum(a - b, 0), "div_rn": np.divide, "div_rz": np.divide,
        "div_rd": np.divide, "div_ru": np.divide, "fast_dividef": np.divide,
        "add_rn": np.add, "sub_rn": np.subtract, "mul_rn": np.multiply,
    }
    ternary = {"fma": lambda a, b, c: a * b + c, "fma_rn": lambda a, b, c: a * b + c}
    return np, unary, predicates, binary, ternary, _ilogb


def _libdevice_impls() -> dict[str, Any]:
    import triton.language as tl
    from triton.runtime.interpreter import TensorHandle, _get_np_dtype

    np, unary, predicates, binary, ternary, ilogb = _libdevice_table()

    def unwrap(a):
        if isinstance(a, tl.core.tensor):
            return a.handle.data, a.dtype
        if isinstance(a, tl.constexpr):
            a = a.value
        return np.asarray(a), None

    def wrap(data, dtype):
        data = np.asarray(data).astype(_get_np_dtype(dtype), copy=False)
        if data.ndim == 0:
            data = data.reshape(1)
        ty = tl.block_type(dtype, list(data.shape)) if data.shape and data.shape != (1,) else dtype
        return tl.core.tensor(TensorHandle(data, dtype), ty)

    def float_result(fn):
        def impl(*args, **_):
            vals = [unwrap(a) for a in args]
            dtype = next((d for _, d in vals if d is not None), tl.float32)
            with np.errstate(all="ignore"):
                out = fn(*[v for v, _ in vals])
            if dtype.is_int() and out.dtype.kind == "f":
                dtype = tl.float32
            return wrap(out, dtype)
        return impl

    def int_result(fn, dtype):
        def impl(*args, **_):
            (v, _d), = [unwrap(a) for a in args]
            with np.errstate(all="ignore"):
                return wrap(fn(v), dtype)
        return impl

    impls: dict[str, Any] = {}
    for name, f in {**unary, **binary, **ternary}.items():
        impls[name] = float_result(f)
    for name, f in predicates.items():
        impls[name] = int_result(f, tl.int1)
    impls["llrint"] = int_result(lambda v: np.rint(v).astype(np.int64), tl.int64)
    impls["llround"] = int_result(lambda v: np.where(v >= 0, np.floor(v + 0.5), np.ceil(v - 0.5)).astype(np.int64),
                                  tl.int64)
    impls["float2int_rn"] = int_result(lambda v: np.rint(v).astype(np.int32), tl.int32)
    impls["ilogb"] = int_result(ilogb, tl.int32)

    def ldexp(x, e, **_):
        (xv, xd), (ev, _d) = unwrap(x), unwrap(e)
        return wrap(np.ldexp(xv, ev.astype(np.int32)), xd or tl.float32)

    impls["ldexp"] = ldexp
    impls["scalbn"] = ldexp
    return impls


def _libdevice_modules():
    mods = []
    with contextlib.suppress(Exception):
        from triton.language.extra import libdevice

        mods.append(libdevice)
    with contextlib.suppress(Exception):
        from triton.language.extra.cuda import libdevice as cuda_libdevice

        mods.append(cuda_libdevice)
    return mods


_LIBDEVICE_CACHE: dict[str, Any] | None = None


@contextlib.contextmanager
def _libdevice_patched():
    global _LIBDEVICE_CACHE
    if _LIBDEVICE_CACHE is None:
        _LIBDEVICE_CACHE = _libdevice_impls()
    saved = []
    for mod in _libdevice_modules():
        for name, impl in _LIBDEVICE_CACHE.items():
            if hasattr(mod, name):
                saved.append((mod, name, getattr(mod, name)))
                setattr(mod, name, impl)
    try:
        yield
    finally:
        for mod, name, orig in reversed(saved):
            setattr(mod, name, orig)


# --------------------------------------------------------------------------- launches


def _snapshot_language():
    import triton.language as tl

    objs = [tl, tl.core, tl.math, tl.core.tensor, tl.dtype]
    return [(o, dict(vars(o))) for o in objs]


def _restore_language(snapshot) -> None:
    for obj, saved in snapshot:
        current = vars(obj)
        for key in [k for k in current if k not in saved]:
            with contextlib.suppress(AttributeError, TypeError):
                delattr(obj, key)
        for key, val in saved.items():
            if current.get(key, _MISSING) is not val:
                with contextlib.suppress(AttributeError, TypeError):
                    setattr(obj, key, val)


_MISSING = object()


def _patch_grid_executor() -> None:
    from triton.runtime import interpreter as interp

    executor = interp.GridExecutor
    if getattr(executor, "_kernelopt_patched", False):
        return
    orig_call = executor.__call__
    orig_init_args = executor._init_args_hst

    def init_args(self, args_dev, kwargs):
        args_hst, kwargs_hst = orig_init_args(self, args_dev, kwargs)
        ranges = []
        for a in list(args_hst) + list(kwargs_hst.values()):
            base = getattr(a, "base", a) if type(a).__name__ == "TensorWrapper" else a
            if hasattr(base, "untyped_storage"):
                st = base.untyped_storage()
                if st.nbytes():
                    ranges.append((st.data_ptr(), st.data_ptr() + st.nbytes()))
        _STATE.ranges = _merge_ranges(ranges)
        _STATE.kernel = getattr(self.fn, "__name__", "?")
        # a split scan's programs wait (spin) for every lower-numbered one (Inductor's decoupled look-back): run
        # last to first by a one-at-a-time interpreter, the first never finishes; such a launch keeps its order
        code = getattr(self.fn, "__code__", None)
        _STATE.in_order = code is not None and any(n.startswith("exclusive_scan_decoupled_lookback")
                                                   for n in code.co_names)
        return args_hst, kwargs_hst

    def call(self, *args, **kwargs):
        outer = _depth() == 0
        snapshot = _snapshot_language() if outer else None
        if outer:
            _STATE.patched = set()
        _STATE.depth = _depth() + 1
        saved_ranges = getattr(_STATE, "ranges", None)
        try:
            with _libdevice_patched() if outer else contextlib.nullcontext():
                return orig_call(self, *args, **kwargs)
        except interp.InterpreterError as e:
            cause = e.__cause__
            if isinstance(cause, TritonOOBError):
                raise cause.with_traceback(None) from None
            raise
        finally:
            _STATE.depth -= 1
            _STATE.ranges = saved_ranges
            if outer:
                _restore_language(snapshot)

    executor.__call__ = call
    executor._init_args_hst = init_args
    executor._kernelopt_patched = True


def _merge_ranges(ranges):
    import numpy as np

    if not ranges:
        return (np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.uint64))
    ranges.sort()
    merged = [list(ranges[0])]
    for s, e in ranges[1:]:
        if s <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    starts = np.array([m[0] for m in merged], dtype=np.uint64)
    ends = np.array([m[1] for m in merged], dtype=np.uint64)
    return starts, ends


def _patch_nested_calls() -> None:
    """Device-function calls inside a launch need no second language patch."""
    from triton.runtime import interpreter as interp

    fn_cls = interp.InterpretedFunction
    if getattr(fn_cls, "_kernelopt_patched", False):
        return
    orig = fn_cls.__call__

    import triton.language as tl

    def call(self, *args, **kwargs):
        if _depth() == 0:
            return orig(self, *args, **kwargs)
        # Patch each language module once per launch instead of once per call;
        # the outermost launch restores everything afterwards.
        langs = {id(v) for v in self.fn.__globals__.values() if v is tl or v is tl.core}
        patched = _STATE.patched
        if not langs <= patched:
            _STATE.nested_patch = True  # (the language is partly patched: no list of builtins made from it kept)
            try:
                interp._patch_lang(self.fn)
            finally:
                _STATE.nested_patch = False
            patched |= langs
        fn = self.rewrite()
        try:
            return fn(*args, **kwargs)
        except interp.InterpreterError:
            raise
        except Exception as e:
            raise interp.InterpreterError(repr(e)) from e

    fn_cls.__call__ = call
    fn_cls._kernelopt_patched = True


def _cache_builtin_lists() -> None:
    """Each launch patches every builtin of ``triton.language`` (and of its tensor class and math module) and
    restores them afterwards; which attributes are builtins is found by ``inspect.getmembers`` and each is wrapped
    anew, about a tenth of a small launch's time.  The list, with what each member is replaced by, is kept per
    package and used while the package holds the same attributes (their number, in the package and each class it
    inherits from, and every listed member the same object) and the builder is the same; else it is made again.
    Only an outermost launch's patch makes or uses a list: a device function's call patches what its launch left
    unpatched, which the list of a partly patched package would leave out.  A triton whose ``_patch_builtin`` takes
    other arguments is left as it is."""
    import inspect

    from triton.runtime import interpreter as interp

    orig = interp._patch_builtin
    if getattr(orig, "_kernelopt_patched", False) or list(inspect.signature(orig).parameters) != [
            "pkg", "builder", "scope"]:
        return
    import triton.language as tl

    lists: dict[Any, tuple] = {}  # package -> (its shape, [(name, member, wrapped)], builder)

    def shape(pkg):
        return tuple(len(vars(c)) for c in (pkg.__mro__ if isinstance(pkg, type) else (pkg,)))

    class Made:  # what triton's _patch_attr puts in place of a member, caught once
        def set_attr(self, obj, name, value):
            self.value = value

    def wrapped(pkg, name, member, builder):
        made = Made()
        interp._patch_attr(pkg, name, member, builder, made)
        return made.value

    def patch_builtin(pkg, builder, scope):
        if getattr(_STATE, "nested_patch", False):
            return orig(pkg, builder, scope)
        found = lists.get(pkg)
        if found is None or found[0] != shape(pkg) or found[2] is not builder or any(
                getattr(pkg, name, None) is not member for name, member, _ in found[1]):
            members = [(n, m, wrapped(pkg, n, m, builder)) for n, m in inspect.getmembers(pkg)
                       if tl.core.is_builtin(m)]
            found = lists[pkg] = (shape(pkg), members, builder)
        for name, _member, new in found[1]:
            scope.set_attr(pkg, name, new)

    patch_builtin._kernelopt_patched = True  # type: ignore[attr-defined]
    interp._patch_builtin = patch_builtin


# --------------------------------------------------------------------------- reductions


def _patch_reductions() -> None:
    import numpy as np
    import triton.language as tl
    from triton.runtime import interpreter as interp

    # (lazy: it imports torch and triton at its top)
    import pytest_kernelopt.backends.interp_combines as interp_combines

    ops = interp.ReduceOps
    if getattr(ops, "_kernelopt_patched", False):
        return
    twins = interp_combines.twins()

    def generic_reduce(self, input):
        original_axis = self.axis
        input, axis = self.unravel(input, self.axis)
        dtypes = [t.dtype for t in input]
        datas = [np.asarray(t.handle.data) for t in input]
        n = datas[0].shape[axis]
        if n == 0:
            raise ValueError("reduction over an empty axis")

        def as_tensor(arr, dtype):
            return tl.core.tensor(interp.TensorHandle(np.ascontiguousarray(arr), dtype.scalar),
                                  tl.block_type(dtype.scalar, list(arr.shape)) if arr.ndim else dtype.scalar)

        twin = interp_combines.twin_for(self.combine_fn, twins, dtypes)
        while datas[0].shape[axis] > 1:
            m = datas[0].shape[axis]
            even = m - (m % 2)
            left = [np.take(d, np.arange(0, even, 2), axis=axis) for d in datas]
            right = [np.take(d, np.arange(1, even, 2), axis=axis) for d in datas]
            if twin is not None:
                with np.errstate(all="ignore"):
                    res = twin(*left, *right)
            else:
                res = self.combine_fn.fn(*[as_tensor(a, dt) for a, dt in zip(left, dtypes)],
                                         *[as_tensor(b, dt) for b, dt in zip(right, dtypes)])
            res = res if isinstance(res, tuple) else (res,)
            new = []
            for r, dt, a in zip(res, dtypes, left):
                arr = (r.handle.data if isinstance(r, tl.core.tensor) else r if isinstance(r, np.ndarray)
                       else np.full(a.shape, r))
                new.append(np.broadcast_to(np.asarray(arr).astype(interp._get_np_dtype(dt.scalar)), a.shape))
            if m % 2:
                new = [np.concatenate([x, np.take(d, [m - 1], axis=axis)], axis=axis) for x, d in zip(new, datas)]
            datas = new
        ret = []
        for data, dt in zip(datas, dtypes):
            data = np.squeeze(data, axis=axis)
            if self.keep_dims:
                if original_axis is not None:
                    data = np.expand_dims(data, axis)
                else:
                    for _ in range(len(input[0].handle.data.shape)):
                        data = np.expand_dims(data, 0)
            elif original_axis is None:
                data = data.item()
            ret.append(self.to_tensor(data, dt))
        return ret

    ops.generic_reduce = generic_reduce
    ops._kernelopt_patched = True


# --------------------------------------------------------------------------- bounds checks


def _check(kind: str, ptrs, mask, elem_ty) -> None:
    import numpy as np
    from triton.runtime.interpreter import _get_np_dtype

    ranges = getattr(_STATE, "ranges", None)
    if ranges is None:
        return
    starts, ends = ranges
    p = np.asarray(ptrs.data).astype(np.uint64, copy=False).reshape(-1)
    if mask is not None:
        active = np.broadcast_to(np.asarray(mask.data, dtype=bool), np.asarray(ptrs.data).shape).reshape(-1)
        p = p[active]
    if p.size == 0:
        return
    size = np.uint64(np.dtype(_get_np_dtype(elem_ty)).itemsize)
    idx = np.searchsorted(starts, p, side="right").astype(np.int64) - 1
    ok = idx >= 0
    safe = np.where(ok, idx, 0)
    ok &= (p + size) <= ends[safe] if ends.size else np.zeros_like(ok)
    bad = int((~ok).sum())
    if bad:
        from triton.runtime import interpreter as interp

        gidx = getattr(interp.interpreter_builder, "grid_idx", ("?", "?", "?"))
        raise TritonOOBError(
            f"{kind} out of bounds in kernel {getattr(_STATE, 'kernel', '?')} program {tuple(gidx)}: "
            f"{bad}/{p.size} active lanes outside every tensor argument"
        )


def _patch_bounds_checks() -> None:
    from triton.runtime import interpreter as interp

    builder = interp.InterpreterBuilder
    if getattr(builder, "_kernelopt_patched", False):
        return
    if os.environ.get("KERNELOPT_BOUNDS_CHECK", "1") == "0":
        return
    orig_load = builder.create_masked_load
    orig_store = builder.create_masked_store
    orig_rmw = builder.create_atomic_rmw
    orig_cas = builder.create_atomic_cas

    def load(self, ptrs, mask, other, *a, **k):
        _check("load", ptrs, mask, ptrs.get_element_ty())
        return orig_load(self, ptrs, mask, other, *a, **k)

    def store(self, ptrs, value, mask, *a, **k):
        _check("store", ptrs, mask, ptrs.get_element_ty())
        return orig_store(self, ptrs, value, mask, *a, **k)

    def rmw(self, op, ptr, val, mask, *a, **k):
        _check("atomic", ptr, mask, ptr.get_element_ty())
        return orig_rmw(self, op, ptr, val, mask, *a, **k)

    def cas(self, ptr, cmp, val, *a, **k):
        _check("atomic", ptr, None, ptr.get_element_ty())
        return orig_cas(self, ptr, cmp, val, *a, **k)

    builder.create_masked_load = load
    builder.create_masked_store = store
    builder.create_atomic_rmw = rmw
    builder.create_atomic_cas = cas
    builder._kernelopt_patched = True
