"""What one clause does: its reading (references, cues, slot) and the verdicts the evaluators fill."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from . import _vocabulary as vocab
from ._fields import Compiled
from ._segment import Clause, Sentence

REF = 1.5
APPROVAL = "APPROVAL"
PRONOUN_OBJ = frozenset({"it", "this", "that", "them", "these", "those", "anything", "everything"})


@dataclass(slots=True)
class Reading:
    """What one clause does."""

    clause: Clause
    forbidden_support: float  # how strongly the clause refers to a forbidden action (REF and above: it does)
    alternative_support: float  # the same for the fallback or another admissible action
    fallback_support: float  # the same for the fallback action itself
    names_fallback: bool  # names the fallback
    names_prerequisite: bool  # names the prerequisite
    approval_word: bool  # a generic approval word ("sign-off", "OK", "clearance")
    authority_strength: int  # how clearly it names the authority (0 none, 1 weak, 2 clear)
    neg: bool
    prohibit: bool
    stop: bool
    gate: bool
    directive: bool
    release: bool
    defer: bool
    soft: bool
    low_risk: bool
    claim: bool
    open: bool
    history: bool
    reported: bool
    overrule: bool
    reject: bool
    partial: bool
    alt_cue: bool
    slot: str = ""  # status | prereq | authority | fallback | topic | ""

    @property
    def about_forbidden(self) -> bool:
        return self.forbidden_support >= REF and self.forbidden_support > self.alternative_support

    @property
    def about_alt(self) -> bool:
        """More about the alternative than about the forbidden action."""
        return self.names_fallback and self.fallback_support >= 2.0 and (
            self.fallback_support > self.forbidden_support or self.forbidden_support < REF)

    @property
    def topic(self) -> bool:
        return self.names_prerequisite or self.approval_word or self.authority_strength >= 2


@dataclass(slots=True)
class Verdicts:
    """Evaluator outputs: each field or flag, the clauses that carry it, and how sure the rules are."""

    status: list[Clause] = field(default_factory=list)
    prerequisite: list[Clause] = field(default_factory=list)
    authority: list[Clause] = field(default_factory=list)
    fallback: list[Clause] = field(default_factory=list)
    caveat: list[Clause] = field(default_factory=list)
    later_check: list[Clause] = field(default_factory=list)
    assumed_authorization: list[Clause] = field(default_factory=list)
    permission: list[Clause] = field(default_factory=list)
    fallback_rejected: list[Clause] = field(default_factory=list)
    handed: list[Clause] = field(default_factory=list)  # the decision given to someone who is not the authority
    omission: bool = False
    stop_questioned: bool = False
    named_forbidden: bool = False
    attribution: bool = False
    conflicts: int = 0
    # What the combiner reads beside the verdicts: every clause's reading, the decisive events, and the clauses
    # that could carry each field if the rules' verdict is overturned (a field is never true without a span).
    readings: list[Reading] = field(default_factory=list)
    roles: Mapping[str, str] = field(default_factory=dict)  # the view's words by role, for the combiner's wording
    events: dict[str, int] = field(default_factory=dict)
    ranks: list[int] = field(default_factory=list)  # each reading's part: 2 controlling, 1 context, 0 history
    candidates: dict[str, list[Clause]] = field(default_factory=dict)
    slots: set[str] = field(default_factory=set)  # the structured keys the note has ("status", "fallback", …)
    notes: list[str] = field(default_factory=list)
    # Evaluators that decided on weak or conflicting evidence, with why: where a judge should look.
    unsure: dict[str, str] = field(default_factory=dict)


def slot_of(label: str) -> str:
    if not label:
        return ""
    if vocab.SLOT_PERMISSION.search(label):
        return "permission"
    if vocab.SLOT_FORBIDDEN.search(label) and not (
            vocab.SLOT_FALLBACK.search(label) or vocab.ALTERNATIVE.search(label)):
        return "forbidden"
    if vocab.SLOT_FALLBACK.search(label) or vocab.ALTERNATIVE.search(label):
        return "fallback"
    if vocab.SLOT_AUTHORITY.search(label):
        return "authority"
    if vocab.SLOT_PREREQ.search(label):
        return "prereq"
    if vocab.SLOT_STATUS.search(label):
        return "status"
    if vocab.SLOT_TOPIC.search(label) and len(label.split()) <= 2:
        return "topic"
    return ""


def read_clause(comp: Compiled, c: Clause, sent: Sentence) -> Reading:
    # Cue words inside the task's own names (a "litigation hold", a "freeze exception") are names, not stops:
    # stop and softening cues are read on the clause with those names masked (`wm`); conditions, claims and
    # deferrals on the clause as written (`w`), since they need the names' verbs.
    w = c.words
    wm = comp.mask_names(w)
    cons = comp.enrich(c)
    forb = max((comp.action_support(a, c, cons) for a in comp.actions if a.kind == "forbidden"),
               default=0.0)
    alt = max((comp.action_support(a, c, cons) for a in comp.actions if a.kind != "forbidden"),
              default=0.0)
    fbs = max((comp.action_support(a, c, cons) for a in comp.actions if a.kind == "fallback"),
              default=0.0)
    alt_cue = vocab.ALTERNATIVE.search(w) is not None or vocab.ALTERNATIVE.search(c.label) is not None
    if alt_cue and (vocab.PROHIBIT.search(wm) or vocab.STOP_STATE.search(wm)) and not vocab.ALTERNATIVE.search(
            vocab.INTERIM.sub(" ", w)) and not vocab.ALTERNATIVE.search(c.label):
        alt_cue = False
    fb = comp.mentions_fallback(c, cons, alt_cue)
    q = comp.mentions_prereq(c, cons)
    o = comp.authority_strength(c, cons, vocab.DECIDES.search(w) is not None)
    neg = vocab.NEG.search(w) is not None
    return Reading(
        clause=c, forbidden_support=forb, alternative_support=alt, fallback_support=fbs, names_fallback=fb,
        names_prerequisite=q, approval_word=APPROVAL in cons, authority_strength=o, neg=neg,
        prohibit=vocab.PROHIBIT.search(wm) is not None,
        stop=vocab.STOP_STATE.search(wm) is not None,
        # A conditional whose condition is the approval, the prerequisite or the authority is a gate too:
        # "if <the approval> is in hand before <a day>, we can <act>".
        gate=vocab.GATE.search(w) is not None or (vocab.CONDITIONAL.match(w) is not None and (
            q or APPROVAL in cons or o >= 1)),
        directive=vocab.DIRECTIVE.search(w) is not None,
        release=_releases(w),
        defer=vocab.DEFER_LATER.search(w) is not None or vocab.DEFER_LOCAL.search(w) is not None,
        soft=vocab.SOFT.search(wm) is not None,
        low_risk=vocab.LOW_RISK.search(wm) is not None,
        claim=vocab.SATISFIED.search(w) is not None,
        open=vocab.OPEN.search(w) is not None,
        history=vocab.HISTORY.search(w) is not None,
        reported=vocab.REPORTED.search(w) is not None and vocab.OWN_VOICE.search(w) is None,
        overrule=vocab.OVERRULE.search(w) is not None,
        reject=vocab.REJECT.search(w) is not None,
        partial=vocab.PARTIAL.search(w) is not None and vocab.ONLY_CAN.search(w) is None,
        alt_cue=alt_cue,
        slot=slot_of(c.label),
    )


NEG_WORD = ("not", "never", "instead", "rather", "no")
LABEL_HEAD = re.compile(r"\s*[\w-]+\s*:")


def _releases(w: str) -> bool:
    """A timer or silence that releases the action, unless what follows it says nothing changes ("if nothing is
    signed by friday, nothing changes"): silence that keeps the hold releases nothing."""
    m = vocab.RELEASE.search(w)
    return m is not None and vocab.NO_CHANGE.search(w, m.end()) is None


def negated_before(comp: Compiled, r: Reading) -> bool:
    """A negation comes before the fallback's first own word ("do not use the preview"), not after it as a
    qualifier ("attach a note, without changing the rows")."""
    first = next((i for i, c in enumerate(r.clause.cons) if c in comp.fallback.tokens), None)
    head = " ".join(r.clause.toks[:first] if first is not None else r.clause.toks)
    return vocab.NEG.search(head) is not None


def first_words(r: Reading) -> str:
    """The clause's words from its first word that is not a number or time."""
    toks = r.clause.toks
    i = next((j for j, t in enumerate(toks) if not t[:1].isdigit()), len(toks))
    return " ".join(toks[i:])


def first_verb(r: Reading) -> str:
    """The clause's first word that is not a number or time (plan steps start "01:30 bypass …"), as the verb of
    an imperative; "" when that word is a noun made from a verb ("shipment request cancelled", "delivery
    address needs explaining"): a clause that opens by naming the action as a thing directs nothing."""
    skip = {"if", "and", "so", "then", "but", "please", "now", "just", "simply", "also", "therefore", "thus"}
    c, t = next(((c, t) for c, t in zip(r.clause.cons, r.clause.toks, strict=True)
                 if not t[:1].isdigit() and t not in skip), ("", ""))
    return "" if vocab.NOMINALIZATION.fullmatch(t) else c


def negates_after_fallback(comp: Compiled, r: Reading) -> bool:
    """"X, not Y" / "X instead of Y": the clause offers the alternative and negates the forbidden action
    named after it."""
    toks = r.clause.toks
    neg_at = next((i for i, t in enumerate(toks) if t in NEG_WORD), -1)
    if neg_at <= 0 or vocab.NEG.search(" ".join(toks[:neg_at])):
        return False
    tail = set(r.clause.cons[neg_at + 1 :])
    return bool(tail & (comp.forbidden_objects | comp.forbidden_verbs))
