"""Per-endpoint limits shared by every client that talks to one base URL.

A sweep runs many episodes at once and every role of every episode may call the same server.
The server's limits are per server, not per agent, so one `EndpointLimiter` per base URL holds
an `asyncio.Semaphore(concurrency)` (requests in flight) and a token bucket
(`requests_per_minute`), and every `LimitedClient` for that URL acquires both around each HTTP
attempt. Retries sit outside the limiter, so a request waiting out its backoff frees its slot.

asyncio primitives belong to the event loop they are first used in, so limiters are created
lazily inside the running loop and the registry is kept per loop (tests run one loop each).

A sweep spread over several machines (`sweep --ray`) needs each endpoint's limits to hold across
all of them, not per process: its workers install a limiter factory (`set_limiter_factory`) whose
limiters take their slot and token from one cluster-wide gate (mustmaybe/sweep/_ray_limiter.py).
Without one, every limiter is the in-process `EndpointLimiter` below.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager

import openai
from autogen_core.models import ChatCompletionClient, CreateResult, LLMMessage

from mustmaybe.records import EndpointConfig

from ._delegating import CallArgs, DelegatingClient
from ._retry import retry_after_seconds

logger = logging.getLogger("mustmaybe.agents.limits")


class TokenBucket:
    """An async token bucket: `rate_per_s` tokens a second, at most `capacity` saved up.

    `acquire()` waits for one token; waiters are served in arrival order (one lock, held while
    sleeping).
    """

    def __init__(self, rate_per_s: float, capacity: float | None = None) -> None:
        if rate_per_s <= 0:
            raise ValueError(f"rate must be positive, got {rate_per_s}")
        self.rate_per_s = rate_per_s
        # At most about one second's worth of burst (never less than one request): hosted APIs
        # count per minute, but a full minute's burst at once is what trips their 429s.
        self.capacity = capacity if capacity is not None else max(1.0, rate_per_s)
        self._tokens = self.capacity
        self._updated = time.monotonic()
        self._lock = asyncio.Lock()

    def _refill(self, now: float) -> None:
        self._tokens = min(self.capacity, self._tokens + (now - self._updated) * self.rate_per_s)
        self._updated = now

    async def acquire(self) -> None:
        async with self._lock:
            while True:
                now = time.monotonic()
                self._refill(now)
                if self._tokens >= 1.0:
                    self._tokens -= 1.0
                    return
                await asyncio.sleep((1.0 - self._tokens) / self.rate_per_s)


class EndpointLimiter:
    """Concurrency and request-rate limits for one base URL, plus counters for progress displays."""

    def __init__(self, endpoint: EndpointConfig) -> None:
        self.endpoint = endpoint
        self.base_url = endpoint.base_url
        self._semaphore = asyncio.Semaphore(endpoint.concurrency)
        rpm = endpoint.requests_per_minute
        self.bucket = TokenBucket(rpm / 60.0) if rpm else None
        self.in_flight = 0
        self.max_in_flight = 0
        self.waiting = 0
        self.requests = 0
        self._not_before = 0.0
        self.ignored: set[EndpointConfig] = set()  # conflicting configs already warned about

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold one concurrency slot and one rate token for the duration of one request."""
        self.waiting += 1
        try:
            # Slot first, then token: a token taken while still queued for a slot would be spent
            # on a request that has not started, and the rate would undershoot.
            await self._semaphore.acquire()
        finally:
            self.waiting -= 1
        try:
            while (pause := self._not_before - time.monotonic()) > 0:
                await asyncio.sleep(pause)
            if self.bucket is not None:
                await self.bucket.acquire()
            with self._counted():
                yield
        finally:
            self._semaphore.release()

    @contextmanager
    def _counted(self) -> Iterator[None]:
        """Count one request in flight for the progress displays (every limiter's slot goes through it)."""
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        self.requests += 1
        try:
            yield
        finally:
            self.in_flight -= 1

    def defer(self, seconds: float) -> None:
        """Start no request to this endpoint for `seconds` (all clients), after it sent Retry-After.

        Extends a pause, never shortens one.
        """
        self._not_before = max(self._not_before, time.monotonic() + max(0.0, seconds))


LimiterFactory = Callable[[EndpointConfig], EndpointLimiter]
_factory: LimiterFactory | None = None


def set_limiter_factory(factory: LimiterFactory | None) -> None:
    """Build every limiter created from now on with `factory` (None: the in-process `EndpointLimiter`).

    Limiters already created in a running loop are kept; a process sets this once, before its
    first model call (a Ray sweep worker does, at start).
    """
    global _factory
    _factory = factory


_LIMITERS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, EndpointLimiter]] = (
    weakref.WeakKeyDictionary()
)


def _url_key(base_url: str) -> str:
    return base_url.rstrip("/")


def get_limiter(endpoint: EndpointConfig) -> EndpointLimiter:
    """The shared limiter for `endpoint.base_url` in the running event loop (created on first use).

    The first config seen for a URL sets its limits; a later, different one is logged and
    ignored, since two sets of limits for one server cannot both hold.

    Raises:
        RuntimeError: when called outside a running event loop.
    """
    loop = asyncio.get_running_loop()
    per_loop = _LIMITERS.setdefault(loop, {})
    key = _url_key(endpoint.base_url)
    limiter = per_loop.get(key)
    if limiter is None:
        limiter = per_loop[key] = (_factory or EndpointLimiter)(endpoint)
    elif (limiter.endpoint.concurrency, limiter.endpoint.requests_per_minute) != (
        endpoint.concurrency, endpoint.requests_per_minute
    ) and endpoint not in limiter.ignored:
        limiter.ignored.add(endpoint)
        logger.warning("endpoint %s already has limits concurrency=%s rpm=%s; ignoring concurrency=%s rpm=%s",
                       key, limiter.endpoint.concurrency, limiter.endpoint.requests_per_minute,
                       endpoint.concurrency, endpoint.requests_per_minute)
    return limiter


def limiters() -> dict[str, EndpointLimiter]:
    """The limiters of the running event loop by base URL (for progress displays)."""
    return dict(_LIMITERS.get(asyncio.get_running_loop(), {}))


class LimitedClient(DelegatingClient):
    """Runs each call of `inner` inside its endpoint's shared concurrency slot and rate token.

    A 429 with Retry-After that passes through pauses the whole endpoint, so the other clients
    sharing it do not keep hitting a server that asked everyone to wait.
    """

    def __init__(
        self, inner: ChatCompletionClient, endpoint: EndpointConfig, *, retry_after_cap: float = 120.0
    ) -> None:
        super().__init__(inner)
        self.endpoint = endpoint
        self._retry_after_cap = retry_after_cap

    @property
    def limiter(self) -> EndpointLimiter:
        return get_limiter(self.endpoint)

    def _note(self, limiter: EndpointLimiter, exc: BaseException) -> None:
        if isinstance(exc, openai.RateLimitError):
            wait = retry_after_seconds(exc)
            if wait:
                limiter.defer(min(wait, self._retry_after_cap))

    async def _create(self, messages: Sequence[LLMMessage], args: CallArgs) -> CreateResult:
        limiter = self.limiter
        async with limiter.slot():
            try:
                return await self.inner.create(messages, **args.kwargs())
            except openai.RateLimitError as exc:
                self._note(limiter, exc)
                raise

    async def _create_stream(self, messages: Sequence[LLMMessage], args: CallArgs,
                             ) -> AsyncGenerator[str | CreateResult, None]:
        limiter = self.limiter
        async with limiter.slot():
            try:
                async for chunk in self.inner.create_stream(messages, **args.kwargs()):
                    yield chunk
            except openai.RateLimitError as exc:
                self._note(limiter, exc)
                raise

    def __repr__(self) -> str:
        return f"LimitedClient({self.inner!r}, base_url={self.endpoint.base_url!r})"
