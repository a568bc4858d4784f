"""Build a user's team (`team:PATH.json`) as an episode's transformation stage, under the sidecar.

The episode is ours at both ends: our reviewer reads the full record and states the blocker (a
one-agent team on the episode's runtime); the user's team gets that statement alone as its task
(a message from `reviewer`), and its final message is the handoff our executor acts on.

Two things AutoGen's loader cannot do are done around it, through its public component API:

- The team runs on the episode's runtime, where the sidecar watches every message. A loaded team
  makes its own runtime, so its class is loaded through a subclass that passes `runtime=` on.
- Every model client of the JSON is replaced before the agents are built: each model component
  becomes a `ClientSlot`, which loads as the client this episode gives that agent: the role's
  model through our pipeline with `--model transformer=…` (sim, local, an endpoint), else the
  JSON's own client, built from its (sanitized) config. Either way it is wrapped in a
  `RecordingClient`, so the usage, the context-isolation audit and failures read as for our teams.
  A SelectorGroupChat's speaker selection is a transformer call too; on the sim it answers with
  one of the candidate names (sim/_client.py), so a sim sweep exercises the selection path.
"""

from __future__ import annotations

import contextvars
import copy
import importlib
from collections.abc import Callable
from typing import Any, Self

from autogen_agentchat.base import ChatAgent, Team
from autogen_agentchat.messages import BaseChatMessage, StructuredMessage, TextMessage
from autogen_agentchat.teams import BaseGroupChat, DiGraphBuilder, GraphFlow
from autogen_core import CancellationToken, Component, ComponentBase, SingleThreadedAgentRuntime
from autogen_core.models import ChatCompletionClient
from pydantic import BaseModel

from mustmaybe.agents import RecordingClient, prompts
from mustmaybe.records import DEFAULT_OPENAI_BASE_URL, REVIEWER, EpisodeSpec, Role, TeamSource

from ._registry import AgentFactory, TeamPlan
from ._user_team import SLOT_PROVIDER, is_component, provider_of

# make_client(role, agent, hop) -> the episode's client for that agent (teams/_build.py's _Agents.client)
ClientFactory = Callable[[Role, str, int], RecordingClient]

_SLOTS: contextvars.ContextVar[dict[str, ChatCompletionClient] | None] = contextvars.ContextVar(
    "mustmaybe_client_slots", default=None)


class ClientSlotConfig(BaseModel):
    slot: str


class ClientSlot(ComponentBase[ClientSlotConfig], Component[ClientSlotConfig]):
    """Stands in a team's JSON for one model client; loads as the client the episode put in its slot."""

    component_type = "model"
    component_config_schema = ClientSlotConfig
    component_provider_override = SLOT_PROVIDER

    def _to_config(self) -> ClientSlotConfig:  # never dumped: the record keeps the team's own config
        raise NotImplementedError("a client slot is never dumped")

    @classmethod
    def _from_config(cls, config: ClientSlotConfig) -> Self:
        slots = _SLOTS.get()
        if slots is None or config.slot not in slots:
            raise ValueError(f"client slot {config.slot!r} is not filled")
        return slots[config.slot]  # type: ignore[return-value]  # the loader checks it is a ChatCompletionClient


def _slot_owners(component: dict[str, Any], reserved: set[str]) -> list[tuple[list[str | int], str, int]]:
    """(JSON path, agent name, participant index) of every model client: an agent's own clients under
    its name (a second one as `name#2`), the team's speaker-selection client as `selector`."""
    out: list[tuple[list[str | int], str, int]] = []
    seen: dict[str, int] = {}
    names = [p["config"]["name"] for p in component["config"].get("participants", [])]
    selector = next(n for n in ("selector", "selector_model", "team_selector") if n not in names and n not in reserved)

    def walk(node: Any, path: list[str | int], owner: str, index: int) -> None:
        if is_component(node):
            if node.get("component_type") == "agent":
                owner = str(node["config"].get("name"))
                index = names.index(owner) + 1 if owner in names else index
            elif node.get("component_type") == "model" or (path and path[-1] == "model_client"):
                # Not every client says "model" (AutoGen's replay client says replay_chat_completion_client).
                seen[owner] = seen.get(owner, 0) + 1
                out.append((path, owner if seen[owner] == 1 else f"{owner}#{seen[owner]}", index))
                return
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, [*path, k], owner, index)
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, [*path, i], owner, index)

    walk(component, [], selector, 0)
    return out


def _set(node: Any, path: list[str | int], value: Any) -> None:
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value


def _get(node: Any, path: list[str | int]) -> Any:
    for key in path:
        node = node[key]
    return node


def _team_class(source: TeamSource) -> type[BaseGroupChat]:
    module, _, name = provider_of(source.component).rpartition(".")
    try:
        cls = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"team:{source.path}: cannot load team class {module}.{name} ({exc})") from None
    if not (isinstance(cls, type) and issubclass(cls, BaseGroupChat)):
        raise ValueError(f"team:{source.path}: {module}.{name} is not an AutoGen group chat team")
    return cls


def _on_runtime(cls: type[BaseGroupChat], runtime: SingleThreadedAgentRuntime) -> type[BaseGroupChat]:
    """`cls` whose instances run on `runtime` (where the sidecar is) and know their agents' structured
    message types, neither of which a dump keeps (AUTOGEN_NOTES §7)."""

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        participants = kwargs.get("participants", args[0] if args else [])
        types: list[Any] = []
        for p in participants:
            t = getattr(p, "_output_content_type", None)  # AssistantAgent keeps it private
            if isinstance(t, type) and issubclass(t, BaseModel):
                types.append(StructuredMessage[t])  # type: ignore[valid-type]
        if types:
            kwargs.setdefault("custom_message_types", types)
        kwargs["runtime"] = runtime
        cls.__init__(self, *args, **kwargs)

    return type(cls.__name__, (cls,), {"__init__": __init__, "__module__": cls.__module__})


def _own_client(source: TeamSource, comp: dict[str, Any], agent: str, timeout_s: float) -> RecordingClient:
    """The JSON's own client (keys from the environment: the config holds none), recorded."""
    try:
        inner = ChatCompletionClient.load_component(comp)
    except Exception as exc:
        raise ValueError(f"team:{source.path}: the model client of '{agent}' cannot be built "
                         f"({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})") from None
    return RecordingClient(inner=inner, agent=agent, timeout_s=timeout_s, endpoint=_endpoint(comp))


def _endpoint(comp: dict[str, Any]) -> str:
    """Where a JSON client's calls go, for its errors: its base URL, OpenAI's API, or its class."""
    base_url = comp.get("config", {}).get("base_url")
    if base_url:
        return str(base_url)
    kind = provider_of(comp).rsplit(".", 1)[-1]
    return DEFAULT_OPENAI_BASE_URL if kind == "OpenAIChatCompletionClient" else kind


def own_client_problem(source: TeamSource) -> str | None:
    """Why the team's own model clients cannot be built here (a key variable unset, say), or None.

    Checked before anything runs, so a run says it in one line instead of failing its first episode.
    """
    for path, agent, _ in _slot_owners(copy.deepcopy(source.component), set()):
        try:
            _own_client(source, _get(source.component, path), agent, 1.0)
        except ValueError as exc:
            return str(exc)
    return None


def _sim_selector(spec: EpisodeSpec, agent: str) -> RecordingClient:
    from mustmaybe.sim import SimContext, sim_client

    params = spec.params["transformer"]
    client = sim_client(spec.models["transformer"].name, role="selector", agent=agent,
                        seed=params.seed if params.seed is not None else spec.seed,
                        context=SimContext(condition=spec.team_condition.id, transform=spec.team_condition.transform))
    return RecordingClient(inner=client, agent=agent,
                           timeout_s=spec.params["transformer"].timeout_s, endpoint="sim")


def _reviewer_flow(make_agent: AgentFactory, runtime: SingleThreadedAgentRuntime,
                   wording: str) -> tuple[GraphFlow, ChatAgent]:
    # Our reviewer reads the episode's wording like every agent of ours; the user's team keeps its own prompts.
    rev = make_agent(REVIEWER, "reviewer", prompts.render("reviewer", wording), include_sources=["user"])
    g = DiGraphBuilder()
    g.add_node(rev)
    return GraphFlow([rev], graph=g.build(), runtime=runtime), rev


def build_user_team(spec: EpisodeSpec, make_agent: AgentFactory, make_client: ClientFactory,
                    clients: dict[str, RecordingClient], roles: dict[str, Role],
                    runtime: SingleThreadedAgentRuntime) -> TeamPlan:
    """The reviewer, then the user's team on the episode's runtime, as one plan whose `run` runs both.

    `clients` and `roles` are the episode's (by agent name): the slots' clients go in them.
    """
    source = spec.team
    assert source is not None, "a team topology without its loaded team"
    override = spec.models["transformer"].backend != "team"
    component = copy.deepcopy(source.component)
    slots: dict[str, ChatCompletionClient] = {}
    for i, (path, agent, hop) in enumerate(_slot_owners(component, set(roles))):
        original = _get(component, path)
        is_selector = hop == 0
        if not override:
            client = _own_client(source, original, agent, spec.params["transformer"].timeout_s)
        elif is_selector and spec.models["transformer"].backend == "sim":
            client = _sim_selector(spec, agent)
        else:
            client = make_client("transformer", agent, hop)
        clients[agent] = client
        roles.setdefault(agent, "transformer")
        slot = f"slot{i}"
        slots[slot] = client
        _set(component, path, {"provider": SLOT_PROVIDER, "component_type": "model", "config": {"slot": slot}})
    for name in source.participants:
        roles[name] = "transformer"
    cls = _team_class(source)
    token = _SLOTS.set(slots)
    try:
        config = getattr(cls, "component_config_schema").model_validate(component["config"])  # noqa: B009
        team = _on_runtime(cls, runtime)._from_config(config)  # type: ignore[attr-defined]
    except ValueError:
        raise
    except Exception as exc:
        first = str(exc).splitlines()[0] if str(exc) else ""
        raise ValueError(f"team:{source.path}: AutoGen cannot build the team ({type(exc).__name__}: {first})") from None
    finally:
        _SLOTS.reset(token)
    reviewer_flow, reviewer = _reviewer_flow(make_agent, runtime, spec.wording)
    plan = TeamPlan(team=team, roles={REVIEWER: "reviewer", **dict.fromkeys(source.participants, "transformer")},
                    artifact_agent=source.participants[-1], participants=[reviewer])
    plan.run = _runner(plan, reviewer_flow, team, source)
    return plan


def _runner(plan: TeamPlan, reviewer_flow: GraphFlow, team: Team, source: TeamSource,
            ) -> Callable[[str, CancellationToken], Any]:
    async def run(task: str, token: CancellationToken) -> None:
        review = await reviewer_flow.run(task=task, cancellation_token=token)
        said = [m for m in review.messages if isinstance(m, BaseChatMessage) and m.source == REVIEWER]
        if not said:
            return  # no statement: the episode reports that nothing was handed over
        statement = TextMessage(content=said[-1].to_text(), source=REVIEWER)
        result = await team.run(task=statement, cancellation_token=token)
        last = [m for m in result.messages if isinstance(m, BaseChatMessage) and m.source in source.participants]
        if last:
            plan.artifact_agent = last[-1].source  # the team's final message is the handoff

    return run
