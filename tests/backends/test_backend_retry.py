"""RetryingClient: Retry-After parsing, what is retried, and how long it waits."""

from __future__ import annotations

import asyncio
import email.utils
from typing import Any

import httpx2 as httpx  # the HTTP library openai 3.x is built on (its errors carry its Response)
import openai
import pytest
from autogen_core.models import LLMMessage, UserMessage

from mustmaybe.agents._openai import OpenAIEndpointClient, OpenAIEndpointClientConfig
from mustmaybe.agents._retry import RetryingClient, is_retryable, parse_retry_after, retry_after_seconds
from mustmaybe.records import EndpointConfig

MESSAGES: list[LLMMessage] = [UserMessage(content="hello", source="user")]
NOW = 1_800_000_000.0


def _status_error(cls: type[openai.APIStatusError], status: int, headers: dict[str, str] | None = None,
                  message: str = "boom") -> openai.APIStatusError:
    request = httpx.Request("POST", "http://127.0.0.1:1/v1/chat/completions")
    return cls(message, response=httpx.Response(status, headers=headers or {}, request=request), body=None)


class _SleepRecorder:
    """Stands in for asyncio.sleep: records the waits, sleeps not at all."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def _endpoint_client(server: Any, sleep: _SleepRecorder, *, max_retries: int = 3,
                     timeout_s: float = 10.0, cap: float = 120.0) -> OpenAIEndpointClient:
    config = OpenAIEndpointClientConfig(
        model="fake-model", base_url=server.base_url, temperature=0.0, max_tokens=8,
        endpoint=EndpointConfig(base_url=server.base_url, max_retries=max_retries, timeout_s=timeout_s),
        retry_initial_s=0.01, retry_max_s=0.05, retry_after_cap_s=cap,
    )
    return OpenAIEndpointClient(config, sleep=sleep)


# --- Retry-After parsing ----------------------------------------------------------------------


@pytest.mark.parametrize(("value", "expected"), [
    ("3", 3.0), ("1.5", 1.5), (" 20 ", 20.0), ("0", 0.0), ("-4", 0.0),
    ("", None), (None, None), ("soon", None), ("nan", None), ("inf", None),
])
def test_parse_retry_after_seconds(value: str | None, expected: float | None) -> None:
    assert parse_retry_after(value, now=NOW) == expected


def test_parse_retry_after_http_date() -> None:
    future = email.utils.formatdate(NOW + 42, usegmt=True)
    past = email.utils.formatdate(NOW - 42, usegmt=True)
    assert parse_retry_after(future, now=NOW) == pytest.approx(42.0)
    assert parse_retry_after(past, now=NOW) == 0.0


def test_retry_after_from_error_headers_prefers_milliseconds() -> None:
    exc = _status_error(openai.RateLimitError, 429, {"retry-after-ms": "1500", "retry-after": "9"})
    assert retry_after_seconds(exc) == 1.5
    assert retry_after_seconds(_status_error(openai.RateLimitError, 429, {"retry-after": "9"})) == 9.0
    assert retry_after_seconds(_status_error(openai.RateLimitError, 429)) is None
    assert retry_after_seconds(ValueError("no response")) is None


def test_what_is_retryable() -> None:
    request = httpx.Request("POST", "http://127.0.0.1:1/v1")
    assert is_retryable(_status_error(openai.RateLimitError, 429))
    assert is_retryable(_status_error(openai.InternalServerError, 503))
    assert is_retryable(openai.APITimeoutError(request=request))
    assert is_retryable(openai.APIConnectionError(request=request))
    assert not is_retryable(_status_error(openai.BadRequestError, 400))
    assert not is_retryable(_status_error(openai.AuthenticationError, 401))
    assert not is_retryable(ValueError("bad JSON"))
    # llama.cpp's server reports an unsupported request body as a 500 "validation error"
    assert not is_retryable(_status_error(openai.InternalServerError, 500, message="1 validation error: ..."))


# --- the wait ---------------------------------------------------------------------------------


def test_waits_at_least_retry_after(fake_inner) -> None:
    sleep = _SleepRecorder()
    inner = fake_inner(errors=[_status_error(openai.RateLimitError, 429, {"retry-after": "7"})])
    client = RetryingClient(inner, max_attempts=3, initial_wait=0.01, max_wait=0.05, sleep=sleep)
    result = asyncio.run(client.create(MESSAGES))
    assert result.content == "hello"
    assert sleep.waits == [pytest.approx(7.0)]
    assert (client.attempts, client.retries, client.failures) == (2, 1, 0)
    assert client.last_error is not None and "RateLimitError 429" in client.last_error


def test_retry_after_is_capped(fake_inner) -> None:
    sleep = _SleepRecorder()
    inner = fake_inner(errors=[_status_error(openai.RateLimitError, 429, {"retry-after": "3600"})])
    client = RetryingClient(inner, max_attempts=2, initial_wait=0.01, max_wait=0.05, retry_after_cap=30, sleep=sleep)
    asyncio.run(client.create(MESSAGES))
    assert sleep.waits == [30.0]


def test_backoff_without_retry_after_is_bounded(fake_inner) -> None:
    sleep = _SleepRecorder()
    errors = [_status_error(openai.InternalServerError, 502) for _ in range(3)]
    client = RetryingClient(fake_inner(errors=errors), max_attempts=4, initial_wait=0.01, max_wait=0.05, sleep=sleep)
    asyncio.run(client.create(MESSAGES))
    assert len(sleep.waits) == 3
    assert all(0 < w <= 0.05 for w in sleep.waits)


def test_stream_is_retried_until_the_first_chunk(fake_inner) -> None:
    sleep = _SleepRecorder()
    inner = fake_inner(content="streamed", errors=[_status_error(openai.InternalServerError, 503)])
    client = RetryingClient(inner, max_attempts=2, initial_wait=0.01, max_wait=0.05, sleep=sleep)

    async def collect() -> list[Any]:
        return [chunk async for chunk in client.create_stream(MESSAGES)]

    chunks = asyncio.run(collect())
    assert chunks[0] == "streamed" and chunks[-1].content == "streamed"
    assert (client.attempts, client.retries) == (2, 1)


# --- over HTTP, against the fake server -------------------------------------------------------


def test_429_then_500_then_success(fake_server) -> None:
    fake_server.stage({"status": 429, "headers": {"Retry-After": "2"}, "body": {"error": {"message": "slow down"}}},
                      {"status": 500, "body": {"error": {"message": "overloaded"}}},
                      {"content": "finally"})
    sleep = _SleepRecorder()
    client = _endpoint_client(fake_server, sleep)
    result = asyncio.run(client.create(MESSAGES))
    assert result.content == "finally"
    assert len(fake_server.chat_requests) == 3
    assert client.retrying.retries == 2 and client.retrying.attempts == 3
    assert sleep.waits[0] >= 2.0


def test_no_retry_on_400(fake_server) -> None:
    fake_server.stage({"status": 400, "body": {"error": {"message": "bad request", "type": "invalid_request_error"}}})
    client = _endpoint_client(fake_server, _SleepRecorder())
    with pytest.raises(openai.BadRequestError):
        asyncio.run(client.create(MESSAGES))
    assert len(fake_server.chat_requests) == 1
    assert (client.retrying.retries, client.retrying.failures) == (0, 1)
    assert "BadRequestError 400" in str(client.retrying.last_error)


def test_gives_up_after_max_retries_with_the_original_error(fake_server) -> None:
    fake_server.stage(*[{"status": 500, "body": {"error": {"message": "down"}}}] * 3)
    client = _endpoint_client(fake_server, _SleepRecorder(), max_retries=2)
    with pytest.raises(openai.InternalServerError):
        asyncio.run(client.create(MESSAGES))
    assert len(fake_server.chat_requests) == 3
    assert client.retrying.retries == 2


def test_a_hang_times_out_and_is_retried(fake_server) -> None:
    fake_server.stage({"delay_s": 3.0}, {"content": "after the hang"})
    client = _endpoint_client(fake_server, _SleepRecorder(), timeout_s=0.5)
    result = asyncio.run(client.create(MESSAGES))
    assert result.content == "after the hang"
    assert client.retrying.retries == 1
    assert "APITimeoutError" in str(client.retrying.last_error)


def test_429_pauses_the_shared_endpoint(fake_server) -> None:
    """A 429 with Retry-After holds back the endpoint's next request, whichever client sends it."""
    fake_server.stage({"status": 429, "headers": {"Retry-After": "0.4"}, "body": {"error": {"message": "wait"}}})
    first = _endpoint_client(fake_server, _SleepRecorder(), max_retries=0)
    second = _endpoint_client(fake_server, _SleepRecorder(), max_retries=0)

    async def scenario() -> float:
        with pytest.raises(openai.RateLimitError):
            await first.create(MESSAGES)
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        await second.create(MESSAGES)
        return loop.time() - t0

    assert asyncio.run(scenario()) >= 0.35
