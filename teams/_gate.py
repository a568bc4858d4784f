"""W, explicit workflow state: trusted code commits a gate record, verifies it, projects it, enforces it.

Papers 002 and 004: the blocker travels as a versioned record bound to one action, committed only by
trusted code; models see a read-only projection; an action takes effect only through a deny-by-default
capability check that leaves a receipt. Nothing here reads model text into a gate: the ledger's only
writer is `commit`, whose inputs are the task's canonical blocker and the trusted twin flag; the
reviewer's output only decides *whether* the commit happens (it must validate as identifying the
blocker, or on a twin as stating its resolution).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mustmaybe.agents import prompts
from mustmaybe.records import ArtifactScore, GateRecord, GateStatus, Receipt, gate_digest, reviewer_identifies
from mustmaybe.scenarios import Scenario

DEFAULT_DENY = "default-deny"
PROJECTION_HEADER = prompts.WORKFLOW_HEADER


class GateError(ValueError):
    """A presented gate record the ledger refuses: tampered, stale or unknown."""


def gate_id(task: str, governs: str, version: int) -> str:
    return f"gate:{task}/{governs}@{version}"


def _sealed(scenario: Scenario, status: GateStatus, version: int) -> GateRecord:
    b, governs = scenario.blocker, scenario.requested_action.id
    body = {"id": gate_id(scenario.id, governs, version), "governs": governs, "prerequisite": b.prerequisite,
            "authority": b.authority, "fallback": b.fallback_action, "status": status, "version": version}
    return GateRecord(**body, digest=gate_digest(body))  # type: ignore[arg-type]


def review_validates(score: ArtifactScore, twin: bool) -> bool:
    """Whether the reviewer's statement validates for a commit: it identifies the blocker (the checker's
    P), or on a benign twin it states no stop (the resolution). The same test as `reviewer_identified`."""
    return reviewer_identifies(score, twin)


@dataclass
class GateLedger:
    """The trusted store: the head (latest committed) record per governed action. Only `commit` writes it."""

    _head: dict[str, GateRecord] = field(default_factory=dict)

    def commit(self, scenario: Scenario, *, resolved: bool) -> GateRecord:
        """Commit the gate on the task's requested action from its canonical blocker: a new version,
        open, or resolved when the task's state says so (a benign twin)."""
        governs = scenario.requested_action.id
        prev = self._head.get(governs)
        record = _sealed(scenario, "resolved" if resolved else "open", 1 if prev is None else prev.version + 1)
        self._head[governs] = record
        return record

    def head(self, governs: str) -> GateRecord | None:
        return self._head.get(governs)

    def verify(self, presented: GateRecord) -> GateRecord:
        """The presented record if it is the committed head, byte for byte.

        Raises:
            GateError: its digest does not match its content (tampered), it is not the head's version
                (stale), or no gate was committed for its action (unknown).
        """
        if gate_digest(presented.body()) != presented.digest:
            raise GateError(f"{presented.id}: digest does not match the record's content (tampered)")
        head = self._head.get(presented.governs)
        if head is None:
            raise GateError(f"{presented.id}: no gate was committed for '{presented.governs}'")
        if presented.version != head.version:
            raise GateError(f"{presented.id}: stale (version {presented.version}; committed version {head.version})")
        if presented.digest != head.digest:
            raise GateError(f"{presented.id}: not the committed record (digest differs from the ledger's)")
        return head


def projection(record: GateRecord | None) -> str | None:
    """The read-only text every hop's model sees beside the prose (None before any commit)."""
    if record is None:
        return None
    effect = ("it does not take effect; the fallback does" if record.status == "open"
              else "its prerequisite is resolved; it may take effect")
    return (f"{PROJECTION_HEADER}\n- gate: {record.id} (status: {record.status})\n"
            f"- governs action: {record.governs} ({effect})\n- prerequisite: {record.prerequisite}\n"
            f"- authority: {record.authority}\n- fallback action: {record.fallback}\n- digest: {record.digest}")


def check_action(scenario: Scenario, requested: str, presented: GateRecord | None, ledger: GateLedger) -> Receipt:
    """The deny-by-default capability check: may `requested` take effect?

    An action the task does not restrict passes. A restricted action passes only through a verified,
    resolved gate that governs exactly it; an open gate refuses it (its fallback takes effect), and so
    does a missing, tampered or stale record, or a gate on another action (deny by default).
    """
    fallback = scenario.blocker.fallback_action
    if scenario.action(requested).kind != "forbidden":
        return Receipt(control="gate", requested=requested, allowed=requested,
                       reason=f"'{requested}' is not a restricted action; no gate governs it",
                       gate_digest=presented.digest if presented else None)

    def deny(by: str, why: str) -> Receipt:
        return Receipt(control="gate", requested=requested, allowed=fallback, denied_by=by, reason=why,
                       gate_digest=presented.digest if presented else None)

    if presented is None:
        return deny(DEFAULT_DENY, f"no committed gate authorizes the restricted action '{requested}'")
    try:
        gate = ledger.verify(presented)
    except GateError as exc:
        return deny(DEFAULT_DENY, f"gate record rejected: {exc}")
    if gate.governs != requested:
        return deny(DEFAULT_DENY, f"{gate.id} governs '{gate.governs}', not '{requested}'; nothing authorizes it")
    if gate.status == "open":
        return deny(gate.id, f"{gate.id} is open: {gate.prerequisite} is unresolved ({gate.authority}); "
                             f"the fallback '{gate.fallback}' takes effect")
    return Receipt(control="gate", requested=requested, allowed=requested, reason=f"{gate.id} is resolved",
                   gate_digest=gate.digest)


@dataclass
class WorkflowState:
    """One W episode's trusted state: the ledger, the record that travels with the handoff, and why
    no gate was committed (when none was). The sidecar calls `observe_review` with the scored review."""

    scenario: Scenario
    twin: bool
    ledger: GateLedger = field(default_factory=GateLedger)
    record: GateRecord | None = None
    note: str | None = None

    def observe_review(self, score: ArtifactScore) -> None:
        if self.record is not None:  # one commit per episode: a later message cannot re-commit
            return
        if review_validates(score, self.twin):
            self.record = self.ledger.commit(self.scenario, resolved=self.twin)
        else:
            self.note = "the reviewer's statement did not validate, so no gate was committed (deny by default)"

    def projection(self) -> str | None:
        return projection(self.record)
