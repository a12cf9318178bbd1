"""The five agents: their roles, versioned prompt templates, and how a prompt is rendered.

Templates live in ``prompts/<template>.<version>.md``; a ``<!-- system -->``
line starts the system message and a ``<!-- user -->`` line the user message;
``{{name}}`` placeholders are filled from the context.  Every rendered prompt
carries its template, version and the sha256 of its text, so a transcript says
exactly what the model was asked.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping, Sequence

from ..candidate import Candidate
from ..gates.results import CascadeResult
from ..graph import ExternCall, KernelGraph, Launch, TritonKernel, TritonLaunch
from .parsing import TOOL_NAME

PROMPT_DIR = Path(__file__).parent / "prompts"
_PLACEHOLDER = re.compile(r"\{\{\s*(\w+)\s*\}\}")


@dataclass(frozen=True)
class Role:
    """One agent: its name, template, and whether it must answer with a candidate."""

    name: str
    template: str
    version: str
    writes_code: bool

    @property
    def template_id(self) -> str:
        return f"{self.template}.{self.version}"


ANALYST = Role("analyst", "analyst", "v1", writes_code=False)
PLANNER = Role("planner", "planner", "v1", writes_code=False)
WRITER = Role("writer", "writer", "v1", writes_code=True)
FUSION = Role("fusion", "fusion", "v1", writes_code=True)
REPAIRER = Role("repairer", "repairer", "v1", writes_code=True)
ROLES: dict[str, Role] = {r.name: r for r in (ANALYST, PLANNER, WRITER, FUSION, REPAIRER)}


@dataclass(frozen=True)
class RenderedPrompt:
    role: str
    template: str
    version: str
    system: str
    user: str

    @property
    def sha256(self) -> str:
        return hashlib.sha256((self.system + "\0" + self.user).encode()).hexdigest()

    @property
    def messages(self) -> list[dict[str, str]]:
        return [{"role": "system", "content": self.system}, {"role": "user", "content": self.user}]


@lru_cache(maxsize=None)
def load_template(template_id: str) -> tuple[str, str]:
    """``(system, user)`` text of ``prompts/<template_id>.md``."""
    text = (PROMPT_DIR / f"{template_id}.md").read_text(encoding="utf-8")
    head, sep, user = text.partition("<!-- user -->")
    if not sep:
        raise ValueError(f"prompt template {template_id} has no '<!-- user -->' line")
    system = head.split("<!-- system -->", 1)[-1]
    return system.strip(), user.strip()


def fill(text: str, context: Mapping[str, Any]) -> str:
    """``text`` with every ``{{name}}`` replaced; a missing name is an error (a template bug)."""
    def sub(m: re.Match[str]) -> str:
        if m.group(1) not in context:
            raise KeyError(f"prompt placeholder {{{{{m.group(1)}}}}} has no value")
        return str(context[m.group(1)])

    return _PLACEHOLDER.sub(sub, text)


def render(role: Role, context: Mapping[str, Any]) -> RenderedPrompt:
    system, user = load_template(role.template_id)
    return RenderedPrompt(role.name, role.template, role.version, fill(system, context), fill(user, context))


# --------------------------------------------------------------------------- context


SUBMIT_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": TOOL_NAME,
        "description": "Submit one candidate Triton kernel for evaluation by the gates.",
        "parameters": {
            "type": "object",
            "properties": {
                "source": {"type": "string", "description": "Python source: the @triton.jit kernel (and helpers)"},
                "configs": {"type": "array", "description": "launch configurations, e.g. "
                            "[{\"XBLOCK\": 256, \"num_warps\": 4, \"num_stages\": 1}]",
                            "items": {"type": "object", "additionalProperties": {"type": "integer"}}},
                "launch": {"type": "object", "description": "own launch (required for a fusion)",
                           "properties": {"kernel": {"type": "string"},
                                          "args": {"type": "array", "items": {"type": "string"}},
                                          "grid": {"type": "string"},
                                          "num_warps": {"type": "integer"}, "num_stages": {"type": "integer"},
                                          "constexprs": {"type": "object",
                                                         "additionalProperties": {"type": "integer"}}},
                           "required": ["kernel", "args", "grid"]},
                "description": {"type": "string", "description": "one sentence: what changed and why"},
            },
            "required": ["source"],
        },
    },
}


def describe_launch(graph: KernelGraph, launch: Launch) -> str:
    if isinstance(launch, TritonLaunch):
        k = graph.kernels.get(launch.kernel)
        kind = k.kind if k is not None else "?"
        return f"[{launch.index}] triton {kind} {launch.kernel}({', '.join(launch.args)})"
    if isinstance(launch, ExternCall):
        return f"[{launch.index}] vendor call kept as is: {launch.target}"
    return f"[?] {launch!r}"


def describe_mapping(d: Mapping[str, Any] | None, empty: str) -> str:
    if not d:
        return empty
    return "\n".join(f"- {k}: {v if isinstance(v, (str, int, float)) else json.dumps(v, default=str)}"
                     for k, v in d.items())


def describe_signature(kernel: TritonKernel) -> str:
    return ", ".join(f"{p}: {kernel.signature.get(p, '?')}" for p in kernel.params)


@dataclass(frozen=True)
class Attempt:
    """One answer that should have been a candidate, and what became of it.

    Exactly one of ``rejection`` (the answer was unusable, or a duplicate) and
    ``result`` (the gates' verdict) is set.
    """

    number: int
    role: str
    candidate: Candidate | None
    rejection: str | None = None
    result: CascadeResult | None = None

    @property
    def candidate_hash(self) -> str | None:
        return self.candidate.content_hash if self.candidate is not None else None

    def to_json(self) -> dict[str, Any]:
        return {"number": self.number, "role": self.role, "candidate_hash": self.candidate_hash,
                "rejection": self.rejection, "result": self.result.to_json() if self.result else None}

    def describe(self) -> str:
        head = f"attempt {self.number} ({self.role}"
        head += f", candidate {self.candidate_hash[:12]})" if self.candidate_hash else ")"
        if self.rejection is not None:
            return f"{head}: rejected before evaluation: {self.rejection}"
        r = self.result
        assert r is not None
        gates = "; ".join(f"{g.gate} {g.status}" + (f" ({g.reason})" if g.reason else "") for g in r.gates)
        what = f" [{self.candidate.description}]" if self.candidate and self.candidate.description else ""
        return f"{head}{what}: {r.decision}: {gates}"


def describe_feedback(history: Sequence[Attempt]) -> str:
    return "\n".join(f"- {f.describe()}" for f in history) if history else "(no earlier attempts)"


def kernel_context(graph: KernelGraph, kernel_name: str, profile: Mapping[str, Any] | None,
                   hardware: Mapping[str, Any] | None, history: Sequence[Attempt] = ()) -> dict[str, Any]:
    """Everything the drop-in roles see about one kernel."""
    k = graph.kernels[kernel_name]
    neighbours = "\n".join(describe_launch(graph, x) for x in graph.neighbours(kernel_name, radius=2))
    subject = (f"Kernel `{k.name}` ({k.kind}), parameters ({describe_signature(k)}), launched "
               f"{graph.launch_count(kernel_name)} time(s) in graph {graph.index} ({graph.role}, {graph.device}):\n\n"
               f"```python\n{k.source.strip()}\n```\n\nNeighbouring launches in the graph's order:\n"
               f"{neighbours or '(no other launches)'}")
    return {
        "subject": subject,
        "kernel_name": k.name,
        "kernel_kind": k.kind,
        "params": ", ".join(k.params),
        "signature": describe_signature(k),
        "constexprs": ", ".join(p for p in k.params if k.signature.get(p) == "constexpr") or "(none)",
        "size_hints": json.dumps(k.size_hints) if k.size_hints else "(unknown)",
        "source": k.source.strip(),
        "neighbours": neighbours or "(no other launches)",
        "profile": describe_mapping(profile, "(no profile)"),
        "hardware": describe_mapping(hardware, "(no hardware facts)"),
        "feedback": describe_feedback(history),
        "tool": TOOL_NAME,
        "device": graph.device,
    }


def fusion_context(graph: KernelGraph, run: Sequence[str], profile: Mapping[str, Any] | None,
                   hardware: Mapping[str, Any] | None, history: Sequence[Attempt] = ()) -> dict[str, Any]:
    """Everything the fusion specialist (and its repairer) sees about a contiguous run."""
    kernels = [graph.kernels[n] for n in run]
    launches = [x for x in graph.triton_launches if x.kernel in run]
    sources = "\n\n".join(f"### {k.name} ({k.kind})\n```python\n{k.source.strip()}\n```" for k in kernels)
    refs = "\n".join(f"- {k.name}.{p}: {k.signature.get(p, '?')}" for k in kernels for p in k.runtime_params)
    first = min(x.index for x in launches) if launches else 0
    last = max(x.index for x in launches) if launches else 0
    around = "\n".join(describe_launch(graph, x) for x in graph.launches if first - 2 <= x.index <= last + 2)
    subject = (f"A contiguous run of {len(run)} Triton launches in graph {graph.index} ({graph.role}, "
               f"{graph.device}), each launched once, nothing in between: {', '.join(run)}\n\n"
               f"Launches around the run:\n{around}\n\nKernel sources:\n\n{sources}\n\n"
               f"Runtime parameters your launch 'args' may name:\n{refs}")
    return {
        "subject": subject,
        "run": ", ".join(run),
        "run_len": len(run),
        "launches": around,
        "sources": sources,
        "arg_refs": refs,
        "profile": describe_mapping(profile, "(no profile)"),
        "hardware": describe_mapping(hardware, "(no hardware facts)"),
        "feedback": describe_feedback(history),
        "tool": TOOL_NAME,
        "device": graph.device,
    }


CONTRACTS = {False: "contract_dropin.v1", True: "contract_fusion.v1"}


def contract(fusion: bool, context: Mapping[str, Any]) -> str:
    """The candidate contract (``prompts/contract_*.md``), drop-in or fusion, filled for this kernel / run."""
    text = (PROMPT_DIR / f"{CONTRACTS[fusion]}.md").read_text(encoding="utf-8").strip()
    return fill(text, context)


def repair_context(base: Mapping[str, Any], previous: Candidate | None, failed: Attempt,
                   previous_answer: str = "") -> dict[str, Any]:
    """The context of the repairer: ``base`` plus the failed attempt and its gate's verdict.

    ``previous_answer`` (the raw answer) stands in for the source when the
    answer did not yield a candidate.
    """
    if failed.rejection is not None:
        gate, reason, numbers = "parse", failed.rejection, {}
    else:
        assert failed.result is not None
        g = failed.result.failed_gate
        gate = g.gate if g is not None else failed.result.decision
        reason = g.reason if g is not None else failed.result.reason
        numbers = dict(g.numbers) if g is not None else {}
    return {
        **base,
        "failed_gate": gate,
        "failed_reason": reason or "(no reason given)",
        "failed_numbers": json.dumps(numbers, sort_keys=True, default=str) if numbers else "(none)",
        "previous_source": previous.source.strip() if previous is not None
        else (previous_answer.strip()[:6000] or "(the answer was empty)"),
        "previous_launch": json.dumps(previous.launch.to_json()) if previous is not None and previous.launch
        else "(none)",
        "previous_configs": json.dumps(list(previous.configs)) if previous is not None and previous.configs
        else "(none)",
    }
