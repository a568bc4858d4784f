"""Pydantic records for the `mustmaybe/task@1` scenario format (docs/task-format.md)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Domain = Literal[
    "restricted_documents",
    "customer_data_export",
    "external_sharing",
    "policy_exception",
    "audit_log_change",
    "approval_scope",
]
DOMAINS: tuple[str, ...] = (
    "restricted_documents",
    "customer_data_export",
    "external_sharing",
    "policy_exception",
    "audit_log_change",
    "approval_scope",
)
ActionKind = Literal["forbidden", "fallback", "admissible"]


class _Frozen(BaseModel):
    # Unknown keys are errors: a typo in a scenario must never pass silently.
    model_config = ConfigDict(extra="forbid", frozen=True)


class Blocker(_Frozen):
    """The source state z = (s, q, o, f) the reviewer establishes."""

    status: str = Field(min_length=1, description="s: the stop, stated as a sentence.")
    prerequisite: str = Field(min_length=1, description="q: the unresolved approval, scope or policy condition.")
    authority: str = Field(min_length=1, description="o: who can resolve q, or the veto point.")
    fallback_action: str = Field(min_length=1, description="f: id of the admissible fallback action.")
    prerequisite_terms: tuple[str, ...] = Field(default=(), description="Paraphrases that count as q.")
    authority_terms: tuple[str, ...] = Field(default=(), description="Paraphrases that count as o.")
    fallback_terms: tuple[str, ...] = Field(default=(), description="Paraphrases that count as f.")


class Action(_Frozen):
    """One member of the finite action set the executor picks from."""

    id: str = Field(pattern=r"^[a-z0-9_]+$", description="Stable action id.")
    label: str = Field(min_length=1, description="What the action does, as the executor sees it.")
    kind: ActionKind = Field(description="forbidden | fallback | admissible.")
    terms: tuple[str, ...] = Field(default=(), description="Phrases that name this action in free text.")


class Pressure(_Frozen):
    """Coordination material c used by the conditions that need it."""

    deadline_plan: str | None = Field(default=None, description="Plan assimilation material (P1, C-series).")
    low_risk_frames: tuple[str, ...] = Field(default=(), description="Convergence frames (P3, E-series).")
    precedent: str | None = Field(default=None, description="Precedent substitution material (P5).")
    ownership_note: str | None = Field(default=None, description="Ownership deferral material (P2, P4).")


class Resolution(_Frozen):
    """The benign twin: the blocker is resolved and proceeding is right."""

    full_context_addendum: str = Field(min_length=1, description="Text appended to full_context in the twin.")
    correct_action: str = Field(min_length=1, description="Id of the action that is right once resolved.")


class Scenario(_Frozen):
    """One synthetic enterprise task with one established binding blocker."""

    schema_: Literal["mustmaybe/task@1"] = Field(alias="schema", description="Format tag.")
    id: str = Field(pattern=r"^[a-z0-9-]+$", description="Unique task id.")
    domain: Domain
    title: str = Field(min_length=1)
    goal: str = Field(min_length=1, description="What the requester wants; every role sees it.")
    full_context: str = Field(min_length=1, description="The full record; only the reviewer sees it.")
    visible_notes: str = Field(default="", description="Notes any role may see.")
    blocker: Blocker
    actions: tuple[Action, ...] = Field(min_length=2)
    pressure: Pressure = Field(default_factory=Pressure)
    resolution: Resolution | None = None

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    @model_validator(mode="after")
    def _check_actions(self) -> Scenario:
        ids = [a.id for a in self.actions]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise ValueError(f"duplicate action id(s): {', '.join(dupes)}")
        fallbacks = [a.id for a in self.actions if a.kind == "fallback"]
        if len(fallbacks) != 1:
            raise ValueError(f"exactly one action must have kind 'fallback' (found {len(fallbacks)})")
        if not any(a.kind == "forbidden" for a in self.actions):
            raise ValueError("at least one action must have kind 'forbidden'")
        if self.blocker.fallback_action not in ids:
            raise ValueError(
                f"blocker.fallback_action '{self.blocker.fallback_action}' names no action (known: {', '.join(ids)})"
            )
        if self.blocker.fallback_action != fallbacks[0]:
            raise ValueError(
                f"blocker.fallback_action '{self.blocker.fallback_action}' is not the fallback action '{fallbacks[0]}'"
            )
        if self.resolution is not None and self.resolution.correct_action not in ids:
            raise ValueError(
                f"resolution.correct_action '{self.resolution.correct_action}' names no action "
                f"(known: {', '.join(ids)})"
            )
        return self

    def action(self, action_id: str) -> Action:
        """The action with this id; KeyError names the id and the task."""
        for a in self.actions:
            if a.id == action_id:
                return a
        raise KeyError(f"task {self.id}: no action '{action_id}'")

    @property
    def fallback(self) -> Action:
        return self.action(self.blocker.fallback_action)

    @property
    def forbidden_actions(self) -> tuple[Action, ...]:
        return tuple(a for a in self.actions if a.kind == "forbidden")

    @property
    def requested_action(self) -> Action:
        """The action the goal asks for: the first forbidden action."""
        return self.forbidden_actions[0]
