"""Run a planned sweep: bounded episodes in flight, each finished episode stored at once.

Layer 3 (STYLE.md): the runner computes nothing about an episode itself; it skips what the store
already holds, calls `run_episode` with a client wrapper (response cache, retry counters),
writes each record in one transaction and counts it for the display.

Limits: at most `max_in_flight` episodes run at once; within them each OpenAI-compatible
endpoint's own concurrency and requests-per-minute limits apply to every call (agents/_limits.py),
and transient failures are retried with backoff and jitter, honouring Retry-After
(agents/_retry.py). A failure that retrying cannot fix is recorded on the episode, and the
sweep goes on.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from autogen_core import CancellationToken
from autogen_core.models import ChatCompletionClient, CreateResult, LLMMessage
from autogen_core.tools import Tool, ToolSchema
from pydantic import BaseModel

from mustmaybe.agents import ClientContext, ModelSpec
from mustmaybe.agents._retry import DelegatingClient, find_retrying
from mustmaybe.teams import build_team, classify_error, run_episode

from ._plan import PlannedEpisode, SweepPlan
from ._tally import Tally

if TYPE_CHECKING:
    from mustmaybe.agents._cache import ResponseCache
    from mustmaybe.store import RunStore

log = logging.getLogger("mustmaybe.sweep")


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
        from mustmaybe.agents._cache import cache_key

        def call() -> Awaitable[CreateResult]:
            return self.inner.create(messages, tools=tools, tool_choice=tool_choice, json_output=json_output,
                                     extra_create_args=extra_create_args, cancellation_token=cancellation_token)

        if tools:
            return await call()
        key = cache_key(self._key_fields, messages, json_output=json_output, extra_create_args=extra_create_args)
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


@dataclass
class _EpisodeClients:
    """What the client wrapper saw for one episode: the retry counters per role."""

    retrying: list[tuple[str, Any]] = field(default_factory=list)

    def retries(self) -> dict[str, tuple[int, int]]:
        out: dict[str, tuple[int, int]] = {}
        for role, r in self.retrying:
            a, b = out.get(role, (0, 0))
            out[role] = (a + int(r.retries), b + int(r.failures))
        return out


class SweepRunner:
    """Runs the episodes of one plan into one store, counting into one tally."""

    def __init__(self, plan: SweepPlan, store: RunStore, tally: Tally, *, cache: ResponseCache | None = None,
                 session: int = 1, replace: set[str] | None = None) -> None:
        self.plan = plan
        self.store = store
        self.tally = tally
        self.cache = cache
        self.session = session
        self.replace = replace or set()
        self.stopped: str | None = None
        self._inflight: dict[str, asyncio.Future[Any]] = {}

    def _wrapper(self, seen: _EpisodeClients) -> Callable[[ModelSpec, ClientContext, ChatCompletionClient],
                                                          ChatCompletionClient]:
        cache = self.cache

        def wrap(spec: ModelSpec, ctx: ClientContext, client: ChatCompletionClient) -> ChatCompletionClient:
            r = find_retrying(client)
            if r is not None:
                seen.retrying.append((ctx.role, r))
            # The sim backend is deterministic and free: caching it would only cost time.
            if cache is None or spec.backend == "sim":
                return client
            from mustmaybe.agents._cache import CachingClient, cache_key_fields

            fields = cache_key_fields(spec, ctx)
            return SingleFlightClient(CachingClient(client, cache, fields), self._inflight, fields)

        return wrap

    async def run_one(self, ep: PlannedEpisode) -> None:
        """Run one episode and store it; an exception is stored as a failure, never raised."""
        seen = _EpisodeClients()
        self.tally.episode_started()
        try:
            record = await run_episode(build_team(ep.spec, client_wrapper=self._wrapper(seen)), ep.spec)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            kind = classify_error(exc)
            message = f"{type(exc).__name__}: {exc}"[:1000]
            log.warning("episode %s (%s %s seed %s) raised: %s", ep.key[:12], ep.scenario.id, ep.condition.id,
                        ep.seed, message)
            self.store.put_failure(ep.key, task=ep.scenario.id, condition=ep.condition.id, topology=str(ep.topology),
                                   seed=ep.seed, models=dict(ep.models), kind=kind, message=message,
                                   session=self.session)
            self.tally.add_failure(kind)
            return
        retries = seen.retries()
        self.store.put_episode(record, retries=retries, session=self.session, replace=record.key in self.replace)
        self.tally.add_record(record, retries)

    def stop(self, reason: str = "stopped") -> None:
        """Start no further episode (those in flight are cancelled by the caller)."""
        self.stopped = reason

    async def run(self, episodes: list[PlannedEpisode], max_in_flight: int) -> None:
        """Run `episodes` with at most `max_in_flight` at once (a fixed pool of workers)."""
        it = iter(episodes)

        async def worker() -> None:
            for ep in it:
                if self.stopped:
                    return
                await self.run_one(ep)
            # A cancellation that the team swallowed must still end the run.
            if self.stopped:
                raise asyncio.CancelledError()

        n = max(1, min(max_in_flight, len(episodes)))
        async with asyncio.TaskGroup() as tg:  # a store failure stops every worker
            for _ in range(n):
                tg.create_task(worker())
