"""Single-flight: identical model calls in flight at the same time are sent once.

A layer of the client pipeline (agents/_pipeline.py), outside the response cache: the cache only
helps once an answer has landed, so two episodes sharing a call (every condition of a task and
seed sends the reviewer the same request) would both pay for it when they run concurrently.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Mapping, Sequence
from typing import Any

from autogen_core.models import ChatCompletionClient, CreateResult, LLMMessage

from ._cache import cache_key
from ._delegating import CallArgs, DelegatingClient


class SingleFlightClient(DelegatingClient):
    """Coalesces identical calls in flight at the same time: the first is sent, the others wait
    for its answer (marked `cached`). Sits outside the response cache, which only helps once an
    answer has landed; without this, two episodes sharing a call (every condition of a task and
    seed sends the reviewer the same request) would both pay for it when they run concurrently.
    """

    def __init__(self, inner: ChatCompletionClient, inflight: dict[str, asyncio.Future[Any]],
                 key_fields: Mapping[str, Any]) -> None:
        super().__init__(inner)
        self._inflight = inflight
        self._key_fields = dict(key_fields)

    async def _create(self, messages: Sequence[LLMMessage], args: CallArgs) -> CreateResult:
        def call() -> Awaitable[CreateResult]:
            return self.inner.create(messages, **args.kwargs())

        if args.tools:
            return await call()
        key = cache_key(self._key_fields, messages, json_output=args.json_output,
                        extra_create_args=args.extra_create_args)
        leader = self._inflight.get(key)
        if leader is not None:
            shared = await asyncio.shield(leader)
            if shared is not None:
                return shared.model_copy(update={"cached": True})
            return await call()  # the first caller failed: try on our own
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._inflight[key] = fut
        try:
            result = await call()
        except BaseException:
            fut.set_result(None)
            raise
        else:
            fut.set_result(result)
            return result
        finally:
            self._inflight.pop(key, None)
