"""A user's own AutoGen team (`team:PATH.json`) as an episode input: its component config, secrets removed.

The record half of `mustmaybe.teams`' user-team loader (teams/_user_team.py): no AutoGen here, so a
spec that carries a user team stays as light as any other. The digest is of the config as stored
(sanitized), so the same team under any file name or location gives the same digest.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

TEAM_TOPOLOGY = "team"  # the topology family name of every user team


def component_digest(component: dict[str, Any]) -> str:
    """sha256 hex of the canonical JSON of a component config."""
    body = json.dumps(component, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


class TeamSource(BaseModel):
    """A loaded, checked user team: where it came from, what it is, and its config as stored."""

    model_config = ConfigDict(frozen=True)

    path: str = Field(description="The JSON file it was read from (absolute).")
    name: str = Field(description="The file's stem: the topology's `name` parameter.")
    digest: str = Field(description="sha256 hex of `component` (canonical JSON); in the episode key.")
    kind: str = Field(description="The team's AutoGen class: RoundRobinGroupChat, SelectorGroupChat, GraphFlow, …")
    participants: list[str] = Field(description="The team's agent names, in the config's order.")
    component: dict[str, Any] = Field(description="The team's component config (dump_component()), secrets removed.")
    simulated: bool = Field(description="Its own model clients include the sim backend.")
    trusted: bool = Field(default=False, description="Loaded with --trust-components (code, tools, other modules).")

    @property
    def short_digest(self) -> str:
        return self.digest[:16]
