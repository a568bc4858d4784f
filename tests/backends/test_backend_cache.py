"""ResponseCache and CachingClient: hits, misses, what the key depends on, failures not stored."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from autogen_core.models import AssistantMessage, LLMMessage, SystemMessage, UserMessage

from mustmaybe.agents._cache import CachingClient, ResponseCache, cache_key, cache_key_fields
from mustmaybe.agents._executor import ExecutorDecision
from mustmaybe.records import EndpointConfig, parse_model_spec

FIELDS = {"backend": "openai", "model": "m", "base_url": "http://x/v1", "temperature": 0.7,
          "max_tokens": 64, "seed": 1, "structured_mode": "json_schema"}
MESSAGES: list[LLMMessage] = [SystemMessage(content="You review."), UserMessage(content="The doc.", source="user")]


@pytest.fixture
def cache(tmp_path: Path) -> Any:
    c = ResponseCache(tmp_path / "cache" / "responses.sqlite")
    yield c
    c.close()


def test_miss_then_hit(cache, fake_inner) -> None:
    inner = fake_inner(content="answer")
    client = CachingClient(inner, cache, FIELDS)
    first = asyncio.run(client.create(MESSAGES))
    second = asyncio.run(client.create(MESSAGES))
    assert len(inner.calls) == 1
    assert (first.cached, second.cached) == (False, True)
    assert second.content == "answer" and second.finish_reason == "stop"
    assert second.usage == first.usage
    assert (cache.hits, cache.misses) == (1, 1)


def test_the_cache_is_a_wal_sqlite_file_that_persists(tmp_path: Path, fake_inner) -> None:
    path = tmp_path / "c.sqlite"
    first = ResponseCache(path)
    asyncio.run(CachingClient(fake_inner(content="kept"), first, FIELDS).create(MESSAGES))
    first.close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    again = ResponseCache(path)
    inner = fake_inner(content="new")
    result = asyncio.run(CachingClient(inner, again, FIELDS).create(MESSAGES))
    again.close()
    assert (result.content, result.cached, len(inner.calls)) == ("kept", True, 0)


def test_different_seeds_are_different_keys(cache, fake_inner) -> None:
    inner = fake_inner()
    asyncio.run(CachingClient(inner, cache, FIELDS).create(MESSAGES))
    asyncio.run(CachingClient(inner, cache, {**FIELDS, "seed": 2}).create(MESSAGES))
    assert len(inner.calls) == 2 and len(cache) == 2


@pytest.mark.parametrize("change", [
    {"temperature": 0.0}, {"max_tokens": 65}, {"model": "m2"}, {"base_url": "http://y/v1"},
    {"backend": "local"}, {"structured_mode": "prompt"},
])
def test_every_key_field_matters(change: dict[str, Any]) -> None:
    assert cache_key(FIELDS, MESSAGES) != cache_key({**FIELDS, **change}, MESSAGES)


def test_messages_and_schema_matter() -> None:
    base = cache_key(FIELDS, MESSAGES)
    other_source = [MESSAGES[0], UserMessage(content="The doc.", source="reviewer")]
    as_assistant = [MESSAGES[0], AssistantMessage(content="The doc.", source="user")]
    assert cache_key(FIELDS, other_source) != base
    assert cache_key(FIELDS, as_assistant) != base
    assert cache_key(FIELDS, MESSAGES, json_output=ExecutorDecision) != base
    assert cache_key(FIELDS, MESSAGES, json_output=True) != base
    assert cache_key(FIELDS, MESSAGES, extra_create_args={"top_p": 0.5}) != base
    assert cache_key(dict(reversed(FIELDS.items())), list(MESSAGES)) == base  # order of fields is not


def test_failures_are_not_cached(cache, fake_inner) -> None:
    inner = fake_inner(content="second time", errors=[RuntimeError("endpoint down")])
    client = CachingClient(inner, cache, FIELDS)
    with pytest.raises(RuntimeError):
        asyncio.run(client.create(MESSAGES))
    assert len(cache) == 0
    assert asyncio.run(client.create(MESSAGES)).cached is False
    assert len(inner.calls) == 2 and len(cache) == 1


def test_stream_hits_and_stores(cache, fake_inner) -> None:
    inner = fake_inner(content="streamed")
    client = CachingClient(inner, cache, FIELDS)

    async def collect() -> list[Any]:
        return [c async for c in client.create_stream(MESSAGES)]

    asyncio.run(collect())
    second = asyncio.run(collect())
    assert len(inner.calls) == 1
    assert second[0] == "streamed" and second[-1].cached is True


def test_key_fields_from_spec_and_context(ctx_factory) -> None:
    url = "http://127.0.0.1:8000/v1"
    spec = parse_model_spec(f"openai:qwen@{url}")
    ctx = ctx_factory(EndpointConfig(base_url=url, structured_output="json_object_schema"), seed=7, role_seed=None)
    fields = cache_key_fields(spec, ctx)
    assert fields == {"backend": "openai", "model": "qwen", "base_url": url, "temperature": 0.0,
                      "max_tokens": 32, "seed": 7, "structured_mode": "json_object_schema"}
    assert cache_key_fields(spec, ctx_factory(None, seed=7, role_seed=99))["seed"] == 99
    assert cache_key_fields(parse_model_spec("local"), ctx)["structured_mode"] == "grammar"
