"""A run folder's `manifest.json` (docs/run-folders.md): one shape, schema `mustmaybe/run@1`, for a
single `run` and a sweep alike.

Both kinds carry the same common keys (`schema`, `kind`, `status`, the times, `simulated`,
`versions`, `git`, `checker_version`, `checker`, `tasks`, `host`, `counts`); each kind adds its own
(a sweep: `name`, `sweep`, `cache`, `resume_policy`, `sessions`, `rescores`; a run: `command`,
`episodes`, `keys`, `task_hashes`, `trace`), kept as extra keys. Manifests written before single runs
had a schema (`schema` absent, `tasks` absent, `task_hashes` present) still read: `RunManifest.of`
fills the common keys from what they hold.
"""

from __future__ import annotations

from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

RUN_SCHEMA: Final = "mustmaybe/run@1"


class RunManifest(BaseModel):
    """The keys every run folder's manifest has; a kind's own keys ride along as extra keys."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    schema_: Literal["mustmaybe/run@1"] | None = Field(
        default=RUN_SCHEMA, alias="schema", description="mustmaybe/run@1; null in a single run's manifest written "
        "before single runs had one.")
    kind: Literal["run", "sweep"]
    status: str = Field(description="running | finished | incomplete | interrupted.")
    created_at: str | None = None
    started_at: str | None = None
    ended_at: str | None = None
    simulated: bool = False
    versions: dict[str, str | None] = Field(default_factory=dict)
    git: dict[str, Any] | None = None
    checker_version: str | None = None
    checker: str | None = Field(default=None, description="The instrument that scored the episodes.")
    tasks: dict[str, str] = Field(default_factory=dict, description="Task id -> task hash, every task used.")
    host: dict[str, Any] | None = None
    counts: dict[str, int] | None = Field(default=None, description="At the end: episodes, done, failed, "
                                          "with_errors, infra_errors, parse_errors.")

    @classmethod
    def of(cls, data: dict[str, Any]) -> RunManifest:
        """A manifest as read, old shapes included (a run's `task_hashes` is its `tasks`)."""
        if "tasks" not in data and isinstance(data.get("task_hashes"), dict):
            data = {**data, "tasks": data["task_hashes"]}
        if "schema" not in data:
            data = {**data, "schema": None}
        return cls.model_validate(data)

    def data(self) -> dict[str, Any]:
        """The JSON object to write: the common keys first, then the kind's own, in their order."""
        return self.model_dump(mode="json", by_alias=True)
