"""Run a planned sweep: bounded episodes in flight, each finished episode stored at once.

Layer 3 (STYLE.md): the runner computes nothing about an episode itself; it builds each planned
episode's team from its spec with the sweep's shared response cache and in-flight calls
(`CallSharing`), runs it, writes the record in one transaction and counts it for the display.

Limits: at most `max_in_flight` episodes run at once; within them each OpenAI-compatible
endpoint's own concurrency and requests-per-minute limits apply to every call (agents/_limits.py),
and transient failures are retried with backoff and jitter, honouring Retry-After
(agents/_retry.py). A failure that retrying cannot fix is recorded on the episode, and the
sweep goes on.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from mustmaybe.agents import CallSharing, ResponseCache
from mustmaybe.judges import JUDGMENTS_FILE, resolve_instrument
from mustmaybe.teams import build_team, classify_error, episode_span, note_outcome, run_episode, store_span

from ._plan import PlannedEpisode, SweepPlan
from ._tally import Tally

if TYPE_CHECKING:
    from mustmaybe.store import RunStore

log = logging.getLogger("mustmaybe.sweep")


class SweepRunner:
    """Runs the episodes of one plan into one store, counting into one tally.

    `judgments_dir` holds the judge instrument's judgments file (default: the store's folder; a Ray
    worker writing a shard passes the run folder, so every worker shares one).
    """

    def __init__(self, plan: SweepPlan, store: RunStore, tally: Tally, *, cache: ResponseCache | None = None,
                 session: int = 1, replace: set[str] | None = None, judgments_dir: Path | None = None) -> None:
        self.plan = plan
        self.store = store
        self.tally = tally
        self.cache = cache
        self.session = session
        self.replace = replace or set()
        self.stopped: str | None = None
        self.sharing = CallSharing(cache=cache)  # every episode's clients share the cache and calls in flight
        # The sweep's instrument, when it is not the rules: it re-scores each record before it is stored.
        self.instrument = None if plan.instrument.is_rules else resolve_instrument(
            plan.instrument, cache=ResponseCache((judgments_dir or store.run_dir) / JUDGMENTS_FILE),
            sharing=self.sharing,
            endpoints=plan.endpoints)

    async def run_one(self, ep: PlannedEpisode) -> None:
        """Run one episode and store it; an exception is stored as a failure, never raised."""
        self.tally.episode_started()
        with episode_span(ep.spec) as span:  # a no-op unless tracing is on
            try:
                team = build_team(ep.spec, sharing=self.sharing)
                record = await run_episode(team, ep.spec)
                if self.instrument is not None:
                    record = await self.instrument.score_record(record, ep.scenario)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                kind = classify_error(exc)
                message = f"{type(exc).__name__}: {exc}"[:1000]
                log.warning("episode %s (%s %s seed %s) raised: %s", ep.key[:12], ep.scenario.id, ep.condition.id,
                            ep.seed, message)
                span.set_attribute("error.type", kind)
                with store_span(ep.key):
                    self.store.put_failure(ep.key, task=ep.scenario.id, condition=ep.condition.id,
                                           topology=str(ep.topology), seed=ep.seed, models=dict(ep.models), kind=kind,
                                           message=message, session=self.session)
                self.tally.add_failure(kind)
                return
            note_outcome(span, record)
            retries = team.retries()
            with store_span(record.key):
                self.store.put_episode(record, retries=retries, session=self.session,
                                       replace=record.key in self.replace)
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
        try:
            async with asyncio.TaskGroup() as tg:  # a store failure stops every worker
                for _ in range(n):
                    tg.create_task(worker())
        finally:
            if self.instrument is not None:
                await self.instrument.close()
