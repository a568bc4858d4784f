"""A user team's model clients read their API key from the environment; no key reaches the run folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.teams import RoundRobinGroupChat
from autogen_core.models import ModelFamily
from autogen_ext.models.openai import OpenAIChatCompletionClient
from fakes.fake_openai import FakeOpenAI

from mustmaybe import cli

TASK = "vendor-summary-q3"


def _run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    cli._EXTRA_COMMANDS.clear()
    assert cli.main(["run", TASK, *argv, "--json"]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def test_api_keys_come_from_the_environment_and_are_never_stored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    server = FakeOpenAI()
    try:
        info = {"vision": False, "function_calling": False, "json_output": False, "family": ModelFamily.UNKNOWN,
                "structured_output": False}
        agent = AssistantAgent("writer", system_message="Write the handoff.", model_client=OpenAIChatCompletionClient(
            model="fake-model", base_url=server.base_url, api_key="placeholder", model_info=info, max_retries=0))
        data = json.loads(RoundRobinGroupChat([agent], max_turns=1).dump_component().model_dump_json())
        data["config"]["participants"][0]["config"]["model_client"]["config"]["api_key"] = "sk-in-the-file-123"
        path = tmp_path / "endpoint.json"
        path.write_text(json.dumps(data))
        monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env-456")
        runs = tmp_path / "runs"
        rec = _run_json(capsys, "-c", "P2", "--topology", f"team:{path}", "--model", "sim",
                        "--model", "transformer=team", "--runs-dir", str(runs))
        assert not rec["failed"] and rec["hops"][1]["sender"] == "writer"
        assert rec["endpoints"]["transformer"] == "team"
        assert server.authorization == {"Bearer sk-from-env-456": 1}  # the environment's key, not the file's
        stored = b"".join(p.read_bytes() for p in runs.rglob("*") if p.is_file())
        assert b"sk-in-the-file-123" not in stored and b"sk-from-env-456" not in stored
        assert "api_key" not in json.dumps(rec["team_config"]["component"])
    finally:
        server.close()
