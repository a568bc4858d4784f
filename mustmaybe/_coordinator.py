"""The cluster-wide side of a sweep on Ray: one coordinator for the episode queue and every endpoint's limits.

(Here, outside `mustmaybe.sweep`, because the coordinator's process needs nothing else: importing this
module loads no AutoGen, so the actor starts in a fraction of the time a worker takes.)

A local sweep holds each endpoint's limits in one process (agents/_limits.py: a semaphore of
`concurrency` slots and a token bucket of `requests_per_minute`). On Ray the workers are separate
processes on separate machines, so the limits live in one place for the whole cluster: a
`SweepCoordinator` actor (started by the driver, one per session) grants every HTTP attempt of
every worker a slot and a token, and each worker's limiters (`ClusterLimiter` in
sweep/_ray_limiter.py, installed with `set_limiter_factory`) ask it for them. A 429's Retry-After
pauses the endpoint for the cluster.

Slots are leases held by a worker: when a worker dies holding some, the driver tells the
coordinator (`lost`). A slot whose request was never sent (still waiting for its rate token) is
freed at once; a slot whose request was sent is held until that request can no longer be in
flight at the endpoint: a server goes on serving a request after its client's process is killed,
so freeing the slot when the worker dies would let a survivor's request in on top of it and the
endpoint would hold more than its `concurrency`. The bound is the one a live worker already has:
an attempt's answer is waited for at most the endpoint's `timeout_s` (the HTTP client's timeout),
after which a live worker gives its slot back too; so a dead worker's slot is held until its
request started + `timeout_s` + `_GRACE_S` (docs/ray.md, "A worker that dies").

The coordinator is also the work queue: workers take groups of episode keys (`take`) until it is
empty or stopped, so a fast worker runs more episodes than a slow one.

This module imports no Ray: the driver wraps `SweepCoordinator` with `ray.remote` when it starts one.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from typing import Any

_Lease = tuple[int, str]  # (worker, ticket)

# A lease's start is taken when the coordinator answers the worker's acquire; the worker's HTTP
# attempt (and its timeout clock) starts only once that answer has crossed Ray and the worker's
# event loop has run it. The grace covers that hop, so a dead worker's request is never assumed
# over before its own client would have given up on it.
_GRACE_S = 2.0


def url_key(base_url: str) -> str:
    return base_url.rstrip("/")


class _Bucket:
    """A token bucket as the local limiter's (agents/_limits.py `TokenBucket`: `rate_per_s` a second, about
    one second's worth saved up), kept here so this module needs no AutoGen; waiters in arrival order."""

    def __init__(self, rate_per_s: float) -> None:
        self.rate_per_s = rate_per_s
        self.capacity = max(1.0, rate_per_s)
        self._tokens = self.capacity
        self._updated = time.monotonic()
        self._lock = asyncio.Lock()

    async def acquire(self) -> None:
        async with self._lock:
            while True:
                now = time.monotonic()
                self._tokens = min(self.capacity, self._tokens + (now - self._updated) * self.rate_per_s)
                self._updated = now
                if self._tokens >= 1.0:
                    self._tokens -= 1.0
                    return
                await asyncio.sleep((1.0 - self._tokens) / self.rate_per_s)


class _EndpointGate:
    """One endpoint's cluster-wide slots (FIFO), pause and token bucket.

    `held` counts every slot the endpoint may be serving a request for, a lost worker's too: those
    whose request was sent (`started`) stay in `held` until their deadline (`orphans`).
    """

    def __init__(self, concurrency: int, requests_per_minute: float | None, timeout_s: float) -> None:
        self.concurrency = concurrency
        self.requests_per_minute = requests_per_minute
        self.timeout_s = timeout_s
        self.bucket = _Bucket(requests_per_minute / 60.0) if requests_per_minute else None
        self.held: set[_Lease] = set()
        self.started: dict[_Lease, float] = {}  # lease -> monotonic time its request was let go
        self.orphans: dict[_Lease, float] = {}  # a lost worker's sent request -> when its slot frees
        self.waiters: deque[tuple[_Lease, asyncio.Future[bool]]] = deque()
        self.cancelled: set[_Lease] = set()  # a cancel that arrived before its acquire
        self.not_before = 0.0
        self.max_in_flight = 0
        self.requests = 0

    def grant_next(self, dead: set[int]) -> None:
        while self.waiters and len(self.held) < self.concurrency:
            lease, fut = self.waiters.popleft()
            if fut.done():
                continue
            if lease[0] in dead:
                fut.set_result(False)
                continue
            self._hold(lease)
            fut.set_result(True)

    def _hold(self, lease: _Lease) -> None:
        self.held.add(lease)
        self.max_in_flight = max(self.max_in_flight, len(self.held))

    async def acquire(self, lease: _Lease, dead: set[int]) -> bool:
        if lease in self.cancelled:
            self.cancelled.discard(lease)
            return False
        if lease[0] in dead:
            return False
        if len(self.held) < self.concurrency and not self.waiters:
            self._hold(lease)
        else:
            fut: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
            self.waiters.append((lease, fut))
            if not await fut:
                return False
        # Slot first, then token, as in the local limiter: a token taken while still queued for a
        # slot would be spent on a request that has not started.
        while (pause := self.not_before - time.monotonic()) > 0:
            await asyncio.sleep(pause)
        if self.bucket is not None:
            await self.bucket.acquire()
        if lease[0] in dead or lease not in self.held:  # lost (or cancelled) while waiting: never sent
            self.release(lease, dead)
            return False
        self.started[lease] = time.monotonic()
        self.requests += 1
        return True

    def release(self, lease: _Lease, dead: set[int]) -> None:
        self.held.discard(lease)
        self.started.pop(lease, None)
        self.orphans.pop(lease, None)
        self.grant_next(dead)

    def cancel(self, lease: _Lease, dead: set[int]) -> None:
        if lease in self.held:
            self.release(lease, dead)
            return
        for waiting, fut in self.waiters:
            if waiting == lease:
                if not fut.done():
                    fut.set_result(False)
                return
        self.cancelled.add(lease)

    def drop_worker(self, worker: int, dead: set[int]) -> tuple[int, int]:
        """Free `worker`'s slots whose request was never sent; hold each sent one until its deadline
        (started + timeout_s + grace). Returns (freed now, held on)."""
        now = time.monotonic()
        loop = asyncio.get_running_loop()
        freed = held = 0
        for lease in [lease for lease in self.held if lease[0] == worker]:
            start = self.started.get(lease)
            deadline = start + self.timeout_s + _GRACE_S if start is not None else now
            if deadline <= now:
                self.held.discard(lease)
                self.started.pop(lease, None)
                freed += 1
            else:
                self.orphans[lease] = deadline
                loop.call_later(deadline - now, self._expire, lease, dead)
                held += 1
        for lease, fut in self.waiters:
            if lease[0] == worker and not fut.done():
                fut.set_result(False)
        self.grant_next(dead)
        return freed, held

    def _expire(self, lease: _Lease, dead: set[int]) -> None:
        """A lost worker's request is past its deadline: its slot is the survivors' now."""
        if lease in self.orphans:
            self.release(lease, dead)

    def stats(self) -> dict[str, Any]:
        return {"concurrency": self.concurrency, "requests_per_minute": self.requests_per_minute,
                "in_flight": len(self.held), "max_in_flight": self.max_in_flight, "requests": self.requests}


class SweepCoordinator:
    """The episode queue and the endpoints' limits of one Ray sweep session (run as an async Ray actor).

    Args:
        groups: the session's episode keys in run order, in groups that share a reviewer call.
        endpoints: base URL -> (concurrency, requests_per_minute, timeout_s), the sweep file's limits and
            request timeout (how long a lost worker's sent request may still be in flight: `lost`).
    """

    def __init__(self, groups: list[list[str]], endpoints: dict[str, tuple[int, float | None, float]]) -> None:
        self._groups = deque(groups)
        self._gates = {url_key(u): _EndpointGate(c, rpm, t) for u, (c, rpm, t) in endpoints.items()}
        self._taken: dict[int, list[str]] = {}
        self._dead: set[int] = set()
        self._stopped = False

    def _gate(self, url: str, concurrency: int, rpm: float | None, timeout_s: float) -> _EndpointGate:
        key = url_key(url)
        gate = self._gates.get(key)
        if gate is None:  # an endpoint the sweep file did not list: the first limits seen hold
            gate = self._gates[key] = _EndpointGate(concurrency, rpm, timeout_s)
        return gate

    async def take(self, worker: int) -> list[str]:
        """The next group of episode keys for `worker`; empty when none is left or the sweep stops."""
        if self._stopped or worker in self._dead or not self._groups:
            return []
        group = self._groups.popleft()
        self._taken.setdefault(worker, []).extend(group)
        return group

    async def acquire(self, url: str, worker: int, ticket: str, concurrency: int, rpm: float | None,
                      timeout_s: float) -> bool:
        """Wait for one slot and one rate token of `url`; False if the lease was cancelled or the worker lost.

        True means the worker sends its request now: from here until it releases the slot (or, were it
        lost, until `timeout_s` + grace later) the slot counts as in flight at the endpoint."""
        return await self._gate(url, concurrency, rpm, timeout_s).acquire((worker, ticket), self._dead)

    async def release(self, url: str, worker: int, ticket: str) -> None:
        gate = self._gates.get(url_key(url))
        if gate is not None:
            gate.release((worker, ticket), self._dead)

    async def cancel(self, url: str, worker: int, ticket: str) -> None:
        """The worker stopped waiting (its call was cancelled): free the slot, granted or not."""
        gate = self._gates.get(url_key(url))
        if gate is not None:
            gate.cancel((worker, ticket), self._dead)

    async def defer(self, url: str, seconds: float) -> None:
        """The endpoint sent Retry-After: start no request to it, from any worker, for `seconds`."""
        gate = self._gates.get(url_key(url))
        if gate is not None:
            gate.not_before = max(gate.not_before, time.monotonic() + max(0.0, seconds))

    async def lost(self, worker: int) -> dict[str, Any]:
        """`worker` died: give it no more work, free its slots whose request was never sent, and hold each
        sent one until that request can no longer be in flight (its start + the endpoint's timeout_s +
        grace); returns what it had taken and, per endpoint, the slots freed now and those held on."""
        self._dead.add(worker)
        dropped = {url: g.drop_worker(worker, self._dead) for url, g in self._gates.items()}
        return {"taken": list(self._taken.get(worker, [])),
                "freed_slots": {url: freed for url, (freed, _) in dropped.items()},
                "held_slots": {url: held for url, (_, held) in dropped.items()}}

    async def stop(self) -> None:
        """Hand out no further work (episodes in flight are the workers' to stop)."""
        self._stopped = True

    async def stats(self) -> dict[str, Any]:
        return {"endpoints": {url: g.stats() for url, g in sorted(self._gates.items())},
                "queued_groups": len(self._groups), "lost": sorted(self._dead)}
