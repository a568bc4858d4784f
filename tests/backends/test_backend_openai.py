"""The OpenAI-compatible backend: API-key rule, secrecy of the key, structured-output modes."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from autogen_core.models import ChatCompletionClient, LLMMessage, SystemMessage, UserMessage

from mustmaybe.agents._executor import ExecutorDecision
from mustmaybe.agents._openai import (
    PLACEHOLDER_API_KEY,
    ApiKeyMissingError,
    OpenAIEndpointClient,
    StructuredOutputClient,
    build_openai_client,
    map_structured_output,
    resolve_api_key,
)
from mustmaybe.records import EndpointConfig, parse_model_spec

SECRET = "sk-test-0123456789-very-secret"
DECISION_JSON = json.dumps({"action": "hold", "blocker_recognized": True, "rationale": "Approval is pending."})
MESSAGES: list[LLMMessage] = [SystemMessage(content="Reply with JSON."), UserMessage(content="Decide.", source="user")]


@pytest.fixture(autouse=True)
def _no_ambient_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("MM_TEST_KEY", raising=False)


def _client(server: Any, ctx_factory: Any, **endpoint: Any) -> OpenAIEndpointClient:
    spec = parse_model_spec(f"openai:fake-model@{server.base_url}")
    return build_openai_client(spec, ctx_factory(EndpointConfig(base_url=server.base_url, **endpoint)))


# --- API key ----------------------------------------------------------------------------------


def test_key_is_read_from_the_named_variable_and_sent(monkeypatch, fake_server, ctx_factory) -> None:
    monkeypatch.setenv("MM_TEST_KEY", SECRET)
    client = _client(fake_server, ctx_factory, api_key_env="MM_TEST_KEY")
    result = asyncio.run(client.create(MESSAGES))
    assert result.content == "OK."
    assert fake_server.chat_requests[0].headers["authorization"] == f"Bearer {SECRET}"


def test_missing_named_variable_is_a_clear_error(fake_server, ctx_factory) -> None:
    with pytest.raises(ApiKeyMissingError) as info:
        _client(fake_server, ctx_factory, api_key_env="MM_TEST_KEY")
    assert "MM_TEST_KEY" in str(info.value)
    assert fake_server.base_url in str(info.value)


def test_openai_key_goes_only_to_openai_without_api_key_env(monkeypatch) -> None:
    local = EndpointConfig(base_url="http://127.0.0.1:9/v1")
    assert resolve_api_key(local) == PLACEHOLDER_API_KEY
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    # A third-party or local base URL never receives the OpenAI key unless a sweep names it.
    assert resolve_api_key(local) == PLACEHOLDER_API_KEY
    assert resolve_api_key(EndpointConfig(base_url="https://api.openai.com/v1")) == SECRET


def test_openai_api_without_any_key_is_refused() -> None:
    with pytest.raises(ApiKeyMissingError, match="OPENAI_API_KEY"):
        resolve_api_key(EndpointConfig(base_url="https://api.openai.com/v1"))


def test_key_never_in_dump_or_repr(monkeypatch, fake_server, ctx_factory) -> None:
    monkeypatch.setenv("MM_TEST_KEY", SECRET)
    client = _client(fake_server, ctx_factory, api_key_env="MM_TEST_KEY")
    dumped = client.dump_component().model_dump_json()
    assert SECRET not in dumped
    assert "*****" not in dumped  # not even a masked key: the dump names the variable instead
    assert "MM_TEST_KEY" in dumped
    for text in (repr(client), str(client), repr(client.retrying), repr(client.limited), repr(client.structured)):
        assert SECRET not in text


def test_dump_reloads_and_reads_the_key_again(monkeypatch, fake_server, ctx_factory) -> None:
    monkeypatch.setenv("MM_TEST_KEY", SECRET)
    dumped = json.loads(_client(fake_server, ctx_factory, api_key_env="MM_TEST_KEY").dump_component().model_dump_json())
    reloaded = ChatCompletionClient.load_component(dumped)
    assert isinstance(reloaded, OpenAIEndpointClient)
    asyncio.run(reloaded.create(MESSAGES))
    assert fake_server.chat_requests[-1].headers["authorization"] == f"Bearer {SECRET}"


def test_parameters_reach_the_request(fake_server, ctx_factory) -> None:
    spec = parse_model_spec(f"openai:fake-model@{fake_server.base_url}")
    ctx = ctx_factory(EndpointConfig(base_url=fake_server.base_url), seed=7, role_seed=None,
                      temperature=0.3, max_tokens=21)
    asyncio.run(build_openai_client(spec, ctx).create(MESSAGES))
    body = fake_server.chat_requests[0].body
    assert (body["model"], body["temperature"], body["max_tokens"], body["seed"]) == ("fake-model", 0.3, 21, 7)


def test_default_endpoint_when_the_sweep_names_none(fake_server, ctx_factory) -> None:
    spec = parse_model_spec(f"openai:fake-model@{fake_server.base_url}")
    client = build_openai_client(spec, ctx_factory(None, role_seed=3))
    assert client.config.endpoint == EndpointConfig(base_url=fake_server.base_url)
    asyncio.run(client.create(MESSAGES))
    assert fake_server.chat_requests[0].body["seed"] == 3


# --- structured output ------------------------------------------------------------------------


def test_mapping_json_schema_sends_openais_strict_format() -> None:
    out, extra = map_structured_output("json_schema", ExecutorDecision, {"top_p": 0.5})
    assert out is None and extra["top_p"] == 0.5
    fmt = extra["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["name"] == "ExecutorDecision"
    assert fmt["json_schema"]["strict"] is True
    assert fmt["json_schema"]["schema"]["additionalProperties"] is False


def test_mapping_leaves_plain_json_mode_alone() -> None:
    assert map_structured_output("json_schema", True, {}) == (True, {})
    assert map_structured_output("json_object_schema", True, {}) == (True, {})
    assert map_structured_output("json_schema", None, {}) == (None, {})


def test_mapping_json_object_schema_puts_the_schema_in_response_format() -> None:
    out, extra = map_structured_output("json_object_schema", ExecutorDecision, {})
    assert out is None
    assert extra["response_format"] == {"type": "json_object", "schema": ExecutorDecision.model_json_schema()}


@pytest.mark.parametrize("json_output", [ExecutorDecision, True, False, None])
def test_mapping_prompt_sends_nothing(json_output: Any) -> None:
    assert map_structured_output("prompt", json_output, {}) == (None, {})


@pytest.mark.parametrize(("mode", "format_type"), [
    ("json_schema", "json_schema"), ("json_object_schema", "json_object"), ("prompt", None),
])
def test_structured_client_forwards_the_mapping(fake_inner, mode, format_type) -> None:
    inner = fake_inner()
    asyncio.run(StructuredOutputClient(inner, mode).create(MESSAGES, json_output=ExecutorDecision))
    call = inner.calls[0]
    assert call["json_output"] is None  # never the pydantic type (see map_structured_output)
    assert call["extra_create_args"].get("response_format", {}).get("type") == format_type


@pytest.mark.parametrize("mode", ["json_schema", "json_object_schema", "prompt"])
def test_what_each_mode_sends_over_http(fake_server, ctx_factory, mode) -> None:
    fake_server.stage({"content": DECISION_JSON})
    client = _client(fake_server, ctx_factory, structured_output=mode)
    result = asyncio.run(client.create(MESSAGES, json_output=ExecutorDecision))
    assert ExecutorDecision.model_validate_json(str(result.content)).action == "hold"
    fmt = fake_server.chat_requests[0].body.get("response_format")
    if mode == "json_schema":
        assert fmt["type"] == "json_schema"
        assert fmt["json_schema"]["name"] == "ExecutorDecision"
    elif mode == "json_object_schema":
        assert fmt == {"type": "json_object", "schema": ExecutorDecision.model_json_schema()}
    else:
        assert fmt is None


@pytest.mark.parametrize(("content", "finish"), [
    ("I will send the report now.", "stop"),          # not JSON at all
    ('{"action": "send_report"}', "stop"),            # JSON of the wrong shape
    ('{"action": "send_report", "blocker_rec', "length"),  # cut off by max_tokens
])
def test_an_answer_that_does_not_validate_comes_back_as_text(fake_server, ctx_factory, content, finish) -> None:
    """The executor's parse-failure rule needs the raw answer; the SDK's parse() would raise instead."""
    fake_server.stage({"content": content, "finish_reason": finish})
    client = _client(fake_server, ctx_factory, structured_output="json_schema", max_retries=0)
    result = asyncio.run(client.create(MESSAGES, json_output=ExecutorDecision))
    assert (result.content, result.finish_reason) == (content, finish)


def test_key_never_in_logs_even_at_debug(monkeypatch, caplog, fake_server, ctx_factory) -> None:
    monkeypatch.setenv("MM_TEST_KEY", SECRET)
    fake_server.stage({"status": 429, "headers": {"Retry-After": "0"}, "body": {"error": {"message": "wait"}}})
    client = _client(fake_server, ctx_factory, api_key_env="MM_TEST_KEY")
    with caplog.at_level("DEBUG"):
        asyncio.run(client.create(MESSAGES))
    assert client.retrying.retries == 1
    assert caplog.records and SECRET not in caplog.text
