"""Build one episode's team from its spec: model clients, agents, the AutoGen team under the sidecar.

Layer 1 of the runner (STYLE.md, as tau2's `build.py`): it turns the resolved `EpisodeSpec` into
objects and runs nothing. `run_episode` (teams/_episode.py) runs what it built.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.base import TaskResult, Team
from autogen_core import CancellationToken, SingleThreadedAgentRuntime

from mustmaybe import tracing
from mustmaybe.agents import (
    CallSharing,
    ClientContext,
    ExecutorDecision,
    RecordingClient,
    build_client,
    decision_model_for,
    prompts,
)
from mustmaybe.records import EpisodeSpec, Role, TeamSource

from ._context import SourceFilterContext
from ._gate import WorkflowState
from ._registry import RunsTask, TeamPlan, TopologyContext, get_topology
from ._replay import route_seed
from ._sidecar import HopCallback, Sidecar
from ._user_build import build_user_team
from ._user_team import strip_secrets

log = logging.getLogger(__name__)


class Runtime(Protocol):
    """What `run_episode` starts and stops around the team: AutoGen's runtime, or LangGraph's stand-in."""

    def start(self) -> None: ...

    async def stop(self) -> None: ...

    async def stop_when_idle(self) -> None: ...


class Executor(Protocol):
    """The executor, run once on its task (the handoff): an AutoGen agent, or a LangGraph graph."""

    async def run(self, *, task: str, cancellation_token: CancellationToken | None = None) -> TaskResult: ...


@dataclass
class EpisodeTeam:
    """A built episode, ready to run: the team on its own runtime under the sidecar, and the executor.

    `clients` and `roles` (by agent name) are what the record's usage, visibility and errors are read
    from; `config` is the record's `team_config` (our description of the team, whose `component` is the
    real `dump_component()`; the name is the record's, kept so stored records stay as they are). The
    AutoGen build fills it with a SingleThreadedAgentRuntime and an AssistantAgent; the LangGraph build
    (teams/_langgraph.py) with compiled graphs behind the same two protocols.
    """

    plan: TeamPlan
    runtime: Runtime
    sidecar: Sidecar
    executor: Executor
    clients: dict[str, RecordingClient] = field(default_factory=dict)
    roles: dict[str, Role] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)
    workflow: WorkflowState | None = None  # W only: the ledger and the gate record that travels
    started: datetime = field(default_factory=lambda: datetime.now(UTC))
    t0: float = field(default_factory=time.perf_counter)

    def retries(self) -> dict[str, tuple[int, int]]:
        """Per role: (retried attempts, calls that failed after their retries), from the retry layers."""
        out: dict[str, tuple[int, int]] = {}
        for agent, client in self.clients.items():
            if client.retrying is not None:
                role = self.roles.get(agent, "executor")
                a, b = out.get(role, (0, 0))
                out[role] = (a + client.retrying.retries, b + client.retrying.failures)
        return out


def team_component(team: RunsTask) -> dict[str, Any] | None:
    """The team's real component config (`team.dump_component()`), secrets removed: what a user can
    export, edit and run back as `team:PATH.json`. None (and a log line) if a part cannot be dumped,
    and None for a team that is no AutoGen team (a LangGraph graph has no component config)."""
    if not isinstance(team, Team):
        return None
    try:
        # The dump is a fresh tree: its secrets are removed in place, as `sanitize` would copy it without them.
        return strip_secrets(team.dump_component().model_dump(mode="json"))  # type: ignore[no-any-return]
    except NotImplementedError:
        # A participant that is no AutoGen component by design (single-call's one-call trajectory agent):
        # there is nothing to dump, which is not an error worth a traceback on every episode.
        log.info("the team has a participant that is not a dumpable component; team_config.component is null")
        return None
    except Exception:
        log.exception("the team's component config could not be dumped")
        return None


def _user_team_config(spec: EpisodeSpec, source: TeamSource, reviewer: list[dict[str, Any]]) -> dict[str, Any]:
    """A user team's `team_config`: the shape of ours, plus the file it came from and its digest."""
    model = str(spec.models["transformer"])
    return {"team": source.kind, "topology": spec.topology.model_dump(), "base": None,
            "order": [reviewer[0]["name"], *source.participants] if reviewer else list(source.participants),
            "agents": [*reviewer, *({"name": n, "role": "transformer", "model": model} for n in source.participants)],
            "component": source.component,
            "source": {"file": Path(source.path).name, "digest": source.digest, "trusted": source.trusted,
                       "clients": "own" if spec.models["transformer"].backend == "team" else model}}


class _Agents:
    """Makes the episode's clients and agents, and remembers them for the record."""

    def __init__(self, spec: EpisodeSpec, sharing: CallSharing | None, workflow: WorkflowState | None) -> None:
        self.spec = spec
        self.sharing = sharing
        self.workflow = workflow
        self.clients: dict[str, RecordingClient] = {}
        self.roles: dict[str, Role] = {}
        self.config: list[dict[str, Any]] = []

    def client(self, role: Role, agent: str, hop: int, json_output: type[ExecutorDecision] | None) -> RecordingClient:
        spec, ms = self.spec, self.spec.models[role]
        # The executor acts under the episode's own condition; the team's agents under the condition
        # whose team runs (a replay arm's base).
        cond = spec.condition if role == "executor" else spec.team_condition
        params = spec.params[role]
        if role == "executor" and spec.replay is not None and spec.replay.route is not None:
            # A replay arm's executor route (appendix E.1) is its own sampling seed; the base team keeps the
            # episode's, so every route acts on the same base artifact.
            params = params.model_copy(update={"seed": route_seed(
                params.seed if params.seed is not None else spec.seed, spec.replay.route)})
        ctx = ClientContext(role=role, agent=agent, seed=spec.seed, params=params, endpoint=spec.endpoint(role),
                            substrate=spec.substrate)
        # What only a simulated model is told; a real backend learns the episode from its prompt alone.
        sim = None
        if ms.backend == "sim":
            from mustmaybe.sim import SimContext  # the simulator is imported by sweeps that use it only

            sim = SimContext(condition=cond.id, transform=cond.transform, style=cond.style, hop=hop,
                             requested_action=spec.scenario.requested_action.id,
                             fallback_action=spec.scenario.blocker.fallback_action)
        rec = build_client(ms, ctx, sim=sim, json_output=json_output, timeout_s=spec.params[role].timeout_s,
                           sharing=self.sharing)
        self.clients[agent] = rec
        return rec

    def agent(self, name: str, role: Role, system_message: str, *, include_sources: list[str] | None = None,
              exclude_sources: list[str] | None = None, last_n: int | None = None, hop: int = 0) -> AssistantAgent:
        context = SourceFilterContext(include_sources, exclude_sources, last_n)
        if self.workflow is not None and role != "reviewer":  # the reviewer's statement precedes the commit
            context.projection = self.workflow.projection
        self.roles[name] = role
        self.config.append({"name": name, "role": role, "model": str(self.spec.models[role]),
                            "params": self.spec.params[role].model_dump(), "system_message": system_message,
                            "context": context.dump_component().model_dump(mode="json")["config"]})
        return AssistantAgent(name, model_client=self.client(role, name, hop, None),
                              system_message=system_message, model_context=context)


def build_team(spec: EpisodeSpec, *, on_hop: HopCallback | None = None,
               sharing: CallSharing | None = None) -> EpisodeTeam:
    """Build the clients, agents and team of one episode; runs nothing.

    A replay arm (R-*, V-*) builds its base condition's own team, so every arm of one task, seed and
    model set starts from the same degraded artifact; only the executor acts under the arm. A spec
    whose substrate is `langgraph` gets the same agents as LangGraph graph nodes (teams/_langgraph.py).

    Args:
        spec: the resolved episode (`episode_spec`).
        on_hop: called with each scored hop as it is transmitted (the live console).
        sharing: the sweep's response cache and in-flight calls, shared by every episode's clients.

    Raises:
        ValueError: a condition that cannot run live, a twin of a task with no resolution, or a substrate
            that cannot run the topology or is not installed (`SubstrateError`).
    """
    cond, scenario = spec.condition, spec.scenario
    if not cond.runnable:
        raise ValueError(f"condition {cond.id} ({cond.topology}) cannot be run as a live episode yet")
    if spec.twin and scenario.resolution is None:
        raise ValueError(f"task {scenario.id} has no resolution, so it has no benign twin")
    if spec.substrate == "langgraph":
        from ._langgraph import build_graph_team  # imports LangGraph (the optional extra) only here

        return build_graph_team(spec, on_hop=on_hop, sharing=sharing)
    started, t0 = datetime.now(UTC), time.perf_counter()
    workflow = WorkflowState(scenario, spec.twin) if spec.workflow else None
    agents = _Agents(spec, sharing, workflow)
    sidecar = Sidecar(scenario, agents.roles, on_hop, twin=spec.twin,
                      on_review=workflow.observe_review if workflow is not None else None)
    # While tracing is on, the runtime's own spans go to the session's provider; off, None (AutoGen's default).
    runtime = SingleThreadedAgentRuntime(intervention_handlers=[sidecar], ignore_unhandled_exceptions=False,
                                         tracer_provider=tracing.tracer_provider())
    team_cond, team_topo = spec.team_condition, spec.team_topology
    if spec.team is not None:  # a user's team: our reviewer, then theirs (teams/_user_build.py)
        plan = build_user_team(spec, agents.agent, lambda role, name, hop: agents.client(role, name, hop, None),
                               agents.clients, agents.roles, runtime)
        team_config = _user_team_config(spec, spec.team, agents.config)
    else:
        builder = get_topology(team_topo.name).builder
        assert builder is not None, f"topology {team_topo.name} builds no team"  # replay resolves to its base's
        # The agents read the task in the episode's wording; the sidecar above scores against the task itself.
        plan = builder(TopologyContext(spec.surface, team_cond, agents.agent, runtime, spec.wording),
                       dict(team_topo.params))
        for name, role in plan.stage_roles.items():  # the sidecar scores a trajectory's stages as hops
            agents.roles.setdefault(name, role)
        has_base = spec.replay is not None or spec.workflow
        team_config = {"team": type(plan.team).__name__, "topology": spec.topology.model_dump(),
                       "base": {"condition": team_cond.id, "topology": team_topo.model_dump()} if has_base else None,
                       "order": [p.name for p in plan.participants], "agents": agents.config,
                       "component": team_component(plan.team)}
    executor = AssistantAgent("executor", model_client=agents.client("executor", "executor", 0,
                                                                     decision_model_for(scenario)),
                              system_message=prompts.render("executor", spec.wording),
                              model_context=SourceFilterContext(include_sources=["user"]))
    return EpisodeTeam(plan=plan, runtime=runtime, sidecar=sidecar, executor=executor, clients=agents.clients,
                       roles=agents.roles, config=team_config, started=started, t0=t0, workflow=workflow)
