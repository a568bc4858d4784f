"""Retries for OpenAI-compatible endpoints: tenacity around each model call, honouring Retry-After.

The openai SDK can retry by itself, but it hides the attempts. A sweep wants them visible (a
progress display shows retries per endpoint) and wants one policy for every endpoint, so the SDK
runs with `max_retries=0` and `RetryingClient` retries instead (AUTOGEN_NOTES §6).

Only failures a later attempt can fix are retried: 429, 5xx, timeouts and connection errors.
A 400, an authentication error or an answer that does not parse fails at once; so does a 500
that is really a request-validation error (llama.cpp's server reports a `response_format` it
does not support that way, and retrying it only wastes time).
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import math
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence

import openai
from autogen_core.models import (
    ChatCompletionClient,
    CreateResult,
    LLMMessage,
)
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt, wait_exponential_jitter

from ._delegating import CallArgs, DelegatingClient

logger = logging.getLogger("mustmaybe.agents.retry")

Sleep = Callable[[float], Awaitable[None]]


# --- Retry-After -----------------------------------------------------------------------------


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a `Retry-After` value: delta-seconds or an HTTP date (RFC 9110 §10.2.3).

    Returns None for a missing or unreadable value, and never a negative number (a date in the
    past means "now").
    """
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    try:
        seconds = float(text)
    except ValueError:
        pass
    else:
        return max(0.0, seconds) if math.isfinite(seconds) else None
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # an obsolete date form without a zone is GMT by definition
        return None
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)


def retry_after_seconds(exc: BaseException, now: float | None = None) -> float | None:
    """The server's requested wait from an openai error's response headers, if any.

    `retry-after-ms` (sent by OpenAI and Azure) is preferred for its precision.
    """
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            value = float(ms) / 1000.0
        except ValueError:
            value = math.nan
        if math.isfinite(value):
            return max(0.0, value)
    return parse_retry_after(headers.get("retry-after"), now)


# --- what to retry ----------------------------------------------------------------------------


def _is_validation_500(exc: openai.InternalServerError) -> bool:
    # llama.cpp's server (FastAPI) answers a request body it cannot validate, such as
    # response_format {"type": "json_schema"}, with 500 and pydantic's "validation error" text.
    return "validation error" in str(exc).lower()


def is_retryable(exc: BaseException) -> bool:
    """True for failures a later attempt may not repeat: 429, 5xx, timeouts, lost connections.

    A body that is not a chat completion (an HTML error page, JSON without `choices`) is not
    retried: it is what that URL serves, and asking again only hides it behind a timeout.
    """
    from ._failure import NotACompletionError, causes

    if any(isinstance(c, NotACompletionError) for c in causes(exc)):
        return False
    if isinstance(exc, openai.InternalServerError):
        return not _is_validation_500(exc)
    return isinstance(exc, openai.RateLimitError | openai.APITimeoutError | openai.APIConnectionError)


def describe_error(exc: BaseException) -> str:
    """A one-line description for progress displays and logs (no headers, so no credentials)."""
    status = getattr(exc, "status_code", None)
    text = str(exc).splitlines()[0] if str(exc) else ""
    head = f"{type(exc).__name__}" + (f" {status}" if status is not None else "")
    return f"{head}: {text[:200]}" if text else head


class _WaitRetryAfter:
    """Exponential backoff with jitter, but never shorter than the server's Retry-After (capped)."""

    def __init__(self, initial: float, maximum: float, retry_after_cap: float) -> None:
        self._backoff = wait_exponential_jitter(initial=initial, max=maximum)
        self._cap = retry_after_cap

    def __call__(self, state: RetryCallState) -> float:
        wait = float(self._backoff(state))
        exc = state.outcome.exception() if state.outcome is not None else None
        if exc is not None:
            requested = retry_after_seconds(exc)
            if requested is not None:
                wait = max(wait, min(requested, self._cap))
        return wait


class RetryingClient(DelegatingClient):
    """Retries `inner`'s calls on transient endpoint failures and counts what it did.

    Args:
        inner: the client doing the HTTP call (built with the SDK's own retries off).
        max_attempts: attempts per call, the first included (`EndpointConfig.max_retries + 1`).
        initial_wait / max_wait: exponential backoff bounds in seconds (jitter added).
        retry_after_cap: the longest Retry-After honoured, in seconds.
        sleep: the coroutine used to wait; tests pass a recorder instead of sleeping.

    Counters (read by progress displays): `calls`, `attempts`, `retries`, `failures`,
    `last_error`. When every attempt fails, the last original error is re-raised.
    `call_errors` holds the errors of the call in progress (or the last one), so a caller whose
    own time limit runs out mid-retry can report the 500 or 429 it was retrying, not a timeout.
    """

    def __init__(
        self,
        inner: ChatCompletionClient,
        *,
        max_attempts: int = 5,
        initial_wait: float = 0.5,
        max_wait: float = 30.0,
        retry_after_cap: float = 120.0,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        super().__init__(inner)
        if max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, got {max_attempts}")
        self.max_attempts = max_attempts
        self._wait = _WaitRetryAfter(initial_wait, max_wait, retry_after_cap)
        self._sleep = sleep
        self.calls = 0
        self.attempts = 0
        self.retries = 0
        self.failures = 0
        self.last_error: str | None = None
        self.call_errors: list[BaseException] = []

    def _retrying(self) -> AsyncRetrying:
        return AsyncRetrying(
            retry=retry_if_exception(is_retryable),
            stop=stop_after_attempt(self.max_attempts),
            wait=self._wait,
            sleep=self._sleep,
            before_sleep=self._before_sleep,
            reraise=True,
        )

    def _before_sleep(self, state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome is not None else None
        self.retries += 1
        if exc is not None:
            self.last_error = describe_error(exc)
            self.call_errors.append(exc)
        wait = state.next_action.sleep if state.next_action is not None else 0.0
        logger.info("retrying in %.1f s (attempt %d of %d failed): %s",
                    wait, state.attempt_number, self.max_attempts, self.last_error)

    def _failed(self, exc: BaseException) -> None:
        self.failures += 1
        self.last_error = describe_error(exc)
        self.call_errors.append(exc)

    async def _create(self, messages: Sequence[LLMMessage], args: CallArgs) -> CreateResult:
        self.calls += 1
        self.call_errors = []
        # The first attempt runs outside tenacity: nearly every call succeeds at once, and tenacity's
        # retry objects form reference cycles (its IterState holds bound methods of its AsyncRetrying,
        # which holds this client through `before_sleep`), so each call left them, and this client with
        # its episode's objects, for the cyclic collector (tests/teams/test_release.py). A first failure
        # is handed to tenacity as its attempt 1, so what is retried, the waits and the counters are
        # exactly as if tenacity had made that attempt itself.
        first: Exception | None = None
        try:
            self.attempts += 1
            return await self.inner.create(messages, **args.kwargs())
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            first = exc
        try:
            async for attempt in self._retrying():
                with attempt:
                    if first is not None:
                        replay, first = first, None
                        raise replay
                    self.attempts += 1
                    return await self.inner.create(messages, **args.kwargs())
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._failed(exc)
            raise
        raise AssertionError("tenacity ended without a result or an error")  # pragma: no cover

    async def _create_stream(self, messages: Sequence[LLMMessage], args: CallArgs,
                             ) -> AsyncGenerator[str | CreateResult, None]:
        # Retry only until the first chunk: after that the consumer has seen output, and a
        # second attempt would show it a different answer spliced onto the first.
        self.calls += 1
        self.call_errors = []
        stream: AsyncGenerator[str | CreateResult, None] | None = None
        first: str | CreateResult | None = None
        try:
            async for attempt in self._retrying():
                with attempt:
                    self.attempts += 1
                    stream = self.inner.create_stream(messages, **args.kwargs())
                    try:
                        first = await stream.__anext__()
                    except StopAsyncIteration:
                        first = None
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._failed(exc)
            raise
        if stream is None or first is None:
            return
        yield first
        async for chunk in stream:
            yield chunk

    def __repr__(self) -> str:
        return f"RetryingClient({self.inner!r}, max_attempts={self.max_attempts})"
