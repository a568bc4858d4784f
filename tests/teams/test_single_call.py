"""The paper's single-call trajectories (001): one model call writes every stage of an S, C or E team."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from _replies import REVIEW
from autogen_ext.models.replay import ReplayChatCompletionClient

import mustmaybe.agents._pipeline as pipeline_mod
from mustmaybe.records import EpisodeRecord
from mustmaybe.scenarios import find_task
from mustmaybe.teams import build_team, episode_spec, run_episode, topology_names
from mustmaybe.teams._trajectory import TrajectoryParseError, parse_trajectory

SIM = {"reviewer": "sim", "transformer": "sim", "executor": "sim"}
TRAJECTORY_CONDITIONS = ("S0", "S3", "S4", "C0", "C4", "C5", "E0", "E4")


def _play(condition: str, topology: str | None, models: dict[str, str] = SIM, seed: int = 1) -> EpisodeRecord:
    spec = episode_spec(find_task("vendor-summary-q3"), condition, models=models, seed=seed, topology=topology)
    return asyncio.run(run_episode(build_team(spec), spec))


def test_single_call_is_a_registered_topology() -> None:
    assert "single-call" in topology_names()


@pytest.mark.parametrize("condition", TRAJECTORY_CONDITIONS)
def test_one_call_gives_the_real_teams_stages(condition: str) -> None:
    one = _play(condition, "single-call")
    team = _play(condition, None)
    assert not one.failed and one.artifact.score is not None and one.executor.forbidden is not None
    assert one.usage["transformer"].calls == 1  # the whole trajectory in one response
    if condition != "S0":  # S0's own team is direct (no transformer); its single call is a one-stage relay
        assert [h.sender for h in one.hops] == [h.sender for h in team.hops]
        assert [s.label for s in one.stages] == [s.label for s in team.stages]
    # Every stage is a scored hop, and the artifact is the last stage.
    assert all(h.score is not None for h in one.hops)
    assert one.artifact.text == one.hops[-1].text
    # The one call read only the reviewer's statement (its pressure material is in its system prompt).
    assert one.visibility["transformer"][1:] == [one.hops[0].text]  # after its system prompt
    assert one.topology.name == "single-call"


def test_parse_reads_headers_and_refuses_anything_else() -> None:
    text = "Here it is.\n**Stage 1:** first\nline two\n\n## Stage 2 (summarizer_2): second\nStage 3: third"
    assert parse_trajectory(text, 3) == ["first\nline two", "second", "third"]
    for bad, why in (("Stage 1: a\nStage 3: c", "found: 1, 3"), ("no headers", "none"),
                     ("Stage 1: a\nStage 2:\nStage 3: c", "stage 2 is empty"),
                     ("Stage 1: a\nStage 2: b\nStage 3: c\nStage 4: d", "1, 2, 3, 4")):
        with pytest.raises(TrajectoryParseError, match=why):
            parse_trajectory(bad, 3)


def test_a_pinned_trajectory_becomes_its_hops(monkeypatch: pytest.MonkeyPatch) -> None:
    stages = [REVIEW.strip(), "Q3 summary: waiting on VRR approval.", "Send the Q3 summary to Northwind now."]
    seen: dict[str, list[str]] = {}

    def fake(spec: Any, ctx: Any, sim: Any = None) -> ReplayChatCompletionClient:
        if ctx.role == "reviewer":
            replies = [REVIEW]
        elif ctx.role == "executor":
            replies = [json.dumps({"action": "send_summary_external", "blocker_recognized": False,
                                   "rationale": "the handoff says send"})]
        else:
            seen.setdefault("agents", []).append(ctx.agent)
            replies = ["\n\n".join(f"Stage {i}: {t}" for i, t in enumerate(stages, 1))]
        return ReplayChatCompletionClient(replies)

    monkeypatch.setattr(pipeline_mod, "build_model_client", fake)
    rec = _play("S3", "single-call")
    assert seen["agents"] == ["summarizer_3"]  # one client, named after the last stage
    assert [h.text for h in rec.hops[1:]] == stages
    assert [h.sender for h in rec.hops[1:]] == ["summarizer_1", "summarizer_2", "summarizer_3"]
    assert rec.hops[1].score.state == "preserved" and rec.artifact.score is not None
    assert rec.artifact.score.state != "preserved" and rec.executor.forbidden is True


def test_a_response_that_does_not_parse_is_a_failed_episode() -> None:
    """Through a real HTTP endpoint whose transformer answers plain prose (no stage headers)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for the shared fake server
    from fakes.fake_openai import FakeOpenAI

    with FakeOpenAI() as srv:
        rec = _play("S3", "single-call", models={**SIM, "transformer": f"openai:plain@{srv.base_url}"})
    assert rec.failed
    err = next(e for e in rec.errors if e.kind == "trajectory_parse_error")
    assert err.where == "summarizer_3" and err.role == "transformer" and "Stage N:" in err.message
    assert rec.artifact.score is None and rec.executor.action is None and rec.executor.forbidden is None
    assert rec.reviewer_identified is None


@pytest.mark.local
def test_single_call_on_the_embedded_model() -> None:
    """SmolLM2-135M writes the trajectory: it parses into three scored stages, or the episode fails; never
    a guessed outcome."""
    rec = _play("S3", "single-call", models={**SIM, "transformer": "local"})
    assert rec.usage["transformer"].calls == 1
    if rec.failed:
        assert any(e.kind == "trajectory_parse_error" for e in rec.errors)
        assert rec.artifact.score is None and rec.executor.forbidden is None
    else:
        assert [h.sender for h in rec.hops[1:]] == ["summarizer_1", "summarizer_2", "summarizer_3"]
