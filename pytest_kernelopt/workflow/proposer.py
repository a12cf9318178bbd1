"""Which proposer a run searches with, chosen once a run and said wherever the run is reported: the offline tuner,
the LLM agents, or none.  Also how the run searches (what a kept-baseline cache entry records of it) and the
agents a run makes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from ..agents import AgentOptimizer, model_from_settings
from ..config import Settings, named_model
from ..extras import available, check
from ..tuner import SEARCH_SPACE

if TYPE_CHECKING:
    from ..optimize import Evaluator


def choose_proposer(settings: Settings) -> str:
    """``auto`` means the agents when an LLM endpoint and a model are configured (and openai is installed), else
    the offline tuner; ``agents`` without openai is a MissingExtraError naming the extra ``[llm]``."""
    if settings.proposer == "agents":
        check("openai", "proposer=agents (the LLM agents)")
    if settings.proposer in ("tuner", "agents", "none"):
        return settings.proposer
    if not settings.llm_configured() or not available("openai"):
        return "tuner"
    return "tuner" if _model(settings) is None else "agents"


def proposer_reason(settings: Settings) -> str:
    """Why ``proposer=auto`` chose what :func:`choose_proposer` gives (empty where the user named the proposer):
    an endpoint set without a model, or without openai installed, falls back to the tuner, and says so."""
    if settings.proposer != "auto":
        return ""
    if not settings.llm_configured():
        return "no LLM endpoint configured (OPENAI_API_KEY / OPENAI_BASE_URL): the offline tuner runs"
    if not available("openai"):
        return ("an LLM endpoint is configured but openai is not installed (pip install 'pytest-kernelopt[llm]'): "
                "the offline tuner runs")
    model = _model(settings)
    if model is None:
        return ("an LLM endpoint is configured but no model (the model setting, or KERNELOPT_MODEL / OPENAI_MODEL): "
                "the offline tuner runs")
    return f"the LLM agents run, model {model}"


def search_conditions(settings: Settings, proposer: str) -> dict[str, Any]:
    """How this run searches, as a kept-baseline cache entry records it (``CacheEntry.searched``)."""
    model = _model(settings) if proposer == "agents" else None
    return {"proposer": proposer, "model": model, "min_speedup": float(settings.min_speedup),
            "search_space": SEARCH_SPACE}


def agent_factory_for(evaluator: Evaluator, settings: Settings, transcript_dir: str) -> Callable[[], AgentOptimizer]:
    """One AgentOptimizer per run (its run-level budgets span all kernels), created on first use."""
    made: list[AgentOptimizer] = []

    def factory() -> AgentOptimizer:
        if not made:
            made.append(AgentOptimizer(model_from_settings(settings), evaluator.evaluate, settings, transcript_dir))
        return made[0]

    return factory


def _model(settings: Settings) -> str | None:
    """The model the agents would ask (the setting, else the environment's), or None where none is named."""
    return named_model(settings.model)
