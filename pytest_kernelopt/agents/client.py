"""A thin wrapper over the ``openai`` chat-completions client.

Configuration follows what users of the OpenAI SDK expect:

* ``OPENAI_API_KEY`` -- the key (a local OpenAI-compatible server that needs
  none may be used with ``OPENAI_BASE_URL`` alone);
* ``OPENAI_BASE_URL`` -- any OpenAI-compatible server (vLLM, llama.cpp, a proxy);
* the model: an explicit option, else ``KERNELOPT_MODEL``, else ``OPENAI_MODEL``.

Retries are the SDK's own (``max_retries``, default 4): connection errors,
timeouts, HTTP 408, 409, 429 and 5xx are retried with its bounded exponential
backoff and jitter (0.5 s doubling up to 8 s), honouring the server's
``retry-after`` up to the SDK's cap; anything else fails at once.  Every failure
surfaces as :class:`LLMRequestError` naming the last error and how many requests
were sent.

``openai`` is an optional dependency (``pip install 'pytest-kernelopt[llm]'``),
imported only when a model is built: without it :class:`OpenAIChatModel` raises
:class:`~pytest_kernelopt.extras.MissingExtraError` naming the extra.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol, Sequence, runtime_checkable

from ..config import named_model
from ..errors import KernelOptError
from ..extras import require

Message = Mapping[str, Any]


class LLMConfigError(KernelOptError):
    """No model, key or server is configured for the agents."""


class LLMRequestError(KernelOptError):
    """A chat request failed (after retries, where the error is retryable)."""

    def __init__(self, message: str, *, attempts: int = 1, retryable: bool = False) -> None:
        super().__init__(message)
        self.attempts = attempts
        self.retryable = retryable


# --------------------------------------------------------------------------- data


@dataclass(frozen=True)
class Usage:
    """Tokens and requests spent (sums with ``+``)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    requests: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(self.prompt_tokens + other.prompt_tokens, self.completion_tokens + other.completion_tokens,
                     self.requests + other.requests)

    def to_json(self) -> dict[str, int]:
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "total_tokens": self.total_tokens, "requests": self.requests}


@dataclass(frozen=True)
class ToolCall:
    """One function call the model made; ``arguments`` is the raw JSON text (it may be malformed)."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class ChatReply:
    """What one chat completion returned."""

    content: str | None
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str | None = "stop"
    usage: Usage = field(default_factory=Usage)
    model: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"content": self.content, "finish_reason": self.finish_reason, "model": self.model,
                "tool_calls": [{"id": t.id, "name": t.name, "arguments": t.arguments} for t in self.tool_calls],
                "usage": self.usage.to_json()}


@runtime_checkable
class ChatModel(Protocol):
    """What the agents need of a model: one chat completion per call."""

    name: str

    def complete(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]] | None = None) -> ChatReply:
        ...


# --------------------------------------------------------------------------- configuration


def resolve_model(explicit: str | None = None) -> str:
    """The model name: ``explicit``, else ``KERNELOPT_MODEL``, else ``OPENAI_MODEL``."""
    name = named_model(explicit)
    if not name:
        raise LLMConfigError("no LLM model configured for the kernelopt agents: set the model setting (pytest: "
                             "--kernelopt-model NAME or the ini key kernelopt_model; kernelopt bench: --model NAME) "
                             "or the environment variable KERNELOPT_MODEL or OPENAI_MODEL")
    return name


def _is_retryable(exc: Exception) -> bool:
    """Whether ``exc`` is of the kinds the SDK retries (so a failure of that kind came after its retries)."""
    import openai

    if isinstance(exc, (openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError)):
        return True  # APITimeoutError is an APIConnectionError
    return isinstance(exc, openai.APIStatusError) and (exc.status_code in (408, 409) or exc.status_code >= 500)


def _describe(exc: Exception) -> str:
    status = getattr(exc, "status_code", None)
    head = f"HTTP {status} " if status else ""
    return f"{head}{type(exc).__name__}: {exc}"


# --------------------------------------------------------------------------- the client


class OpenAIChatModel:
    """A :class:`ChatModel` over the ``openai`` SDK, retried by the SDK (``max_retries`` retries per request).

    ``usage`` is the running total of this model's requests; every HTTP request
    the SDK sends (retries included) is counted, through an httpx event hook.
    """

    def __init__(self, model: str | None = None, *, api_key: str | None = None, base_url: str | None = None,
                 timeout: float = 120.0, max_retries: int = 4, temperature: float | None = None,
                 max_completion_tokens: int | None = None) -> None:
        self.name = resolve_model(model)
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
        key = api_key or os.environ.get("OPENAI_API_KEY")
        if not key:
            if not self.base_url:
                raise LLMConfigError("no LLM configured for the kernelopt agents: set OPENAI_API_KEY "
                                     "(and OPENAI_BASE_URL for an OpenAI-compatible server)")
            key = "unused"  # local OpenAI-compatible servers often take any key
        self.timeout = timeout
        self.max_retries = max_retries
        self.temperature = temperature
        self.max_completion_tokens = max_completion_tokens
        self.usage = Usage()
        self.tools_supported = True
        self._sent = 0  # HTTP requests sent for the current call, retries included

        openai = require("openai", "the LLM agents (proposer=agents)")
        http = openai.DefaultHttpxClient(event_hooks={"request": [self._count]})
        self._client = openai.OpenAI(api_key=key, base_url=self.base_url, timeout=timeout, max_retries=max_retries,
                                     http_client=http)

    def _count(self, request: Any) -> None:
        self._sent += 1

    def complete(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]] | None = None) -> ChatReply:
        """One chat completion (the SDK retries what is retryable); raises :class:`LLMRequestError`."""
        import openai

        self._sent = 0
        while True:
            use_tools = bool(tools) and self.tools_supported
            try:
                response = self._client.chat.completions.create(**self._request(messages, tools if use_tools else None))
            except openai.BadRequestError as e:
                if use_tools and "tool" in str(e).lower():
                    self.tools_supported = False  # server without function calling: use code blocks from now on
                    continue
                raise LLMRequestError(f"LLM request rejected: {_describe(e)}", attempts=max(1, self._sent)) from e
            except openai.OpenAIError as e:
                sent = max(1, self._sent)
                retried = f" after {sent} attempts" if sent > 1 else ""
                raise LLMRequestError(f"LLM request failed{retried}: {_describe(e)}", attempts=sent,
                                      retryable=_is_retryable(e)) from e
            except _UNREADABLE as e:  # a body the SDK could not parse
                raise self._unreadable("something that is not a chat completion", e) from e
            try:
                reply = self._reply(response, max(1, self._sent))
            except _UNREADABLE as e:
                raise self._unreadable("a malformed chat completion", e) from e
            self.usage = self.usage + reply.usage
            return reply

    def _unreadable(self, what: str, e: BaseException) -> LLMRequestError:
        return LLMRequestError(f"the LLM endpoint ({self.base_url or 'the OpenAI API'}) answered with {what} "
                               f"({type(e).__name__}: {str(e)[:200]})", attempts=max(1, self._sent))

    def _request(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]] | None) -> dict[str, Any]:
        req: dict[str, Any] = {"model": self.name, "messages": [dict(m) for m in messages], "timeout": self.timeout}
        if tools:
            req["tools"] = [dict(t) for t in tools]
            req["tool_choice"] = "auto"
        if self.temperature is not None:
            req["temperature"] = self.temperature
        if self.max_completion_tokens is not None:
            req["max_completion_tokens"] = self.max_completion_tokens
        return req

    @staticmethod
    def _reply(response: Any, attempts: int) -> ChatReply:
        choices = getattr(response, "choices", None) or []
        if not choices:
            raise LLMRequestError("LLM response has no choices", attempts=attempts)
        choice = choices[0]
        message = choice.message
        calls = []
        for i, tc in enumerate(getattr(message, "tool_calls", None) or ()):
            fn = getattr(tc, "function", None)
            if fn is None:  # a custom (non-function) tool call: keep its raw input
                custom = getattr(tc, "custom", None)
                calls.append(ToolCall(getattr(tc, "id", f"call_{i}"), getattr(custom, "name", "?"),
                                      getattr(custom, "input", "") or ""))
                continue
            args = fn.arguments if isinstance(fn.arguments, str) else json.dumps(fn.arguments)
            calls.append(ToolCall(getattr(tc, "id", None) or f"call_{i}", fn.name or "", args or ""))
        u = getattr(response, "usage", None)
        # what the endpoint reports, never below zero (a negative count would cancel spend against max_tokens)
        # nor below a quarter of the characters it sent back
        sent_back = len(message.content or "") + sum(len(c.arguments) for c in calls)
        usage = Usage(_tokens(getattr(u, "prompt_tokens", 0)),
                      max(_tokens(getattr(u, "completion_tokens", 0)), sent_back // 4), attempts)
        return ChatReply(content=message.content, tool_calls=tuple(calls), finish_reason=choice.finish_reason,
                         usage=usage, model=getattr(response, "model", "") or "")


#: what reading an answer that is not a well-formed chat completion raises (not the SDK's own errors)
_UNREADABLE = (ValueError, TypeError, AttributeError, KeyError, IndexError, RecursionError)

#: the most tokens one answer may report (far beyond any model's context): a larger count is not believed
MAX_REPORTED_TOKENS = 10_000_000


def _tokens(value: Any) -> int:
    """A token count as reported: an integer (not a string, not a float) in [0, MAX_REPORTED_TOKENS]; anything
    else counts 0, and the floor from the answer's length applies (a 400-digit count, or 1e30, would spend the
    run's whole token budget; tests/test_llm_client.py::test_token_counts_that_cannot_be_true_are_not_believed)."""
    if isinstance(value, bool) or not isinstance(value, int):
        return 0
    return value if 0 <= value <= MAX_REPORTED_TOKENS else 0


def model_from_settings(settings: Any, **kwargs: Any) -> OpenAIChatModel:
    """The configured model for a :class:`~pytest_kernelopt.config.Settings` (its ``model``, ``llm_retries`` and
    ``llm_timeout`` fields)."""
    kwargs.setdefault("max_retries", settings.llm_retries)
    kwargs.setdefault("timeout", settings.llm_timeout)
    return OpenAIChatModel(settings.model, **kwargs)


class ScriptedChatModel:
    """A :class:`ChatModel` that returns prepared replies in order (for offline tests).

    An item that is an exception is raised instead of returned.  ``requests``
    records ``(messages, tools)`` of every call.
    """

    def __init__(self, replies: Sequence[ChatReply | Exception], name: str = "scripted") -> None:
        self.name = name
        self._replies = list(replies)
        self.requests: list[tuple[list[dict[str, Any]], list[dict[str, Any]] | None]] = []
        self.usage = Usage()

    def complete(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]] | None = None) -> ChatReply:
        self.requests.append(([dict(m) for m in messages], [dict(t) for t in tools] if tools else None))
        if not self._replies:
            raise LLMRequestError("scripted model has no replies left")
        item = self._replies.pop(0)
        if isinstance(item, Exception):
            raise item
        self.usage = self.usage + item.usage
        return item
