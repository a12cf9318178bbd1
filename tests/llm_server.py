"""A real OpenAI-compatible chat-completions server on 127.0.0.1 that serves a script.

Each POST ``/v1/chat/completions`` takes the next :class:`Step` of the script:
a normal answer, a tool call, an HTTP error (429 with ``retry-after``, 500, ...),
a delay longer than the client's timeout, a truncated answer, malformed
tool-call JSON.  Every request is recorded (:attr:`ScriptedLLMServer.requests`)
so tests can assert on what the client sent.  An exhausted script answers HTTP
400 (not retried), so a test that asks more than it scripted fails loudly.

The server is bounded: daemon threads, a request cap, delays that end when the
server stops, and a lifetime after which it stops itself.  Use the
``llm_server`` fixture, which also points ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``
at it, or the class as a context manager.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator

import pytest


@dataclass(frozen=True)
class Step:
    """One scripted answer.  Build with the helpers below."""

    status: int = 200
    content: str | None = None
    tool_calls: tuple[tuple[str, str], ...] = ()  # (name, raw JSON arguments)
    finish_reason: str | None = None
    usage: tuple[int, int] | None = None  # (prompt, completion); None: estimated from the text
    headers: dict[str, str] = field(default_factory=dict)
    error: str = ""
    delay: float = 0.0
    raw: bytes | None = None  # a 200 answer of exactly these bytes (not a chat completion, or not JSON at all)


def reply(content: str | None, *, finish_reason: str = "stop", usage: tuple[int, int] | None = None) -> Step:
    return Step(content=content, finish_reason=finish_reason, usage=usage)


def tool_call(name: str, arguments: dict[str, Any] | str, *, content: str | None = None,
              usage: tuple[int, int] | None = None) -> Step:
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return Step(content=content, tool_calls=((name, raw),), finish_reason="tool_calls", usage=usage)


def malformed_tool_call(name: str = "submit_kernel") -> Step:
    return tool_call(name, '{"source": "@triton.jit\\ndef k(x):\\n    pass", "configs": [{"XBLOCK": 12')


def truncated(content: str) -> Step:
    return Step(content=content, finish_reason="length")


def raw_body(data: bytes | str) -> Step:
    """HTTP 200 with ``data`` as the body, whatever it is (a broken or hostile endpoint)."""
    return Step(raw=data.encode() if isinstance(data, str) else data)


def status(code: int, message: str = "scripted error", *, retry_after: float | None = None) -> Step:
    headers = {"retry-after": str(retry_after)} if retry_after is not None else {}
    return Step(status=code, error=message, headers=headers)


def delayed(seconds: float, step: Step) -> Step:
    """``step``, served only after ``seconds`` (longer than the client timeout: the client gives up)."""
    return Step(**{**step.__dict__, "delay": seconds})


@dataclass(frozen=True)
class Request:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def text(self) -> str:
        """All message contents of the request, joined (for ``in`` assertions)."""
        return "\n".join(str(m.get("content") or "") for m in self.body.get("messages", []))


class ScriptedLLMServer:
    def __init__(self, script: tuple[Step, ...] | list[Step] = (), *, model: str = "scripted-model",
                 max_requests: int = 200, lifetime: float = 120.0) -> None:
        self.model = model
        self.max_requests = max_requests
        self.lifetime = lifetime
        self.requests: list[Request] = []
        self._script: list[Step] = list(script)
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._timer: threading.Timer | None = None

    # ------------------------------------------------------------------ control

    def push(self, *steps: Step) -> "ScriptedLLMServer":
        with self._lock:
            self._script.extend(steps)
        return self

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self._script)

    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "server not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def start(self) -> "ScriptedLLMServer":
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                server._handle(self)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True, name="scripted-llm-server")
        self._thread.start()
        self._timer = threading.Timer(self.lifetime, self.stop)
        self._timer.daemon = True
        self._timer.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._timer is not None and self._timer is not threading.current_thread():
            self._timer.cancel()
        httpd, self._httpd = self._httpd, None
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)

    def __enter__(self) -> "ScriptedLLMServer":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # ------------------------------------------------------------------ protocol

    def _handle(self, h: BaseHTTPRequestHandler) -> None:
        length = int(h.headers.get("content-length") or 0)
        raw = h.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            return self._send(h, 400, {"error": {"message": "request body is not JSON", "type": "invalid_request"}})
        if h.path.rstrip("/") != "/v1/chat/completions":
            return self._send(h, 404, {"error": {"message": f"no route {h.path}", "type": "not_found"}})
        with self._lock:
            self.requests.append(Request(h.path, {k.lower(): v for k, v in h.headers.items()}, body))
            n = len(self.requests)
            step = self._script.pop(0) if self._script and n <= self.max_requests else None
        if step is None:
            msg = "script exhausted" if n <= self.max_requests else "request cap reached"
            return self._send(h, 400, {"error": {"message": f"scripted server: {msg}", "type": "invalid_request"}})
        if step.delay and self._stopping.wait(step.delay):
            return  # stopped while delaying
        if step.status != 200:
            kind = "rate_limit_exceeded" if step.status == 429 else "server_error"
            return self._send(h, step.status, {"error": {"message": step.error, "type": kind, "code": step.status}},
                              step.headers)
        if step.raw is not None:
            return self._send(h, 200, step.raw, step.headers)
        self._send(h, 200, self._completion(step, body, n), step.headers)

    def _completion(self, step: Step, body: dict[str, Any], n: int) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": step.content}
        if step.tool_calls:
            message["tool_calls"] = [{"id": f"call_{n}_{i}", "type": "function",
                                      "function": {"name": name, "arguments": args}}
                                     for i, (name, args) in enumerate(step.tool_calls)]
        if step.usage is not None:
            prompt, completion = step.usage
        else:  # a deterministic estimate: about four characters a token
            sent = sum(len(str(m.get("content") or "")) for m in body.get("messages", []))
            out = len(step.content or "") + sum(len(a) for _, a in step.tool_calls)
            prompt, completion = sent // 4 + 1, out // 4 + 1
        return {"id": f"chatcmpl-scripted-{n}", "object": "chat.completion", "created": int(time.time()),
                "model": body.get("model") or self.model,
                "choices": [{"index": 0, "message": message, "finish_reason": step.finish_reason or "stop",
                             "logprobs": None}],
                "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                          "total_tokens": prompt + completion}}

    @staticmethod
    def _send(h: BaseHTTPRequestHandler, code: int, payload: dict[str, Any] | bytes,
              headers: dict[str, str] | None = None) -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        try:
            h.send_response(code)
            h.send_header("content-type", "application/json")
            h.send_header("content-length", str(len(data)))
            for k, v in (headers or {}).items():
                h.send_header(k, v)
            h.end_headers()
            h.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout) before the answer came


@pytest.fixture
def llm_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[ScriptedLLMServer]:
    """A started server, with the OpenAI environment pointed at it; stopped after the test."""
    server = ScriptedLLMServer().start()
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    for var in ("KERNELOPT_MODEL", "OPENAI_MODEL"):
        monkeypatch.delenv(var, raising=False)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def backoff(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The openai SDK's retry waits, recorded instead of slept (the SDK waits with ``time.sleep``; this
    server never calls it, its delays wait on an event), so retry tests take no wall time."""
    waits: list[float] = []
    monkeypatch.setattr(time, "sleep", waits.append)
    return waits
