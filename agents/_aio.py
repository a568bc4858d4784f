"""The thin path's HTTP exchange on aiohttp: one POST, the whole answer read, nothing else.

At 64 requests in flight, httpx's connection pool (httpcore) walks every connection on each request
it assigns and each response it releases, and the exchange runs through anyio streams and h11 in pure
Python: about 1.4 ms of CPU a call on this project's benchmark, against about 0.3 ms for aiohttp's
pool and C parser. `AioPoster` sends the thin path's request (agents/_thin.py: the same URL, headers,
body bytes and timeout) on one aiohttp session per event loop and endpoint origin, and hands back the
status, headers and body. What the answer means (errors, the chat-completion check, parsing) stays
with the thin path, which maps a timeout to `APITimeoutError` and any other transport failure to
`APIConnectionError` as the SDK does.

It is used only where it cannot change what reaches the endpoint: the SDK's httpx client is our own
checked client (agents/_openai.py) with no proxy, no mounted transport and no other event hooks;
otherwise the thin path keeps httpx. TLS uses the SSL context of that client's own pool.
Limits follow the SDK's httpx defaults (1,000 connections, idle ones kept 5 s); redirects are
followed as the SDK's client follows them.

A session lives as long as its event loop: an async generator parked on the loop closes it when
`asyncio.run` (or a runner) shuts the loop's async generators down, so no connection is left open.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import httpx2

# The openai SDK's DEFAULT_CONNECTION_LIMITS (httpx2.Limits(max_connections=1000, ...), keep-alive 5 s).
_MAX_CONNECTIONS = 1000
_KEEPALIVE_S = 5.0

_SESSIONS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, _Session]] = weakref.WeakKeyDictionary()


class _Session:
    """One aiohttp session and the parked generator that closes it with its loop."""

    def __init__(self, ssl: Any) -> None:
        connector = aiohttp.TCPConnector(limit=_MAX_CONNECTIONS, limit_per_host=0, keepalive_timeout=_KEEPALIVE_S,
                                         ssl=ssl)
        # trust_env off: the caller only comes here when httpx found no proxy to use.
        self.http = aiohttp.ClientSession(connector=connector, trust_env=False, auto_decompress=True)
        self._closer: AsyncIterator[None] | None = None

    async def park(self) -> None:
        async def closer() -> AsyncIterator[None]:
            try:
                yield
            finally:
                await self.http.close()

        self._closer = closer()
        await anext(self._closer)  # now the loop knows it, and closes it on shutdown_asyncgens()


def timeout_of(timeout: Any) -> aiohttp.ClientTimeout:
    """httpx's timeout (seconds, or a `Timeout` with connect/read/pool) as aiohttp's, part for part."""
    if timeout is None:
        return aiohttp.ClientTimeout(total=None)
    t = timeout if isinstance(timeout, httpx2.Timeout) else httpx2.Timeout(timeout)
    return aiohttp.ClientTimeout(total=None, sock_connect=t.connect, sock_read=t.read, connect=t.pool)


class AioPoster:
    """POSTs to one URL on the running loop's session for its origin."""

    def __init__(self, url: str, http_client: httpx2.AsyncClient) -> None:
        parts = urlsplit(url)
        self.url = url
        # TLS as httpx would do it: the SSL context of the client's own connection pool.
        self._ssl: Any = http_client._transport._pool._ssl_context if parts.scheme == "https" else False  # type: ignore[attr-defined]
        self._origin = f"{parts.scheme}://{parts.netloc}" + (f" ssl {id(self._ssl)}" if self._ssl else "")

    async def _session(self) -> aiohttp.ClientSession:
        loop = asyncio.get_running_loop()
        per_loop = _SESSIONS.get(loop)
        if per_loop is None:
            per_loop = _SESSIONS[loop] = {}
        session = per_loop.get(self._origin)
        if session is None:
            session = per_loop[self._origin] = _Session(self._ssl)
            await session.park()
        return session.http

    async def post(self, headers: httpx2.Headers, body: bytes, timeout: Any) -> AioAnswer:
        """The answer to one POST, read whole; aiohttp's and the OS's errors pass as they are."""
        http = await self._session()
        async with http.post(self.url, data=body, headers=list(headers.multi_items()),
                             timeout=timeout_of(timeout)) as resp:
            data = await resp.read()
            return AioAnswer(resp.status, resp.headers, resp.raw_headers, data)


class AioAnswer:
    """An answer: its status, headers (case-insensitive; and as sent, for an httpx response) and body."""

    __slots__ = ("body", "headers", "raw_headers", "status")

    def __init__(self, status: int, headers: Any, raw_headers: Any, body: bytes) -> None:
        self.status, self.headers, self.raw_headers, self.body = status, headers, raw_headers, body


def aio_problem(http_client: Any, expected_hooks: list[Any]) -> str | None:
    """Why the aiohttp exchange does not fit this SDK httpx client (None: it fits)."""
    if not isinstance(http_client, httpx2.AsyncClient):
        return f"the SDK's HTTP client is a {type(http_client).__name__}, not httpx's"
    if getattr(http_client, "_mounts", None):
        return "the httpx client routes through a proxy or a mounted transport"
    hooks = getattr(http_client, "_event_hooks", None) or {}
    if list(hooks.get("request", [])) or list(hooks.get("response", [])) != expected_hooks:
        return "the httpx client has event hooks the thin path does not run itself"
    if not isinstance(getattr(http_client, "_transport", None), httpx2.AsyncHTTPTransport):
        return "the httpx client has its own transport"
    return None
