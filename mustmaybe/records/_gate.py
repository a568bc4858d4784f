"""The W arm's trusted state: the gate record, its digest, the receipt of an enforced decision, and
what a repair inserted (docs/episode-record.md, `gate`, `executor.receipt`, `repair`).

Pure data: the code that commits, verifies and enforces a gate lives in `mustmaybe.teams` (trusted
code); this module only says what a committed record is and how its digest is computed, so a
reader of a run can re-verify every digest without loading AutoGen.
"""

from __future__ import annotations

import hashlib
import json
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

GateStatus = Literal["open", "resolved"]


class GateRecord(BaseModel):
    """A gate bound to one action, committed by trusted code (papers 002 and 004: versioned record,
    one governed action, trusted commit). Frozen: an edit is a new version, never a change in place."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(description="gate:<task>/<governed action>@<version>.")
    governs: str = Field(description="The one action id the gate governs.")
    prerequisite: str = Field(description="q, from the task's canonical blocker (never from model text).")
    authority: str = Field(description="o, who can resolve q.")
    fallback: str = Field(description="The action id that takes effect while the gate is open.")
    status: GateStatus = Field(description="open while q is unresolved; resolved on a benign twin.")
    version: int = Field(ge=1, description="Incremented by each trusted commit.")
    digest: str = Field(description="sha256 hex of the record's other fields (canonical JSON).")

    def body(self) -> dict[str, object]:
        """Every field but the digest: what the digest covers."""
        return self.model_dump(mode="json", exclude={"digest"})


def gate_digest(body: dict[str, object]) -> str:
    """sha256 hex of a gate body's canonical JSON (sorted keys, no spaces)."""
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Receipt(BaseModel):
    """What an enforced control decided: requested, allowed, by which control and why (replayable)."""

    model_config = ConfigDict(frozen=True)

    control: str = Field(description="The enforced control: gate, hard-check, permission-lookup, human-approver.")
    requested: str | None = Field(description="The action the executor's model chose.")
    allowed: str | None = Field(description="The action that took effect.")
    denied_by: str | None = Field(default=None, description="The gate id or control that refused the request.")
    reason: str = Field(description="Why it was allowed or refused, in one sentence.")
    gate_digest: str | None = Field(default=None, description="Digest of the gate record checked (W only).")


class RepairRecord(BaseModel):
    """What a fixed-artifact repair (R-*) did to the base artifact: fixed statements, nothing else."""

    model_config = ConfigDict(frozen=True)

    restored: list[str] = Field(description="The fields the arm restores (status, prerequisite, authority, fallback).")
    inserted: list[str] = Field(description="The canonical statements appended, in order.")
    replaced_recommendation: str | None = Field(
        default=None, description="The action id a 'Recommended action' line named before the fallback replaced it.")
    active_blocker: bool = Field(
        default=False, description="The package closed with the active-blocker decision line (all four fields "
                                   "inserted: the paper's active-blocker flag, set for all-field insertion only).")


class ReplayBase(BaseModel):
    """Which fixed base artifact a replay arm (R-*, V-*) started from, so arms can be checked to share it."""

    model_config = ConfigDict(frozen=True)

    key: str = Field(description="Digest of what determines the base artifact: task and its content hash, base "
                                 "condition and topology, seed, reviewer and transformer models and parameters, "
                                 "twin. The arm, the route and the executor are not in it.")
    digest: str = Field(description="sha256 of the base artifact's text as the base team handed it over.")
    condition: str = Field(description="The base condition whose team made the artifact (S3 by default).")
    route: int | None = Field(default=None, description="The executor route the arm ran on (null: none named).")
