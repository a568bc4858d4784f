"""The LangGraph substrate: an episode's agents as nodes of a LangGraph `StateGraph` (docs/substrates.md).

Table 21 of the paper runs the artifact-only workflow on AutoGen and on LangGraph with everything
else held fixed. So this builds, for the same `EpisodeSpec`, the same agents: the same names, system
prompts and views (teams/_langgraph_layouts.py), and the same model clients from the same pipeline
(`_Agents.client`: recording, cache, retry, limits, structured output, backend), so the sim, the
embedded model and OpenAI-compatible endpoints work unchanged. What changes is the framework that
carries the messages: a typed graph state (the transcript, appended to by each node) and LangGraph's
scheduler, in place of AutoGen's runtime, group-chat topic and per-agent model contexts.

A node calls our async model client directly, not a LangChain chat model: a LangChain wrapper would
put its own message conversion between the prompt and the endpoint, so the two substrates would not
send the same requests. Each node builds its model input from the graph state as its agent's view
allows (`GraphAgent.model_input`, the same rule as teams/_context.py), calls the client, hands the
message to the sidecar (scored before the next node runs, as AutoGen's intervention handler does),
and appends it to the state. The executor is a graph of its own, run on the handoff alone, so the
context-isolation audit reads what its model received exactly as on AutoGen.
"""

from __future__ import annotations

import importlib.metadata
import logging
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, TypedDict

from autogen_agentchat.base import TaskResult
from autogen_agentchat.messages import TextMessage
from autogen_core import CancellationToken
from autogen_core.models import AssistantMessage, LLMMessage, SystemMessage, UserMessage

from mustmaybe.agents import CallSharing, RecordingClient, decision_model_for, prompts
from mustmaybe.records import EpisodeSpec, Role, SubstrateError, substrate_problem

from ._build import EpisodeTeam, _Agents
from ._context import PROJECTION_SOURCE, SourceFilterContextConfig
from ._gate import WorkflowState
from ._registry import TeamPlan
from ._sidecar import HopCallback, Sidecar

log = logging.getLogger(__name__)

TASK_SOURCE = "user"  # the reviewer's full view is the transcript's first entry, as AutoGen's task message


class GraphState(TypedDict):
    """The graph's state: every transmitted message so far, as (sender, text), in order."""

    transcript: Annotated[list[tuple[str, str]], operator.add]


@dataclass
class GraphAgent:
    """One agent as a graph node: its system prompt, its view of the transcript and its model client.

    `text` is set for the plan board (pressure material that makes no model call); `projection` is W's
    read-only gate view, read at each call and never part of the transcript.
    """

    name: str
    role: Role | None
    system_message: str
    view: SourceFilterContextConfig
    client: RecordingClient | None = None
    text: str | None = None
    projection: Callable[[], str | None] | None = None

    def model_input(self, transcript: Sequence[tuple[str, str]]) -> list[LLMMessage]:
        """What this agent's model receives: the system prompt, then the transcript entries its view allows.

        The rule of teams/_context.py's SourceFilterContext: the agent's own earlier replies only with
        `include_own`; others by source (exclude, then include), then the last `last_n`; W's projection last.
        """
        v = self.view
        kept: list[LLMMessage] = []
        for source, text in transcript:
            if source == self.name:
                if v.include_own:
                    kept.append(AssistantMessage(content=text, source=source))
                continue
            if source in v.exclude_sources or (v.include_sources is not None and source not in v.include_sources):
                continue
            kept.append(UserMessage(content=text, source=source))
        if v.last_n is not None:
            kept = kept[-v.last_n:]
        view = self.projection() if self.projection is not None else None
        if view:
            kept.append(UserMessage(content=view, source=PROJECTION_SOURCE))
        return [SystemMessage(content=self.system_message), *kept]


@dataclass
class GraphLayout:
    """A topology on LangGraph: the agents in speaking order (`turns`, an agent may speak more than once),
    the participants (each agent once, in AutoGen's participant order), and whose last message is the artifact."""

    participants: list[GraphAgent]
    turns: list[GraphAgent]
    artifact_agent: str
    roles: dict[str, Role] = field(default_factory=dict)


class _Calls:
    """The cancellation token of the run in progress, read by every node's model call."""

    token: CancellationToken | None = None


class _Node:
    """One graph node: its agent's model call on its view of the state, then the sidecar, then the state update."""

    def __init__(self, agent: GraphAgent, sidecar: Sidecar | None, calls: _Calls) -> None:
        self.agent, self.sidecar, self.calls = agent, sidecar, calls

    async def __call__(self, state: GraphState) -> dict[str, Any]:
        agent = self.agent
        if agent.text is not None:
            text = agent.text
        else:
            assert agent.client is not None, f"agent {agent.name} has no model client"
            result = await agent.client.create(agent.model_input(state["transcript"]),
                                               cancellation_token=self.calls.token)
            text = result.content if isinstance(result.content, str) else str(result.content)
        if self.sidecar is not None:
            try:  # the sidecar scores the message before the next node runs; it never breaks the graph
                self.sidecar.observe(agent.name, text)
            except Exception as exc:
                log.exception("sidecar failed to score a message")
                self.sidecar.errors.append(f"{type(exc).__name__}: {exc}")
        return {"transcript": [(agent.name, text)]}


def _compile(turns: Sequence[GraphAgent], sidecar: Sidecar | None, calls: _Calls) -> tuple[Any, list[str]]:
    """A linear StateGraph over `turns` (START → each turn → END), and its node ids."""
    from langgraph.graph import END, START, StateGraph

    graph = StateGraph(GraphState)
    ids: list[str] = []
    seen: dict[str, int] = {}
    for agent in turns:
        seen[agent.name] = seen.get(agent.name, 0) + 1
        # A peer speaks once per round: one node per turn, named by round after the first.
        node_id = agent.name if seen[agent.name] == 1 else f"{agent.name}_round{seen[agent.name]}"
        graph.add_node(node_id, _Node(agent, sidecar, calls))
        graph.add_edge(ids[-1] if ids else START, node_id)
        ids.append(node_id)
    graph.add_edge(ids[-1], END)
    return graph.compile(), ids


class GraphTeam:
    """A compiled graph that runs once on the reviewer's task (the `RunsTask` protocol of TeamPlan)."""

    def __init__(self, turns: Sequence[GraphAgent], sidecar: Sidecar | None) -> None:
        self._calls = _Calls()
        self.graph, self.node_ids = _compile(turns, sidecar, self._calls)

    async def run(self, *, task: str, cancellation_token: CancellationToken | None = None) -> GraphState:
        self._calls.token = cancellation_token
        # LangGraph stops a run after 25 steps by default; a 32-hop chain has more nodes than that.
        state: GraphState = await self.graph.ainvoke({"transcript": [(TASK_SOURCE, task)]},
                                                     config={"recursion_limit": len(self.node_ids) + 5})
        return state


class GraphExecutor:
    """The executor as a one-node graph: it receives its task (built from the handoff alone) and answers."""

    def __init__(self, agent: GraphAgent) -> None:
        self.agent = agent
        # The executor's answer is an action, not a handoff: no sidecar scores it (as on AutoGen, where
        # the executor runs outside the team's runtime).
        self._team = GraphTeam([agent], None)

    async def run(self, *, task: str, cancellation_token: CancellationToken | None = None) -> TaskResult:
        state = await self._team.run(task=task, cancellation_token=cancellation_token)
        answer = state["transcript"][-1][1]
        return TaskResult(messages=[TextMessage(content=answer, source=self.agent.name)])


class _NoRuntime:
    """LangGraph needs no runtime to start or stop; `run_episode` calls these around the team."""

    def start(self) -> None:
        return None

    async def stop(self) -> None:
        return None

    async def stop_when_idle(self) -> None:
        return None


class _GraphAgents(_Agents):
    """`_Agents` (teams/_build.py) making graph nodes instead of AutoGen agents: the same clients and config."""

    def agent(  # type: ignore[override]
        self, name: str, role: Role, system_message: str, *, include_sources: list[str] | None = None,
        exclude_sources: list[str] | None = None, last_n: int | None = None, hop: int = 0,
    ) -> GraphAgent:
        view = SourceFilterContextConfig(include_sources=include_sources, exclude_sources=list(exclude_sources or []),
                                         last_n=last_n)
        projection = self.workflow.projection if self.workflow is not None and role != "reviewer" else None
        self.roles[name] = role
        self.config.append({"name": name, "role": role, "model": str(self.spec.models[role]),
                            "params": self.spec.params[role].model_dump(), "system_message": system_message,
                            "context": view.model_dump(mode="json", exclude_none=True)})
        return GraphAgent(name, role, system_message, view, client=self.client(role, name, hop, None),
                          projection=projection)


def _version() -> str:
    try:
        return importlib.metadata.version("langgraph")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def build_graph_team(spec: EpisodeSpec, *, on_hop: HopCallback | None = None,
                     sharing: CallSharing | None = None) -> EpisodeTeam:
    """`build_team` on the LangGraph substrate: the spec's team and executor as compiled graphs.

    Raises:
        SubstrateError: LangGraph is not installed, or the team's topology has no LangGraph layout.
    """
    import time
    from datetime import UTC, datetime

    from ._langgraph_layouts import LayoutContext, layout_for

    problem = substrate_problem("langgraph")
    if problem is not None:
        raise SubstrateError(problem)
    started, t0 = datetime.now(UTC), time.perf_counter()
    scenario = spec.scenario
    workflow = WorkflowState(scenario, spec.twin) if spec.workflow else None
    agents = _GraphAgents(spec, sharing, workflow)
    sidecar = Sidecar(scenario, agents.roles, on_hop, twin=spec.twin,
                      on_review=workflow.observe_review if workflow is not None else None)
    team_cond, team_topo = spec.team_condition, spec.team_topology
    # The agents read the task in the episode's wording; the sidecar above scores against the task itself.
    layout = layout_for(team_topo.name)(LayoutContext(spec.surface, team_cond, agents.agent, spec.wording),
                                        dict(team_topo.params))
    team = GraphTeam(layout.turns, sidecar)
    has_base = spec.replay is not None or spec.workflow
    executor_agent = GraphAgent("executor", "executor", prompts.render("executor", spec.wording),
                                SourceFilterContextConfig(include_sources=[TASK_SOURCE]),
                                client=agents.client("executor", "executor", 0, decision_model_for(scenario)))
    team_config = {"substrate": "langgraph", "langgraph": _version(), "team": type(team.graph).__name__,
                   "topology": spec.topology.model_dump(),
                   "base": {"condition": team_cond.id, "topology": team_topo.model_dump()} if has_base else None,
                   "order": [a.name for a in layout.participants], "nodes": team.node_ids, "agents": agents.config,
                   "executor": {"nodes": ["executor"],
                                "context": executor_agent.view.model_dump(mode="json", exclude_none=True)}}
    plan = TeamPlan(team, layout.roles, layout.artifact_agent, [])
    return EpisodeTeam(plan=plan, runtime=_NoRuntime(), sidecar=sidecar, executor=GraphExecutor(executor_agent),
                       clients=agents.clients, roles=agents.roles, config=team_config, started=started, t0=t0,
                       workflow=workflow)
