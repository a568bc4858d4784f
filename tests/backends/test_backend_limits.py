"""Per-endpoint limits: the concurrency bound holds across clients, the rate bucket paces starts."""

from __future__ import annotations

import asyncio
import time

import pytest
from autogen_core.models import LLMMessage, UserMessage

from mustmaybe.agents._limits import LimitedClient, TokenBucket, get_limiter, limiters
from mustmaybe.records import EndpointConfig

MESSAGES: list[LLMMessage] = [UserMessage(content="hello", source="user")]
URL = "http://127.0.0.1:9/v1"


def test_concurrency_bound_holds_across_clients(fake_inner) -> None:
    endpoint = EndpointConfig(base_url=URL, concurrency=3)
    inners = [fake_inner(delay_s=0.05) for _ in range(2)]
    clients = [LimitedClient(inner, endpoint) for inner in inners]

    async def run() -> int:
        await asyncio.gather(*(clients[i % 2].create(MESSAGES) for i in range(12)))
        return get_limiter(endpoint).max_in_flight

    assert asyncio.run(run()) == 3
    assert sum(len(i.calls) for i in inners) == 12


def test_different_urls_have_separate_limits(fake_inner) -> None:
    a = LimitedClient(fake_inner(delay_s=0.05), EndpointConfig(base_url=URL, concurrency=1))
    b = LimitedClient(fake_inner(delay_s=0.05), EndpointConfig(base_url="http://127.0.0.1:10/v1", concurrency=1))

    async def run() -> float:
        t0 = time.perf_counter()
        await asyncio.gather(a.create(MESSAGES), b.create(MESSAGES))
        assert set(limiters()) == {URL, "http://127.0.0.1:10/v1"}
        return time.perf_counter() - t0

    assert asyncio.run(run()) < 0.095  # in parallel, not one after the other


def test_limiters_are_per_event_loop() -> None:
    endpoint = EndpointConfig(base_url=URL, concurrency=2)

    async def grab() -> object:
        limiter = get_limiter(endpoint)
        async with limiter.slot():  # binds its semaphore to this loop
            pass
        return limiter

    assert asyncio.run(grab()) is not asyncio.run(grab())
    with pytest.raises(RuntimeError):
        get_limiter(endpoint)  # outside a running loop


def test_token_bucket_paces_requests() -> None:
    async def run() -> float:
        bucket = TokenBucket(rate_per_s=20.0, capacity=1.0)
        t0 = time.perf_counter()
        for _ in range(5):
            await bucket.acquire()
        return time.perf_counter() - t0

    assert 0.18 <= asyncio.run(run()) < 0.6  # first token is free, then 4 x 50 ms


def test_requests_per_minute_limits_starts(fake_inner) -> None:
    client = LimitedClient(fake_inner(), EndpointConfig(base_url=URL, requests_per_minute=1200))  # 20/s

    async def run() -> float:
        t0 = time.perf_counter()
        await asyncio.gather(*(client.create(MESSAGES) for _ in range(25)))
        return time.perf_counter() - t0

    assert asyncio.run(run()) >= 0.2  # a burst of 20, then 5 more at 50 ms each


def test_defer_pauses_the_endpoint(fake_inner) -> None:
    endpoint = EndpointConfig(base_url=URL)
    client = LimitedClient(fake_inner(), endpoint)

    async def run() -> float:
        get_limiter(endpoint).defer(0.2)
        t0 = time.perf_counter()
        await client.create(MESSAGES)
        return time.perf_counter() - t0

    assert asyncio.run(run()) >= 0.18
