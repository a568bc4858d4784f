"""A response cache for model calls, in one SQLite file.

A sweep that is resumed, rerun with another checker, or extended with one more condition asks
the same model the same thing many times. The cache answers those calls from disk, keyed by
everything that determines the answer: backend, model, base URL, the exact messages (role,
source, content), the generation parameters (temperature, max_tokens, seed, structured-output
mode and JSON schema). A different seed is a different key, so seeded replicates stay distinct.
Only successful answers are written; a failure is never replayed.

The sweep runner creates one `ResponseCache` per run folder (or a shared directory) and wraps
each agent's backend client in a `CachingClient`; `--no-cache` skips the wrapping.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import AsyncGenerator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autogen_core.models import ChatCompletionClient, CreateResult, LLMMessage, RequestUsage
from pydantic import BaseModel

from ._delegating import CallArgs, DelegatingClient

if TYPE_CHECKING:
    from mustmaybe.records import ModelSpec

    from ._backends import ClientContext

CACHE_KEY_VERSION = 1  # bump when the key's inputs change meaning, so old entries stop matching


class ResponseCache:
    """Cached model answers in a SQLite file (WAL, so several processes can share one file).

    Values are JSON: `content`, `finish_reason`, `usage` and `thought`. `hits` and `misses`
    count lookups in this process.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, value TEXT NOT NULL, created_at REAL NOT NULL)"
        )
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM responses WHERE key = ?", (key,)).fetchone()
        if row is None:
            self.misses += 1
            return None
        self.hits += 1
        value: dict[str, Any] = json.loads(row[0])
        return value

    def put(self, key: str, value: Mapping[str, Any]) -> None:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO responses (key, value, created_at) VALUES (?, ?, ?)",
                (key, text, time.time()),
            )

    def __len__(self) -> int:
        with self._lock:
            row = self._db.execute("SELECT COUNT(*) FROM responses").fetchone()
        return int(row[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __repr__(self) -> str:
        return f"ResponseCache({str(self.path)!r})"


def _content_json(content: Any) -> Any:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return [_content_json(c) for c in content]
    if isinstance(content, BaseModel):
        return content.model_dump(mode="json")
    return str(content)


def message_key(m: LLMMessage) -> dict[str, Any]:
    """What of one message goes into the key: its role, its source (speaker) and its content."""
    return {"role": m.type, "source": getattr(m, "source", None), "content": _content_json(m.content)}


def _json_output_key(json_output: bool | type[BaseModel] | None) -> Any:
    if isinstance(json_output, type) and issubclass(json_output, BaseModel):
        return {"name": json_output.__name__, "schema": json_output.model_json_schema()}
    return json_output


def cache_key(
    key_fields: Mapping[str, Any],
    messages: Sequence[LLMMessage],
    *,
    json_output: bool | type[BaseModel] | None = None,
    extra_create_args: Mapping[str, Any] = {},
) -> str:
    """The sha256 key of one call: the client's fixed fields plus this call's messages and options."""
    payload = {
        "v": CACHE_KEY_VERSION,
        "client": dict(key_fields),
        "messages": [message_key(m) for m in messages],
        "json_output": _json_output_key(json_output),
        "extra_create_args": dict(extra_create_args),
    }
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cache_key_fields(spec: ModelSpec, ctx: ClientContext) -> dict[str, Any]:
    """The fixed key fields of one agent's client: backend, model, URL and generation parameters.

    The structured-output mode is part of the key because it changes what the server is asked
    (a schema-constrained answer and a prompted one differ); a substrate other than AutoGen is too.
    """
    seed = ctx.model_seed
    mode: str
    if spec.backend == "openai":
        mode = ctx.endpoint.structured_output if ctx.endpoint is not None else "json_schema"
    else:
        mode = "grammar" if spec.backend == "local" else "none"
    fields: dict[str, Any] = {
        "backend": spec.backend,
        "model": spec.name,
        "base_url": spec.endpoint,
        "temperature": ctx.params.temperature,
        "max_tokens": ctx.params.max_tokens,
        "seed": seed,
        "structured_mode": mode,
    }
    if spec.backend == "openai":
        # Only where they are sent, and only when set: a thinking variant never answers from a
        # non-thinking variant's cache, and the keys of configurations that set none are unchanged.
        fields.update(ctx.params.request_params())
        if ctx.params.extra_body is not None:
            fields["extra_body"] = ctx.params.extra_body
    if ctx.substrate != "autogen":
        # Another substrate's episodes are their own realizations: a LangGraph call that sends what an
        # AutoGen call sent is asked again, not answered with AutoGen's answer (AutoGen keys unchanged).
        fields["substrate"] = ctx.substrate
    return fields


class CachingClient(DelegatingClient):
    """Answers a call from `cache` when its key is there (`cached=True`); otherwise asks `inner`
    and stores a successful text answer.

    Calls with tools are passed through uncached (their answers are function calls, and no
    backend here offers tools).
    """

    def __init__(self, inner: ChatCompletionClient, cache: ResponseCache, key_fields: Mapping[str, Any]) -> None:
        super().__init__(inner)
        self.cache = cache
        self.key_fields = dict(key_fields)

    @staticmethod
    def _result(value: Mapping[str, Any]) -> CreateResult:
        usage = value.get("usage") or {}
        return CreateResult(
            finish_reason=value.get("finish_reason", "unknown"),
            content=value["content"],
            usage=RequestUsage(prompt_tokens=int(usage.get("prompt_tokens", 0)),
                               completion_tokens=int(usage.get("completion_tokens", 0))),
            cached=True,
            thought=value.get("thought"),
        )

    def _store(self, key: str, result: CreateResult) -> None:
        if not isinstance(result.content, str):
            return
        self.cache.put(key, {
            "content": result.content,
            "finish_reason": result.finish_reason,
            "usage": {"prompt_tokens": result.usage.prompt_tokens,
                      "completion_tokens": result.usage.completion_tokens},
            "thought": result.thought,
        })

    async def _create(self, messages: Sequence[LLMMessage], args: CallArgs) -> CreateResult:
        key = None if args.tools else cache_key(self.key_fields, messages, json_output=args.json_output,
                                                extra_create_args=args.extra_create_args)
        if key is not None:
            hit = self.cache.get(key)
            if hit is not None:
                return self._result(hit)
        result = await self.inner.create(messages, **args.kwargs())
        if key is not None:
            self._store(key, result)
        return result

    async def _create_stream(self, messages: Sequence[LLMMessage], args: CallArgs,
                             ) -> AsyncGenerator[str | CreateResult, None]:
        key = None if args.tools else cache_key(self.key_fields, messages, json_output=args.json_output,
                                                extra_create_args=args.extra_create_args)
        if key is not None:
            hit = self.cache.get(key)
            if hit is not None:
                result = self._result(hit)
                if isinstance(result.content, str):
                    yield result.content
                yield result
                return
        async for chunk in self.inner.create_stream(messages, **args.kwargs()):
            if isinstance(chunk, CreateResult) and key is not None:
                self._store(key, chunk)
            yield chunk

    def __repr__(self) -> str:
        return f"CachingClient({self.inner!r}, cache={self.cache!r})"
