"""Optimize mode's search for what the cache did not decide: the optimizer with the run's proposer, the agents'
transcripts in a folder of the test's own, and a proposer that could not run said loudly."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from ..config import Settings
from ..optimize import Optimizer, ProblemOutcome, ProgressFn
from .proposer import agent_factory_for

if TYPE_CHECKING:
    from ..graph import KernelGraph
    from ..optimize import Evaluator


def search(evaluator: Evaluator, settings: Settings, cached: set[tuple[int, str]], *, proposer: str, name: str,
           progress: ProgressFn | None, say: ProgressFn) -> tuple[ProblemOutcome, list[str]]:
    """Search every kernel (and, for the agents, every contiguous run) not in ``cached``; returns the outcome and
    the regressions it makes (a proposer that could not run, with ``llm_error=fail``)."""

    def skip(graph: KernelGraph, kname: str) -> str | None:
        return "in the cache (re-verified above)" if (graph.index, kname) in cached else None

    opt = Optimizer(evaluator, settings, proposer=proposer, name=name, progress=progress,
                    agent_factory=agent_factory_for(evaluator, settings, transcript_dir(settings, name)))
    outcome = opt.run(skip=skip)
    return outcome, proposer_failure(outcome, settings, proposer, say)


def transcript_dir(settings: Settings, name: str) -> str:
    """The agents' transcripts of one test: its id made a plain folder name ("tests/test_x.py::test_y[a]" has "::"
    and "/")."""
    safe = re.sub(r"[^\w.-]+", "_", name).strip("_") or "module"
    return str(Path(settings.cache_dir).parent / ".kernelopt" / "transcripts" / safe)


def proposer_failure(outcome: ProblemOutcome, settings: Settings, proposer: str, say: ProgressFn) -> list[str]:
    """A proposer that could not run is said loudly, never only in a report: with ``llm_error=fail`` it is the
    test's (bench: the problem's) failure, returned as a regression; with ``warn`` a warning here."""
    errors = outcome.proposer_errors
    if not errors:
        return []
    endpoint = os.environ.get("OPENAI_BASE_URL")
    msg = f"the {proposer} proposer could not run: {errors[0]}" + (
        f" (OPENAI_BASE_URL={endpoint})" if endpoint and proposer == "agents" else "") + (
        f" (and {len(errors) - 1} other error(s))" if len(errors) > 1 else "")
    if settings.llm_error == "fail":
        return [f"{msg}; nothing was searched (llm_error=fail; llm_error=warn lets it pass with the compiled "
                "baseline)"]
    say(f"WARNING: {msg}; nothing was searched, the compiled baseline runs (llm_error=warn)")
    return []
