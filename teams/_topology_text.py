"""`--topology NAME[:key=value,...]` read once, at the edge, into a `TopologyRequest`; each condition it
pairs with then resolves it into its checked `TopologySpec` without reading the text again.

The registry (teams/_registry.py) owns every parameter's type, default and bounds and each topology's
compatibility with conditions; this module only reads text against it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mustmaybe.records import TEAM_TOPOLOGY, TopologySpec
from mustmaybe.scenarios import Condition

from ._registry import TopologyInfo, check_compatible, get_topology
from ._user_team import is_team_text, team_topology

DEFAULT = "default"


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


def _info(name: str) -> TopologyInfo:
    # A user's team is named by its file (team:PATH.json), never by its family name with parameters.
    if name == TEAM_TOPOLOGY:
        raise LookupError("topology team: expected team:PATH.json (a team's dump_component() JSON)")
    return get_topology(name)


@dataclass(frozen=True)
class TopologyRequest:
    """A topology as the user wrote it, read once: 'default' (each condition's own), a registered
    topology with the parameters the text sets (coerced, names checked), or a user's team (loaded)."""

    text: str
    info: TopologyInfo | None = None  # None: 'default'
    explicit: dict[str, Any] = field(default_factory=dict)
    team: TopologySpec | None = None  # a user's team: its spec (file stem and digest)

    def name_for(self, condition: Condition) -> str:
        """The topology this request runs `condition` under."""
        if self.team is not None:
            return self.team.name
        return condition.topology if self.info is None else self.info.name

    def compatible_with(self, condition: Condition) -> bool:
        return condition.transform in get_topology(self.name_for(condition)).compatible

    def check_alone(self) -> None:
        """Check the text's parameters over the topology's defaults, whichever condition it pairs with (a
        sweep rejects a bad topology even where no listed condition can run under it).

        Raises:
            ValueError: a parameter out of bounds or a value the topology's check refuses.
        """
        if self.info is not None:
            self.info.check_params({**self.info.defaults, **self.explicit})

    def resolve(self, condition: Condition) -> TopologySpec:
        """The checked topology `condition` runs under: defaults, then the condition's own parameters (when
        it is the condition's topology), then the text's, checked against the registry.

        Raises:
            ValueError: a parameter out of bounds, or a condition that cannot run under the topology.
        """
        if self.team is not None:
            check_compatible(condition, self.team.name)
            return self.team
        info = self.info if self.info is not None else get_topology(condition.topology)
        params = dict(info.defaults)
        if info.name == condition.topology:
            params.update(condition.topology_params)
        params.update(self.explicit)
        info.check_params(params)
        if self.info is not None:
            check_compatible(condition, info.name)
        return TopologySpec(name=info.name, params=params)


def read_topology(text: str | None, *, base_dir: Path | None = None, trust: bool = False) -> TopologyRequest:
    """Read `NAME[:key=value,...]`, 'default' (or None) or `team:PATH.json` once: the name, parameter
    names and types (bounds are checked where the parameters are complete: `check_alone`, `resolve`).

    `team:PATH.json` reads a user's team (relative to `base_dir` when given); `trust` admits components
    that run code or act (`--trust-components`).

    Raises:
        LookupError: unknown topology.
        ValueError: a parameter that is unknown, of the wrong type or out of bounds; a bad team file.
    """
    if text is None or text == DEFAULT:
        return TopologyRequest(DEFAULT)
    if is_team_text(text):  # a user's team: the file is read and checked (teams/_user_team.py)
        topo, _ = team_topology(text, base_dir=base_dir, trust=trust)
        return TopologyRequest(text, team=topo)
    name, _, rest = text.partition(":")
    info = _info(name.strip())
    explicit: dict[str, Any] = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = (x.strip() for x in item.partition("="))
        if not eq:
            raise ValueError(f"topology {info.name}: expected key=value, got '{item}'")
        if key not in info.params:
            known = ", ".join(info.params) or "none"
            raise ValueError(f"topology {info.name}: unknown parameter '{key}' (known: {known})")
        explicit[key] = _coerce(info.name, key, value, info.params[key])
    return TopologyRequest(text, info=info, explicit=explicit)


def check_topology_text(text: str, *, base_dir: Path | None = None, trust: bool = False) -> None:
    """Check `NAME[:key=value,...]` on its own: read it and check its parameters over the defaults.

    Raises:
        LookupError: unknown topology.
        ValueError: a parameter that is unknown, of the wrong type or out of bounds.
    """
    read_topology(text, base_dir=base_dir, trust=trust).check_alone()


def parse_topology(text: str | TopologyRequest | None, condition: Condition, *, base_dir: Path | None = None,
                   trust: bool = False) -> TopologySpec:
    """`None`/'default' → the condition's own topology; else `NAME[:key=value,...]`, checked.

    A `TopologyRequest` (read once by `read_topology`) is resolved without reading its text again.

    Raises:
        LookupError: unknown topology.
        ValueError: a bad parameter, or a condition that cannot run under the topology.
    """
    request = text if isinstance(text, TopologyRequest) else read_topology(text, base_dir=base_dir, trust=trust)
    return request.resolve(condition)
