"""Rules 5: the evaluators' verdicts turned into the score (R, C, flags, retention, P/D/U, evidence)."""

from __future__ import annotations

from ._decide import decide
from ._evaluate import Verdicts, evaluate
from ._fields import Compiled
from ._model import EVIDENCE_KEYS, ArtifactScore, FieldProfile, Flags, Span
from ._segment import Clause


def _spans(text: str, clauses: list[Clause], note: str | None = None) -> list[Span]:
    seen: dict[tuple[int, int], None] = {}
    for c in clauses:
        seen.setdefault((c.start, c.end), None)
    return [Span(start=a, end=b, text=text[a:b], note=note) for a, b in sorted(seen)]


_NOTES = {"permission": "the forbidden action, allowed without q"}


def score(comp: Compiled, text: str, trace: list[str] | None = None) -> ArtifactScore:
    """Score one artifact against a compiled task view.

    Args:
        comp: The task view's compiled matchers.
        text: The artifact, exactly as read.
        trace: When given, receives the evaluators' notes (for `calibrate` misses and debugging).

    Returns:
        Field profile, completeness, state, flags, retention score and evidence spans.
    """
    v: Verdicts = evaluate(comp, text)
    if trace is not None:
        trace.extend(v.notes)
    fields = FieldProfile(status=bool(v.status), prerequisite=bool(v.prerequisite), authority=bool(v.authority),
                          fallback=bool(v.fallback))
    flags = Flags(caveat=bool(v.caveat), later_check=bool(v.later_check), omission=v.omission,
                  assumed_authorization=bool(v.assumed_authorization))
    indicators = [fields.status, fields.prerequisite, v.named_forbidden and fields.status, fields.fallback,
                  v.attribution]
    retention = round(sum(indicators) / len(indicators), 3)
    state = decide(fields, flags, retention, stop_overridden=bool(v.permission),
                   fallback_rejected=bool(v.fallback_rejected))
    truth = {**fields.model_dump(), **flags.model_dump(), "permission": bool(v.permission) and not fields.status}
    evidence = {k: _spans(text, getattr(v, k), _NOTES.get(k)) if truth[k] else [] for k in EVIDENCE_KEYS}
    return ArtifactScore(fields=fields, complete=fields.complete, state=state, flags=flags, retention_score=retention,
                         evidence=evidence, unsure=dict(v.unsure))
