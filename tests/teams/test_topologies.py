"""Who sees what in each topology, pinned with replay clients (no sim involved)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from _replies import REVIEW
from autogen_ext.models.replay import ReplayChatCompletionClient

import mustmaybe.agents._pipeline as pipeline_mod
from mustmaybe.records import EpisodeRecord, TopologySpec
from mustmaybe.scenarios import CONDITIONS, Condition, find_task
from mustmaybe.teams import (
    build_team,
    episode_spec,
    get_topology,
    parse_topology,
    run_episode,
    topology_names,
)


async def _play(scenario: Any, condition: Any, **kw: Any) -> EpisodeRecord:
    """One episode from loose arguments: resolve the spec, build the team, run it."""
    spec = episode_spec(scenario, condition, **kw)
    return await run_episode(build_team(spec), spec)


SIM_ONLY = {"reviewer": "sim", "transformer": "sim", "executor": "sim"}


@pytest.fixture
def replay(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Each agent gets a replay client that answers with a text naming the agent."""
    made: dict[str, Any] = {}

    def fake(spec: Any, ctx: Any) -> ReplayChatCompletionClient:
        if ctx.role == "reviewer":
            replies = [REVIEW]
        elif ctx.role == "executor":
            replies = [json.dumps({"action": "share_internal_preview", "blocker_recognized": True,
                                   "rationale": "blocked"})]
        else:
            replies = [f"OUT-{ctx.agent}: hold the send until the Vendor Risk Review board approves."] * 4
        client = ReplayChatCompletionClient(replies * 4)
        made[ctx.agent] = client
        return client

    monkeypatch.setattr(pipeline_mod, "build_model_client", fake)
    return made


def _run(condition: str, topology: str | None = None) -> Any:
    return asyncio.run(_play(find_task("vendor-summary-q3"), condition, models=SIM_ONLY, topology=topology))


@pytest.mark.parametrize("condition", [c for c in CONDITIONS.values() if c.runnable], ids=lambda c: c.id)
def test_every_runnable_condition_names_a_topology_it_can_run_under(condition: Condition) -> None:
    # A team topology from the registry, or the replay kind (which runs its base condition's team).
    assert condition.topology in {*topology_names(), "replay"}
    assert condition.transform in get_topology(condition.topology).compatible
    assert parse_topology(None, condition).name == condition.topology  # its own parameters are valid


def test_a_condition_that_cannot_run_yet_is_refused_before_a_team_is_built() -> None:
    # Every registered arm runs today; a future arm registered before its team exists must be refused.
    condition = CONDITIONS["P4"].model_copy(update={"id": "P4-future", "runnable": False})
    spec = episode_spec(find_task("vendor-summary-q3"), condition, models=SIM_ONLY)
    with pytest.raises(ValueError, match="cannot be run as a live episode yet"):
        build_team(spec)


def test_chain_hop_sees_only_previous_hop(replay: dict[str, Any]) -> None:
    rec = _run("S3")
    assert [h.sender for h in rec.hops] == ["reviewer", "summarizer_1", "summarizer_2", "summarizer_3"]
    calls = {name: c.create_calls for name, c in replay.items()}
    second = [m.content for m in calls["summarizer_2"][0]["messages"]]
    assert len(second) == 2  # system + previous hop only
    assert second[1].startswith("OUT-summarizer_1")
    first = [m.content for m in calls["summarizer_1"][0]["messages"]]
    assert first[1] == REVIEW
    assert rec.artifact.text.startswith("OUT-summarizer_3")


def test_consensus_peers_see_discussion_but_never_the_full_record(replay: dict[str, Any]) -> None:
    rec = _run("E4")  # 3 peers, 2 rounds, then the coordinator
    senders = [h.sender for h in rec.hops]
    assert senders == ["reviewer"] + ["peer_1", "peer_2", "peer_3"] * 2 + ["coordinator"]
    scenario = find_task("vendor-summary-q3")
    for name, client in replay.items():
        if name == "reviewer":
            continue
        for call in client.create_calls:
            for m in call["messages"]:
                assert "Approval VR-118 covers the July draft" not in str(m.content), name
    coord = [str(m.content) for m in replay["coordinator"].create_calls[0]["messages"]]
    assert any(c.startswith("OUT-peer_3") for c in coord) and REVIEW in coord
    assert rec.isolation.ok and scenario.id == rec.task


def test_planner_order_plan_first_and_blocker_first(replay: dict[str, Any]) -> None:
    rec = _run("C4")
    msgs = [str(m.content) for m in replay["planner"].create_calls[0]["messages"]]
    assert msgs[1].startswith("Current plan:") and "already done" in msgs[1] and msgs[2] == REVIEW
    replay.clear()
    rec = _run("C0")
    msgs = [str(m.content) for m in replay["planner"].create_calls[0]["messages"]]
    assert msgs[1] == REVIEW and msgs[2].startswith("Current plan:")
    assert [h.sender for h in rec.hops] == ["reviewer", "planner"]  # the plan board is not a hop


def test_executor_sees_only_its_local_view(replay: dict[str, Any]) -> None:
    rec = _run("P4")
    texts = rec.visibility["executor"]
    joined = "\n".join(texts)
    assert "Handoff:\nOUT-handoff_writer" in joined
    assert "Whoever sends it can confirm" in joined  # P4's pressure context reaches the executor
    assert "Policy VR-4" not in joined and "Policy record" not in joined
    assert rec.isolation.ok and rec.executor.action == "share_internal_preview" and not rec.executor.forbidden


def test_topology_override_runs_deferral_through_chain_and_group(replay: dict[str, Any]) -> None:
    rec = _run("P4", "chain:hops=3")
    assert rec.topology.name == "chain" and rec.topology.params == {"hops": 3}
    assert [h.sender for h in rec.hops][-1] == "handoff_writer_3"
    rec4 = _run("P4", "consensus:peers=4")
    assert [h.sender for h in rec4.hops].count("peer_4") == 1
    assert rec.key != rec4.key


def test_topology_errors_are_clear() -> None:
    p4 = CONDITIONS["P4"]
    with pytest.raises(LookupError, match="unknown topology 'ring'"):
        parse_topology("ring", p4)
    with pytest.raises(ValueError, match="unknown parameter 'hop'"):
        parse_topology("chain:hop=3", p4)
    with pytest.raises(ValueError, match="must be int"):
        parse_topology("chain:hops=three", p4)
    with pytest.raises(ValueError, match="cannot run under topology 'planner'"):
        parse_topology("planner", p4)
    assert get_topology("chain").defaults == {"hops": 3}


def test_the_registry_owns_compatibility_and_call_counts() -> None:
    """Every topology (the team ones, replay, a user's team) has one registry entry holding its parameters,
    the condition transforms it runs and its call count; the old separate table's pairs are all there."""
    from mustmaybe.teams import compatible_topologies, read_topology

    assert set(topology_names()) == {"direct", "single", "chain", "consensus", "planner", "single-call"}
    assert get_topology("replay").builder is None and get_topology("team").builder is None
    assert compatible_topologies("summary") == ["chain", "consensus", "single", "single-call", "team"]
    assert compatible_topologies("gate") == ["chain", "consensus", "direct", "planner", "single"]
    assert compatible_topologies("replay") == ["replay"]
    assert get_topology("consensus").calls({"peers": 4, "rounds": 2}) == 9
    with pytest.raises(LookupError, match="unknown topology 'ring'; known: chain, consensus, direct"):
        get_topology("ring")
    with pytest.raises(ValueError, match=r"expected team:PATH\.json"):
        read_topology("team:")
    with pytest.raises(LookupError, match=r"expected team:PATH\.json"):  # named by its file, never `team:k=v`
        read_topology("team")
    # Read once, resolved per condition: defaults, the condition's own parameters, then the text's.
    request = read_topology("chain:hops=2")
    assert request.resolve(CONDITIONS["S3"]).params == {"hops": 2}
    assert request.resolve(CONDITIONS["P4"]) == TopologySpec(name="chain", params={"hops": 2})
    assert read_topology(None).resolve(CONDITIONS["S3"]) == TopologySpec(name="chain", params={"hops": 3})
    assert not read_topology("planner").compatible_with(CONDITIONS["P4"])
    with pytest.raises(ValueError, match="between 1 and 32, got 99"):
        read_topology("chain:hops=99").check_alone()


def test_model_failure_is_recorded_not_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    def fake(spec: Any, ctx: Any) -> ReplayChatCompletionClient:
        if ctx.role == "transformer":
            return ReplayChatCompletionClient([])  # raises 'No more mock responses'
        return ReplayChatCompletionClient([REVIEW, "{}"])

    monkeypatch.setattr(pipeline_mod, "build_model_client", fake)
    rec = _run("P4")
    assert rec.errors and rec.errors[0].where == "handoff_writer"
    assert rec.errors[0].role == "transformer" and "No more mock responses" in rec.errors[0].message
    # The transformer never answered: a failed episode, nothing scored (the fallback rule is for answers
    # that do not parse, not for no answer), and the executor was never asked.
    assert rec.failed and rec.executor.action is None and rec.executor.forbidden is None
    assert rec.executor.action_rule is None and not rec.executor.parse_ok
    assert rec.usage["executor"].calls == 0
    assert rec.artifact.text == ""
