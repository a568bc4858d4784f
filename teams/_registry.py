"""The topology registry: each topology's builder, parameters (types, defaults, bounds, checks), the
condition transforms it can run and its transformer call count, in one entry per topology.

Scenarios must not import teams, so conditions name topologies by string; a test checks that
every condition's topology is registered here. The team topologies register with `@topology`; the
replay kind (teams/_replay.py) and a user's team (teams/_user_team.py) register entries without a
builder, so compatibility and call counts of every topology come from here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
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


# Which condition transforms a topology can run: a hop transform runs anywhere a handoff is rewritten;
# group framing needs peers; plan assimilation needs a plan to fold into. W's `gate` runs under every
# team topology of ours: it runs that topology's own condition's team (scenarios.workflow_base).
HOP_TRANSFORMS = frozenset({"verbatim", "summary", "schema", "ownership_summary", "ownership_deferral", "precedent"})
GROUP_TRANSFORMS = frozenset({"consensus", "dissent"})
PLAN_TRANSFORMS = frozenset({"deadline_plan", "restart"})
GATE_TRANSFORMS = frozenset({"gate"})

# The transformer model calls a topology makes with these (checked, defaults filled) parameters.
CallCount = Callable[[Mapping[str, Any]], int]


@dataclass(frozen=True)
class TopologyInfo:
    """Everything the project knows about one topology, in one place: its parameters with their types,
    defaults, bounds and checks, which condition transforms it can run, and how many transformer model
    calls it makes. `parse_topology` checks a topology's parameters against it once; builders and
    `transformer_calls` then read the checked parameters as they are."""

    name: str
    builder: Callable[[TopologyContext, dict[str, Any]], TeamPlan] | None  # None: not a team (replay, a user's team)
    params: dict[str, type]
    defaults: dict[str, Any]
    description: str
    compatible: frozenset[str]  # the condition transforms it can run
    calls: CallCount  # transformer model calls per episode (`sweep --dry-run`'s cost)
    # Inclusive (low, high) per integer parameter. The high end keeps a typo (hops=1000) from building a
    # team AutoGen cannot run (its graph code recurses once per node) or a sweep nobody meant to pay for.
    bounds: dict[str, tuple[int, int]] = field(default_factory=dict)
    # Checks the other parameters' values (an `order` from a fixed set…); raises ValueError naming one.
    check: Callable[[dict[str, Any]], None] | None = None
    # The allowed values of each parameter that takes one of a fixed set (for `list topologies`).
    choices: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def check_params(self, params: dict[str, Any]) -> None:
        """Bounds, then the topology's own check, of a full parameter set.

        Raises:
            ValueError: naming the topology, the parameter and its allowed range.
        """
        for key, (low, high) in self.bounds.items():
            value = params.get(key)
            if isinstance(value, int) and not low <= value <= high:
                raise ValueError(f"topology {self.name}: parameter '{key}' must be between {low} and {high}, "
                                 f"got {value}")
        if self.check is not None:
            self.check(params)


_REGISTRY: dict[str, TopologyInfo] = {}


def register(info: TopologyInfo) -> TopologyInfo:
    """Add a topology (a team builder, or an episode kind with none: replay, a user's team).

    Raises:
        ValueError: the name is already registered.
    """
    if info.name in _REGISTRY:
        raise ValueError(f"topology '{info.name}' is already registered")
    _REGISTRY[info.name] = info
    return info


def topology(name: str, *, params: dict[str, type], defaults: dict[str, Any], description: str,
             compatible: frozenset[str], calls: CallCount, bounds: dict[str, tuple[int, int]] | None = None,
             check: Callable[[dict[str, Any]], None] | None = None,
             choices: dict[str, tuple[str, ...]] | None = None,
             ) -> Callable[[Callable[..., TeamPlan]], Callable[..., TeamPlan]]:
    """Register a team builder under `name`; a duplicate name raises ValueError.

    `bounds` gives the inclusive range of each integer parameter and `check` validates the others;
    `parse_topology` applies both, so a bad value fails before any team is built and the builder
    receives checked parameters (defaults filled). `compatible` names the condition transforms it can
    run; `calls` counts its transformer model calls from those parameters.
    """

    def deco(fn: Callable[..., TeamPlan]) -> Callable[..., TeamPlan]:
        register(TopologyInfo(name, fn, params, defaults, description, compatible, calls, dict(bounds or {}),
                              check, dict(choices or {})))
        return fn

    return deco


def topology_names() -> list[str]:
    """The team topologies (those with a builder), as `list topologies` shows them."""
    return sorted(n for n, info in _REGISTRY.items() if info.builder is not None)


def get_topology(name: str) -> TopologyInfo:
    """The registered topology `name`: a team topology, `replay` or `team` (a user's team).

    Raises:
        LookupError: an unknown name, listing the known ones.
    """
    try:
        return _REGISTRY[name]
    except KeyError:
        raise LookupError(f"unknown topology '{name}'; known: {', '.join(sorted(_REGISTRY))}") from None


def compatible_topologies(transform: str) -> list[str]:
    """The registered topologies that can run a condition transform, sorted."""
    return sorted(n for n, info in _REGISTRY.items() if transform in info.compatible)


def check_compatible(condition: Condition, name: str) -> None:
    """Whether `condition` can run under topology `name`.

    Raises:
        LookupError: an unknown topology.
        ValueError: naming the condition, its transform and the topologies that can run it.
    """
    if condition.transform not in get_topology(name).compatible:
        raise ValueError(
            f"condition {condition.id} ({condition.transform}) cannot run under topology '{name}'; "
            f"compatible: {', '.join(compatible_topologies(condition.transform))}"
        )
