"""Fixtures for the backend tests: a scripted fake OpenAI-compatible server and a fake inner client.

The server is stdlib only (http.server on a thread), bound to 127.0.0.1 on an ephemeral port.
Each POST /v1/chat/completions takes the next scripted `Reply` (or a 200 OK when the script is
empty), so a test can stage 429 + Retry-After, 500, a hang past the client timeout, or an
answer with given content, and then read back every request the client sent.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import AsyncGenerator, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from autogen_core import CancellationToken
from autogen_core.models import (
    ChatCompletionClient,
    CreateResult,
    LLMMessage,
    ModelFamily,
    ModelInfo,
    RequestUsage,
)
from autogen_core.tools import Tool, ToolSchema
from pydantic import BaseModel

from mustmaybe.agents import _limits


@dataclass
class Reply:
    """One scripted answer: HTTP status, extra headers, JSON body (None: a completion of `content`
    ending with `finish_reason`), and a delay before answering (a hang, past the client's timeout)."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: dict[str, Any] | None = None
    delay_s: float = 0.0
    content: str = "OK."
    finish_reason: str = "stop"


@dataclass
class SeenRequest:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


def completion(content: str, model: str = "fake-model", finish_reason: str = "stop") -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                     "logprobs": None, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14},
    }


def error_body(message: str, kind: str = "error") -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


class FakeOpenAIServer:
    """A scripted OpenAI-compatible endpoint; `base_url` ends in /v1."""

    def __init__(self) -> None:
        self.script: deque[Reply] = deque()
        self.requests: list[SeenRequest] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _send(self, status: int, payload: dict[str, Any], headers: Mapping[str, str] = {}) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def do_GET(self) -> None:
                self._send(200, {"object": "list", "data": [{"id": "fake-model", "object": "model"}]})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                body = json.loads(raw) if raw else {}
                headers = {k.lower(): v for k, v in self.headers.items()}
                with server._lock:
                    server.requests.append(SeenRequest(self.path, headers, body))
                    reply = server.script.popleft() if server.script else Reply()
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                payload = reply.body if reply.body is not None else completion(
                    reply.content, body.get("model", "m"), reply.finish_reason)
                self._send(reply.status, payload, reply.headers)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="fake-openai", daemon=True)
        self._thread.start()

    def stage(self, *replies: Reply | Mapping[str, Any]) -> None:
        """Queue answers for the next POSTs; a mapping holds Reply's fields (status, headers, ...)."""
        with self._lock:
            self.script.extend(r if isinstance(r, Reply) else Reply(**r) for r in replies)

    @property
    def chat_requests(self) -> list[SeenRequest]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


@pytest.fixture
def fake_server() -> Iterator[FakeOpenAIServer]:
    server = FakeOpenAIServer()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(autouse=True)
def _fresh_limiters() -> Iterator[None]:
    """Each test starts with no endpoint limiters (they are per event loop anyway)."""
    _limits._LIMITERS.clear()
    yield
    _limits._LIMITERS.clear()


class FakeInnerClient(ChatCompletionClient):
    """Records what reaches it; answers `content`, or raises the next error in `errors`."""

    def __init__(self, content: str = "hello", errors: Sequence[BaseException] = (), delay_s: float = 0.0) -> None:
        self.content = content
        self.errors = list(errors)
        self.delay_s = delay_s
        self.calls: list[dict[str, Any]] = []
        self.in_flight = 0
        self.max_in_flight = 0

    async def create(
        self,
        messages: Sequence[LLMMessage],
        *,
        tools: Sequence[Tool | ToolSchema] = [],
        tool_choice: Any = "auto",
        json_output: bool | type[BaseModel] | None = None,
        extra_create_args: Mapping[str, Any] = {},
        cancellation_token: CancellationToken | None = None,
    ) -> CreateResult:
        import asyncio

        self.calls.append({"messages": list(messages), "json_output": json_output,
                           "extra_create_args": dict(extra_create_args)})
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.delay_s:
                await asyncio.sleep(self.delay_s)
            if self.errors:
                raise self.errors.pop(0)
        finally:
            self.in_flight -= 1
        return CreateResult(finish_reason="stop", content=self.content, cached=False,
                            usage=RequestUsage(prompt_tokens=5, completion_tokens=2))

    async def create_stream(  # type: ignore[override]
        self, messages: Sequence[LLMMessage], **kwargs: Any
    ) -> AsyncGenerator[str | CreateResult, None]:
        result = await self.create(messages, **kwargs)
        yield str(result.content)
        yield result

    async def close(self) -> None:
        return None

    def actual_usage(self) -> RequestUsage:
        return RequestUsage(prompt_tokens=0, completion_tokens=0)

    def total_usage(self) -> RequestUsage:
        return RequestUsage(prompt_tokens=0, completion_tokens=0)

    def count_tokens(self, messages: Sequence[LLMMessage], *, tools: Sequence[Tool | ToolSchema] = []) -> int:
        return 0

    def remaining_tokens(self, messages: Sequence[LLMMessage], *, tools: Sequence[Tool | ToolSchema] = []) -> int:
        return 1000

    @property
    def capabilities(self) -> Any:
        return self.model_info

    @property
    def model_info(self) -> ModelInfo:
        return ModelInfo(vision=False, function_calling=False, json_output=True,
                         family=ModelFamily.UNKNOWN, structured_output=True)


@pytest.fixture
def fake_inner() -> type[FakeInnerClient]:
    """The FakeInnerClient class (tests build their own with the content and errors they need)."""
    return FakeInnerClient


def make_ctx(endpoint: Any = None, *, seed: int = 7, role_seed: int | None = None,
             temperature: float = 0.0, max_tokens: int = 32) -> Any:
    from mustmaybe.agents._backends import ClientContext
    from mustmaybe.records import RoleParams

    return ClientContext(
        role="executor", agent="executor", seed=seed,
        params=RoleParams(temperature=temperature, max_tokens=max_tokens, seed=role_seed), endpoint=endpoint,
    )


@pytest.fixture
def ctx_factory() -> Any:
    """Builds a ClientContext for an executor: `ctx_factory(endpoint, seed=..., role_seed=...)`."""
    return make_ctx
