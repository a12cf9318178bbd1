"""A thin, retrying wrapper over the ``openai`` chat-completions client.

Configuration follows what users of the OpenAI SDK expect:

* ``OPENAI_API_KEY`` -- the key (a local OpenAI-compatible server that needs
  none may be used with ``OPENAI_BASE_URL`` alone);
* ``OPENAI_BASE_URL`` -- any OpenAI-compatible server (vLLM, llama.cpp, a proxy);
* the model: an explicit option, else ``KERNELOPT_MODEL``, else ``OPENAI_MODEL``.

The retry policy is ours (the SDK's own ``max_retries`` is set to 0): connection
errors, timeouts, HTTP 429 and 5xx are retried with bounded exponential backoff
and jitter, honouring ``retry-after``; anything else fails at once.  Every
failure surfaces as :class:`LLMRequestError` naming the last error.

``openai`` is imported lazily, inside the functions that use it.
"""

from __future__ import annotations

import json
import os
import random
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Protocol, Sequence, runtime_checkable

from ..errors import KernelOptError

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
    name = explicit or os.environ.get("KERNELOPT_MODEL") or os.environ.get("OPENAI_MODEL")
    if not name:
        raise LLMConfigError("no LLM model configured for the kernelopt agents: pass --kernelopt-model NAME "
                             "(ini: kernelopt_model) or set KERNELOPT_MODEL or OPENAI_MODEL")
    return name


@dataclass(frozen=True)
class RetryPolicy:
    """Bounded exponential backoff with jitter.

    Retry ``n`` (0-based) waits ``min(max_delay, base_delay * 2**n * (1 + U(0, jitter)))``
    seconds, or the server's ``retry-after`` when that is longer (capped at
    ``max_retry_after``).
    """

    max_retries: int = 4
    base_delay: float = 0.5
    max_delay: float = 8.0
    jitter: float = 0.25
    max_retry_after: float = 30.0

    def delay(self, retry: int, retry_after: float | None = None, rng: random.Random | None = None) -> float:
        u = (rng or random).uniform(0.0, self.jitter) if self.jitter > 0 else 0.0
        d = min(self.max_delay, self.base_delay * (2 ** retry) * (1.0 + u))
        if retry_after is not None and retry_after > d:
            d = min(self.max_retry_after, retry_after)
        return max(0.0, d)


def _retry_after(exc: Exception) -> float | None:
    """Seconds from a ``retry-after-ms`` / ``retry-after`` header of an HTTP error, if any."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    try:
        if headers.get("retry-after-ms") is not None:
            return float(headers["retry-after-ms"]) / 1000.0
        if headers.get("retry-after") is not None:
            return float(headers["retry-after"])
    except (TypeError, ValueError):
        return None  # an HTTP date or garbage: fall back to our own backoff
    return None


def _is_retryable(exc: Exception) -> bool:
    import openai

    if isinstance(exc, (openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError)):
        return True  # APITimeoutError is an APIConnectionError
    return isinstance(exc, openai.APIStatusError) and exc.status_code >= 500


def _describe(exc: Exception) -> str:
    status = getattr(exc, "status_code", None)
    head = f"HTTP {status} " if status else ""
    return f"{head}{type(exc).__name__}: {exc}"


# --------------------------------------------------------------------------- the client


class OpenAIChatModel:
    """A :class:`ChatModel` over the ``openai`` SDK with our retry policy.

    ``sleep`` and ``rng`` are injectable so that the policy can be tested
    without waiting.  ``usage`` is the running total of this model's requests.
    """

    def __init__(self, model: str | None = None, *, api_key: str | None = None, base_url: str | None = None,
                 timeout: float = 120.0, retry: RetryPolicy = RetryPolicy(), temperature: float | None = None,
                 max_completion_tokens: int | None = None, sleep: Callable[[float], None] = time.sleep,
                 rng: random.Random | None = None) -> None:
        self.name = resolve_model(model)
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
        key = api_key or os.environ.get("OPENAI_API_KEY")
        if not key:
            if not self.base_url:
                raise LLMConfigError("no LLM configured for the kernelopt agents: set OPENAI_API_KEY "
                                     "(and OPENAI_BASE_URL for an OpenAI-compatible server)")
            key = "unused"  # local OpenAI-compatible servers often take any key
        self.timeout = timeout
        self.retry = retry
        self.temperature = temperature
        self.max_completion_tokens = max_completion_tokens
        self.usage = Usage()
        self.tools_supported = True
        self._sleep = sleep
        self._rng = rng or random.Random()
        self.delays: list[float] = []  # every backoff this model waited, for audit

        import openai

        self._client = openai.OpenAI(api_key=key, base_url=self.base_url, timeout=timeout, max_retries=0)

    def complete(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]] | None = None) -> ChatReply:
        """One chat completion, retried per :attr:`retry`; raises :class:`LLMRequestError`."""
        import openai

        attempt = 0
        while True:
            attempt += 1
            use_tools = bool(tools) and self.tools_supported
            try:
                response = self._client.chat.completions.create(**self._request(messages, tools if use_tools else None))
            except openai.BadRequestError as e:
                if use_tools and "tool" in str(e).lower():
                    self.tools_supported = False  # server without function calling: use code blocks from now on
                    attempt -= 1
                    continue
                raise LLMRequestError(f"LLM request rejected: {_describe(e)}", attempts=attempt) from e
            except openai.OpenAIError as e:
                if not _is_retryable(e):
                    raise LLMRequestError(f"LLM request failed: {_describe(e)}", attempts=attempt) from e
                if attempt > self.retry.max_retries:
                    raise LLMRequestError(f"LLM request failed after {attempt} attempts: {_describe(e)}",
                                          attempts=attempt, retryable=True) from e
                d = self.retry.delay(attempt - 1, _retry_after(e), self._rng)
                self.delays.append(d)
                self._sleep(d)
                continue
            reply = self._reply(response, attempt)
            self.usage = self.usage + reply.usage
            return reply

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
        usage = Usage(int(getattr(u, "prompt_tokens", 0) or 0), int(getattr(u, "completion_tokens", 0) or 0), attempts)
        return ChatReply(content=message.content, tool_calls=tuple(calls), finish_reason=choice.finish_reason,
                         usage=usage, model=getattr(response, "model", "") or "")


def model_from_settings(settings: Any, **kwargs: Any) -> OpenAIChatModel:
    """The configured model for a :class:`~pytest_kernelopt.config.Settings` (its ``model`` field)."""
    return OpenAIChatModel(getattr(settings, "model", None), **kwargs)


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
