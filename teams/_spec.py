"""Resolving an episode's inputs once: topology text, model specs and parameters into an `EpisodeSpec`."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

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

from ._registry import TopologyInfo, get_topology, topology_names
from ._replay import REPLAY
from ._topologies import COMPATIBLE
from ._user_team import is_team_text, team_source, team_topology


def _coerce(name: str, key: str, value: str, kind: type) -> Any:
    if kind is bool:
        if value.lower() in ("1", "true", "yes", "on"):
            return True
        if value.lower() in ("0", "false", "no", "off"):
            return False
        raise ValueError(f"topology {name}: parameter '{key}' must be true or false, not '{value}'")
    try:
        return kind(value)
    except ValueError:
        raise ValueError(f"topology {name}: parameter '{key}' must be {kind.__name__}, not '{value}'") from None


def _check_params(info: TopologyInfo, params: dict[str, Any]) -> None:
    # Checked here, where every topology string is parsed, so `run` and `sweep --dry-run` reject a
    # bad size or value before anything is drawn or planned, not when the team is built.
    for key, (low, high) in info.bounds.items():
        value = params.get(key)
        if isinstance(value, int) and not low <= value <= high:
            raise ValueError(f"topology {info.name}: parameter '{key}' must be between {low} and {high}, got {value}")
    if info.check is not None:
        info.check(params)


def _info(name: str) -> TopologyInfo:
    """A team topology from the registry, or the replay kind (which runs its base condition's team)."""
    if name == REPLAY.name:
        return REPLAY
    try:
        return get_topology(name)
    except LookupError:
        known = ", ".join(sorted([*topology_names(), REPLAY.name]))
        raise LookupError(f"unknown topology '{name}'; known: {known}") from None


def _explicit_params(text: str) -> tuple[TopologyInfo, dict[str, Any]]:
    """`NAME[:key=value,...]` → the topology and the parameters the text sets, coerced."""
    name, _, rest = text.partition(":")
    info = _info(name.strip())
    params: dict[str, Any] = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = (x.strip() for x in item.partition("="))
        if not eq:
            raise ValueError(f"topology {info.name}: expected key=value, got '{item}'")
        if key not in info.params:
            known = ", ".join(info.params) or "none"
            raise ValueError(f"topology {info.name}: unknown parameter '{key}' (known: {known})")
        params[key] = _coerce(info.name, key, value, info.params[key])
    return info, params


def check_topology_text(text: str, *, base_dir: Path | None = None, trust: bool = False) -> None:
    """Check `NAME[:key=value,...]` on its own: name, parameter names and types, and bounds.

    A sweep checks each listed topology with this, so a bad one fails the plan even where no
    listed condition can run under it.

    Raises:
        LookupError: unknown topology.
        ValueError: a parameter that is unknown, of the wrong type or out of bounds.
    """
    if text == "default":
        return
    if is_team_text(text):  # a user's team: the file is read and checked (teams/_user_team.py)
        team_topology(text, base_dir=base_dir, trust=trust)
        return
    info, explicit = _explicit_params(text)
    _check_params(info, {**info.defaults, **explicit})


def parse_topology(text: str | None, condition: Condition, *, base_dir: Path | None = None,
                   trust: bool = False) -> TopologySpec:
    """`None`/'default' → the condition's own topology; else `NAME[:key=value,...]`, checked.

    `team:PATH.json` reads a user's team (relative to `base_dir` when given); `trust` admits
    components that run code or act (`--trust-components`).
    """
    if is_team_text(text):
        assert text is not None
        topo, _ = team_topology(text, base_dir=base_dir, trust=trust)
        _check_compatible(condition, topo.name)
        return topo
    if text is None or text == "default":
        info = _info(condition.topology)
        params = {**info.defaults, **condition.topology_params}
        _check_params(info, params)
        return TopologySpec(name=info.name, params=params)
    info, explicit = _explicit_params(text)
    params = dict(info.defaults)
    if info.name == condition.topology:
        params.update(condition.topology_params)
    params.update(explicit)
    _check_params(info, params)
    _check_compatible(condition, info.name)
    return TopologySpec(name=info.name, params=params)


def _check_compatible(condition: Condition, name: str) -> None:
    if condition.transform not in COMPATIBLE.get(name, frozenset()):
        ok = sorted(t for t, transforms in COMPATIBLE.items() if condition.transform in transforms)
        raise ValueError(
            f"condition {condition.id} ({condition.transform}) cannot run under topology '{name}'; "
            f"compatible: {', '.join(ok)}"
        )


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
    topology: str | TopologySpec | None = None,
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
        topology: None for the condition's own topology, or `NAME[:k=v,...]` / a TopologySpec.
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
