"""A Ray sweep worker's limiter for one endpoint: each request's slot and rate token come from the
session's coordinator (mustmaybe/_coordinator.py), so the endpoint's limits hold for the cluster.

A worker installs it with `set_limiter_factory` before its first model call. This module imports no
Ray: it only calls methods on the coordinator's handle.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from mustmaybe.agents import EndpointLimiter
from mustmaybe.records import EndpointConfig


class ClusterLimiter(EndpointLimiter):
    """A worker's limiter for one endpoint: each request's slot and token come from the coordinator.

    It keeps the local counters (`in_flight`, `requests`) the progress display reads; the limits
    themselves are only the coordinator's, so the local semaphore and bucket are unused.
    """

    def __init__(self, endpoint: EndpointConfig, coordinator: Any, worker: int) -> None:
        super().__init__(endpoint)
        self._coordinator = coordinator
        self._worker = worker
        self._tickets = itertools.count()

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        ticket = str(next(self._tickets))
        c = self._coordinator
        self.waiting += 1
        try:
            granted = await c.acquire.remote(self.base_url, self._worker, ticket, self.endpoint.concurrency,
                                             self.endpoint.requests_per_minute, self.endpoint.timeout_s)
        except asyncio.CancelledError:
            c.cancel.remote(self.base_url, self._worker, ticket)  # delivered even if this task is gone
            raise
        finally:
            self.waiting -= 1
        if not granted:
            raise RuntimeError(f"endpoint {self.base_url}: the sweep's coordinator refused a request slot "
                               f"(worker {self._worker} was marked lost, or the call was cancelled)")
        try:
            with self._counted():
                yield
        finally:
            # Not awaited: the answer is already here, and the slot frees as soon as the call lands.
            c.release.remote(self.base_url, self._worker, ticket)

    def defer(self, seconds: float) -> None:
        super().defer(seconds)
        self._coordinator.defer.remote(self.base_url, seconds)
