"""Gate 1, static: is the candidate plain Triton that claims the right kernel and compiles?

The gate never runs the candidate.  It reads the source with :mod:`ast` and
applies a list of small checks, each returning ``None`` or the reason it
fails (in the spirit of pytest-benchmark's ``fails(...) -> str | None``); the
first reason rejects.  Only a candidate that passed every other check is
loaded, by the last check, to be compiled ahead of time for the target GPU
(:func:`pytest_kernelopt.backends.aot.aot_compile`).

What a candidate may contain is an allowlist, not a deny-list: the source --
for a drop-in, completed with the original's imports and heuristics decorator,
exactly as it will be loaded -- must be made only of the shapes Inductor
emits (:mod:`pytest_kernelopt.allowlist`: a closed list of import lines,
literal decorator arguments, ``@triton.jit`` functions whose bodies use only
parameters, locals and allowlisted Triton functions), and its launch
configurations must be small integers.  Only then is it compiled, and the
compile builds the module from the checked source in a namespace the harness
constructs (:mod:`pytest_kernelopt.kernel_loader`).

With ``compile_target=None`` the compile check is skipped and the numbers say
``compiled: False``; whoever reads the result decides what that means.
"""

from __future__ import annotations

import ast
import re
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from ..allowlist import DRIVER_CALLS, AllowlistError, check_configs, check_source, parse_bounded
from ..backends.aot import aot_compile, as_target_tuple
from ..candidate import Candidate
from ..errors import SubstitutionError
from ..graph import TritonKernel
from ..substitute import complete_source
from .results import GateResult

DEFAULT_COMPILE_TARGET = ("cuda", 90, 32)

# the shapes a candidate may contain are in :mod:`pytest_kernelopt.allowlist`
GRID_CALLS = {"cdiv", "min", "max"}
#: a grid is a few terms over the kernel's parameters (a sum of 5000 ones crashed the judge's parser:
#: tests/test_static_gate.py::test_rejects_a_grid_expression_too_long_to_be_a_grid)
MAX_GRID_CHARS = 1000


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

    def known(self, ref: str) -> TritonKernel:
        """:meth:`kernel` in the checks after :func:`check_replaced_kernels_known` (they run in order)."""
        kernel = self.kernel(ref)
        assert kernel is not None, ref
        return kernel

    def parsed(self) -> ast.Module:
        """:attr:`tree` in the checks after :func:`check_parses` (they run in order)."""
        assert self.tree is not None
        return self.tree

    def jit_functions(self) -> dict[str, ast.FunctionDef]:
        return {f.name: f for f in self.parsed().body if isinstance(f, ast.FunctionDef) and _is_jit(f)}


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



def _is_constexpr(arg: ast.arg) -> bool:
    return arg.annotation is not None and ast.unparse(arg.annotation).endswith("constexpr")


def _params(fn: ast.FunctionDef) -> list[ast.arg]:
    return list(fn.args.posonlyargs) + list(fn.args.args)


# --------------------------------------------------------------------------- checks


def check_parses(s: Subject) -> str | None:
    """The source is valid Python within the size limits (a parser running out of memory is a rejection)."""
    try:
        s.tree = parse_bounded(s.candidate.source)
    except AllowlistError as e:
        return str(e)
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
    kernel = s.known(s.candidate.replaces[0])
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


def _device_marks(tree: ast.Module) -> dict[str, set[str]]:
    """The device a kernel module is written for, as its source says: ``triton_helpers.set_driver_to_*()``
    calls and the ``type=`` of ``DeviceProperties(...)`` in the heuristics decorator's ``triton_meta``."""
    marks: dict[str, set[str]] = {"driver": set(), "device": set()}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = _dotted(node.func)
        if func.rsplit(".", 1)[-1] in DRIVER_CALLS:
            marks["driver"].add(func.rsplit("_", 1)[-1])
        elif func.rsplit(".", 1)[-1] == "DeviceProperties":
            for kw in node.keywords:
                if kw.arg == "type" and isinstance(kw.value, ast.Constant):
                    marks["device"].add(str(kw.value.value))
    return marks


def check_same_device(s: Subject) -> str | None:
    """The candidate is written for the device the kernels it replaces run on: a kernel module captured on
    another machine (a CPU capture judged on a GPU, say) names another driver or device type, and would only
    fail later, inside Triton, with an error that does not say why."""
    want: dict[str, set[str]] = {"driver": set(), "device": set()}
    for ref in s.candidate.replaces:
        for key, found in _device_marks(_parsed(s.known(ref).source)).items():
            want[key] |= found
    got = _device_marks(s.parsed())
    what = {"driver": "triton_helpers.set_driver_to_{}()", "device": "DeviceProperties(type={!r})"}
    for key in ("driver", "device"):
        other = sorted(got[key] - want[key])
        if other and (want[key] or key == "driver"):  # Inductor always names the device; a GPU, no driver
            theirs = ", ".join(what[key].format(v) for v in sorted(want[key])) or "nothing of the kind"
            return (f"written for another device: the candidate has {what[key].format(other[0])}, the kernel it "
                    f"replaces has {theirs}: take the kernel's source from `kernelopt capture` on the machine "
                    "that judges it (a CPU capture does not run on a GPU, nor the other way round)")
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
    wrapped = [ast.unparse(d)[:40] for d in fn.decorator_list
               if isinstance(d, ast.Call) and _dotted(d.func).startswith("triton_heuristics.")]
    if wrapped:
        return (f"launch kernel {spec.kernel} carries Inductor's heuristics decorator ({wrapped[0]}...): a launch "
                "spec launches a plain @triton.jit function with its own grid; drop the decorator, or drop the "
                "launch spec and keep Inductor's launcher")
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
            kernel = s.known(s.candidate.replaces[0])
            if ref not in kernel.runtime_params:
                return f"launch arg {ref!r} is not a runtime parameter of {kernel.name} {list(kernel.runtime_params)}"
    return None


def check_grid_expression(s: Subject) -> str | None:
    """The grid is arithmetic over the launch kernel's parameters and constexprs, cdiv, min and max."""
    if s.launch is None:
        return None
    spec = s.launch
    if not isinstance(spec.grid, str) or len(spec.grid) > MAX_GRID_CHARS:
        return (f"grid expression of {len(spec.grid) if isinstance(spec.grid, str) else type(spec.grid).__name__} "
                f"characters; at most {MAX_GRID_CHARS} are allowed")
    try:
        tree = ast.parse(spec.grid, mode="eval")
    except SyntaxError as e:
        return f"grid expression {spec.grid!r} does not parse: {e.msg}"
    except (MemoryError, RecursionError, ValueError, OverflowError) as e:
        return f"grid expression cannot be parsed within limits: {type(e).__name__}"
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


def check_allowlist(s: Subject) -> str | None:
    """The source as it will be loaded is made only of allowed shapes; launch configurations are small integers."""
    source = s.candidate.source
    if s.launch is None:
        try:
            source = complete_source(s.known(s.candidate.replaces[0]), source)
        except SubstitutionError as e:
            return str(e)
    try:
        tree = check_source(source)
    except AllowlistError as e:
        return f"not on the allowlist: {e}"
    own = {ast.unparse(n) for r in s.candidate.replaces for n in ast.walk(_parsed(s.known(r).source))
           if _is_assert(n)}
    added = [ast.unparse(n) for n in ast.walk(tree) if _is_assert(n) and ast.unparse(n) not in own]
    if added:
        return (f"not on the allowlist: {added[0][:120]!r}: a candidate may keep the device asserts of the "
                "kernel it replaces (Inductor's index bounds), not add its own (an assert that fires on a user's "
                "input crashes the process)")
    configs = list(s.candidate.configs)
    if len(configs) > 1:
        return (f"{len(configs)} launch configurations: a candidate carries at most one (with several, Triton's "
                "autotuner picks one per process by timing, so the one a user's process runs need not be the one "
                "the gates checked; submit each configuration as a candidate of its own)")
    if s.launch is not None:
        configs.append({"num_warps": s.launch.num_warps, "num_stages": s.launch.num_stages, **s.launch.constexprs})
    reason = check_configs(configs)
    return f"not on the allowlist: {reason}" if reason else None


def _parsed(source: str) -> ast.Module:
    try:
        return ast.parse(source)
    except SyntaxError:
        return ast.Module(body=[], type_ignores=[])


def _is_assert(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and ast.unparse(node.func) in ("tl.device_assert",
                                                                      "triton.language.device_assert")


def check_compiles(s: Subject) -> str | None:
    """Compile every launch configuration for the target GPU (skipped only without a target)."""
    if s.compile_target is None:
        s.numbers["compiled"] = False
        s.numbers["compile_skipped"] = "no compile target"
        return None
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
        kernel = s.known(cand.replaces[0])
        return aot_compile(complete_source(kernel, cand.source), kernel.name, target=s.compile_target,
                           configs=list(cand.configs) or None)
    spec = cand.launch
    fn = s.jit_functions()[spec.kernel]
    runtime = [a.arg for a in _params(fn) if not _is_constexpr(a) and a.arg not in spec.constexprs]
    signature = {}
    for param, ref in zip(runtime, spec.args):
        if cand.is_fusion:
            kname, _, kparam = ref.partition(".")
            ty = s.known(kname).signature.get(kparam)
        else:
            ty = s.known(cand.replaces[0]).signature.get(ref)
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
    check_same_device,
    check_launch_kernel,
    check_launch_args,
    check_grid_expression,
    check_allowlist,
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
