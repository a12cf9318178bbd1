"""Turn a model's answer into a :class:`Candidate`, or into the reason it is not one.

Nothing here raises on a bad answer: :func:`parse_reply` returns a
:class:`Parsed` whose ``rejection`` names what was wrong (empty, truncated,
malformed tool JSON, a refusal, code in another language, the wrong kernel
name, ...), so the loop can record the attempt and ask for a repair.

An answer arrives either as a ``submit_kernel`` tool call (JSON arguments
``{source, configs, launch, description}``) or as plain content with fenced
code blocks: the ``python`` block defining the kernel, and optionally a
``json`` block with ``configs`` / ``launch`` / ``description``.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any, Sequence

from ..candidate import Candidate, LaunchSpec
from ..graph import TritonKernel
from .client import ChatReply

TOOL_NAME = "submit_kernel"

_FENCE = re.compile(r"^[ \t]*```[ \t]*([\w+#.-]*)[^\n]*\n(.*?)^[ \t]*```[ \t]*$", re.M | re.S)
_FENCE_LINE = re.compile(r"^[ \t]*```", re.M)
_PY_LANGS = {"", "python", "py", "python3", "triton"}
_REFUSAL = re.compile(
    r"\b(I can(?:no|['\u2019])t (?:help|assist|do|comply|provide)|I(?:['\u2019]m| am) (?:not able|unable) to|"
    r"I won['\u2019]?t be able to|as an AI\b|I must decline|I cannot fulfil)", re.I)
_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)  # reasoning models' scratchpad
_GRID_FUNCS = {"cdiv", "min", "max"}


@dataclass(frozen=True)
class Parsed:
    """Either a candidate or a rejection reason (exactly one is set)."""

    candidate: Candidate | None = None
    rejection: str | None = None

    @property
    def ok(self) -> bool:
        return self.candidate is not None


class _Reject(Exception):
    """Internal: a rejection found deep in the checks; never leaves this module."""


# --------------------------------------------------------------------------- entry points


def parse_reply(reply: ChatReply, kernels: Sequence[TritonKernel], *, origin: str = "agent") -> Parsed:
    """The candidate in ``reply`` replacing ``kernels`` (one: drop-in; several: a fusion)."""
    try:
        return Parsed(candidate=_parse(reply, list(kernels), origin))
    except _Reject as e:
        return Parsed(rejection=str(e))


def _parse(reply: ChatReply, kernels: list[TritonKernel], origin: str) -> Candidate:
    if reply.finish_reason == "length":
        raise _Reject("truncated: the answer hit the output token limit (finish_reason=length); "
                      "answer with the kernel only, without explanations")
    call = next((c for c in reply.tool_calls if c.name == TOOL_NAME), None)
    if call is not None:
        fields = _tool_fields(call.arguments)
    elif reply.tool_calls:
        raise _Reject(f"called unknown tool(s) {[c.name for c in reply.tool_calls]}; use {TOOL_NAME}")
    else:
        fields = _content_fields(reply.content or "", kernels)
    return _candidate(fields, kernels, origin)


# --------------------------------------------------------------------------- extraction


def _tool_fields(arguments: str) -> dict[str, Any]:
    try:
        fields = json.loads(arguments)
    except json.JSONDecodeError as e:
        raise _Reject(f"malformed JSON in the {TOOL_NAME} arguments: {e.msg} at line {e.lineno} "
                      f"column {e.colno}") from None
    except RecursionError:
        raise _Reject(f"the {TOOL_NAME} arguments nest too deeply to be read as JSON") from None
    if not isinstance(fields, dict):
        raise _Reject(f"{TOOL_NAME} arguments must be a JSON object, got {type(fields).__name__}")
    if not isinstance(fields.get("source"), str) or not fields["source"].strip():
        raise _Reject(f"{TOOL_NAME} arguments have no 'source' string")
    return fields


def code_blocks(text: str) -> list[tuple[str, str]]:
    """``(language, code)`` of every complete fenced block in ``text``."""
    return [(m.group(1).lower(), m.group(2)) for m in _FENCE.finditer(text)]


def _content_fields(text: str, kernels: list[TritonKernel]) -> dict[str, Any]:
    text = _THINK.sub("", text)
    if not text.strip():
        raise _Reject("empty answer")
    blocks = code_blocks(text)
    if len(_FENCE_LINE.findall(text)) > 2 * len(blocks):
        raise _Reject("truncated: a code fence is not closed")
    if not blocks:
        if _REFUSAL.search(text):
            raise _Reject(f"refusal: {_first_line(text)}")
        if "@triton.jit" in text and _parses(text):
            return {"source": text}  # bare code, no fences
        raise _Reject("no code block in the answer")
    fields: dict[str, Any] = {}
    for lang, code in blocks:
        if lang == "json":
            try:
                extra = json.loads(code)
            except json.JSONDecodeError as e:
                raise _Reject(f"malformed JSON block: {e.msg} at line {e.lineno}") from None
            except RecursionError:
                raise _Reject("a JSON block nests too deeply to be read") from None
            if isinstance(extra, dict):
                fields.update({k: v for k, v in extra.items() if k != "source"})
    fenced = [(lang, c) for lang, c in blocks if lang != "json"]
    python = [c for lang, c in fenced if lang in _PY_LANGS and _parses(c)]
    if not python:
        langs = sorted({lang or "unlabelled" for lang, _ in fenced})
        if langs and not any(lang in _PY_LANGS for lang, _ in fenced):
            raise _Reject(f"code in another language ({', '.join(langs)}): write a Triton kernel in Python")
        if fenced:
            bad = next(c for lang, c in fenced if lang in _PY_LANGS)
            raise _Reject(f"the code block does not parse as Python: {_syntax_error(bad)}")
        raise _Reject("no Python code block in the answer")
    wanted = _wanted_names(fields, kernels)
    chosen = next((c for c in python if wanted & set(_jit_names(c))), None)
    if chosen is None:
        chosen = next((c for c in python if _jit_names(c)), python[0])
    fields["source"] = chosen
    return fields


def _wanted_names(fields: dict[str, Any], kernels: list[TritonKernel]) -> set[str]:
    launch = fields.get("launch")
    if isinstance(launch, dict) and isinstance(launch.get("kernel"), str):
        return {launch["kernel"]}
    return {k.name for k in kernels} if len(kernels) == 1 else set()


# --------------------------------------------------------------------------- validation


def _candidate(fields: dict[str, Any], kernels: list[TritonKernel], origin: str) -> Candidate:
    source = _dedent_fence(fields["source"])
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        raise _Reject(f"source does not parse: line {e.lineno}: {e.msg}") from None
    jit = {f.name: f for f in _jit_functions(tree)}
    if not jit:
        raise _Reject("source defines no @triton.jit function")
    configs = _configs(fields.get("configs"))
    description = str(fields.get("description") or "")[:2000]
    launch_json = fields.get("launch")
    names = tuple(k.name for k in kernels)
    if len(kernels) > 1 and not launch_json:
        raise _Reject(f"a fusion of {list(names)} needs a 'launch' (kernel, args, grid)")
    if launch_json:
        launch = _launch(launch_json, jit, kernels)
        return Candidate(replaces=names, source=source, configs=configs, launch=launch, origin=origin,
                         description=description)
    (kernel,) = kernels
    fn = jit.get(kernel.name)
    if fn is None:
        raise _Reject(f"wrong kernel name: the source defines @triton.jit {sorted(jit)}, expected "
                      f"{kernel.name!r} (a drop-in keeps the name)")
    params = tuple(a.arg for a in fn.args.args)
    if params != kernel.params:
        raise _Reject(f"wrong parameters for drop-in {kernel.name}: expected ({', '.join(kernel.params)}), "
                      f"got ({', '.join(params)})")
    return Candidate(replaces=names, source=source, configs=configs, origin=origin, description=description)


def _configs(raw: Any) -> tuple[dict[str, int], ...]:
    if raw in (None, "", []):
        return ()
    if isinstance(raw, dict):
        raw = [raw]
    if not isinstance(raw, list):
        raise _Reject("'configs' must be a list of objects like {\"XBLOCK\": 256, \"num_warps\": 4}")
    out = []
    for c in raw:
        if not isinstance(c, dict) or not all(isinstance(v, int) and not isinstance(v, bool) for v in c.values()):
            raise _Reject(f"config {c!r} must map names to integers")
        out.append({str(k): int(v) for k, v in c.items()})
    return tuple(out)


def _launch(raw: Any, jit: dict[str, ast.FunctionDef], kernels: list[TritonKernel]) -> LaunchSpec:
    if not isinstance(raw, dict):
        raise _Reject("'launch' must be an object {kernel, args, grid, num_warps, num_stages, constexprs}")
    try:
        spec = LaunchSpec.from_json(raw)
    except (KeyError, TypeError, ValueError) as e:
        raise _Reject(f"malformed launch: {type(e).__name__}: {e}") from None
    fn = jit.get(spec.kernel)
    if fn is None:
        raise _Reject(f"wrong kernel name: launch names {spec.kernel!r} but the source defines {sorted(jit)}")
    if len(kernels) > 1:
        available = [f"{k.name}.{p}" for k in kernels for p in k.runtime_params]
    else:
        available = list(kernels[0].runtime_params)
    unknown = [a for a in spec.args if a not in available]
    if unknown:
        raise _Reject(f"launch args {unknown} name no runtime parameter of the replaced launch(es); "
                      f"available: {available}")
    params = [a.arg for a in fn.args.args if a.arg not in spec.constexprs]
    if len(params) != len(spec.args):
        raise _Reject(f"launch gives {len(spec.args)} args but {spec.kernel}({', '.join(params)}) takes "
                      f"{len(params)} besides the constexprs {sorted(spec.constexprs)}")
    _check_grid(spec.grid, set(params) | set(spec.constexprs))
    return spec


def _check_grid(expr: str, names: set[str]) -> None:
    try:
        tree = ast.parse(expr.strip(), mode="eval")
    except SyntaxError as e:
        raise _Reject(f"grid {expr!r} does not parse: {e.msg}") from None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            if not (isinstance(node.func, ast.Name) and node.func.id in _GRID_FUNCS):
                raise _Reject(f"grid {expr!r} may call only cdiv, min and max")
        elif isinstance(node, ast.Name) and node.id not in names | _GRID_FUNCS:
            raise _Reject(f"grid {expr!r} uses {node.id!r}, not a kernel parameter or constexpr "
                          f"(have {sorted(names)})")
        elif isinstance(node, (ast.Attribute, ast.Subscript, ast.Lambda, ast.comprehension)):
            raise _Reject(f"grid {expr!r} must be arithmetic over parameters with cdiv/min/max")


# --------------------------------------------------------------------------- helpers


def _jit_functions(tree: ast.Module) -> list[ast.FunctionDef]:
    out = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            decs = [ast.unparse(d) for d in node.decorator_list]
            if any(d.startswith(("triton.jit", "jit", "triton_heuristics.")) for d in decs):
                out.append(node)
    return out


def _jit_names(code: str) -> list[str]:
    try:
        return [f.name for f in _jit_functions(ast.parse(code))]
    except SyntaxError:
        return []


def _parses(code: str) -> bool:
    try:
        ast.parse(code)
        return True
    except SyntaxError:
        return False


def _syntax_error(code: str) -> str:
    try:
        ast.parse(code)
    except SyntaxError as e:
        return f"line {e.lineno}: {e.msg}"
    return "?"


def _dedent_fence(source: str) -> str:
    """A source that still carries its own fence (tool args written as markdown) without it."""
    blocks = code_blocks(source)
    return blocks[0][1] if len(blocks) == 1 and source.lstrip().startswith("```") else source


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0]
    return line[:200]
