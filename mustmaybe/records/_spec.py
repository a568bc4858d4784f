"""The resolved inputs of one episode and their key.

The CLI and the sweep planner resolve their arguments into an `EpisodeSpec` once
(`mustmaybe.teams.episode_spec`: condition, topology, model specs, parameters, endpoints) and pass
that object down: the team builder, the runner and the record read it; nothing parses a string again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from mustmaybe.scenarios import BASE_WORDING, Condition, Scenario, task_hash, worded, workflow_base

from ._episode import ROLES, Role, TopologySpec, WordingRecord
from ._models import EndpointConfig, ModelSpec, RoleParams, StructuredMode
from ._substrate import DEFAULT_SUBSTRATE, Substrate
from ._team import TeamSource


@dataclass(frozen=True)
class ReplayArm:
    """A fixed-artifact arm (R-*, V-*): its base condition's team makes the degraded artifact, then
    `restore` names the fields repaired before the executor acts and `verify` its control."""

    base: Condition  # the condition whose team produces the artifact
    base_topology: TopologySpec  # that condition's own topology, resolved
    restore: str = "none"
    verify: str = "plain"
    enforce: bool = False  # the verify arm's check is also done in code (V-*-enforced)
    route: int | None = None  # appendix E.1's executor route: shifts only the executor's sampling seed


@dataclass(frozen=True)
class EpisodeSpec:
    """task × condition × topology × role-models × seed (× substrate), resolved (plus what changes outputs).

    `key` is the sha256 of the canonical JSON of exactly the inputs (`inputs()`): same inputs,
    same key, in any process. The scenario, condition and endpoint objects are carried so no
    later step looks them up again; only their ids, hash and structured-output mode enter the key.
    """

    scenario: Scenario
    condition: Condition
    topology: TopologySpec
    seed: int
    models: Mapping[Role, ModelSpec]
    params: Mapping[Role, RoleParams]
    endpoints: Mapping[Role, EndpointConfig] = field(default_factory=dict)
    twin: bool = False
    replay: ReplayArm | None = None
    # Labels for the record, not inputs: the named model configuration per role and the evidence panel
    # (sweep files' [models.<name>] and `panel` keys). Two names for one configuration are one episode.
    configs: Mapping[str, str] = field(default_factory=dict)
    panel: str | None = None
    # A user team (`team:PATH.json`): its checked, sanitized component config. Its digest is in
    # `topology.params`, so it enters the key there; the config itself is carried, not hashed again.
    team: TeamSource | None = field(default=None, compare=False)
    # The paraphrase panel (appendix G): the wording variant of the role prompts and the task's surface
    # text the agents read, and the digest of both texts. Only a non-base wording enters the key, so every
    # base episode keeps the key it always had.
    wording: str = BASE_WORDING
    wording_record: WordingRecord | None = None
    substrate: Substrate = DEFAULT_SUBSTRATE  # the framework that runs the team and the executor

    @property
    def task(self) -> str:
        return self.scenario.id

    @cached_property
    def task_hash(self) -> str:
        return task_hash(self.scenario)

    @cached_property
    def surface(self) -> Scenario:
        """The task as the agents read it in this episode's wording (the checker reads `scenario`)."""
        return worded(self.scenario, self.wording)

    @property
    def workflow(self) -> bool:
        """True for the explicit-workflow-state arm (W): a gate record travels beside the prose."""
        return self.condition.family == "workflow"

    @property
    def team_condition(self) -> Condition:
        """The condition whose team runs: a replay arm's base, W's base under its topology, else itself."""
        if self.replay is not None:
            return self.replay.base
        if self.workflow:
            return workflow_base(self.topology.name)
        return self.condition

    @property
    def team_topology(self) -> TopologySpec:
        return self.replay.base_topology if self.replay is not None else self.topology

    @property
    def model_names(self) -> dict[str, str]:
        """Canonical model spec string per role (the record's `models`)."""
        return {r: str(self.models[r]) for r in ROLES}

    @property
    def simulated(self) -> bool:
        own = self.team is not None and self.team.simulated and self.models["transformer"].backend == "team"
        return own or any(m.simulated for m in self.models.values())

    @property
    def structured(self) -> dict[str, StructuredMode]:
        """Per role, the structured-output mode of its configured OpenAI-compatible endpoint."""
        return {r: e.structured_output for r, e in self.endpoints.items()}

    def endpoint(self, role: Role) -> EndpointConfig | None:
        return self.endpoints.get(role)

    def inputs(self) -> dict[str, Any]:
        """Exactly what determines the episode, as JSON (the body of the key)."""
        out: dict[str, Any] = {
            "task": self.task, "task_hash": self.task_hash, "condition": self.condition.id,
            "topology": self.topology.model_dump(mode="json"), "seed": self.seed, "models": self.model_names,
            "params": {r: self.params[r].model_dump(mode="json") for r in ROLES},
            "structured": self.structured, "twin": self.twin,
            # Only a non-default substrate enters the key, so every AutoGen episode keeps the key it had.
            **({"substrate": self.substrate} if self.substrate != DEFAULT_SUBSTRATE else {}),
        }
        if self.wording != BASE_WORDING:
            out["wording"] = {"id": self.wording,
                              "digest": self.wording_record.digest if self.wording_record else None}
        return out

    @cached_property
    def key(self) -> str:
        body = json.dumps(self.inputs(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(body.encode()).hexdigest()
