"""The OpenAI client wrapper against a real local HTTP server speaking the chat-completions protocol.

Retries are the openai SDK's own; these tests hold what a user relies on: what is retried and what is not,
the server's retry-after honoured, bounded exponential backoff, and a clear error when retries run out.  The
``backoff`` fixture records the SDK's waits instead of sleeping them.
"""

from __future__ import annotations

import json

import pytest
from llm_server import (ScriptedLLMServer, backoff, delayed, llm_server, raw_body, reply,  # noqa: F401 (fixtures)
                        status, tool_call)

from pytest_kernelopt.agents import (ChatModel, LLMConfigError, LLMRequestError, OpenAIChatModel, ScriptedChatModel,
                                     SUBMIT_TOOL, resolve_model)
from pytest_kernelopt.config import Settings
from pytest_kernelopt.agents.client import model_from_settings

MESSAGES = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hello"}]


@pytest.fixture
def make_model(backoff):
    """A model on the fixture's server (3 retries), and the SDK's waits (recorded, not slept)."""

    def make(**kw):
        kw.setdefault("max_retries", 3)
        return OpenAIChatModel("test-model", **kw), backoff

    return make


def test_plain_answer_round_trip_records_usage_and_request(llm_server, make_model):
    llm_server.push(reply("the bottleneck is memory", usage=(120, 30)))
    model, slept = make_model()
    out = model.complete(MESSAGES)
    assert out.content == "the bottleneck is memory"
    assert out.finish_reason == "stop" and out.tool_calls == ()
    assert (out.usage.prompt_tokens, out.usage.completion_tokens, out.usage.requests) == (120, 30, 1)
    assert model.usage.total_tokens == 150
    (req,) = llm_server.requests
    assert req.body["model"] == "test-model"
    assert req.body["messages"] == MESSAGES
    assert "tools" not in req.body
    assert req.headers["authorization"] == "Bearer test"
    assert slept == []


def test_tool_call_is_returned_with_raw_arguments(llm_server, make_model):
    llm_server.push(tool_call("submit_kernel", {"source": "x = 1", "description": "d"}))
    model, _ = make_model()
    out = model.complete(MESSAGES, tools=[SUBMIT_TOOL])
    assert out.finish_reason == "tool_calls"
    (call,) = out.tool_calls
    assert call.name == "submit_kernel"
    assert json.loads(call.arguments) == {"source": "x = 1", "description": "d"}
    body = llm_server.requests[0].body
    assert body["tools"][0]["function"]["name"] == "submit_kernel"
    assert body["tool_choice"] == "auto"


def test_429_is_retried_after_the_servers_retry_after(llm_server, make_model):
    llm_server.push(status(429, "slow down", retry_after=7), reply("ok"))
    model, slept = make_model()
    out = model.complete(MESSAGES)
    assert out.content == "ok"
    assert slept == [7.0]  # the server's wait, not the SDK's own first backoff
    assert out.usage.requests == 2 and len(llm_server.requests) == 2


def test_an_excessive_retry_after_fails_at_once_instead_of_waiting(llm_server, make_model):
    llm_server.push(status(429, retry_after=3600), reply("never served"))
    model, slept = make_model()
    with pytest.raises(LLMRequestError, match="HTTP 429") as info:
        model.complete(MESSAGES)
    assert slept == [] and len(llm_server.requests) == 1  # an hour is not waited for (the SDK's cap)
    assert info.value.attempts == 1 and info.value.retryable


def test_5xx_is_retried_with_bounded_exponential_backoff_and_jitter(llm_server, make_model):
    llm_server.push(*[status(503, "busy")] * 6, reply("ok"))
    model, slept = make_model(max_retries=6)
    out = model.complete(MESSAGES)
    assert out.content == "ok" and out.usage.requests == 7
    assert len(slept) == 6
    for n, wait in enumerate(slept):  # 0.5 s doubling, at most 8 s, less up to 25% jitter
        ceiling = min(0.5 * 2 ** n, 8.0)
        assert 0.75 * ceiling <= wait <= ceiling, (n, wait)


def test_timeout_is_retried(llm_server, make_model):
    llm_server.push(delayed(3.0, reply("too late")), reply("on time"))
    model, slept = make_model(timeout=0.3)
    out = model.complete(MESSAGES)
    assert out.content == "on time"
    assert len(llm_server.requests) == 2 and len(slept) == 1


def test_retries_exhausted_raise_a_clear_error(llm_server, make_model):
    llm_server.push(*[status(500, "overloaded")] * 3)
    model, slept = make_model(max_retries=2)
    with pytest.raises(LLMRequestError, match=r"after 3 attempts: HTTP 500") as info:
        model.complete(MESSAGES)
    assert info.value.attempts == 3 and info.value.retryable
    assert len(llm_server.requests) == 3 and len(slept) == 2


def test_client_errors_are_not_retried(llm_server, make_model):
    llm_server.push(status(401, "bad key"), reply("never served"))
    model, slept = make_model()
    with pytest.raises(LLMRequestError, match="HTTP 401") as info:
        model.complete(MESSAGES)
    assert info.value.attempts == 1 and not info.value.retryable
    assert len(llm_server.requests) == 1 and slept == []


def test_connection_errors_are_retried_then_reported(monkeypatch, backoff):
    with ScriptedLLMServer() as dead:
        url = dead.base_url
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    model = OpenAIChatModel("m", base_url=url, max_retries=2)
    with pytest.raises(LLMRequestError, match="after 3 attempts: APIConnectionError") as info:
        model.complete(MESSAGES)
    assert len(backoff) == 2 and info.value.retryable


def test_server_without_function_calling_falls_back_to_plain_content(llm_server, make_model):
    llm_server.push(status(400, "tools are not supported by this server"), reply("```python\nx = 1\n```"))
    model, _ = make_model()
    out = model.complete(MESSAGES, tools=[SUBMIT_TOOL])
    assert out.content.startswith("```python")
    first, second = llm_server.requests
    assert "tools" in first.body and "tools" not in second.body
    assert model.tools_supported is False


def test_model_name_resolution(monkeypatch, llm_server):
    monkeypatch.setenv("OPENAI_MODEL", "from-openai-env")
    assert resolve_model() == "from-openai-env"
    monkeypatch.setenv("KERNELOPT_MODEL", "from-kernelopt-env")
    assert resolve_model() == "from-kernelopt-env"
    assert resolve_model("explicit") == "explicit"
    llm_server.push(reply("ok"))
    model = model_from_settings(Settings(model="from-settings"))
    model.complete(MESSAGES)
    assert llm_server.requests[0].body["model"] == "from-settings"


def test_the_retry_and_timeout_settings_reach_the_client(llm_server, backoff):
    llm_server.push(status(500), status(500), reply("never served"))
    model = model_from_settings(Settings(model="m", llm_retries=1, llm_timeout=7.5))
    with pytest.raises(LLMRequestError) as info:
        model.complete(MESSAGES)
    assert info.value.attempts == 2 and len(backoff) == 1  # one retry, then the error
    assert model.timeout == 7.5 and llm_server.requests[0].body["model"] == "m"


def test_missing_model_or_key_is_a_clear_configuration_error(monkeypatch):
    for var in ("KERNELOPT_MODEL", "OPENAI_MODEL", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(LLMConfigError, match="KERNELOPT_MODEL or OPENAI_MODEL"):
        OpenAIChatModel()
    with pytest.raises(LLMConfigError, match="OPENAI_API_KEY"):
        OpenAIChatModel("some-model")
    # a local server needs no key
    assert OpenAIChatModel("some-model", base_url="http://127.0.0.1:9/v1").name == "some-model"


def test_scripted_model_satisfies_the_protocol():
    assert isinstance(ScriptedChatModel([]), ChatModel)
    with pytest.raises(LLMRequestError, match="no replies left"):
        ScriptedChatModel([]).complete(MESSAGES)


@pytest.mark.parametrize("body, says", [
    ('{"id": "x", "choices": [', "not a chat completion"),                       # not JSON (red team 15)
    ('{"id": "x", "object": "chat.completion", "choices": "none"}', "chat completion"),  # JSON, wrong shape
    ('{"id": "x", "object": "chat.completion", "choices": [{"index": 0}]}', "malformed chat completion"),
    ('{"a": ' * 50_000 + "1" + "}" * 50_000, "not a chat completion"),  # red team 16: a RecursionError
], ids=["not-json", "choices-not-a-list", "no-message", "nested-too-deep"])
def test_an_answer_that_is_not_a_chat_completion_is_a_clear_request_error(llm_server, make_model, body, says):
    """A broken or hostile endpoint's body is the model's error (so llm_error=warn can pass the test with the
    baseline), naming the endpoint; not a JSONDecodeError that fails the whole problem."""
    llm_server.push(raw_body(body))
    model, _ = make_model(max_retries=0)
    with pytest.raises(LLMRequestError, match=says) as info:
        model.complete(MESSAGES)
    assert llm_server.base_url in str(info.value)


@pytest.mark.parametrize("prompt, completion", [(-2_000_000, -2_000_000), ("9" * 400, 1e30), (10**30, True)],
                         ids=["negative", "string-and-float", "huge-and-bool"])
def test_token_counts_that_cannot_be_true_are_not_believed(llm_server, make_model, prompt, completion):
    """Red team 15: -2,000,000 tokens a call cancelled spend against max_tokens; red team 16: a 400-digit string or
    1e30 spent the whole budget at once."""
    body = json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                       "choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": "x" * 400}}],
                       "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": 0}})
    llm_server.push(raw_body(body))
    model, _ = make_model()
    out = model.complete(MESSAGES)
    assert out.usage.prompt_tokens == 0 and out.usage.completion_tokens == 100  # a quarter of the characters
    assert model.usage.total_tokens == 100
