"""Run a sweep's episodes in several processes (`workers = N` in the sweep file).

One Python event loop runs on one core; AutoGen, the openai SDK and the checker spend real CPU
per episode, so a sweep on a fast endpoint (or on `sim`) is CPU-bound. With `workers > 1` the
parent forks N workers after planning. Each runs its shard of the episodes with its own event
loop, store connection and cache connection (SQLite WAL serialises their one-transaction writes),
and with 1/N of every endpoint's concurrency and request rate and of `max_in_flight`, so the
sweep as a whole stays within the configured limits: the planner runs no more workers than the
narrowest endpoint has concurrency slots, since a share is at least one slot. Episodes that share a model call (every
condition of a task and seed sends the reviewer the same request) go to the same worker, so the
in-process coalescing and the cache still pay for that call once.

Workers send their counts to the parent, which draws the display. A worker whose parent is gone
(killed with SIGKILL) stops within half a second, so a resumed sweep never races an orphan.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import multiprocessing
import os
import signal
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from ._display import in_flight as _in_flight
from ._plan import PlannedEpisode, SweepPlan
from ._runner import SweepRunner
from ._tally import Tally

_SNAPSHOT_S = 0.25


def _share(total: int, n: int, i: int) -> int:
    return max(1, total // n + (1 if i < total % n else 0))


def shard(episodes: list[PlannedEpisode], n: int) -> list[list[PlannedEpisode]]:
    """Split episodes into n lists, keeping episodes that share a reviewer call together."""
    groups: dict[str, int] = {}
    out: list[list[PlannedEpisode]] = [[] for _ in range(n)]
    for ep in episodes:
        g = hashlib.sha1(f"{ep.scenario.id}\0{ep.seed}\0{ep.models['reviewer']}".encode()).hexdigest()
        idx = groups.setdefault(g, len(groups) % n)
        out[idx].append(ep)
    return out


def worker_plan(plan: SweepPlan, n: int, i: int) -> SweepPlan:
    """The plan with worker i's share of every endpoint's limits and of max_in_flight."""
    endpoints = {
        url: cfg.model_copy(update={
            "concurrency": _share(cfg.concurrency, n, i),
            "requests_per_minute": cfg.requests_per_minute / n if cfg.requests_per_minute else None,
        })
        for url, cfg in plan.endpoints.items()
    }
    return dataclasses.replace(plan, endpoints=endpoints, max_in_flight=_share(plan.max_in_flight, n, i))


def with_limits(episodes: list[PlannedEpisode], plan: SweepPlan) -> list[PlannedEpisode]:
    """The episodes with their endpoints' limits taken from `plan` (a worker's share); keys unchanged."""
    def rebind(ep: PlannedEpisode) -> PlannedEpisode:
        eps = {r: plan.endpoints.get(e.base_url, e) for r, e in ep.spec.endpoints.items()}
        return dataclasses.replace(ep, spec=dataclasses.replace(ep.spec, endpoints=eps))

    return [rebind(ep) if ep.spec.endpoints else ep for ep in episodes]


def _worker(i: int, n: int, plan: SweepPlan, episodes: list[PlannedEpisode], replace: set[str], run_dir: Path,
            secrets: list[str], cache_path: Path | None, session: int, conn: Connection, parent: int) -> None:
    """Body of worker process i (forked: it shares the parent's loaded modules and plan)."""
    code = 0
    from mustmaybe import tracing

    try:
        tracing.after_fork()  # while tracing: this worker's own exporter, to the same destination
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops the workers
        from mustmaybe.store import RunStore

        store = RunStore(run_dir, secrets=secrets)
        cache = None
        if cache_path is not None:
            from mustmaybe.agents import ResponseCache

            cache = ResponseCache(cache_path)
        mine = worker_plan(plan, n, i)
        tally = Tally(name=plan.name, total=len(plan.episodes), simulated=plan.simulated)
        runner = SweepRunner(mine, store, tally, cache=cache, session=session, replace=replace)

        async def main() -> None:
            from mustmaybe.interrupt import install

            task = asyncio.current_task()
            if task is not None:
                # The parent's SIGTERM: cancel the episodes and their model calls at once (the parent
                # already said "stopping…"); a second one exits at once.
                install(asyncio.get_running_loop(), task, (signal.SIGTERM,),
                        on_stop=lambda _signum: runner.stop("SIGTERM"), announce=False)

            async def report() -> None:
                while True:
                    await asyncio.sleep(_SNAPSHOT_S)
                    if os.getppid() != parent:  # the parent was killed: stop, leave the rest for --resume
                        os._exit(3)
                    for url, n_in in _in_flight().items():
                        tally.endpoint(url).in_flight = n_in
                    conn.send(("tally", i, tally))

            reporter = asyncio.create_task(report())
            try:
                await runner.run(with_limits(episodes, mine), mine.max_in_flight)
            finally:
                reporter.cancel()

        try:
            asyncio.run(main())
        finally:
            conn.send(("done", i, tally))  # the final counts, also when stopped
    except (asyncio.CancelledError, KeyboardInterrupt):
        code = 143
    except BaseException as exc:  # report and exit; the parent marks the run incomplete
        with contextlib.suppress(Exception):
            conn.send(("error", i, f"{type(exc).__name__}: {exc}"))
        code = 1
    finally:
        with contextlib.suppress(Exception):
            tracing.flush()  # os._exit runs no exit handlers: export this worker's spans now
        with contextlib.suppress(Exception):
            conn.close()
        os._exit(code)


class WorkerPool:
    """The parent's side: fork the workers, collect their counts, stop them on request."""

    def __init__(self, plan: SweepPlan, todo: list[PlannedEpisode], n: int, *, replace: set[str], run_dir: Path,
                 secrets: list[str], cache_path: Path | None, session: int) -> None:
        ctx = multiprocessing.get_context("fork")
        self.parts: dict[int, Tally] = {}
        self.errors: list[str] = []
        self._procs: list[Any] = []
        self._conns: list[Connection] = []
        for i, episodes in enumerate(shard(todo, n)):
            parent_conn, child_conn = ctx.Pipe(duplex=False)
            p = ctx.Process(target=_worker, name=f"mustmaybe-worker-{i}", daemon=False,
                            args=(i, n, plan, episodes, replace, run_dir, secrets, cache_path, session,
                                  child_conn, os.getpid()))
            p.start()
            child_conn.close()
            self._procs.append(p)
            self._conns.append(parent_conn)

    def poll(self) -> None:
        """Take in every message the workers sent so far."""
        for conn in list(self._conns):
            try:
                while conn.poll():
                    kind, i, body = conn.recv()
                    if kind in ("tally", "done"):
                        self.parts[i] = body
                    elif kind == "error":
                        self.errors.append(f"worker {i}: {body}")
            except (EOFError, OSError):
                self._conns.remove(conn)

    def alive(self) -> bool:
        return any(p.is_alive() for p in self._procs)

    def wait(self, on_tick: Callable[[], None], interval: float) -> None:
        """Until every worker has exited, take in their counts and call `on_tick` every `interval` s."""
        while self.alive():
            deadline = time.monotonic() + interval
            while time.monotonic() < deadline and self.alive():
                self.poll()
                time.sleep(0.02)
            on_tick()
        for p in self._procs:
            p.join()
        self.poll()
        for p in self._procs:
            if p.exitcode not in (0, None):
                self.errors.append(f"{p.name} exited with status {p.exitcode}")

    def stop(self) -> None:
        for p in self._procs:
            if p.is_alive() and p.pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(p.pid, signal.SIGTERM)
        for p in self._procs:
            p.join(timeout=10)
            if p.is_alive() and p.pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(p.pid, signal.SIGKILL)
                p.join()
        self.poll()
