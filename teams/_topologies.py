"""The team topologies: direct, single transformer, multihop chain, consensus group, deadline planner."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from autogen_agentchat.base import ChatAgent, Team
from autogen_agentchat.conditions import MaxMessageTermination, SourceMatchTermination
from autogen_agentchat.messages import BaseAgentEvent, BaseChatMessage
from autogen_agentchat.teams import DiGraphBuilder, GraphFlow, SelectorGroupChat
from autogen_ext.models.replay import ReplayChatCompletionClient

from mustmaybe.agents import prompts
from mustmaybe.records import COORDINATOR, PEER_PREFIX, PLANNER, REVIEWER

from ._plan_board import PlanBoard
from ._registry import (
    GATE_TRANSFORMS,
    GROUP_TRANSFORMS,
    HOP_TRANSFORMS,
    PLAN_TRANSFORMS,
    TeamPlan,
    TopologyContext,
    topology,
)

_TASK_SOURCE = "user"  # the reviewer's full view arrives as the team's task message

# Sane ranges for the team-size parameters (inclusive). A chain of 1,000 hops makes AutoGen's graph
# code overflow Python's recursion limit; far below that, every hop is a paid model call. A
# consensus needs at least two peers to be a group.
MAX_HOPS = 32
MAX_PEERS = 16
MAX_ROUNDS = 8

def _reviewer(ctx: TopologyContext) -> ChatAgent:
    return ctx.make_agent(REVIEWER, "reviewer", prompts.render("reviewer", ctx.wording), include_sources=[_TASK_SOURCE])


def _graph(agents: Sequence[ChatAgent], ctx: TopologyContext) -> GraphFlow:
    g = DiGraphBuilder()
    for a in agents:
        g.add_node(a)
    for a, b in itertools.pairwise(agents):
        g.add_edge(a, b)
    return GraphFlow(list(agents), graph=g.build(), runtime=ctx.runtime)


def _transformer_name(transform: str) -> str:
    return {
        "summary": "summarizer",
        "schema": "schema_summarizer",
        "ownership_summary": "ownership_summarizer",
        "ownership_deferral": "handoff_writer",
        "precedent": "handoff_writer",
        "deadline_plan": "planner",
        "restart": "planner",
        "consensus": "coordinator",
        "dissent": "coordinator",
    }.get(transform, "transformer")


@topology("direct", params={}, defaults={}, description="The reviewer's state is carried verbatim.",
          compatible=frozenset({"verbatim"}) | GATE_TRANSFORMS, calls=lambda p: 0)
def build_direct(ctx: TopologyContext, params: dict[str, Any]) -> TeamPlan:
    rev = _reviewer(ctx)
    return TeamPlan(_graph([rev], ctx), {REVIEWER: "reviewer"}, REVIEWER, [rev])


def _hop_chain(ctx: TopologyContext, hops: int) -> TeamPlan:
    c, s = ctx.condition, ctx.scenario
    rev = _reviewer(ctx)
    agents: list[ChatAgent] = [rev]
    roles: dict[str, Any] = {REVIEWER: "reviewer"}
    prev = REVIEWER
    base = _transformer_name(c.transform)
    for i in range(1, hops + 1):
        name = base if hops == 1 else f"{base}_{i}"
        system = prompts.transformer_system(c, s, role="transformer", wording=ctx.wording)
        # Each hop sees only the previous hop's output: no task, no earlier hops.
        agent = ctx.make_agent(name, "transformer", system, include_sources=[prev], last_n=1, hop=i)
        agents.append(agent)
        roles[name] = "transformer"
        prev = name
    return TeamPlan(_graph(agents, ctx), roles, prev, agents)


@topology("single", params={}, defaults={}, description="One transformer between reviewer and executor.",
          compatible=HOP_TRANSFORMS | GATE_TRANSFORMS, calls=lambda p: 1)
def build_single(ctx: TopologyContext, params: dict[str, Any]) -> TeamPlan:
    return _hop_chain(ctx, 1)


@topology("chain", params={"hops": int}, defaults={"hops": 3}, bounds={"hops": (1, MAX_HOPS)},
          compatible=HOP_TRANSFORMS | GATE_TRANSFORMS, calls=lambda p: int(p["hops"]),
          description="N transformers in a row; each hop sees only the previous hop's output.")
def build_chain(ctx: TopologyContext, params: dict[str, Any]) -> TeamPlan:
    return _hop_chain(ctx, params["hops"])


@topology("consensus", params={"peers": int, "rounds": int}, defaults={"peers": 3, "rounds": 1},
          bounds={"peers": (2, MAX_PEERS), "rounds": (1, MAX_ROUNDS)},
          compatible=HOP_TRANSFORMS | GROUP_TRANSFORMS | GATE_TRANSFORMS,
          calls=lambda p: int(p["peers"]) * int(p["rounds"]) + 1,  # each peer each round, then the coordinator
          description="Peers discuss in a group chat in a fixed order (reviewer, peers in turn each round), "
                      "with the condition's frames; a coordinator writes the handoff.")
def build_consensus(ctx: TopologyContext, params: dict[str, Any]) -> TeamPlan:
    c, s = ctx.condition, ctx.scenario
    peers_n, rounds = params["peers"], params["rounds"]
    if "low_risk_frames" in c.transformer_sees:
        frames = list(s.pressure.low_risk_frames)
        if not frames:
            raise ValueError(f"task {s.id}: pressure.low_risk_frames is required by condition {c.id}")
    else:
        # Another transformation under a group: each peer voices the condition's own material.
        frames = [p.split(":", 1)[-1].strip() for p in prompts.pressure_context(s, c.transformer_sees)]
    rev = _reviewer(ctx)
    agents: list[ChatAgent] = [rev]
    roles: dict[str, Any] = {REVIEWER: "reviewer"}
    peer_names = []
    for i in range(1, peers_n + 1):
        name = f"{PEER_PREFIX}{i}"
        frame = frames[(i - 1) % len(frames)] if frames else "Weigh the reviewer's point on its merits."
        system = prompts.transformer_system(c, s, role="peer", name=name, frame=frame, wording=ctx.wording)
        # Peers see the discussion (review and peers) but never the reviewer's full record.
        agents.append(ctx.make_agent(name, "transformer", system, exclude_sources=[_TASK_SOURCE], hop=i))
        roles[name] = "transformer"
        peer_names.append(name)
    coord = ctx.make_agent(COORDINATOR, "transformer",
                           prompts.transformer_system(c, s, role="coordinator", wording=ctx.wording),
                           exclude_sources=[_TASK_SOURCE], hop=peers_n + 1)
    agents.append(coord)
    roles[COORDINATOR] = "transformer"
    # A fixed speaking order, so every episode's discussion has the same shape: the reviewer once, the peers in
    # turn for each round, the coordinator once. RoundRobinGroupChat would cycle the reviewer and coordinator
    # into every round; a SelectorGroupChat whose selector_func names each speaker keeps this order exactly.
    schedule = [REVIEWER] + peer_names * rounds + [COORDINATOR]

    def select(thread: Sequence[BaseAgentEvent | BaseChatMessage]) -> str | None:
        spoken = sum(1 for m in thread if isinstance(m, BaseChatMessage) and m.source != _TASK_SOURCE)
        return schedule[min(spoken, len(schedule) - 1)]

    team = SelectorGroupChat(
        list[ChatAgent | Team](agents),
        # Never asked: selector_func always names the speaker. SelectorGroupChat requires a client.
        model_client=ReplayChatCompletionClient([]),
        selector_func=select,
        allow_repeated_speaker=True,
        termination_condition=SourceMatchTermination([COORDINATOR]) | MaxMessageTermination(len(schedule) + 2),
        runtime=ctx.runtime,
    )
    return TeamPlan(team, roles, COORDINATOR, agents)


PLANNER_ORDERS = ("plan_first", "blocker_first", "restart")


def _check_planner(params: dict[str, Any]) -> None:
    order = params["order"]
    if order not in PLANNER_ORDERS:
        raise ValueError(f"planner: order must be plan_first, blocker_first or restart, not '{order}'")


@topology("planner", params={"order": str, "partial_work": bool},
          defaults={"order": "plan_first", "partial_work": False}, check=_check_planner,
          choices={"order": PLANNER_ORDERS}, compatible=PLAN_TRANSFORMS | GATE_TRANSFORMS, calls=lambda p: 1,
          description="A planner folds the review into an existing deadline plan (plan_first, blocker_first, restart).")
def build_planner(ctx: TopologyContext, params: dict[str, Any]) -> TeamPlan:
    c, s = ctx.condition, ctx.scenario
    order, partial = params["order"], params["partial_work"]
    board = PlanBoard("plan_board", "Current plan:\n" + prompts.plan_text(s, partial))
    rev = _reviewer(ctx)
    transform_ctx = c if c.transform in ("deadline_plan", "restart") else c.model_copy(
        update={"transform": "restart" if order == "restart" else "deadline_plan"})
    planner = ctx.make_agent(PLANNER, "transformer", prompts.transformer_system(transform_ctx, s, role="transformer",
                                                                                 wording=ctx.wording),
                             include_sources=["plan_board", REVIEWER], hop=1)
    seq: list[ChatAgent] = [rev, board, planner] if order == "blocker_first" else [board, rev, planner]
    return TeamPlan(_graph(seq, ctx), {REVIEWER: "reviewer", PLANNER: "transformer"}, PLANNER, seq)
