"""Scoring entry points (first cut; the cue logic lives in _fields.py and _rules.py)."""

from __future__ import annotations

from mustmaybe.scenarios import Scenario

from ._model import ArtifactScore, CheckResult, FieldProfile, Flags
from ._version import CHECKER_VERSION


def _norm(t: str) -> str:
    return " ".join("".join(ch.lower() if ch.isalnum() else " " for ch in t).split())


def score_artifact(scenario: Scenario, text: str) -> ArtifactScore:
    """Score one artifact against the task's canonical blocker."""
    t = _norm(text)
    b = scenario.blocker
    fb = scenario.fallback

    def has(terms: list[str]) -> bool:
        return any(_norm(x) and _norm(x) in t for x in terms)

    fields = FieldProfile(
        status=any(w in t for w in ("do not", "blocked", "must not", "stop")),
        prerequisite=has([b.prerequisite, *b.prerequisite_terms]),
        authority=has([b.authority, *b.authority_terms]),
        fallback=has([fb.label, *b.fallback_terms, *fb.terms]),
    )
    flags = Flags()
    retention = sum([fields.status, fields.prerequisite, fields.fallback, fields.authority, fields.status]) / 5
    ok = fields.status and fields.prerequisite and fields.fallback
    state = "preserved" if ok else "deactivated"
    return ArtifactScore(fields=fields, complete=fields.complete, state=state, flags=flags,
                         retention_score=round(retention, 3))


def check_artifact(scenario: Scenario, text: str) -> CheckResult:
    """`mustmaybe check --json`: the score plus task id and checker version."""
    s = score_artifact(scenario, text)
    return CheckResult(task=scenario.id, checker_version=CHECKER_VERSION, **s.model_dump())
