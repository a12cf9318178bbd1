"""Gate 1, static: is the candidate plain Triton that claims the right kernel and compiles?

The gate never runs the candidate.  It reads the source with :mod:`ast` and
applies a list of small checks, each returning ``None`` or the reason it
fails (in the spirit of pytest-benchmark's ``fails(...) -> str | None``); the
first reason rejects.  Only a candidate that passed every other check is
loaded, by the last check, to be compiled ahead of time for the target GPU
(:func:`pytest_kernelopt.backends.aot.aot_compile`).

What a candidate may contain:

* imports of ``triton``, ``triton.language`` (and its submodules), ``math``
  and Inductor's runtime helpers (``triton_helpers``, ``triton_heuristics``,
  ``hints``, ``triton_helpers.libdevice`` / ``math``);
* at module level only imports, constants, function definitions and
  Inductor's ``triton_helpers.set_driver_to_*()`` call;
* no torch, no streams, events, timers or threads, no file, network or
  process access, no dynamic code (``eval``, ``getattr``, dunders), no
  ``global`` / ``nonlocal``, no mutable default arguments, and no assignment
  to an attribute (monkeypatching).

With ``compile_target=None`` the compile check is skipped and the numbers say
``compiled: False``; whoever reads the result decides what that means.
"""

from __future__ import annotations

import ast
import re
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from ..candidate import Candidate
from ..graph import TritonKernel
from .results import GateResult

DEFAULT_COMPILE_TARGET = ("cuda", 90, 32)

# --------------------------------------------------------------------------- what is allowed

#: ``from <module> import <name>``: module -> the names allowed (None: any).  Any ``triton.language.*`` module
#: may be imported from freely.
ALLOWED_FROM = {
    "triton": {"jit", "language", "cdiv", "next_power_of_2"},
    "triton.language": None,
    "math": None,
    "torch._inductor.runtime": {"triton_helpers", "triton_heuristics", "hints"},
    "torch._inductor.runtime.triton_helpers": {"libdevice", "math"},
    "torch._inductor.runtime.hints": None,
}
#: ``import <module>`` (plus any ``triton.language.*``).
ALLOWED_IMPORT = {"triton", "triton.language", "math"}
#: attributes of ``triton`` itself a candidate may use (not ``triton.testing``, ``triton.runtime``, ...).
TRITON_ATTRS = {"jit", "language", "cdiv", "next_power_of_2"}

FORBIDDEN_MODULES = {
    "os": "file/process access", "sys": "interpreter access", "subprocess": "process access",
    "socket": "network access", "ctypes": "raw memory access", "importlib": "dynamic imports",
    "builtins": "interpreter access", "pathlib": "file access", "shutil": "file access", "io": "file access",
    "pickle": "file access", "marshal": "code loading", "signal": "process access", "urllib": "network access",
    "http": "network access", "requests": "network access", "multiprocessing": "processes",
    "threading": "threads", "concurrent": "threads", "asyncio": "concurrency", "time": "timers",
    "timeit": "timers", "numpy": "numpy",
}
FORBIDDEN_CALLS = {
    "open": "file access", "eval": "dynamic code", "exec": "dynamic code", "compile": "dynamic code",
    "__import__": "dynamic imports", "globals": "interpreter access", "locals": "interpreter access",
    "vars": "interpreter access", "getattr": "dynamic attribute access", "setattr": "monkeypatching",
    "delattr": "monkeypatching", "breakpoint": "a debugger", "exit": "process exit", "quit": "process exit",
    "memoryview": "raw memory access",
}
STREAMS_TIMERS_THREADS = {
    "stream": "a stream", "Stream": "a stream", "current_stream": "a stream", "default_stream": "a stream",
    "set_stream": "a stream", "synchronize": "a synchronization", "Event": "an event (timer)",
    "elapsed_time": "a timer", "perf_counter": "a timer", "perf_counter_ns": "a timer", "monotonic": "a timer",
    "monotonic_ns": "a timer", "process_time": "a timer", "time_ns": "a timer", "sleep": "a sleep",
    "do_bench": "a benchmark timer", "do_bench_cudagraph": "a benchmark timer", "globaltimer": "a device timer",
    "clock": "a device timer", "clock64": "a device timer", "Thread": "a thread", "Lock": "a lock",
}
#: methods of torch tensors that Triton tensors lack: calling one means tensor ops on host objects.
TENSOR_METHODS = {"item", "cpu", "cuda", "numpy", "tolist", "data_ptr", "copy_", "zero_", "fill_", "clone",
                  "detach", "backward", "record_stream", "untyped_storage", "storage", "pin_memory"}
#: Inductor's heuristics decorators (``triton_heuristics.<name>``).
HEURISTICS = {"pointwise", "reduction", "persistent_reduction", "cooperative_reduction", "split_scan",
              "template", "user_autotune", "foreach"}
GRID_CALLS = {"cdiv", "min", "max"}
DRIVER_CALLS = {"set_driver_to_cpu", "set_driver_to_gpu"}


# --------------------------------------------------------------------------- the subject of the checks


@dataclass
class Subject:
    """What the checks look at; a check may add to ``numbers``."""

    candidate: Candidate
    kernels: Mapping[str, TritonKernel]
    compile_target: tuple | None
    tree: ast.Module | None = None
    numbers: dict[str, Any] = field(default_factory=dict)

    @property
    def launch(self):
        return self.candidate.launch

    def kernel(self, ref: str) -> TritonKernel | None:
        """``"name"`` or ``"g<index>:name"`` (as :meth:`CapturedModule.find` takes it)."""
        if ref in self.kernels:
            return self.kernels[ref]
        m = re.fullmatch(r"g\d+:(.+)", ref)
        return self.kernels.get(m.group(1)) if m else None

    def jit_functions(self) -> dict[str, ast.FunctionDef]:
        return {f.name: f for f in self.tree.body if isinstance(f, ast.FunctionDef) and _is_jit(f)}


Check = Callable[[Subject], "str | None"]


def _is_jit(fn: ast.FunctionDef) -> bool:
    for dec in fn.decorator_list:
        text = ast.unparse(dec)
        if text.startswith(("triton.jit", "triton_heuristics.")) or text == "jit" or text.startswith("jit("):
            return True
    return False


def _dotted(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    else:
        parts.append("(...)")
    return ".".join(reversed(parts))


def _where(node: ast.AST) -> str:
    return f"line {getattr(node, 'lineno', '?')}"


def _is_constexpr(arg: ast.arg) -> bool:
    return arg.annotation is not None and ast.unparse(arg.annotation).endswith("constexpr")


def _params(fn: ast.FunctionDef) -> list[ast.arg]:
    return list(fn.args.posonlyargs) + list(fn.args.args)


# --------------------------------------------------------------------------- checks


def check_parses(s: Subject) -> str | None:
    """The source is valid Python."""
    try:
        s.tree = ast.parse(s.candidate.source)
    except SyntaxError as e:
        return f"source does not parse: line {e.lineno}: {e.msg}"
    return None


def check_replaced_kernels_known(s: Subject) -> str | None:
    """Every kernel the candidate replaces is one of the graph's Triton kernels."""
    unknown = [r for r in s.candidate.replaces if s.kernel(r) is None]
    if unknown:
        return f"replaces unknown kernel(s) {unknown} (known: {sorted(s.kernels)})"
    return None


def check_defines_kernel(s: Subject) -> str | None:
    """A drop-in defines ``@triton.jit <original name>`` with the original's parameters, in order."""
    if s.launch is not None:
        return None
    kernel = s.kernel(s.candidate.replaces[0])
    fns = s.jit_functions()
    fn = fns.get(kernel.name)
    if fn is None:
        return f"defines no @triton.jit function named {kernel.name} (found {sorted(fns)})"
    if fn.args.vararg or fn.args.kwarg or fn.args.kwonlyargs:
        return f"incompatible signature: {kernel.name} must take plain parameters {list(kernel.params)}"
    names = [a.arg for a in _params(fn)]
    if names != list(kernel.params):
        return (f"incompatible signature: {kernel.name}{tuple(names)} but the original takes "
                f"{tuple(kernel.params)} (same names, same order)")
    return None


def check_launch_kernel(s: Subject) -> str | None:
    """A LaunchSpec's kernel exists and its runtime parameters match ``launch.args``."""
    if s.launch is None:
        return None
    spec = s.launch
    fns = s.jit_functions()
    fn = fns.get(spec.kernel)
    if fn is None:
        return f"launch names kernel {spec.kernel}, but the source defines no such @triton.jit function " \
               f"(found {sorted(fns)})"
    if fn.args.vararg or fn.args.kwarg or fn.args.kwonlyargs:
        return f"incompatible signature: launch kernel {spec.kernel} must take plain parameters"
    params = _params(fn)
    names = [a.arg for a in params]
    unknown = [k for k in spec.constexprs if k not in names]
    if unknown:
        return f"launch constexprs {unknown} are not parameters of {spec.kernel}{tuple(names)}"
    runtime = [a.arg for a in params if not _is_constexpr(a) and a.arg not in spec.constexprs]
    if len(runtime) != len(spec.args):
        return (f"incompatible signature: launch kernel {spec.kernel} has {len(runtime)} runtime parameters "
                f"{runtime} but the launch passes {len(spec.args)} args {list(spec.args)}")
    if names[: len(runtime)] != runtime:
        return f"incompatible signature: runtime parameters of {spec.kernel} must come before its constexprs"
    defaults = {a.arg for a in params[len(params) - len(fn.args.defaults):]} if fn.args.defaults else set()
    missing = [n for n in names[len(runtime):] if n not in spec.constexprs and n not in defaults]
    if missing:
        return f"launch gives no value for constexpr parameter(s) {missing} of {spec.kernel}"
    return None


def check_launch_args(s: Subject) -> str | None:
    """Each launch arg names a runtime parameter of a replaced kernel (``k.p`` for a fusion)."""
    if s.launch is None:
        return None
    fusion = s.candidate.is_fusion
    for ref in s.launch.args:
        if fusion:
            kname, _, param = ref.partition(".")
            kernel = s.kernel(kname) if kname in [r.split(":")[-1] for r in s.candidate.replaces] else None
            if not param or kernel is None or param not in kernel.runtime_params:
                return (f"launch arg {ref!r} is not '<kernel>.<param>' for a runtime parameter of a replaced "
                        f"kernel {list(s.candidate.replaces)}")
        else:
            kernel = s.kernel(s.candidate.replaces[0])
            if ref not in kernel.runtime_params:
                return f"launch arg {ref!r} is not a runtime parameter of {kernel.name} {list(kernel.runtime_params)}"
    return None


def check_grid_expression(s: Subject) -> str | None:
    """The grid is arithmetic over the launch kernel's parameters and constexprs, cdiv, min and max."""
    if s.launch is None:
        return None
    spec = s.launch
    try:
        tree = ast.parse(spec.grid, mode="eval")
    except SyntaxError as e:
        return f"grid expression {spec.grid!r} does not parse: {e.msg}"
    if isinstance(tree.body, ast.Tuple) and not 1 <= len(tree.body.elts) <= 3:
        return f"grid expression {spec.grid!r} must have 1 to 3 dimensions"
    fn = s.jit_functions()[spec.kernel]
    names = {a.arg for a in _params(fn) if not _is_constexpr(a) and a.arg not in spec.constexprs}
    names |= set(spec.constexprs)
    allowed = (ast.Expression, ast.Tuple, ast.BinOp, ast.UnaryOp, ast.Name, ast.Load, ast.Constant, ast.Call,
               ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.USub, ast.UAdd)
    for node in ast.walk(tree):
        if not isinstance(node, allowed):
            return f"grid expression {spec.grid!r} may only use arithmetic, tuples, names, cdiv/min/max " \
                   f"(found {type(node).__name__})"
        if isinstance(node, ast.Constant) and (type(node.value) is not int):
            return f"grid expression {spec.grid!r} has a non-integer constant {node.value!r}"
        if isinstance(node, ast.Call):
            if not (isinstance(node.func, ast.Name) and node.func.id in GRID_CALLS) or node.keywords \
                    or any(isinstance(a, ast.Starred) for a in node.args):
                return f"grid expression {spec.grid!r} calls {ast.unparse(node.func)}; only cdiv, min, max"
        elif isinstance(node, ast.Name) and node.id not in names and node.id not in GRID_CALLS:
            return f"grid expression {spec.grid!r} names {node.id!r}, which is neither a runtime parameter " \
                   f"of {spec.kernel} nor a constexpr"
    return None


def check_forbidden_names(s: Subject) -> str | None:
    """No torch, no streams/timers/threads, no file/process access, no dynamic code, no dunders."""
    for node in ast.walk(s.tree):
        if isinstance(node, ast.Name):
            reason = _forbidden_identifier(node.id)
            if node.id.startswith("__") and node.id != "__file__":
                reason = "dunder names"
            if reason:
                return f"uses {node.id} ({_where(node)}): {reason} not allowed"
        elif isinstance(node, ast.Attribute):
            text = _dotted(node)
            reason = _forbidden_identifier(node.attr)
            if node.attr.startswith("__"):
                reason = "dunder attributes"
            base = node.value.id if isinstance(node.value, ast.Name) else getattr(node.value, "attr", None)
            if base == "triton" and node.attr not in TRITON_ATTRS:
                reason = f"triton.{node.attr} (only triton.{'/'.join(sorted(TRITON_ATTRS))})"
            if base == "triton_heuristics" and node.attr not in HEURISTICS:
                reason = f"triton_heuristics.{node.attr} (only the heuristics decorators)"
            if reason:
                return f"uses {text} ({_where(node)}): {reason} not allowed"
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in TENSOR_METHODS:
            return f"calls {_dotted(node.func)}() ({_where(node)}): torch tensor ops not allowed"
    return None


def _forbidden_identifier(ident: str) -> str | None:
    if ident == "torch":
        return "torch (candidates may use only Triton)"
    for table in (FORBIDDEN_MODULES, FORBIDDEN_CALLS, STREAMS_TIMERS_THREADS):
        if ident in table:
            return table[ident]
    return None


def check_imports(s: Subject) -> str | None:
    """Imports only of triton, triton.language, math and Inductor's runtime helpers."""
    for node in ast.walk(s.tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name not in ALLOWED_IMPORT and not alias.name.startswith("triton.language."):
                    return _bad_import(alias.name, node)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                return f"relative import ({_where(node)}) is not allowed"
            allowed = ALLOWED_FROM.get(module, None if module.startswith("triton.language.") else ())
            for alias in node.names:
                if allowed is not None and alias.name not in allowed:
                    return _bad_import(f"{module}.{alias.name}" if module in ALLOWED_FROM else module, node)
    return None


def _bad_import(name: str, node: ast.AST) -> str:
    why = FORBIDDEN_MODULES.get(name.split(".")[0])
    why = f" ({why} not allowed)" if why else ""
    return f"imports {name} ({_where(node)}){why}: only triton, triton.language, math and Inductor's " \
           "runtime helpers may be imported"


def _constant_expr(node: ast.AST) -> bool:
    """Immutable values: literals, tuples of them, arithmetic, names, tl attributes, tl.constexpr(...)."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Tuple):
        return all(_constant_expr(e) for e in node.elts)
    if isinstance(node, ast.UnaryOp):
        return _constant_expr(node.operand)
    if isinstance(node, ast.BinOp):
        return _constant_expr(node.left) and _constant_expr(node.right)
    if isinstance(node, (ast.Name, ast.Attribute)):
        return True
    if isinstance(node, ast.Call):
        return _dotted(node.func) in ("tl.constexpr", "triton.language.constexpr") and not node.keywords \
            and all(_constant_expr(a) for a in node.args)
    return False


def check_module_level(s: Subject) -> str | None:
    """Module level holds only imports, constants, function definitions and the driver call."""
    for node in s.tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef)):
            continue
        if isinstance(node, ast.Expr):
            if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                continue  # docstring
            call = node.value
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and \
                    _dotted(call.func) in {f"triton_helpers.{c}" for c in DRIVER_CALLS} and not call.args:
                continue
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if all(isinstance(t, ast.Name) for t in targets) and node.value is not None \
                    and _constant_expr(node.value):
                continue
            return f"module-level state ({_where(node)}): {ast.unparse(node)[:80]!r} is not a constant; " \
                   "module level may hold only imports, constants and functions"
        return f"module-level {type(node).__name__} statement ({_where(node)}) is not allowed: module level " \
               "may hold only imports, constants and functions"
    return None


def check_no_global_state(s: Subject) -> str | None:
    """No ``global`` / ``nonlocal`` statements and no mutable default arguments."""
    for node in ast.walk(s.tree):
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            kind = "global" if isinstance(node, ast.Global) else "nonlocal"
            return f"{kind} statement ({_where(node)}): functions may not keep state between calls"
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            for default in list(node.args.defaults) + [d for d in node.args.kw_defaults if d is not None]:
                if not _constant_expr(default):
                    return f"mutable default argument ({_where(default)}): {ast.unparse(default)[:60]!r}"
    return None


def check_no_monkeypatch(s: Subject) -> str | None:
    """No assignment to an attribute, nor to an item of an imported module or module-level name."""
    module_names = set()
    for node in s.tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            module_names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            module_names |= {t.id for t in targets if isinstance(t, ast.Name)}
    for node in ast.walk(s.tree):
        targets: list[ast.AST] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = list(node.targets)
        for t in [x for tgt in targets for x in ast.walk(tgt)]:
            if isinstance(t, ast.Attribute) and isinstance(t.ctx, (ast.Store, ast.Del)):
                return f"assigns {_dotted(t)} ({_where(t)}): monkeypatching is not allowed"
            if isinstance(t, ast.Subscript) and isinstance(t.ctx, (ast.Store, ast.Del)) and \
                    _dotted(t.value).split(".")[0] in module_names:
                return f"assigns an item of {_dotted(t.value)} ({_where(t)}): module state may not change"
    return None


def check_compiles(s: Subject) -> str | None:
    """Compile every launch configuration for the target GPU (skipped only without a target)."""
    if s.compile_target is None:
        s.numbers["compiled"] = False
        s.numbers["compile_skipped"] = "no compile target"
        return None
    from ..backends.aot import aot_compile

    s.numbers["compiled"] = False
    s.numbers["compile_target"] = ":".join(str(x) for x in s.compile_target)
    try:
        result = _aot(s, aot_compile)
    except Exception as e:  # noqa: BLE001
        return f"compile step failed: {type(e).__name__}: {e}"
    if isinstance(result, str):
        return result
    s.numbers.update({
        "configs_compiled": sum(c.ok for c in result.configs),
        "configs": len(result.configs),
        "compile_seconds": round(result.seconds, 4),
        "max_shared_bytes": result.max_shared,
        "n_regs": [c.n_regs for c in result.configs],
        "shared_bytes": [c.shared for c in result.configs],
    })
    if not result.ok:
        return f"does not compile for {s.numbers['compile_target']}: {result.first_error}"
    s.numbers["compiled"] = True
    return None


def _aot(s: Subject, aot_compile: Callable) -> Any:
    cand = s.candidate
    if cand.launch is None:
        from ..substitute import complete_source

        kernel = s.kernel(cand.replaces[0])
        return aot_compile(complete_source(kernel, cand.source), kernel.name, target=s.compile_target,
                           configs=list(cand.configs) or None)
    spec = cand.launch
    fn = s.jit_functions()[spec.kernel]
    runtime = [a.arg for a in _params(fn) if not _is_constexpr(a) and a.arg not in spec.constexprs]
    signature = {}
    for param, ref in zip(runtime, spec.args):
        if cand.is_fusion:
            kname, _, kparam = ref.partition(".")
            ty = s.kernel(kname).signature.get(kparam)
        else:
            ty = s.kernel(cand.replaces[0]).signature.get(ref)
        if not ty or ty in ("?", "constexpr"):
            return f"cannot compile: the type of launch arg {ref!r} is unknown"
        signature[param] = ty
    return aot_compile(cand.source, spec.kernel, target=s.compile_target, signature=signature,
                       constexprs=dict(spec.constexprs),
                       configs=[{"num_warps": spec.num_warps, "num_stages": spec.num_stages}])


CHECKS: tuple[Check, ...] = (
    check_parses,
    check_replaced_kernels_known,
    check_defines_kernel,
    check_launch_kernel,
    check_launch_args,
    check_grid_expression,
    check_forbidden_names,
    check_imports,
    check_no_global_state,
    check_no_monkeypatch,
    check_module_level,
    check_compiles,  # last: it loads the module, which only checked code may reach
)


class StaticGate:
    """Gate 1: source checks, then an ahead-of-time compile for the target GPU."""

    name = "static"

    def __init__(self, checks: tuple[Check, ...] = CHECKS) -> None:
        self.checks = checks

    def check(self, candidate: Candidate, kernels: Mapping[str, TritonKernel], *,
              compile_target: Any = DEFAULT_COMPILE_TARGET) -> GateResult:
        """Run the checks in order; the first reason rejects.

        ``kernels`` are the graph's Triton kernels by name (at least those the
        candidate replaces).  ``compile_target`` is a ``(backend, arch,
        warp_size)`` tuple or ``GPUTarget``; None skips the compile and the
        numbers then say ``compiled: False``.
        """
        if compile_target is not None:
            from ..backends.aot import as_target_tuple

            compile_target = as_target_tuple(compile_target)
        subject = Subject(candidate, kernels, compile_target)
        t0 = time.perf_counter()
        for i, check in enumerate(self.checks):
            reason = check(subject)
            if reason is not None:
                subject.numbers.setdefault("compiled", False)
                subject.numbers.update(failed_check=check.__name__, checks_passed=i,
                                       seconds=round(time.perf_counter() - t0, 4))
                return GateResult(gate="static", status="fail", reason=reason, numbers=subject.numbers)
        subject.numbers.update(checks_passed=len(self.checks), seconds=round(time.perf_counter() - t0, 4))
        return GateResult(gate="static", status="pass", numbers=subject.numbers)
