"""Records the checker produces: the score types live in `mustmaybe.records` (re-exported here for the
checker's own modules); `CheckResult`, the shape of `mustmaybe check --json` (contracts/SCENARIO_FORMAT.md),
is the checker's."""

from __future__ import annotations

from pydantic import Field

from mustmaybe.records import (
    EVIDENCE_KEYS,
    ActionRule,
    ActionScore,
    ArtifactScore,
    FieldProfile,
    Flags,
    Span,
    State,
)

__all__ = ["EVIDENCE_KEYS", "ActionRule", "ActionScore", "ArtifactScore", "CheckResult", "FieldProfile", "Flags",
           "Span", "State"]


class CheckResult(ArtifactScore):
    """`mustmaybe check --json` output: the score plus the task id and the checker version."""

    task: str
    checker: str = Field(description="The instrument and its version, e.g. rules@5+<digest>.")
    checker_version: str
