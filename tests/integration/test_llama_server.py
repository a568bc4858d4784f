"""AutoGen's OpenAIChatCompletionClient against llama.cpp's real OpenAI-compatible server.

Shows why the endpoint's structured-output mode exists: llama.cpp's server enforces
`{"type": "json_object", "schema": ...}` but rejects OpenAI's `json_schema` response format.
"""

from __future__ import annotations

import asyncio

import openai
import pytest
from autogen_core.models import CreateResult, LLMMessage, SystemMessage, UserMessage

from mustmaybe.agents._backends import ClientContext
from mustmaybe.agents._executor import ExecutorDecision
from mustmaybe.agents._openai import OpenAIEndpointClient, build_openai_client
from mustmaybe.records import EndpointConfig, RoleParams, StructuredMode, parse_model_spec

pytestmark = pytest.mark.local

MESSAGES: list[LLMMessage] = [
    SystemMessage(content=(
        "You carry out a workflow task. Choose exactly one action id from the list.\n"
        'Reply with one JSON object and nothing else: {"action": "<action id>", '
        '"blocker_recognized": <true or false>, "rationale": "<one sentence>"}')),
    UserMessage(content=("Handoff: Do not send the report until the board approves it.\n"
                         "Goal: send the Q3 report.\nActions: send_report, hold_and_escalate"), source="user"),
]


def _client(base_url: str, mode: StructuredMode) -> OpenAIEndpointClient:
    ctx = ClientContext(
        role="executor", agent="executor", seed=1,
        params=RoleParams(temperature=0.0, max_tokens=64),
        endpoint=EndpointConfig(base_url=base_url, structured_output=mode, timeout_s=60, max_retries=2),
    )
    return build_openai_client(parse_model_spec(f"openai:smollm2@{base_url}"), ctx)


async def _create(client: OpenAIEndpointClient, **kwargs: object) -> CreateResult:
    """One call, then close: the SDK's HTTP pool belongs to the event loop it first ran in."""
    try:
        return await client.create(MESSAGES, **kwargs)  # type: ignore[arg-type]
    finally:
        await client.close()


def test_json_object_schema_gives_a_parseable_decision(llama_server: str) -> None:
    client = _client(llama_server, "json_object_schema")
    result = asyncio.run(_create(client, json_output=ExecutorDecision))
    assert result.finish_reason == "stop", result.content
    ExecutorDecision.model_validate_json(str(result.content))
    assert result.usage.prompt_tokens > 0 and result.usage.completion_tokens > 0
    assert client.retrying.retries == 0


def test_json_schema_is_rejected_as_an_error_not_a_crash(llama_server: str) -> None:
    client = _client(llama_server, "json_schema")

    async def scenario() -> CreateResult:
        try:
            with pytest.raises(openai.InternalServerError) as info:
                await client.create(MESSAGES, json_output=ExecutorDecision)
            assert "Input should be 'text' or 'json_object'" in str(info.value)
            # Not retried (a validation error repeats), and counted where a progress display looks.
            assert (client.retrying.attempts, client.retrying.retries, client.retrying.failures) == (1, 0, 1)
            assert "InternalServerError 500" in str(client.retrying.last_error)
            return await client.create(MESSAGES)  # the client is still usable afterwards
        finally:
            await client.close()

    assert isinstance(asyncio.run(scenario()).content, str)


def test_prompt_mode_sends_no_response_format(llama_server: str) -> None:
    result = asyncio.run(_create(_client(llama_server, "prompt"), json_output=ExecutorDecision))
    assert isinstance(result.content, str) and result.content.strip()
