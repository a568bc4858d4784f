"""Resolving an episode's inputs once: topology, model specs and parameters into an `EpisodeSpec`."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from mustmaybe.agents import prompts
from mustmaybe.records import (
    ROLES,
    TEAM_TOPOLOGY,
    EndpointConfig,
    EpisodeSpec,
    ModelSpec,
    ReplayArm,
    Role,
    RoleParams,
    Substrate,
    SubstrateError,
    TopologySpec,
    WordingRecord,
    parse_model_spec,
    parse_substrate,
)
from mustmaybe.scenarios import (
    BASE_WORDING,
    Condition,
    Scenario,
    get_condition,
    task_wording,
    task_wordings,
    wording_problem,
    workflow_base,
)

from ._replay import REPLAY
from ._topology_text import TopologyRequest, parse_topology
from ._user_team import team_source


def wording_names() -> list[str]:
    """The wording variants a run can select: base, and each one with both role prompts and task text."""
    prompted = set(prompts.prompt_wordings())
    return [w for w in task_wordings() if w in prompted]


def check_wording(wording: str) -> None:
    """Raises LookupError naming the known wordings when `wording` is not one."""
    if wording not in wording_names():
        raise LookupError(f"unknown wording '{wording}'; known: {', '.join(wording_names())}")


def wording_record(scenario: Scenario, wording: str) -> WordingRecord | None:
    """The record of an episode's wording (None for the base wording): the digests of both texts.

    Raises:
        LookupError: an unknown wording, or a task with no (valid) variant in it.
    """
    if wording == BASE_WORDING:
        return None
    check_wording(wording)
    task = task_wording(scenario, wording)
    assert task is not None
    p = prompts.wording_digest(wording)
    both = hashlib.sha256(f"{p}:{task.digest}".encode()).hexdigest()
    return WordingRecord(id=wording, digest=both, prompts=p, task=task.digest)


def replay_arm(topology: TopologySpec) -> ReplayArm | None:
    """The fixed-artifact arm a `replay` topology names (None for a team topology)."""
    if topology.name != REPLAY.name:
        return None
    p = topology.params
    base = get_condition(str(p.get("base", "S3")))
    return ReplayArm(base=base, base_topology=parse_topology(None, base), restore=str(p.get("restore", "none")),
                     verify=str(p.get("verify", "plain")), enforce=bool(p.get("enforce", False)),
                     route=int(p["route"]) if "route" in p else None)


def episode_spec(
    scenario: Scenario,
    condition: Condition | str,
    *,
    models: Mapping[str, str | ModelSpec],
    seed: int = 1,
    topology: str | TopologyRequest | TopologySpec | None = None,
    params: Mapping[str, RoleParams] | None = None,
    endpoints: Mapping[str, EndpointConfig] | None = None,
    twin: bool = False,
    configs: Mapping[str, str] | None = None,
    panel: str | None = None,
    wording: str = BASE_WORDING,
    substrate: Substrate | str = "autogen",
) -> EpisodeSpec:
    """Resolve one episode's inputs into the `EpisodeSpec` every later step reads (and its key).

    Runs nothing: `run` and the sweep planner call it once per episode and pass the result down.

    Args:
        scenario: the task.
        condition: a condition id or Condition from the registry.
        models: model spec per role (`reviewer`, `transformer`, `executor`), as text or parsed.
        seed: episode seed; also the models' sampling seed unless a role sets its own.
        topology: None for the condition's own topology, `NAME[:k=v,...]`, a `TopologyRequest` (text read
            once by `read_topology`) or a TopologySpec already checked by `parse_topology`.
        params: generation parameters per role.
        endpoints: limits and structured-output mode per OpenAI-compatible base URL.
        twin: run the benign twin (the blocker is resolved).
        configs: the named model configuration per role (a label for the record, not an input).
        panel: the evidence panel the model configuration is marked with (a label, not an input).
        wording: the paraphrase panel's wording variant of the prompts and the task's surface text.
        substrate: the framework that runs the team and the executor (`autogen`, `langgraph`).

    Raises:
        LookupError: unknown condition, topology or wording, or a task without a variant in the wording.
        ValueError: a model spec, topology parameter or condition/topology pair that is not valid, or a
            substrate that is unknown or cannot run the topology (`SubstrateError`).
    """
    cond = get_condition(condition) if isinstance(condition, str) else condition
    twin = twin or cond.family == "twin"
    topo = topology if isinstance(topology, TopologySpec) else parse_topology(topology, cond)
    specs: dict[Role, ModelSpec] = {
        r: m if isinstance(m := models[r], ModelSpec) else parse_model_spec(m) for r in ROLES
    }
    team = team_source(topo) if topo.name == TEAM_TOPOLOGY else None
    for r in ROLES:
        if specs[r].backend == "team" and (r != "transformer" or team is None):
            raise ValueError(f"model 'team' (a user team's own clients) serves only the transformer role under "
                             f"--topology team:PATH.json, not the {r} under topology {topo.name}")
    eps = endpoints or {}
    role_endpoints = {r: e for r in ROLES
                      if specs[r].backend == "openai" and (e := eps.get(specs[r].endpoint)) is not None}
    replay = replay_arm(topo)
    sub = parse_substrate(substrate) if isinstance(substrate, str) else substrate
    check_substrate(sub, topo)
    return EpisodeSpec(scenario=scenario, condition=cond, topology=topo, seed=seed, models=specs,
                       params={r: (params or {}).get(r, RoleParams()) for r in ROLES}, endpoints=role_endpoints,
                       twin=twin, replay=replay, configs=dict(configs or {}), panel=panel,
                       team=team, wording=wording, wording_record=wording_record(scenario, wording), substrate=sub)


def check_substrate(substrate: Substrate, topology: TopologySpec) -> None:
    """Whether `substrate` can run the team of an episode under `topology` (a replay arm: its base
    condition's team); AutoGen runs every registered topology.

    Raises:
        SubstrateError: one line naming the topology and those the substrate runs.
    """
    if substrate == "langgraph":
        from ._langgraph_layouts import LANGGRAPH_TOPOLOGIES

        replay = replay_arm(topology)
        team_topology = replay.base_topology if replay is not None else topology
        if team_topology.name not in LANGGRAPH_TOPOLOGIES:
            raise SubstrateError(f"topology '{team_topology.name}' does not run on substrate langgraph; it runs: "
                                 f"{', '.join(LANGGRAPH_TOPOLOGIES)} (and replay arms over them)")


def material_problem(scenario: Scenario, cond: Condition, wording: str = BASE_WORDING) -> str | None:
    """Why the task lacks pressure material this condition needs, or a variant in `wording` (None if it
    has it all)."""
    if wording != BASE_WORDING and (why := wording_problem(scenario, wording)) is not None:
        return why
    if cond.family == "workflow":  # W needs what its topology's base needs (its default: direct, P0)
        return material_problem(scenario, workflow_base(cond.topology))
    if cond.topology == REPLAY.name:  # a replay arm needs what its base condition needs
        base = {**REPLAY.defaults, **cond.topology_params}["base"]
        return material_problem(scenario, get_condition(str(base)))
    try:
        prompts.pressure_context(scenario, cond.transformer_sees + cond.executor_sees)
        if cond.topology != "direct":
            role = "coordinator" if cond.transform in ("consensus", "dissent") else "transformer"
            prompts.transformer_system(cond, scenario, role=role)
    except (ValueError, KeyError) as exc:
        return str(exc)
    return None
