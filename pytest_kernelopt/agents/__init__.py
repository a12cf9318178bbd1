"""LLM agents that propose replacements for Inductor's Triton kernels.

Five roles (analyst, planner, kernel writer, fusion specialist, repairer)
talk to any OpenAI-compatible server through :class:`OpenAIChatModel` (or any
:class:`ChatModel`); :class:`AgentOptimizer` runs them, judging every
candidate with the ``evaluate`` callback (the gate cascade).

Importing this package does not import ``openai``.
"""

from .client import (
    ChatModel,
    ChatReply,
    LLMConfigError,
    LLMRequestError,
    OpenAIChatModel,
    ScriptedChatModel,
    ToolCall,
    Usage,
    model_from_settings,
    resolve_model,
)
from .loop import AgentOptimizer, AgentOutcome, BudgetExhausted, ModelFailed, Passed, StopSearch
from .parsing import TOOL_NAME, Parsed, parse_reply
from .roles import ROLES, SUBMIT_TOOL, Attempt, RenderedPrompt, Role, render

__all__ = [
    "AgentOptimizer", "AgentOutcome", "Attempt", "BudgetExhausted", "ChatModel", "ChatReply",
    "LLMConfigError", "LLMRequestError", "ModelFailed", "OpenAIChatModel", "Parsed", "Passed", "ROLES",
    "RenderedPrompt",
    "Role", "SUBMIT_TOOL", "ScriptedChatModel", "StopSearch", "TOOL_NAME", "ToolCall", "Usage",
    "model_from_settings", "parse_reply", "render", "resolve_model",
]
