"""Model configurations of a sweep file: request parameters per endpoint and per named model, and panels.

A role's parameters are layered, each layer setting only the keys it names (docs/sweep-files.md):

    RoleParams defaults < [params] < [[endpoints]] params < [params.<role>] < [models.<name>] params

A role list entry is a model spec or the name of a `[models.<name>]` table, so one endpoint can run
as several configurations in one sweep (a thinking and a non-thinking variant of one model). The
evidence panel an episode belongs to (`main`, `validation`, …) is the one its roles' `[models.<name>]`
tables or `[[endpoints]]` entries mark (a configuration's mark over its endpoint's); when none marks
one, the file's top-level `panel`. Two roles of one episode marking different panels is an error.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mustmaybe.records import EndpointConfig, ModelSpec, RoleParams

PANEL_PATTERN = r"^[a-z][a-z0-9_-]{0,31}$"
CONFIG_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"
# Names a model spec can have, so a configuration named like one would be ambiguous in a role list.
_SPEC_WORDS = frozenset({"sim", "local"})


class SweepEndpoint(EndpointConfig):
    """An `[[endpoints]]` entry: the endpoint's limits, plus the panel and request parameters of every
    role that calls it (the runtime endpoint is `config()`, without them)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    panel: str | None = Field(default=None, pattern=PANEL_PATTERN,
                              description="The evidence panel of the configurations calling it: main, validation, …")
    params: dict[str, Any] = Field(default_factory=dict,
                                   description="Request parameters (the keys of [params]) for every role calling it.")

    def config(self) -> EndpointConfig:
        return EndpointConfig.model_validate(self.model_dump(exclude={"panel", "params"}))


class ModelConfig(BaseModel):
    """A `[models.<name>]` table: a model spec run with its own parameters, under its own name."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    spec: str = Field(description="The model spec (sim, sim:<profile>, local, openai:<model>[@<base_url>]).")
    panel: str | None = Field(default=None, pattern=PANEL_PATTERN, description="Its evidence panel: main, validation.")
    params: dict[str, Any] = Field(default_factory=dict,
                                   description="Request parameters (the keys of [params]), over every other layer.")


@dataclass(frozen=True)
class RoleChoice:
    """One entry of a role list, resolved: the spec, and the configuration name when it named one."""

    spec: ModelSpec
    name: str | None = None


def param_problems(raw: Mapping[str, Any], where: str) -> list[str]:
    """Problems of a table of RoleParams keys (each layer is checked alone, naming its own keys)."""
    from ._file import pydantic_problems

    try:
        RoleParams.model_validate(dict(raw))
    except ValidationError as err:
        return pydantic_problems(err, where)
    return []


def config_problems(models: Any, endpoints: Any, roles: Any) -> list[str]:
    """Names and parameters of `[models.<name>]`, the parameters of `[[endpoints]]`, read from the raw file."""
    import re

    problems: list[str] = []
    for name, cfg in (models.items() if isinstance(models, dict) else ()):
        if not re.match(CONFIG_NAME_PATTERN, name) or name in _SPEC_WORDS:
            problems.append(f"models.{name}: a configuration name is letters, digits, '_', '.', '-' and not "
                            f"'sim' or 'local' (it must not read as a model spec)")
        if isinstance(cfg, dict) and isinstance(cfg.get("params"), dict):
            problems += param_problems(cfg["params"], f"models.{name}.params")
    for i, ep in enumerate(endpoints if isinstance(endpoints, list) else []):
        if isinstance(ep, dict) and isinstance(ep.get("params"), dict):
            problems += param_problems(ep["params"], f"endpoints[{i}].params")
    if isinstance(models, dict) and isinstance(roles, dict):
        used = {e for specs in roles.values() if isinstance(specs, list) for e in specs if isinstance(e, str)}
        for name in models:
            if name not in used:
                problems.append(f"models.{name}: not used by any role (name it in [roles])")
    return problems


def role_choices(roles: Mapping[str, list[str]], models: Mapping[str, ModelConfig],
                 specs: Mapping[str, ModelSpec]) -> dict[str, list[RoleChoice]]:
    """Each role list's entries as specs with their configuration names (the file was checked, and `specs`
    holds each entry's spec as the check parsed it)."""
    return {role: [RoleChoice(specs[e], e if e in models else None) for e in entries]
            for role, entries in roles.items()}


def layered_params(role: str, choice: RoleChoice, *, defaults: Mapping[str, Any], per_role: Mapping[str, Any],
                   endpoints: Mapping[str, SweepEndpoint], models: Mapping[str, ModelConfig]) -> RoleParams:
    """The role's parameters for this choice, each layer setting only the keys it names (see the module)."""
    merged: dict[str, Any] = dict(defaults)
    ep = endpoints.get(choice.spec.endpoint) if choice.spec.backend == "openai" else None
    if ep is not None:
        merged.update(ep.params)
    merged.update(per_role.get(role) or {})
    if choice.name is not None:
        merged.update(models[choice.name].params)
    return RoleParams.model_validate(merged)


def choice_panel(choice: RoleChoice, *, endpoints: Mapping[str, SweepEndpoint],
                 models: Mapping[str, ModelConfig]) -> str | None:
    """The panel a role's choice is marked with: its configuration's, else its endpoint entry's (None: neither)."""
    if choice.name is not None and models[choice.name].panel is not None:
        return models[choice.name].panel
    ep = endpoints.get(choice.spec.endpoint) if choice.spec.backend == "openai" else None
    if ep is not None and ep.panel is not None:
        return ep.panel
    return None
