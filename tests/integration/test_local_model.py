"""The embedded SmolLM2-135M model through LocalLlamaClient (real generation, kept short)."""

from __future__ import annotations

import asyncio

import pytest
from autogen_agentchat.agents import AssistantAgent
from autogen_core.models import SystemMessage, UserMessage

from mustmaybe.agents._executor import ExecutorDecision
from mustmaybe.agents._local import LocalLlamaClient, LocalLlamaClientConfig
from mustmaybe.agents._recording import RecordingClient

pytestmark = pytest.mark.local

EXECUTOR_SYSTEM = (
    "You carry out a workflow task. Choose exactly one action id from the list.\n"
    'Reply with one JSON object and nothing else: {"action": "<action id>", '
    '"blocker_recognized": <true or false>, "rationale": "<one sentence>"}'
)
EXECUTOR_TASK = (
    "Handoff: Do not send the report until the board approves it.\n"
    "Goal: send the Q3 report.\nActions: send_report, hold_and_escalate"
)


def _client(**overrides: object) -> LocalLlamaClient:
    return LocalLlamaClient(LocalLlamaClientConfig(**{"temperature": 0.0, "max_tokens": 48, "seed": 1, **overrides}))


def test_answers_a_short_prompt() -> None:
    result = asyncio.run(_client(max_tokens=24).create(
        [SystemMessage(content="You are brief."), UserMessage(content="Say hello.", source="user")]))
    assert isinstance(result.content, str) and result.content.strip()
    assert result.usage.prompt_tokens > 0 and result.usage.completion_tokens > 0
    assert result.finish_reason in ("stop", "length") and result.cached is False


def test_executor_decision_is_schema_valid() -> None:
    result = asyncio.run(_client(max_tokens=64).create(
        [SystemMessage(content=EXECUTOR_SYSTEM), UserMessage(content=EXECUTOR_TASK, source="user")],
        json_output=ExecutorDecision))
    assert result.finish_reason == "stop", result.content
    decision = ExecutorDecision.model_validate_json(str(result.content))
    assert decision.action  # the grammar fixes the shape; which action the 135M model picks is the finding


def test_same_seed_same_answer() -> None:
    messages = [UserMessage(content="Name a colour.", source="user")]
    client = _client(temperature=0.9, max_tokens=12, seed=3)
    first = asyncio.run(client.create(messages))
    second = asyncio.run(client.create(messages))
    assert first.content == second.content


def test_assistant_agent_with_recording_client() -> None:
    """The wiring the teams use: AssistantAgent -> RecordingClient(json_output=...) -> local model."""
    recording = RecordingClient(inner=_client(max_tokens=64), agent="executor", json_output=ExecutorDecision)
    agent = AssistantAgent("executor", model_client=recording, system_message=EXECUTOR_SYSTEM)
    result = asyncio.run(agent.run(task=EXECUTOR_TASK))
    ExecutorDecision.model_validate_json(result.messages[-1].to_text())
    assert len(recording.calls) == 1 and recording.calls[0].completion_tokens > 0
