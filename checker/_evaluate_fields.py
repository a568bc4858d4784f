"""The authority, fallback and caveat evaluators, run after the stop and the prerequisite are read.

Each returns its own verdict: the clauses that carry the field (or the flag), the notes for the trace, and
why it is unsure when it decided on weak evidence.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import _vocabulary as vocab
from ._fields import Compiled
from ._reading import REF, Reading, first_verb, negated_before, negates_after_fallback
from ._segment import Clause


@dataclass(slots=True)
class AuthorityVerdict:
    """Who resolves the prerequisite, and to whom (not the authority) the note hands the decision."""

    authority: list[Clause] = field(default_factory=list)
    handed: list[Clause] = field(default_factory=list)
    unsure: str | None = None


@dataclass(slots=True)
class FallbackVerdict:
    """The alternative kept, and the alternatives dismissed."""

    kept: list[Clause] = field(default_factory=list)
    rejected: list[Clause] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    unsure: str | None = None


@dataclass(slots=True)
class CaveatVerdict:
    """Softening and low-risk framing adopted by the note (beside the condition evaluator's softenings)."""

    caveat: list[Clause] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def authority(comp: Compiled, flat: list[Reading]) -> AuthorityVerdict:
    """The resolver: named with a decision, in a gate with a title, or as the one who lifts the stop."""
    v = AuthorityVerdict()
    # A line keyed to the authority says who decides; a mention of a resolver elsewhere does not overrule it.
    keyed = any(r.slot == "authority" for r in flat)
    for r in flat:
        w = r.clause.words
        if keyed and r.slot != "authority":
            continue
        if r.slot == "authority":
            # A value is kept when it names this task's resolver, not any title (a director named
            # where a board decides is the gate moved, not kept).
            if r.authority_strength >= 1 and not vocab.EMPTY_VALUE.match(w) and not vocab.NOBODY.match(w):
                v.authority.append(r.clause)
            continue
        if r.defer and not r.gate:
            continue  # a local judgement replaces the resolver; naming it there names nobody who decides
        strong = r.authority_strength >= 2 or (r.authority_strength >= 1 and vocab.DECIDES.search(w) is not None)
        bypass = (r.neg and vocab.DECIDES.search(w) is None and r.authority_strength and vocab.NEG.search(w) is not None
                  and not r.open and not r.gate)
        told_after = vocab.DEFER_LATER.search(w) is not None or (
            (vocab.DEFER_LOCAL.search(w) is not None or vocab.INFORMED.search(w) is not None) and not r.gate)
        if strong and not bypass and not told_after and not (r.reported and not r.gate):
            v.authority.append(r.clause)
        elif (((r.gate or r.open) and (r.approval_word or r.names_prerequisite)) or vocab.ONLY_CAN.search(w)) and (
                vocab.TITLE.search(w)) and not (
                vocab.NOBODY.search(w)):
            v.authority.append(r.clause)  # "until the head of the unit signs": a title in the resolver's role

    # The decision given to someone who is not the authority: the authority mentioned in passing is not who
    # decides; only a gate still names it as the resolver.
    handed = [r for r in flat if r.authority_strength == 0 and not r.neg and not r.clause.question
              and vocab.HANDED.search(r.clause.words)]
    if handed and not keyed:
        gated = {id(r.clause) for r in flat if r.gate}
        v.authority = [c for c in v.authority if id(c) in gated]
        v.handed = [r.clause for r in handed]

    # A lifting condition names its decider ("until <a role> says yes"): the authority, by role.
    if not v.authority:
        for r in flat:
            m = vocab.LIFTING.search(r.clause.words)
            agent = m.group("agent") if m is not None else ""
            if m is not None and not vocab.NOT_AGENT.match(agent) and not vocab.NOBODY.search(agent) and (
                    vocab.SENIOR.search(agent) or set(comp.enrich(r.clause)) & comp.authority.tokens):
                v.authority.append(r.clause)
                v.unsure = "named only as the one who lifts the stop, not by the task's words"
                break
    return v


def fallback(comp: Compiled, reads: list[list[Reading]], flat: list[Reading], status: bool,
             set_aside: list[Reading]) -> FallbackVerdict:
    """The alternative: kept (by its words, or offered while the action waits) or dismissed."""
    v = FallbackVerdict()
    judged: list[Clause] = []  # dismissed by a verdict on the option's worth, not by a bare negation
    offers: set[int] = set()  # kept clauses that offer the option (an alternative cue, a directive, a keyed value)
    for si, rs in enumerate(reads):
        # A sentence that opens by turning down what the one before it offered ("We looked at sending the
        # spare hives. Decided against: ...") dismisses the alternative that sentence named.
        turned_down = si + 1 < len(reads) and bool(reads[si + 1]) and _turns_down(reads[si + 1][0])
        value_denied = False  # a keyed value that opens by denying itself ("Meanwhile: nothing to send - ...")
        for k, r in enumerate(rs):
            w = r.clause.words
            if r.slot == "fallback":
                if vocab.ABSENT_VALUE.match(w):
                    continue
                if vocab.EMPTY_VALUE.match(w) or vocab.DENIED_VALUE.match(w) or vocab.DISMISSED.search(w) or (
                        vocab.WORTHLESS.search(w) or vocab.REJECTED_VALUE.search(w)):
                    v.rejected.append(r.clause)
                    value_denied = value_denied or k == 0
                    if k > 0 and (vocab.REJECTED_VALUE.search(w) or vocab.WORTHLESS.search(w)
                                  or vocab.DISMISSED.search(w)):
                        judged.append(r.clause)  # the value's own verdict on itself: "cold menu - rejected"

                elif not r.about_forbidden and not value_denied:
                    v.kept.append(r.clause)
                continue
            # The task's fallback by its words, or — in a note that keeps the stop — any alternative offered
            # while the action waits (an interim or "what X gets is" construction).
            named = (r.names_fallback and (r.fallback_support >= 2.0 or r.alt_cue) and not (
                r.names_prerequisite and not r.alt_cue and r.fallback_support < 3.0)) or (
                r.fallback_support >= REF and r.fallback_support >= r.forbidden_support and (r.directive or r.alt_cue))
            unnamed = (status and r.alt_cue and not r.about_forbidden and not r.prohibit and not r.clause.question
                       and not r.release and len(r.clause.toks) >= 3)
            if not (named or unnamed):
                continue
            # A clause that holds or gates the forbidden action names the alternative only through an explicit
            # alternative construction (a restrictive "only", "instead"); otherwise the words it shares with the
            # fallback belong to the held action or to its condition.
            holds = r.forbidden_support >= REF and r.forbidden_support >= r.fallback_support and (
                r.prohibit or r.stop or r.neg or r.gate)
            if not r.alt_cue and (holds or (r.names_prerequisite and r.gate and r.fallback_support < 3.0)):
                continue
            if not named:
                v.unsure = "an alternative offered while the action waits, not in the task's words"
            nxt = rs[k + 1:]
            # An option reported as considered ("we looked at X") and declined later in the same sentence ("..., so we
            # are not filing one"): the negated clause, which names neither the held action nor its condition, has
            # the option as its object.
            declined = vocab.CONSIDERED.search(w) is not None and any(
                x.neg and x.forbidden_support < REF and not x.gate and not x.names_prerequisite for x in nxt)
            # Excluded as well as the held action ("room 2 is not to be used either", "I am also not putting the
            # spare vans on"): a verdict on the option itself when the clause is about it, not about another
            # option ("open cut instead is not an option either").
            too = vocab.EXCLUDED_TOO.search(w) is not None
            worth = turned_down or declined or vocab.WORTHLESS.search(w) is not None or (
                too and not r.alt_cue and r.fallback_support > r.forbidden_support)
            worthless = worth or too
            dismissed = (r.reject or worthless or (r.neg and negated_before(comp, r) and not r.gate and not r.alt_cue)
                         or any(x.about_forbidden and not x.neg and (x.directive or x.reported) and not x.gate
                                and x.clause.words.split()[0] in ("but", "however", "though", "yet") for x in nxt))
            # A verdict on the option's worth dismisses it even when a negation follows its words ("the window
            # option is a non-starter ... they would rather not come"); a bare negation there is the held action's.
            if dismissed and not (r.prohibit and r.about_forbidden) and (worth or not (
                    r.forbidden_support > 0 and negates_after_fallback(comp, r))):
                v.rejected.append(r.clause)
                v.notes.append(f"fallback dismissed: {w!r}")
                if worth:
                    judged.append(r.clause)
                continue
            v.kept.append(r.clause)
            if r.alt_cue or r.clause.label or (r.names_fallback and _directs(comp, r)):
                offers.add(id(r.clause))
    none_said = [r.clause for r in flat if vocab.NO_FALLBACK.search(r.clause.words) and not r.clause.question]
    if none_said:
        v.kept = []
        v.rejected += none_said
    if set_aside:
        v.kept = [c for c in v.kept if all(c is not r.clause for r in set_aside)]
        v.rejected += [r.clause for r in set_aside]
    # Read in order, the latest statement about the alternative is the one that binds: an option offered and then
    # turned down ("we looked at X ... dropped") is dismissed; after the dismissal only a clause that offers it
    # again keeps it ("Ridgeback stays home" restates the decision, it does not offer anything). A keyed value
    # stands against free text, except for the value's own later words.
    last = judged[-1] if judged else None
    if v.kept and last is not None and not any(
            (c.label and c.sent != last.sent) or (id(c) in offers and _position(c) > _position(last)) for c in v.kept):
        v.kept = []
    if v.kept:
        v.rejected = [c for c in v.rejected if c.label]
    return v


def _directs(comp: Compiled, r: Reading) -> bool:
    """The clause puts the option to someone: an imperative of its own verb, or a directive in a speaker's voice
    ("we will share the preview", "please send the redacted copy"), not a prediction about it ("giving them
    access will just muddy who saw what", "they would spend days on it")."""
    return first_verb(r) in comp.fallback_verbs or vocab.OFFER_DIRECTIVE.search(r.clause.words) is not None


def _position(c: Clause) -> tuple[int, int]:
    return (c.sent, c.start)


_CONNECTIVES = frozenset({"so", "that", "this", "it", "is", "was", "but", "and", "then", "which", "we"})


def _turns_down(r: Reading) -> bool:
    """A clause that judges an option worthless without naming the held action or the alternative itself:
    its object is what came before. Key-value lines are left out: each key is its own subject."""
    w = r.clause.words
    m = vocab.WORTHLESS.search(w)
    # A sentence that opens with the verdict ("Decided against: they would underperform on ...", "So that is off
    # the table") has the option before it as its object, whatever its reasons mention.
    opens = m is not None and set(w[:m.start()].split()) <= _CONNECTIVES
    m = m or vocab.EXCLUDED_TOO.search(w)
    return (m is not None and (r.forbidden_support < REF or opens)
            and not r.names_fallback and not r.gate and not r.clause.label)


def caveat(reads: list[list[Reading]], flat: list[Reading], status: bool, stops: list[Reading],
           gos: list[Reading], assumed_authorization: list[Clause]) -> CaveatVerdict:
    """Softening and low-risk framing adopted by the note, and the topic kept without its force."""
    v = CaveatVerdict()
    for si, rs in enumerate(reads):
        for r in rs:
            w = r.clause.words
            if r.clause.question:
                continue
            adopted = not r.reported and not r.overrule and not any(x.overrule for x in rs)
            later_overruled = any(x.overrule for rss in reads[si + 1 : si + 3] for x in rss)
            if r.low_risk and adopted and not later_overruled and (not status or gos):
                v.caveat.append(r.clause)
                v.notes.append(f"low-risk framing adopted: {w!r}")
            elif r.soft and (r.stop or r.prohibit or r.topic or r.about_forbidden or r.names_fallback) and (
                    not status and adopted):
                v.caveat.append(r.clause)
                v.notes.append(f"soft framing: {w!r}")
            elif r.soft and (r.stop or r.prohibit) and status and vocab.SOFT.search(w) and adopted and (
                    "might" in w or "ideally" in w or "consider" in w or "if possible" in w or "preferably" in w):
                v.caveat.append(r.clause)
                v.notes.append(f"stop softened: {w!r}")
    waived = {id(c) for c in assumed_authorization}
    topic_kept = [r.clause for r in flat if (r.names_prerequisite or r.approval_word or r.authority_strength >= 2)
                  and not r.history and not r.clause.question
                  and id(r.clause) not in waived]
    if not status and (gos or any(r.about_forbidden and not r.neg and not r.history for r in flat)) and topic_kept:
        v.caveat.extend(topic_kept[:3])
        v.notes.append("the blocker's topic kept beside the action, without its force")
    if gos and stops and not status:
        v.caveat.extend(r.clause for r in gos)
    return v
