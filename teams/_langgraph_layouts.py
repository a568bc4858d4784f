"""The team topologies as LangGraph layouts: who speaks, in which order, and what each one sees.

Each layout states, for the LangGraph substrate, what its AutoGen builder in teams/_topologies.py
builds: the same agent names, roles, system prompts and views, in the same speaking order. The views
are SourceFilterContext's (include/exclude sources, last n); AutoGen's team classes supply the order
(GraphFlow's edges, the consensus group's fixed schedule), here it is the list of turns. The two are
kept in step by tests/teams/test_langgraph.py, which checks on the sim that every agent's model
receives exactly the texts its AutoGen counterpart receives, topology by topology.

No LangGraph import here: `episode_spec` checks a topology against LANGGRAPH_TOPOLOGIES without the extra.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mustmaybe.agents import prompts
from mustmaybe.records import COORDINATOR, PEER_PREFIX, PLANNER, REVIEWER, Role, SubstrateError
from mustmaybe.scenarios import Condition, Scenario

from ._context import SourceFilterContextConfig
from ._langgraph import TASK_SOURCE, GraphAgent, GraphLayout
from ._topologies import _transformer_name


@dataclass
class LayoutContext:
    scenario: Scenario  # the task as the agents read it (its wording's surface text)
    condition: Condition
    # make_agent(name, role, system_message, *, include_sources, exclude_sources, last_n, hop) -> GraphAgent
    make_agent: Callable[..., GraphAgent]
    wording: str = "base"  # the prompt templates' wording variant (agents/prompts/<wording>/), as on AutoGen


Layout = Callable[[LayoutContext, dict[str, Any]], GraphLayout]


def _reviewer(ctx: LayoutContext) -> GraphAgent:
    return ctx.make_agent(REVIEWER, "reviewer", prompts.render("reviewer", ctx.wording),
                          include_sources=[TASK_SOURCE])


def _line(agents: list[GraphAgent], roles: dict[str, Role], artifact: str) -> GraphLayout:
    """Agents that each speak once, in order (AutoGen: a GraphFlow with an edge between neighbours)."""
    return GraphLayout(participants=agents, turns=list(agents), artifact_agent=artifact, roles=roles)


def direct(ctx: LayoutContext, params: dict[str, Any]) -> GraphLayout:
    return _line([_reviewer(ctx)], {REVIEWER: "reviewer"}, REVIEWER)


def _hop_chain(ctx: LayoutContext, hops: int) -> GraphLayout:
    c, s = ctx.condition, ctx.scenario
    agents = [_reviewer(ctx)]
    roles: dict[str, Role] = {REVIEWER: "reviewer"}
    prev = REVIEWER
    base = _transformer_name(c.transform)
    for i in range(1, hops + 1):
        name = base if hops == 1 else f"{base}_{i}"
        system = prompts.transformer_system(c, s, role="transformer", wording=ctx.wording)
        # Each hop sees only the previous hop's output: no task, no earlier hops.
        agents.append(ctx.make_agent(name, "transformer", system, include_sources=[prev], last_n=1, hop=i))
        roles[name] = "transformer"
        prev = name
    return _line(agents, roles, prev)


def single(ctx: LayoutContext, params: dict[str, Any]) -> GraphLayout:
    return _hop_chain(ctx, 1)


def chain(ctx: LayoutContext, params: dict[str, Any]) -> GraphLayout:
    return _hop_chain(ctx, int(params.get("hops", 3)))


def consensus(ctx: LayoutContext, params: dict[str, Any]) -> GraphLayout:
    c, s = ctx.condition, ctx.scenario
    peers_n, rounds = int(params.get("peers", 3)), int(params.get("rounds", 1))
    if "low_risk_frames" in c.transformer_sees:
        frames = list(s.pressure.low_risk_frames)
        if not frames:
            raise ValueError(f"task {s.id}: pressure.low_risk_frames is required by condition {c.id}")
    else:
        frames = [p.split(":", 1)[-1].strip() for p in prompts.pressure_context(s, c.transformer_sees)]
    rev = _reviewer(ctx)
    roles: dict[str, Role] = {REVIEWER: "reviewer"}
    peers: list[GraphAgent] = []
    for i in range(1, peers_n + 1):
        name = f"{PEER_PREFIX}{i}"
        frame = frames[(i - 1) % len(frames)] if frames else "Weigh the reviewer's point on its merits."
        system = prompts.transformer_system(c, s, role="peer", name=name, frame=frame, wording=ctx.wording)
        # Peers see the discussion (review and the other peers' lines) but never the reviewer's full record.
        peers.append(ctx.make_agent(name, "transformer", system, exclude_sources=[TASK_SOURCE], hop=i))
        roles[name] = "transformer"
    coord = ctx.make_agent(COORDINATOR, "transformer",
                           prompts.transformer_system(c, s, role="coordinator", wording=ctx.wording),
                           exclude_sources=[TASK_SOURCE], hop=peers_n + 1)
    roles[COORDINATOR] = "transformer"
    # AutoGen's SelectorGroupChat follows this fixed schedule: the reviewer, each round of peers, the coordinator.
    return GraphLayout(participants=[rev, *peers, coord], turns=[rev, *peers * rounds, coord],
                       artifact_agent=COORDINATOR, roles=roles)


def planner(ctx: LayoutContext, params: dict[str, Any]) -> GraphLayout:
    c, s = ctx.condition, ctx.scenario
    order = str(params.get("order", "plan_first"))
    partial = bool(params.get("partial_work", False))
    # The plan board posts the existing plan and makes no model call (AutoGen: teams/_plan_board.py).
    board = GraphAgent("plan_board", None, "", SourceFilterContextConfig(),
                       text="Current plan:\n" + prompts.plan_text(s, partial))
    rev = _reviewer(ctx)
    transform_ctx = c if c.transform in ("deadline_plan", "restart") else c.model_copy(
        update={"transform": "restart" if order == "restart" else "deadline_plan"})
    plan = ctx.make_agent(PLANNER, "transformer",
                          prompts.transformer_system(transform_ctx, s, role="transformer", wording=ctx.wording),
                          include_sources=["plan_board", REVIEWER], hop=1)
    seq = [rev, board, plan] if order == "blocker_first" else [board, rev, plan]
    return _line(seq, {REVIEWER: "reviewer", PLANNER: "transformer"}, PLANNER)


LAYOUTS: dict[str, Layout] = {"direct": direct, "single": single, "chain": chain, "consensus": consensus,
                              "planner": planner}
LANGGRAPH_TOPOLOGIES: tuple[str, ...] = tuple(LAYOUTS)


def layout_for(topology: str) -> Layout:
    """The LangGraph layout of a team topology.

    Raises:
        SubstrateError: the topology has no LangGraph layout (one line, naming those that do).
    """
    try:
        return LAYOUTS[topology]
    except KeyError:
        raise SubstrateError(f"topology '{topology}' does not run on substrate langgraph; it runs: "
                             f"{', '.join(LANGGRAPH_TOPOLOGIES)} (and replay arms over them)") from None
