"""The thin request path (agents/_thin.py) answers as the SDK does: the same request bodies on the wire
in every structured-output mode, the same results and usage, the same error classes, messages,
status codes and Retry-After, the same failures for a body that is not a chat completion, a timeout
and a refused connection. Each test runs on both of its exchanges: aiohttp's (agents/_aio.py, the
default) and httpx's pool (`MUSTMAYBE_OPENAI_PATH=httpx`). On httpx's, even the exception chain below
the SDK's error is the SDK's; on aiohttp's, the transport's own exceptions sit there, and what the
record reads from the chain (`describe_failure`: kind and reason) is the same."""

from __future__ import annotations

import asyncio
import os
import socket
from collections import Counter
from collections.abc import Iterator
from typing import Any

import openai
import pytest
from fakes.fake_openai import FakeOpenAI
from openai.resources.chat.completions import AsyncCompletions
from pydantic import BaseModel

from mustmaybe.agents import describe_failure
from mustmaybe.agents._openai import checked_http_client, json_schema_response_format
from mustmaybe.agents._thin import PATH_ENV, ThinOpenAI, install_thin_path, thin_path_problem

_AIO = "aio"


@pytest.fixture(params=[_AIO, "httpx"])
def exchange(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The thin path's HTTP exchange under test: aiohttp's (the default) or httpx's pool."""
    if request.param == "httpx":
        monkeypatch.setenv(PATH_ENV, "httpx")
    else:
        monkeypatch.delenv(PATH_ENV, raising=False)
    return str(request.param)


class _Decision(BaseModel):
    action: str
    reason: str


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    srv = FakeOpenAI(hang_s=1.0, retry_after="7")
    yield srv
    srv.close()


def test_thin_path_fits_the_installed_autogen_and_sdk() -> None:
    problem = thin_path_problem()
    assert problem is None, (f"the thin request path no longer fits: {problem}. Re-read the changed function, "
                             "check agents/_thin.py still mirrors it, then update its pin.")


def _messages() -> list[dict[str, Any]]:
    return [{"role": "system", "content": "You act."}, {"role": "user", "content": "Handoff: stop.\nActions:\n- a:"}]


async def _both(base_url: str, **kwargs: Any) -> tuple[Any, Any]:
    """(SDK outcome, thin outcome): a result or the exception raised, each from its own client."""
    outcomes = []
    for thin in (False, True):
        sdk = openai.AsyncOpenAI(base_url=base_url, api_key="k", max_retries=0, timeout=0.5,
                                 http_client=checked_http_client(0.5))
        client: Any = ThinOpenAI(sdk) if thin else sdk
        if thin:
            assert (client.chat.completions._aio is not None) == (os.environ.get(PATH_ENV) != "httpx")
        try:
            outcomes.append(await client.chat.completions.create(**kwargs))
        except Exception as exc:  # the comparison is the point
            outcomes.append(exc)
        finally:
            await sdk.close()
    return outcomes[0], outcomes[1]


def _same_result(a: Any, b: Any, exchange: str = "httpx") -> None:
    assert type(a) is type(b)
    if isinstance(a, BaseException):
        assert str(a) == str(b)
        assert getattr(a, "status_code", None) == getattr(b, "status_code", None)
        assert getattr(a, "body", None) == getattr(b, "body", None)
        ra, rb = getattr(a, "response", None), getattr(b, "response", None)
        if ra is not None:
            assert ra.headers.get("retry-after") == rb.headers.get("retry-after")
        if exchange == _AIO:
            assert describe_failure(a) == describe_failure(b)
            assert [type(c) for c in _chain(a)][:1] == [type(c) for c in _chain(b)][:1]
        else:
            assert [type(c) for c in _chain(a)] == [type(c) for c in _chain(b)]
        return
    da, db = a.model_dump(), b.model_dump()
    da.pop("created", None), db.pop("created", None)
    assert da == db and a.usage == b.usage and a._request_id == b._request_id


def _chain(exc: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    cur: BaseException | None = exc
    while cur is not None and len(out) < 5:
        out.append(cur)
        cur = cur.__cause__
    return out


@pytest.mark.parametrize("model", ["ok", "fault-429", "fault-500", "fault-503", "fault-401", "fault-html",
                                   "fault-no_choices", "fault-bad_body", "fault-truncated", "fault-hang"])
def test_same_outcome_as_the_sdk(fake: FakeOpenAI, model: str, exchange: str) -> None:
    sdk, thin = asyncio.run(_both(fake.base_url, model=model, messages=_messages(), stream=False,
                                  temperature=0.5, max_tokens=64, seed=2))
    _same_result(sdk, thin, exchange)
    if model == "fault-429":
        assert isinstance(thin, openai.RateLimitError) and thin.response.headers["retry-after"] == "7"


@pytest.mark.parametrize("mode", ["json_schema", "json_object_schema", "prompt", "json_object"])
def test_same_bodies_on_the_wire_in_every_structured_mode(fake: FakeOpenAI, mode: str, exchange: str) -> None:
    formats: dict[str, Any] = {
        "json_schema": json_schema_response_format(_Decision),
        "json_object_schema": {"type": "json_object", "schema": _Decision.model_json_schema()},
        "json_object": {"type": "json_object"},
    }
    extra = {"response_format": formats[mode]} if mode in formats else {}
    seen: list[Counter[str]] = []
    for thin in (False, True):
        fake.reset()
        sdk = openai.AsyncOpenAI(base_url=fake.base_url, api_key="k", max_retries=0,
                                 http_client=checked_http_client(5.0))
        client: Any = ThinOpenAI(sdk) if thin else sdk

        async def call(c: Any = client, s: Any = sdk) -> Any:
            try:
                return await c.chat.completions.create(model="ok", messages=_messages(), stream=False,
                                                       tools=openai.NOT_GIVEN, temperature=0.0, **extra)
            finally:
                await s.close()

        result = asyncio.run(call())
        assert result.usage is not None and result.usage.prompt_tokens > 0
        seen.append(Counter(fake._seen_bodies))
    assert seen[0] == seen[1] and sum(seen[0].values()) == 1


def test_refused_connection_is_a_connection_error(exchange: str) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens once this closes
    sdk, thin = asyncio.run(_both(f"http://127.0.0.1:{port}/v1", model="ok", messages=_messages(), stream=False))
    _same_result(sdk, thin, exchange)
    assert isinstance(thin, openai.APIConnectionError)


def test_the_sdk_path_stays_available(monkeypatch: pytest.MonkeyPatch) -> None:
    from autogen_ext.models.openai import OpenAIChatCompletionClient

    from mustmaybe.agents._openai import ENDPOINT_MODEL_INFO

    def build() -> Any:
        return OpenAIChatCompletionClient(model="m", base_url="http://127.0.0.1:1/v1", api_key="k",
                                          model_info=ENDPOINT_MODEL_INFO)

    client = build()
    assert install_thin_path(client) and isinstance(client._client, ThinOpenAI)
    monkeypatch.setenv(PATH_ENV, "sdk")
    client = build()
    assert not install_thin_path(client) and isinstance(client._client, openai.AsyncOpenAI)


@pytest.mark.parametrize("model", ["ok", "fault-hang"])
def test_a_per_call_timeout_takes_the_thin_path(fake: FakeOpenAI, model: str, exchange: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """AutoGen passes the client's `timeout` with every call: the thin path serves it, as the SDK would (a
    hang past the call's own limit is the SDK's timeout error), without falling back to the SDK's path."""
    sdk_calls: list[dict[str, Any]] = []
    create = AsyncCompletions.create

    async def counted(completions: Any, *args: Any, **kwargs: Any) -> Any:
        sdk_calls.append(kwargs)
        return await create(completions, *args, **kwargs)

    monkeypatch.setattr(AsyncCompletions, "create", counted)
    sdk, thin = asyncio.run(_both(fake.base_url, model=model, messages=_messages(), stream=False, temperature=0.5,
                                  timeout=0.3))
    _same_result(sdk, thin, exchange)
    assert len(sdk_calls) == 1  # the SDK client's own call; the thin client never fell back
    if model == "fault-hang":
        assert isinstance(thin, openai.APITimeoutError)


def test_aiohttp_serves_only_our_own_plain_httpx_client(monkeypatch: pytest.MonkeyPatch) -> None:
    """A proxy, another event hook or a mounted transport keeps the thin path on httpx (so they still apply)."""
    import httpx2

    from mustmaybe.agents._failure import check_completion_response

    def thin_of(http_client: Any) -> Any:
        return ThinOpenAI(openai.AsyncOpenAI(base_url="http://127.0.0.1:1/v1", api_key="k", http_client=http_client))

    monkeypatch.delenv(PATH_ENV, raising=False)
    assert thin_of(checked_http_client(5.0)).chat.completions._aio is not None
    assert thin_of(openai.DefaultAsyncHttpxClient()).chat.completions._aio is None  # no completion check
    hooks = {"response": [check_completion_response], "request": [lambda r: None]}
    assert thin_of(openai.DefaultAsyncHttpxClient(event_hooks=hooks)).chat.completions._aio is None
    mounted = {"http://": httpx2.AsyncHTTPTransport()}
    assert thin_of(openai.DefaultAsyncHttpxClient(mounts=mounted, event_hooks={"response": [check_completion_response]})
                   ).chat.completions._aio is None
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:3128")
    assert thin_of(checked_http_client(5.0)).chat.completions._aio is None


_COMPLETION = {"id": "c1", "object": "chat.completion", "created": 1733100000, "model": "m",
               "choices": [{"index": 0, "message": {"role": "assistant", "content": "OK."}, "finish_reason": "stop",
                            "logprobs": None}],
               "usage": {"prompt_tokens": 20, "completion_tokens": 7, "total_tokens": 27}}


@pytest.mark.parametrize("change", ["none", "extra_key", "tool_call", "odd_finish", "string_tokens", "no_created",
                                    "no_usage"])
def test_a_completion_reads_as_the_sdk_constructs_it(change: str) -> None:
    """The thin path's parse (strict validation, else the SDK's construct_type) gives the SDK's model."""
    import copy

    from openai._models import construct_type
    from openai.types.chat import ChatCompletion

    from mustmaybe.agents._thin import completion_of

    data: dict[str, Any] = copy.deepcopy(_COMPLETION)
    choice = data["choices"][0]
    if change == "extra_key":
        data["timings"] = {"predicted_ms": 12.5}  # llama.cpp's server adds this
    elif change == "tool_call":
        call = {"id": "t", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        choice["message"]["tool_calls"] = [call]
    elif change == "odd_finish":
        choice["finish_reason"] = "eos"
    elif change == "string_tokens":
        data["usage"]["prompt_tokens"] = "20"
    elif change == "no_created":
        del data["created"]
    elif change == "no_usage":
        del data["usage"]
    got, want = completion_of(copy.deepcopy(data)), construct_type(type_=ChatCompletion, value=copy.deepcopy(data))
    assert type(got) is type(want) and got.model_dump() == want.model_dump()
    assert got.model_dump(exclude_unset=True) == want.model_dump(exclude_unset=True)
    assert type(got.usage) is type(want.usage) and got.choices[0].finish_reason == want.choices[0].finish_reason
