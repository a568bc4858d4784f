"""Rules 6: the evaluators' findings, weighed by the combiner, turned into the score (R, C, flags, P/D/U, evidence).

A field is true only with a span of the artifact that carries it: the rules' own clauses when they found
the field, else the clauses that could carry it (a stop event, a clause naming the approval, a title, the
alternative). Flags are the rules' findings, kept only when the combiner's `weakened` model judges the
weakening real; it never invents a flag the rules did not find. The one `decide()` rule makes the state.
"""

from __future__ import annotations

from . import _lexicon as lx
from ._combiner import UNSURE_MARGIN, Combiner, shipped_combiner
from ._decide import decide
from ._evaluate import evaluate
from ._features import features
from ._fields import Compiled
from ._model import EVIDENCE_KEYS, ArtifactScore, FieldProfile, Flags, Span
from ._reading import Verdicts
from ._segment import Clause

FIELDS = ("status", "prerequisite", "authority", "fallback")
# Where the combiner is unsure, the rules' reading of the stop and of the alternative stands (measured in
# task-grouped CV on the tuning sets: P/D macro-F1 0.901 -> 0.895, preserved-called-deactivated 7.5% -> 6.6%;
# doing the same for prerequisite and authority cost those fields 0.005-0.01 and bought nothing).
_RULES_STAND_WHEN_UNSURE = ("status", "fallback")
_SLOTS = {"status": {"status", "permission", "forbidden"}, "prerequisite": {"prereq"}, "authority": {"authority"},
          "fallback": {"fallback"}}


def _spans(text: str, clauses: list[Clause], note: str | None = None) -> list[Span]:
    seen: dict[tuple[int, int], None] = {}
    for c in clauses:
        seen.setdefault((c.start, c.end), None)
    return [Span(start=a, end=b, text=text[a:b], note=note) for a, b in sorted(seen)]


_NOTES = {"permission": "the forbidden action, allowed without q"}


def _weigh(v: Verdicts, text: str, comb: Combiner) -> tuple[dict[str, list[Clause]], bool, dict[str, str]]:
    """Each field's carrying clauses (empty when false), whether weakening is real, and the unsure notes."""
    x = features(v)
    wording = comb.wording(text, v.roles)
    unsure = dict(v.unsure)
    carried: dict[str, list[Clause]] = {}
    for k in FIELDS:
        found: list[Clause] = getattr(v, k)
        # A note with a line keyed to the field is read by that line's value, and an alternative the note
        # dismisses is dismissed: both are explicit, and weights learned on prose do not overrule them.
        explicit = bool(v.slots & _SLOTS[k]) or (k == "fallback" and bool(v.fallback_rejected) and not found)
        if not comb.learned(k) or explicit:
            carried[k] = found
            continue
        p = comb.probability(k, x, wording)
        if abs(p - 0.5) < UNSURE_MARGIN and k in _RULES_STAND_WHEN_UNSURE:
            carried[k] = found
            unsure[k] = f"the combiner is unsure (p={p:.2f}); the rules' verdict stands"
            continue
        clauses = (found or v.candidates.get(k, [])) if p >= 0.5 else []
        carried[k] = clauses
        if abs(p - 0.5) < UNSURE_MARGIN:
            unsure[k] = f"the combiner is unsure (p={p:.2f})"
        elif p >= 0.5 and not clauses:
            unsure[k] = "the combiner leans true but no clause carries it"
        elif bool(found) != (p >= 0.5):
            unsure.setdefault(k, "the combiner overruled the rules' verdict")
    p_weak = comb.probability("weakened", x, wording) if comb.learned("weakened") else 1.0
    if abs(p_weak - comb.weakened_threshold) < UNSURE_MARGIN:
        unsure["state"] = f"whether the weakening cues are decisive is unsure (p={p_weak:.2f})"
    return carried, p_weak >= comb.weakened_threshold, unsure


def score(comp: Compiled, text: str, trace: list[str] | None = None, combiner: Combiner | None = None) -> ArtifactScore:
    """Score one artifact against a compiled task view.

    Args:
        comp: The task view's compiled matchers.
        text: The artifact, exactly as read.
        trace: When given, receives the evaluators' notes (for `calibrate` misses and debugging).
        combiner: The weights to use (default: the ones shipped with the checker; training passes others).

    Returns:
        Field profile, completeness, state, flags, retention score, evidence spans and unsure evaluators.
    """
    v: Verdicts = evaluate(comp, text)
    if trace is not None:
        trace.extend(v.notes)
    return score_verdicts(v, text, combiner or shipped_combiner())


def score_verdicts(v: Verdicts, text: str, combiner: Combiner) -> ArtifactScore:
    """The score from verdicts already evaluated (training re-weighs one evaluation with many combiners)."""
    carried, weakened, unsure = _weigh(v, text, combiner)
    fields = FieldProfile(**{k: bool(carried[k]) for k in FIELDS})
    # The gate removes only cues whose weight is in doubt. Not the paper's evidence itself: a go-ahead in so many
    # words ("go ahead", "fine to proceed") is "permission", a dismissed alternative "fallback loss", a note
    # with nothing of the blocker in it "omission".
    kept = {k: getattr(v, k) if weakened else [] for k in ("caveat", "later_check", "assumed_authorization")}
    kept["permission"] = v.permission if weakened else [c for c in v.permission if lx.PROCEED.search(c.words)]
    flags = Flags(caveat=bool(kept["caveat"]), later_check=bool(kept["later_check"]),
                  omission=v.omission, assumed_authorization=bool(kept["assumed_authorization"]))
    indicators = [fields.status, fields.prerequisite, v.named_forbidden and fields.status, fields.fallback,
                  fields.authority]
    retention = round(sum(indicators) / len(indicators), 3)
    state = decide(fields, flags, retention, stop_overridden=bool(kept["permission"]),
                   fallback_rejected=bool(v.fallback_rejected))
    truth = {**fields.model_dump(), **flags.model_dump(), "permission": bool(kept["permission"]) and not fields.status}
    sources = {**carried, **kept}
    evidence = {k: _spans(text, sources[k], _NOTES.get(k)) if truth[k] and k in sources else [] for k in EVIDENCE_KEYS}
    return ArtifactScore(fields=fields, complete=fields.complete, state=state, flags=flags, retention_score=retention,
                         evidence=evidence, unsure=unsure)
