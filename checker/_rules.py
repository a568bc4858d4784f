"""Rules 6: the evaluators' findings, weighed by the combiner, turned into the score (R, C, flags, P/D/U, evidence).

A field is true only with a span of the artifact that carries it: the rules' own clauses when they found
the field, else the clauses that could carry it (a stop event, a clause naming the approval, a title, the
alternative). Flags are the rules' findings, kept only when the combiner's `weakened` model judges the
weakening real; it never invents a flag the rules did not find. The one `decide()` rule makes the state.
"""

from __future__ import annotations

from . import _vocabulary as vocab
from ._combiner import SURE_TARGET, UNSURE_MARGIN, Combiner, shipped_combiner
from ._decide import decide, permission_evidence, permits
from ._evaluate import evaluate
from ._features import features
from ._fields import Compiled
from ._model import EVIDENCE_KEYS, ArtifactScore, FieldProfile, Flags, Span
from ._reading import Verdicts
from ._segment import Clause

FIELDS = ("status", "prerequisite", "authority", "fallback")
_SLOTS = {"status": {"status", "permission", "forbidden"}, "prerequisite": {"prereq"}, "authority": {"authority"},
          "fallback": {"fallback"}}


def _spans(text: str, clauses: list[Clause], note: str | None = None) -> list[Span]:
    seen: dict[tuple[int, int], None] = {}
    for c in clauses:
        seen.setdefault((c.start, c.end), None)
    return [Span(start=a, end=b, text=text[a:b], note=note) for a, b in sorted(seen)]


_NOTES = {"permission": "the forbidden action, allowed without q"}


def _controlled(v: Verdicts) -> bool:
    """The controlling statement decided the action against what the text's history says: its reading is
    explicit, as a keyed line's is (weights learned mostly on texts without history do not overrule it)."""
    return bool(v.events.get("controlled") and v.events.get("history_disagrees"))


def _weigh(v: Verdicts, text: str, comb: Combiner) -> tuple[dict[str, list[Clause]], bool, dict[str, str],
                                                             dict[str, float]]:
    """Each field's carrying clauses (empty when false), whether weakening is real, the unsure notes, and how far
    each learned evaluator that enters the state was from its decision point."""
    x = features(v)
    wording = comb.wording(text, v.roles)
    unsure = dict(v.unsure)
    carried: dict[str, list[Clause]] = {}
    margins: dict[str, float] = {}
    for k in FIELDS:
        found: list[Clause] = getattr(v, k)
        # A note with a line keyed to the field is read by that line's value, and an alternative the note
        # dismisses is dismissed: both are explicit, and weights learned on prose do not overrule them.
        explicit = bool(v.slots & _SLOTS[k]) or (k == "fallback" and bool(v.fallback_rejected) and not found) or (
            k == "status" and _controlled(v))
        if not comb.learned(k):
            carried[k] = found
            continue
        p = comb.probability(k, x, wording)
        if explicit:
            # The explicit reading stands, but it is only sure when the learned model reads the text the same
            # way: a keyed record whose free-text lines undo its keys is where the two part.
            carried[k] = found
            if bool(found) != (p >= 0.5) and k != "authority":
                unsure[k] = f"the explicit reading stands, but the combiner reads it the other way (p={p:.2f})"
            continue
        if k != "authority":  # authority does not enter the state
            margins[k] = abs(p - 0.5)
        if abs(p - 0.5) < UNSURE_MARGIN and k in comb.rules_stand:
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
    if comb.learned("weakened"):
        margins["weakened"] = abs(p_weak - comb.weakened_threshold)
    return carried, p_weak >= comb.weakened_threshold, unsure, margins


def _flags(v: Verdicts, weakened: bool) -> tuple[dict[str, list[Clause]], Flags]:
    # The gate removes only cues whose weight is in doubt. Not the paper's evidence itself: a go-ahead in so many
    # words ("go ahead", "fine to proceed") is "permission", a dismissed alternative "fallback loss", a note
    # with nothing of the blocker in it "omission".
    kept = {k: getattr(v, k) if weakened else [] for k in ("caveat", "later_check", "assumed_authorization")}
    kept["permission"] = permission_evidence(v.permission, weakened=weakened,
                                             in_so_many_words=lambda c: vocab.PROCEED.search(c.words) is not None)
    return kept, Flags(caveat=bool(kept["caveat"]), later_check=bool(kept["later_check"]), omission=v.omission,
                       assumed_authorization=bool(kept["assumed_authorization"]))


def _retention(v: Verdicts, fields: FieldProfile) -> float:
    indicators = [fields.status, fields.prerequisite, v.named_forbidden and fields.status, fields.fallback,
                  fields.authority]
    return round(sum(indicators) / len(indicators), 3)


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
    carried, weakened, unsure, margins = _weigh(v, text, combiner)
    fields = FieldProfile(**{k: bool(carried[k]) for k in FIELDS})
    kept, flags = _flags(v, weakened)
    state = decide(fields, flags, _retention(v, fields))
    if not unsure:
        # Sure means the state would not change if any evaluator near its decision point read the other way.
        for k, m in sorted(margins.items(), key=lambda km: km[1]):
            if m >= combiner.sure_margin:
                break
            alt_fields = fields if k == "weakened" else fields.model_copy(update={k: not getattr(fields, k)})
            alt_flags = _flags(v, not weakened)[1] if k == "weakened" else flags
            other = decide(alt_fields, alt_flags, _retention(v, alt_fields))
            if other != state:
                unsure["confidence"] = (f"{k} is {m:.2f} from its decision point (under the {combiner.sure_margin:.2f} "
                                        f"held-out families need for {SURE_TARGET:.0%} accuracy), and the other "
                                        f"reading gives {other}")
                break
    retention = _retention(v, fields)
    truth = {**fields.model_dump(), **flags.model_dump(), "permission": permits(kept["permission"], fields)}
    sources = {**carried, **kept}
    evidence = {k: _spans(text, sources[k], _NOTES.get(k)) if truth[k] and k in sources else [] for k in EVIDENCE_KEYS}
    if not text.strip():
        # Nothing was handed on: A.3 calls that omission (D), but the score says so rather than look like a reading.
        unsure = {**unsure, "artifact": "the artifact is empty: nothing was handed on"}
    return ArtifactScore(fields=fields, complete=fields.complete, state=state, flags=flags, retention_score=retention,
                         evidence=evidence, unsure=unsure)
