"""One worker of a sweep on Ray (run as an async Ray actor, one process per worker).

It runs episodes the coordinator hands out (groups of keys, taken while it has room) with the
local sweep's own `SweepRunner`, so an episode is built, run and recorded exactly as a local sweep
does it, and writes each finished episode, in one transaction, to its own store shard
(`RUN/shards/s<session>-w<worker>/store.sqlite`). The driver merges the shards into the run's
store. Every model call to an OpenAI-compatible endpoint takes its slot and rate token from the
coordinator (`ClusterLimiter`), so the limits hold for the cluster.

The run folder must be visible to the worker at the same path (one machine, or a filesystem every
node mounts there); API keys are read from the worker's own environment and never cross Ray.
This module imports no Ray: the driver wraps `SweepWorker` with `ray.remote`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from pathlib import Path
from typing import Any

from mustmaybe.errors import UserError

from ._plan import PlannedEpisode, SweepPlan
from ._tally import Tally


class SweepWorker:
    """Worker `index` of `n`: runs episodes from the coordinator into its shard.

    Args:
        index: this worker's number (0-based); it names the shard and the worker's slot leases.
        n: how many workers the session runs (this one's share of `max_in_flight` is 1/n).
        plan: the resolved sweep (sent once through Ray's object store).
        run_dir: the run folder, as the driver sees it.
        session: the manifest's session number (stored on every row this worker writes).
        cache_path: the response cache (None: no cache), shared by every worker.
        coordinator: the handle of the session's `SweepCoordinator` actor.
        trace: the sweep's root span as trace-context headers while it is traced (`tracing.carrier()`), else
            None; the worker's spans are then its children, to the same destination.
    """

    def __init__(self, index: int, n: int, plan: SweepPlan, run_dir: str, session: int, cache_path: str | None,
                 coordinator: Any, trace: dict[str, str] | None = None) -> None:
        self.index, self.n, self.plan = index, n, plan
        self.run_dir = Path(run_dir)
        self.session = session
        self.cache_path = Path(cache_path) if cache_path else None
        self.coordinator = coordinator
        self.episodes: dict[str, PlannedEpisode] = {e.key: e for e in plan.episodes}
        self.tally = Tally(name=plan.name, total=len(plan.episodes), simulated=plan.simulated)
        self.runner: Any = None
        self._stack = contextlib.ExitStack()
        self._stopped = False
        self.trace = trace
        self.secrets: list[str] = []

    async def start(self) -> dict[str, Any]:
        """Open the shard and install the cluster limiter; returns where this worker runs, or the problem."""
        from mustmaybe.store import MANIFEST, RunStore, shard_dir

        from ._resume import collect_secrets

        info: dict[str, Any] = {"worker": self.index, "pid": os.getpid(), "node": socket.gethostname(),
                                "shard": str(shard_dir(self.run_dir, self.session, self.index).relative_to(
                                    self.run_dir))}
        if not (self.run_dir / MANIFEST).is_file():
            info["problem"] = (f"Ray worker {self.index} on {info['node']} cannot see the run folder {self.run_dir}: "
                               f"--ray needs it on a filesystem every node mounts at the same path")
            return info
        try:
            secrets = collect_secrets(self.plan)  # this node's key variables: a key never travels through Ray
            self.secrets = secrets
        except UserError as exc:
            info["problem"] = f"Ray worker {self.index} on {info['node']}: {exc}"
            return info
        from mustmaybe.agents import ResponseCache, set_limiter_factory

        from ._execution import lean_runtime
        from ._ray_limiter import ClusterLimiter
        from ._runner import SweepRunner
        from ._workers import _share

        set_limiter_factory(lambda ep: ClusterLimiter(ep, self.coordinator, self.index))
        if self.trace is not None:  # traced: AutoGen's runtime spans too (lean_runtime would switch them off)
            os.environ.setdefault("AUTOGEN_DISABLE_RUNTIME_TRACING", "false")
        self._stack.enter_context(lean_runtime())
        store = RunStore(shard_dir(self.run_dir, self.session, self.index), secrets=secrets)
        store.put_tasks(self.plan.scenarios.values())
        cache = ResponseCache(self.cache_path) if self.cache_path is not None else None
        self.lanes = _share(self.plan.max_in_flight, self.n, self.index)
        self.runner = SweepRunner(self.plan, store, self.tally, cache=cache, session=self.session,
                                  judgments_dir=self.run_dir)
        return info

    async def run(self) -> int:
        """Run episodes until the coordinator has none left (or says stop); returns how many ran."""
        runner = self.runner
        queue: list[str] = []
        refill = asyncio.Lock()

        async def next_episode() -> PlannedEpisode | None:
            async with refill:  # one lane asks the coordinator at a time; the rest wait for its group
                if not queue and not self._stopped:
                    queue.extend(await self.coordinator.take.remote(self.index))
                return self.episodes[queue.pop(0)] if queue and not self._stopped else None

        async def lane() -> None:
            while (ep := await next_episode()) is not None:
                await runner.run_one(ep)

        from mustmaybe import tracing

        # The lanes are made inside the trace's context, so each episode span is a child of the sweep's root.
        with tracing.continued(self.run_dir, self.trace, secrets=self.secrets):
            try:
                async with asyncio.TaskGroup() as tg:  # a store failure stops every lane
                    for _ in range(self.lanes):
                        tg.create_task(lane())
            finally:
                if runner.instrument is not None:
                    await runner.instrument.close()
        return self.tally.ran

    async def counts(self) -> Tally:
        """This worker's counts so far, with its requests in flight per endpoint (for the display)."""
        from mustmaybe.agents import limiters

        for url, lim in limiters().items():
            self.tally.endpoint(url).in_flight = lim.in_flight
        return self.tally

    async def stop(self) -> None:
        """Take no further episode (those running finish)."""
        self._stopped = True
