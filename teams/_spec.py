"""Episode inputs and their key: a digest of exactly what determines the episode."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from mustmaybe.agents import EndpointConfig, ModelSpec, RoleParams, StructuredMode, parse_model_spec
from mustmaybe.scenarios import Condition, Scenario, get_condition, task_hash

from ._record import ROLES, TopologySpec
from ._registry import TopologyInfo, get_topology
from ._topologies import COMPATIBLE


class EpisodeSpec(BaseModel):
    """task × condition × topology × role-models × seed (plus the parameters that change outputs)."""

    model_config = ConfigDict(frozen=True)

    task: str
    task_hash: str
    condition: str
    topology: TopologySpec
    seed: int
    models: dict[str, str] = Field(description="Canonical model spec per role.")
    params: dict[str, RoleParams] = Field(default_factory=dict)
    structured: dict[str, StructuredMode] = Field(default_factory=dict, description="Per-role structured mode.")
    twin: bool = False

    def key(self) -> str:
        """sha256 of the canonical JSON of the inputs: same inputs, same key, in any process."""
        body = self.model_dump(mode="json")
        return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


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


def _explicit_params(text: str) -> tuple[TopologyInfo, dict[str, Any]]:
    """`NAME[:key=value,...]` → the registered topology and the parameters the text sets, coerced."""
    name, _, rest = text.partition(":")
    info = get_topology(name.strip())
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


def check_topology_text(text: str) -> None:
    """Check `NAME[:key=value,...]` on its own: name, parameter names and types, and bounds.

    A sweep checks each listed topology with this, so a bad one fails the plan even where no
    listed condition can run under it.

    Raises:
        LookupError: unknown topology.
        ValueError: a parameter that is unknown, of the wrong type or out of bounds.
    """
    if text == "default":
        return
    info, explicit = _explicit_params(text)
    _check_params(info, {**info.defaults, **explicit})


def parse_topology(text: str | None, condition: Condition) -> TopologySpec:
    """`None`/'default' → the condition's own topology; else `NAME[:key=value,...]`, checked."""
    if text is None or text == "default":
        info = get_topology(condition.topology)
        params = {**info.defaults, **condition.topology_params}
        _check_params(info, params)
        return TopologySpec(name=info.name, params=params)
    info, explicit = _explicit_params(text)
    params = dict(info.defaults)
    if info.name == condition.topology:
        params.update(condition.topology_params)
    params.update(explicit)
    _check_params(info, params)
    if condition.transform not in COMPATIBLE.get(info.name, frozenset()):
        ok = sorted(t for t, transforms in COMPATIBLE.items() if condition.transform in transforms)
        raise ValueError(
            f"condition {condition.id} ({condition.transform}) cannot run under topology '{info.name}'; "
            f"compatible: {', '.join(ok)}"
        )
    return TopologySpec(name=info.name, params=params)


def episode_spec(
    scenario: Scenario,
    condition: Condition | str,
    *,
    models: Mapping[str, str],
    seed: int = 1,
    topology: str | TopologySpec | None = None,
    params: Mapping[str, RoleParams] | None = None,
    endpoints: Mapping[str, EndpointConfig] | None = None,
    twin: bool = False,
) -> EpisodeSpec:
    """The inputs (and so the key) of the episode `run_episode` would run with these arguments.

    Runs nothing: the sweep uses it to know which planned episodes a run folder already holds.

    Raises:
        LookupError: unknown condition or topology.
        ValueError: a model spec, topology parameter or condition/topology pair that is not valid.
    """
    cond = get_condition(condition) if isinstance(condition, str) else condition
    twin = twin or cond.family == "twin"
    topo = topology if isinstance(topology, TopologySpec) else parse_topology(topology, cond)
    specs: dict[str, ModelSpec] = {r: parse_model_spec(models[r]) for r in ROLES}
    role_params = {r: (params or {}).get(r, RoleParams()) for r in ROLES}
    eps = endpoints or {}
    structured: dict[str, StructuredMode] = {
        r: e.structured_output for r in ROLES
        if specs[r].backend == "openai" and (e := eps.get(specs[r].endpoint)) is not None
    }
    return EpisodeSpec(task=scenario.id, task_hash=task_hash(scenario), condition=cond.id, topology=topo,
                       seed=seed, models={r: str(specs[r]) for r in ROLES}, params=role_params,
                       structured=structured, twin=twin)
