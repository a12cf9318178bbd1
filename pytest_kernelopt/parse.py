"""Parse Inductor's generated wrapper code into a :class:`KernelGraph`.

This module and :mod:`pytest_kernelopt.capture` are the only places that know
what Inductor's output looks like.  Parsing uses :mod:`ast`, tolerates keyword
arguments it does not know, and raises :class:`UnsupportedGeneratedCode`
(naming the torch version) for any shape it does not recognise instead of
guessing.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import cast

from .errors import UnsupportedGeneratedCode
from .graph import ExternCall, KernelGraph, Launch, TritonKernel, TritonLaunch, kind_of_heuristic

EXTERN_PREFIXES = ("extern_kernels.", "aten.", "torch.ops.", "torch._ops.", "torch.ops.aten.")


@dataclass(frozen=True)
class KernelDef:
    name: str
    source: str
    device_str: str
    literal_start: int  # offsets of the string literal holding the source in the wrapper text
    literal_end: int


def _dotted(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    if isinstance(node, ast.Call):
        return _dotted(node.func) + "()"
    return "?"


def _offsets(text: str) -> list[int]:
    offs = [0]
    for line in text.splitlines(keepends=True):
        offs.append(offs[-1] + len(line))
    return offs


def _unsupported(msg: str, torch_version: str) -> UnsupportedGeneratedCode:
    return UnsupportedGeneratedCode(
        f"{msg} (torch {torch_version}); pytest-kernelopt supports torch 2.7-2.13: "
        "please report this with the generated code (TORCH_LOGS=output_code)"
    )


def find_kernel_defs(wrapper: str, torch_version: str = "?") -> tuple[dict[str, KernelDef], list[str]]:
    """All ``name = async_compile.triton('name', '''source''', ...)`` definitions."""
    try:
        tree = ast.parse(wrapper)
    except SyntaxError as e:
        raise _unsupported(f"generated wrapper does not parse: {e}", torch_version) from e
    offs = _offsets(wrapper)
    defs: dict[str, KernelDef] = {}
    others: list[str] = []
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)):
            continue
        func = node.value.func
        if not (isinstance(func, ast.Attribute) and _dotted(func.value) == "async_compile"):
            continue
        target = node.targets[0].id if isinstance(node.targets[0], ast.Name) else "?"
        if func.attr != "triton":
            others.append(f"{target} (async_compile.{func.attr})")
            continue
        args = node.value.args
        kw = {k.arg: k.value for k in node.value.keywords if k.arg}
        name_node = args[0] if args else kw.get("kernel_name")
        src_node = args[1] if len(args) > 1 else kw.get("source_code")
        dev_node = args[2] if len(args) > 2 else kw.get("device_str")
        if not (isinstance(name_node, ast.Constant) and isinstance(src_node, ast.Constant)
                and isinstance(src_node.value, str)):
            raise _unsupported(f"async_compile.triton call for {target!r} has no literal name and source",
                               torch_version)
        device = dev_node.value if isinstance(dev_node, ast.Constant) else "cuda"
        # ast.parse sets every node's end position (only nodes built by hand lack one)
        assert src_node.end_lineno is not None and src_node.end_col_offset is not None
        start = offs[src_node.lineno - 1] + src_node.col_offset
        end = offs[src_node.end_lineno - 1] + src_node.end_col_offset
        defs[target] = KernelDef(cast(str, name_node.value), src_node.value, cast(str, device), start, end)
    return defs, others


def parse_kernel_source(name: str, source: str, device_str: str, torch_version: str = "?") -> TritonKernel:
    """Kind, parameters and signature of one kernel module's source."""
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        raise _unsupported(f"kernel {name} does not parse: {e}", torch_version) from e
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name), None)
    if fn is None:
        fns = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
        raise _unsupported(f"kernel source for {name} defines no function of that name (found {fns})",
                           torch_version)
    heuristic = None
    signature: dict[str, str] = {}
    size_hints: dict[str, int] = {}
    for dec in fn.decorator_list:
        if isinstance(dec, ast.Call) and _dotted(dec.func).startswith("triton_heuristics."):
            heuristic = _dotted(dec.func).split(".", 1)[1]
            kw = {k.arg: k.value for k in dec.keywords if k.arg}
            meta = kw.get("triton_meta")
            if isinstance(meta, ast.Dict):
                for k, v in zip(meta.keys, meta.values):
                    if isinstance(k, ast.Constant) and k.value == "signature":
                        try:
                            signature = {str(a): str(b) for a, b in ast.literal_eval(v).items()}
                        except ValueError:
                            signature = {}
            hints = kw.get("size_hints") or (dec.args[0] if dec.args else None)
            if hints is not None:
                try:
                    val = ast.literal_eval(hints)
                    if isinstance(val, dict):
                        size_hints = {str(a): int(b) for a, b in val.items()}
                    elif isinstance(val, (list, tuple)):
                        size_hints = {f"d{i}": int(b) for i, b in enumerate(val)}
                except ValueError:
                    size_hints = {}
    params = tuple(a.arg for a in fn.args.args)
    if not signature:
        # no heuristics metadata (hand-written kernel): constexpr-annotated params are constexprs
        for a in fn.args.args:
            ann = ast.unparse(a.annotation) if a.annotation is not None else ""
            signature[a.arg] = "constexpr" if ann.endswith("constexpr") else "?"
    return TritonKernel(
        name=name,
        source=source,
        kind=kind_of_heuristic(heuristic),
        heuristic=heuristic,
        params=params,
        signature=signature,
        device_str=device_str,
        size_hints=size_hints,
    )


def _functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    fns: dict[str, ast.FunctionDef] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            fns.setdefault(node.name, node)
        elif isinstance(node, ast.ClassDef):
            for sub in node.body:
                if isinstance(sub, ast.FunctionDef):
                    fns.setdefault(f"{node.name}.{sub.name}", sub)
    return fns


def _find_call(fns: dict[str, ast.FunctionDef]) -> ast.FunctionDef | None:
    if "call" in fns:
        return fns["call"]
    for key, fn in fns.items():
        if key.endswith(".call"):
            return fn
    return None


def _calls_in_order(fn: ast.FunctionDef, fns: dict[str, ast.FunctionDef], seen: set[str]):
    """Every Call node reachable from ``fn``'s body in source order, inlining local helpers."""
    for stmt in fn.body:
        nodes = sorted((n for n in ast.walk(stmt) if isinstance(n, ast.Call)),
                       key=lambda n: (n.lineno, n.col_offset))
        for call in nodes:
            name = _dotted(call.func)
            short = name.split(".")[-1]
            # graph partitions: call() invokes module-level partition functions
            target = (fns.get(name) or fns.get(short)) if short.startswith("partition") else None
            if target is not None and target.name not in seen:
                seen.add(target.name)
                yield from _calls_in_order(target, fns, seen)
                continue
            yield call


def parse_output_code(wrapper: str, *, index: int = 0, role: str = "forward",
                      torch_version: str = "?", device: str | None = None) -> KernelGraph:
    """Parse one generated wrapper module into a :class:`KernelGraph`."""
    defs, others = find_kernel_defs(wrapper, torch_version)
    tree = ast.parse(wrapper)
    fns = _functions(tree)
    call_fn = _find_call(fns)
    if call_fn is None:
        raise _unsupported("generated wrapper has no call() function", torch_version)
    kernels = {var: parse_kernel_source(d.name, d.source, d.device_str, torch_version) for var, d in defs.items()}
    launches: list[Launch] = []
    for call in _calls_in_order(call_fn, fns, set()):
        name = _dotted(call.func)
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr == "run" and _dotted(func.value) in kernels:
            kernel = _dotted(func.value)
            args = tuple(ast.unparse(a) for a in call.args)
            if any(isinstance(a, ast.Starred) for a in call.args):
                raise _unsupported(f"launch of {kernel} uses *args", torch_version)
            launches.append(TritonLaunch(len(launches), kernel, args, ast.unparse(call)))
        elif name.startswith(EXTERN_PREFIXES) and not name.startswith("extern_kernels._"):
            launches.append(ExternCall(len(launches), name, ast.unparse(call)))
    launched = {x.kernel for x in launches if isinstance(x, TritonLaunch)}
    missing = sorted(set(kernels) - launched)
    if missing:
        raise _unsupported(f"Triton kernels defined but never launched from call(): {missing}", torch_version)
    dev = device or next((k.device_str for k in kernels.values()), None) or (
        "cuda" if "empty_strided_cuda" in wrapper else "cpu")
    return KernelGraph(
        index=index,
        role=role,
        source=wrapper,
        torch_version=torch_version,
        device=dev,
        kernels=kernels,
        launches=tuple(launches),
        other_kernels=tuple(others),
    )

