"""The topology registry: a topology name maps to a builder of an AutoGen team.

Scenarios must not import teams, so conditions name topologies by string; a test checks that
every condition's topology is registered here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.base import ChatAgent
from autogen_core import CancellationToken

from mustmaybe.records import Role
from mustmaybe.scenarios import Condition, Scenario


class RunsTask(Protocol):
    """A team that runs once on the reviewer's task: an AutoGen team, or a compiled LangGraph graph."""

    async def run(self, *, task: str, cancellation_token: CancellationToken | None = None) -> Any: ...


@dataclass
class TeamPlan:
    """A built team: the AutoGen team, who plays which role, and whose last message is the artifact."""

    team: RunsTask
    roles: dict[str, Role]
    artifact_agent: str
    participants: list[ChatAgent] = field(default_factory=list)
    # Runs the plan from the reviewer's task when running `team` alone does not (a user's team runs
    # after our reviewer; teams/_user_build.py). It may set `artifact_agent` from what the team said.
    run: Callable[[str, Any], Awaitable[None]] | None = None
    # Why the team's output cannot be used although every model call succeeded (a single-call
    # trajectory that does not parse): filled while the team runs, and the episode then fails.
    problems: list[Any] = field(default_factory=list)
    # Senders that are no agent of their own but whose messages are hops (a trajectory's stages).
    stage_roles: dict[str, Role] = field(default_factory=dict)


# make_agent(name, role, system_message, *, include_sources, exclude_sources, last_n, hop) -> agent
AgentFactory = Callable[..., AssistantAgent]


@dataclass
class TopologyContext:
    scenario: Scenario  # the task as the agents read it (its wording's surface text)
    condition: Condition
    make_agent: AgentFactory
    runtime: Any
    wording: str = "base"  # the prompt templates' wording variant (agents/prompts/<wording>/)


@dataclass(frozen=True)
class TopologyInfo:
    name: str
    builder: Callable[[TopologyContext, dict[str, Any]], TeamPlan] | None  # None: not a team (the replay kind)
    params: dict[str, type]
    defaults: dict[str, Any]
    description: str
    transforms: frozenset[str] | None  # transforms it can run; None = any single-output transform
    # Inclusive (low, high) per integer parameter. The high end keeps a typo (hops=1000) from building a
    # team AutoGen cannot run (its graph code recurses once per node) or a sweep nobody meant to pay for.
    bounds: dict[str, tuple[int, int]] = field(default_factory=dict)
    # Checks the other parameters' values (an `order` from a fixed set…); raises ValueError naming one.
    check: Callable[[dict[str, Any]], None] | None = None
    # The allowed values of each parameter that takes one of a fixed set (for `list topologies`).
    choices: dict[str, tuple[str, ...]] = field(default_factory=dict)


_REGISTRY: dict[str, TopologyInfo] = {}


def topology(name: str, *, params: dict[str, type], defaults: dict[str, Any], description: str,
             transforms: frozenset[str] | None = None, bounds: dict[str, tuple[int, int]] | None = None,
             check: Callable[[dict[str, Any]], None] | None = None,
             choices: dict[str, tuple[str, ...]] | None = None,
             ) -> Callable[[Callable[..., TeamPlan]], Callable[..., TeamPlan]]:
    """Register a team builder under `name`; a duplicate name raises ValueError.

    `bounds` gives the inclusive range of each integer parameter and `check` validates the others;
    `parse_topology` applies both, so a bad value fails before any team is built.
    """

    def deco(fn: Callable[..., TeamPlan]) -> Callable[..., TeamPlan]:
        if name in _REGISTRY:
            raise ValueError(f"topology '{name}' is already registered")
        _REGISTRY[name] = TopologyInfo(name, fn, params, defaults, description, transforms, dict(bounds or {}),
                                       check, dict(choices or {}))
        return fn

    return deco


def topology_names() -> list[str]:
    return sorted(_REGISTRY)


def get_topology(name: str) -> TopologyInfo:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise LookupError(f"unknown topology '{name}'; known: {', '.join(topology_names())}") from None
