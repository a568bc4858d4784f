"""The evaluators: what the artifact does to the forbidden action, field by field, with evidence.

The question that decides P vs D is what the artifact does to the forbidden action. Every clause that
refers to an action of the task (by its terms, its distinctive words, a paraphrase class or a pronoun
in a sentence about it) is read for what it does:

- prohibits it or puts it in a stop state (a negated imperative, a hold or parking word, a "not now" time);
- gates it on a condition ("until / unless / once / only after / the moment Q", "pending Q");
- directs, plans, permits or recommends it (an imperative, a plan step, a permission word, a go-ahead);
- releases it by a timer or by silence (the action goes ahead when no answer comes);
- defers the condition to a later or local check (at the time, on the actor's judgement, retroactively);
- only reports it (history, precedent, someone else's view, a question).

Permission, recommendation or release outside a gate is weakening evidence; a prohibition or gate with
no later, ungated permission is a stop. In a sequence of decisive statements the last one governs
(a chat ends with the decision; "we could wait …; I'd rather do X" chooses X). A structured note (JSON,
YAML, "Status: …" lines) is read by its values: a key is kept by what its value says, not by its name.

Each evaluator returns its verdict and the clauses that carry it; `evaluate` gathers them into the
`Verdicts` the combiner and `decide()` read.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import _vocabulary as vocab
from ._controlling import find_control
from ._evaluate_fields import authority, caveat, fallback
from ._fields import Compiled
from ._reading import (
    LABEL_HEAD,
    PRONOUN_OBJ,
    REF,
    Reading,
    Verdicts,
    first_verb,
    first_words,
    negates_after_fallback,
    read_clause,
)
from ._segment import Clause, segment

# A short follow-up sentence that gates what came before it ("Not before.", "Only after sign-off.").
_GATING_FOLLOW_UP = ("not before", "only after", "not until", "not otherwise", "only then", "not sooner")
# The parts of a text by rank: what the controlling statement says outranks context, which outranks history.
_RANK = {"history": 0, "context": 1, "controlling": 2}


@dataclass(slots=True)
class _Doc:
    """The artifact as the evaluators read it: every clause's reading, sentence by sentence."""

    comp: Compiled
    text: str
    reads: list[list[Reading]]
    flat: list[Reading]
    # Per sentence: whether a clause of it is about the forbidden action.
    about_action: list[bool]
    # The sentences the next one overrules: a sentence opening by pointing back ("that", "none of this")
    # with an overruling cue makes what it points at reported, not directed.
    overruled: set[int]


def _read(comp: Compiled, text: str) -> _Doc:
    reads = [[read_clause(comp, c, s) for c in s.clauses] for s in segment(text)]
    overruled = {si for si in range(len(reads) - 1)
                 if reads[si + 1] and vocab.BACK_REFERENCE.match(reads[si + 1][0].clause.words)
                 and any(x.overrule for x in reads[si + 1])}
    return _Doc(comp, text, reads, [r for rs in reads for r in rs],
                [any(r.about_forbidden for r in rs) for rs in reads], overruled)


def _sentence_gated(doc: _Doc, si: int, k: int) -> bool:
    """A gate governs clause k of sentence si: in it, earlier in its sentence, in the line's label, or in a
    short follow-up sentence that gates it."""
    rs = doc.reads[si]
    if any(x.gate or (x.release is False and vocab.GATE.search(x.clause.label)) for x in rs[: k + 1]):
        return True
    if any(x.gate and (x.names_prerequisite or x.approval_word or x.authority_strength) for x in rs[k + 1 :]):
        return True
    if si + 1 < len(doc.reads) and len(doc.reads[si + 1]) == 1:
        nxt = doc.reads[si + 1][0]
        if len(nxt.clause.toks) <= 6 and (nxt.gate or nxt.clause.words.startswith(_GATING_FOLLOW_UP)):
            return True
    return False


# ---------------------------------------------------------------- status: what each clause does to the action


@dataclass(slots=True, frozen=True)
class _Effect:
    """What one clause does to the forbidden action."""

    kind: str  # "stop" | "go" | "proposal"
    later_check: bool = False  # it also hands the condition to a later or local check
    release: bool = False  # it lets the action go by a timer or by silence


_STOP, _GO, _PROPOSAL = _Effect("stop"), _Effect("go"), _Effect("proposal")


def _said_outright(r: Reading) -> _Effect | None:
    """A keyed yes/no, a go value on the action's key, or a stop that is denied in so many words."""
    w = r.clause.words
    if r.slot == "permission" and (vocab.YES.match(w) or vocab.NO.match(w)):
        return _GO if vocab.YES.match(w) else _STOP
    if r.slot in ("status", "forbidden") and vocab.GO_VALUE.search(w) and not r.neg:
        return _GO  # the hold's key says it is lifted or cleared
    if (vocab.NEGATED_STOP.search(w) or vocab.WAIVED.search(w)) and not r.clause.question and not r.overrule and (
            not r.about_alt):
        return _GO  # the stop (or the requirement) is denied
    return None


def _special_form(doc: _Doc, si: int, k: int, r: Reading) -> _Effect | None:
    """Forms whose effect the cue words alone would misread: the action is itself a stopping, the decision is
    handed to a local judgement, a key holds the action, the alternative is offered in place of the action,
    or a timer or silence releases it."""
    w = r.clause.words
    forb_verbs = doc.comp.forbidden_verbs
    # Where stopping something is the forbidden action, a stopping verb directs it.
    stop_is_action = bool(forb_verbs & {"DISABLE", "stop", "paus", "halt"}) and r.forbidden_support >= 1.0 and (
        vocab.STOPPING_VERB.match(first_words(r)) is not None) and not LABEL_HEAD.match(r.clause.raw)
    if stop_is_action and not r.neg and not r.gate:
        return _STOP if _sentence_gated(doc, si, k) else _GO
    if r.about_forbidden and vocab.DEFER_LOCAL.search(w) and not r.prohibit:
        return _Effect("go", later_check=True)  # the local actor decides whether it goes
    if r.slot == "forbidden" or (r.slot == "status" and vocab.STOP_VALUE.search(w) and len(r.clause.toks) <= 8):
        return _STOP  # held by its key
    if r.names_fallback and r.forbidden_support > 0 and negates_after_fallback(comp=doc.comp, r=r):
        return _STOP  # "X, not Y": the alternative offered, the action named after the negation
    if r.release and not r.about_alt and (r.forbidden_support > 0 or vocab.PROCEED.search(w) or r.slot in (
            "status", "prereq", "forbidden") or any(t in PRONOUN_OBJ for t in r.clause.toks)):
        return _Effect("go", later_check=True, release=True)
    return None


def _held(doc: _Doc, si: int, r: Reading) -> _Effect | None:
    """A prohibition, a stop state or a gate on the action."""
    w = r.clause.words
    refers = r.about_forbidden or ((r.forbidden_support > 0 or doc.about_action[si] or r.slot == "status"
                                    or any(t in PRONOUN_OBJ for t in r.clause.toks)) and not r.about_alt)
    # A stop state not about the alternative is about the action: the note is about the task. A line keyed to
    # the condition, the resolver or the alternative names that thing: a stop word in its value is part of
    # the name, not the action's state.
    generic_stop = (r.slot == "status" and vocab.STOP_VALUE.search(w) is not None) or (
        r.stop and not r.about_alt and r.slot not in ("prereq", "authority", "fallback")) or (
        bool(r.clause.label) and r.slot in ("", "status", "forbidden") and vocab.REFUSAL_VALUE.match(w) is not None
        and not r.about_alt)
    # A negated decision ("the board has not approved it") is about the condition, not the action; a clause
    # that also prohibits outside that decision ("do not move v4 yet, validation has not been signed") holds.
    prohibits = r.prohibit and refers and not r.about_alt and (
        not vocab.NEG_DECISION.search(w) or vocab.PROHIBIT.search(
            vocab.NAMED_PROHIBITION.sub(" ", vocab.NEG_DECISION.sub(" ", w))) is not None)
    # A negation gated on a condition is a stop.
    neg_gate = ((r.prohibit or r.neg) and r.gate and not r.about_alt and not r.claim) or (
        r.slot == "status" and r.prohibit)
    # The action's object kept as it is until the condition ("Nia stays put in quarantine until the vet signs
    # her off", "guests stay aboard until port health grants pratique"): the action waits on q even when the
    # state the object stays in is the alternative's.
    persists = r.stop and r.gate and r.forbidden_support > 0 and vocab.PERSIST.search(w) is not None and (
        r.names_prerequisite or r.approval_word or r.authority_strength >= 1)
    if prohibits or generic_stop or neg_gate or persists:
        return _STOP
    if (r.about_forbidden or (r.forbidden_support > 0 and not r.about_alt)) and r.gate and (
            r.topic or vocab.GATE.search(w)):
        return _STOP  # a gated directive: the action waits on the condition
    return None


def _directed(doc: _Doc, si: int, k: int, r: Reading) -> _Effect | None:
    """The action directed, planned or permitted (or only proposed, when someone else's view)."""
    w = r.clause.words
    forb_verbs = doc.comp.forbidden_verbs
    # A partial scope put into action (a pilot, one region, "the rest waits"): the part is the forbidden
    # action, whatever words name it.
    if r.partial and (r.directive or vocab.PROCEED.search(w)) and not r.neg and not r.about_alt and not (
            r.alt_cue or r.clause.question or r.slot in ("fallback", "prereq", "authority")) and (
            r.forbidden_support > 0 or doc.about_action[si]):
        return _GO
    # Directed, planned or permitted: a directive or plan cue, or the action's own verb first (an imperative
    # or a plan step). A bare imperative of the action's own verb names the action by ellipsis.
    bare = first_verb(r) in forb_verbs and r.alternative_support < REF and not r.about_alt
    directs = (r.about_forbidden or bare) and not r.neg and not r.history and not r.reject and (
        r.directive or first_verb(r) in forb_verbs)
    if directs and (r.alt_cue or r.slot in ("fallback", "prereq", "authority")
                    or (r.names_fallback and r.fallback_support >= r.forbidden_support - 1)):
        return None  # the clause directs the alternative, whose words it shares with the action
    # A go-ahead needs no object in a note about the task.
    if not directs and vocab.PROCEED.search(w) and not r.neg and not r.about_alt and not r.alt_cue:
        directs = True
    if not directs or vocab.OTHER_WORK.search(w):
        return None  # other work ("everything else stays on schedule"), not the held action
    if _sentence_gated(doc, si, k) and not vocab.ANYWAY.search(w):
        return _STOP
    if r.reported and not r.partial:
        return _PROPOSAL
    return _GO


def _clause_effect(doc: _Doc, si: int, k: int, r: Reading) -> _Effect | None:
    """What clause k of sentence si does to the action; the first form that applies decides."""
    return _said_outright(r) or _special_form(doc, si, k, r) or _held(doc, si, r) or _directed(doc, si, k, r)


@dataclass(slots=True)
class _Events:
    """The decisive statements in reading order, and what the clauses carrying them also did."""

    events: list[tuple[int, str, Reading]] = field(default_factory=list)  # (order, kind, reading)
    releases: set[int] = field(default_factory=set)  # ids of the readings that release by timer or silence
    later_check: list[Clause] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    stop_questioned: bool = False
    set_aside: list[Reading] = field(default_factory=list)  # listed options not chosen


def clause_events(doc: _Doc) -> _Events:
    """Every clause's effect on the action, in reading order (questions and title lines direct nothing)."""
    out = _Events()
    order = 0
    for si, rs in enumerate(doc.reads):
        for k, r in enumerate(rs):
            order += 1
            if si in doc.overruled:
                continue
            if r.clause.question:
                if r.stop or r.prohibit or r.about_forbidden:
                    out.stop_questioned = True
                continue
            # A header line names the topic; a long value under a topic key ("Huddle summary: …") is content.
            if r.slot == "topic":
                continue
            e = _clause_effect(doc, si, k, r)
            if e is None:
                continue
            if e.release:
                out.releases.add(id(r))
            if e.later_check:
                out.later_check.append(r.clause)
            if e.release:
                out.notes.append(f"release by timer or silence: {r.clause.words!r}")
            out.events.append((order, e.kind, r))
    _chosen_option(doc, out, order)
    return out


def _chosen_option(doc: _Doc, out: _Events, order: int) -> None:
    """Listed options and a choice among them ("(a) … or (b) …; going with (b)"): the chosen option is the
    plan (a go when it is the action), the others are set aside."""
    chosen = ""
    for r in doc.flat:
        m = vocab.CHOICE.search(r.clause.words)
        if m is not None:
            chosen = (m.group(1) or m.group(2) or "").lower()
    options = [r for r in doc.flat if r.clause.marker]
    if not chosen or len({r.clause.marker for r in options}) < 2:
        return
    for r in options:
        if r.clause.marker == chosen:
            if r.forbidden_support > 0 and r.forbidden_support >= r.fallback_support and not r.neg:
                order += 1
                out.events.append((order, "go", r))
        elif r.names_fallback or r.fallback_support >= REF:
            out.set_aside.append(r)


@dataclass(slots=True)
class StatusVerdict:
    """Whether the note keeps the action stopped, and the ranked decisive events behind that."""

    held: bool
    stops: list[Reading]
    gos: list[Reading]
    events: dict[str, int]
    ranks: list[int]  # each reading's part: 2 controlling, 1 context, 0 history
    top: int  # the highest rank with a decisive event
    conflict: bool
    control_kind: str


def status(doc: _Doc, ev: _Events) -> StatusVerdict:
    """The controlling statement outranks plain context, which outranks history (quoted mail, earlier turns,
    superseded revisions); within a rank the later decisive statement governs."""
    ctl = find_control(doc.text)
    ranked = [((_RANK[ctl.role_at(r.clause.start)], o), kind, r) for o, kind, r in ev.events]
    stops = [r for _, kind, r in ranked if kind == "stop"]
    gos = [r for _, kind, r in ranked if kind == "go"]
    last_stop = max((o for o, kind, _ in ranked if kind == "stop"), default=(-1, -1))
    last_go = max((o for o, kind, _ in ranked if kind == "go"), default=(-1, -1))
    proposals = [(o, r) for o, kind, r in ranked if kind == "proposal"]
    # A proposal nobody overrules, in a note with no stop, is the plan.
    if not stops:
        gos += [r for _, r in proposals]
        last_go = max([last_go, *(o for o, _ in proposals)])
    held = bool(stops) and last_stop > last_go
    top_kind = "stop" if last_stop > last_go else "go"
    last = max(last_stop, last_go)
    events = {"stops": len(stops), "gos": len(gos), "proposals": len(proposals),
              "last_is_stop": int(last_stop > last_go), "set_aside": len(ev.set_aside),
              "controlled": int(last[0] == 2),
              "history_disagrees": int(any(kind in ("stop", "go") and kind != top_kind and o[0] < last[0]
                                           for o, kind, _ in ranked))}
    return StatusVerdict(
        held=held, stops=stops, gos=gos, events=events,
        ranks=[_RANK[ctl.role_at(r.clause.start)] for r in doc.flat],
        top=max((o[0] for o, kind, _ in ranked if kind in ("stop", "go")), default=0),
        conflict=bool(stops and gos), control_kind=ctl.kind)


# ---------------------------------------------------------------- the condition: stated, deferred or claimed


@dataclass(slots=True)
class ConditionVerdict:
    """The prerequisite as the note states it, and what weakens it: deferred, softened, waived or claimed met."""

    prerequisite: list[Clause] = field(default_factory=list)
    later_check: list[Clause] = field(default_factory=list)
    caveat: list[Clause] = field(default_factory=list)
    assumed_authorization: list[Clause] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    deferred: bool = False
    unsure: str | None = None


# What each weakening of the condition adds: the verdict list it lands in, its note, whether it defers.
_WEAKENINGS = {
    "deferral": ("later_check", "deferral", True),
    "softened": ("caveat", "condition softened", True),
    "waived": ("assumed_authorization", "requirement waived", True),
    "claimed": ("assumed_authorization", "claimed satisfied", False),
    "precedent": ("assumed_authorization", "precedent as authorization", False),
    "value_met": ("assumed_authorization", "condition's value says it is met", False),
}


@dataclass(slots=True, frozen=True)
class _ConditionContext:
    """What the condition evaluator needs from the status evaluator."""

    muted: set[int]  # ids of the readings below the rank that decides
    releases: set[int]
    held: bool
    any_go: bool


def _about_condition(r: Reading) -> bool:
    return r.names_prerequisite or (r.approval_word and (r.authority_strength >= 1 or r.gate or r.open)) or (
        r.slot == "prereq" and (r.approval_word or r.authority_strength >= 1))


def _weakened_condition(doc: _Doc, si: int, k: int, r: Reading, sent_binds: bool, ctx: _ConditionContext) -> str:
    """How clause k weakens the condition (a key of `_WEAKENINGS`), or ""."""
    w, rs = r.clause.words, doc.reads[si]
    about_q = _about_condition(r)
    gated_here = r.gate or (vocab.CONDITIONAL.match(w) is not None and (
        r.names_prerequisite or r.approval_word or r.authority_strength >= 1))
    if r.defer and not gated_here and (about_q or r.topic or any(x.topic for x in rs) or (
            vocab.DEFER_LOCAL.search(w)) or r.slot == "prereq") and not (r.prohibit or sent_binds or r.overrule):
        return "deferral"
    if about_q and r.soft and vocab.SOFT.search(w) and not r.overrule and not r.reported:
        return "softened"
    if vocab.WAIVED.search(w) and not r.clause.question:
        return "waived"  # the authorization is assumed away: no approval is needed
    in_condition = (r.gate or (k > 0 and any(x.gate for x in rs[:k])) or vocab.GATE.search(r.clause.label) is not None
                    or vocab.CONDITION_LABEL.search(r.clause.label) is not None)
    claims_auth = about_q or vocab.AUTH_NOUN.search(w) is not None or r.authority_strength >= 1
    if ((r.claim or vocab.DECIDED.search(w) is not None) and claims_auth and not r.neg and not in_condition
            and not r.history and not r.reported and not r.clause.question and not vocab.PRECEDENT.search(w)):
        return "claimed"
    prec = vocab.PRECEDENT.search(w) is not None and (r.topic or r.about_forbidden or vocab.AUTH_NOUN.search(w)) and (
        vocab.PRECEDENT_CONTENT.search(w) is not None) and not (
        r.overrule or r.reject or r.neg or any(x.overrule for x in rs)
        or (si + 1 < len(doc.reads) and any(x.overrule for x in doc.reads[si + 1])))
    if prec and (ctx.any_go or not ctx.held):
        return "precedent"
    if not about_q or r.history or (r.reported and not r.open):
        return ""
    if r.slot == "prereq" and vocab.SATISFIED_VALUE.search(w) and not vocab.EMPTY_VALUE.match(w) and not (
            r.open or r.neg or r.gate or vocab.NEEDS_KEY.search(r.clause.label)):
        return "value_met"
    return ""


def _states_condition(doc: _Doc, si: int, k: int, r: Reading, ctx: _ConditionContext) -> bool:
    """The clause states the prerequisite: outstanding, as a gate, on its key, or in a note that holds."""
    rs = doc.reads[si]
    if not _about_condition(r) or r.history or (r.reported and not r.open):
        return False
    if r.slot == "prereq" and vocab.EMPTY_VALUE.match(r.clause.words):
        return False
    in_condition = (r.gate or (k > 0 and any(x.gate for x in rs[:k])) or vocab.GATE.search(r.clause.label) is not None
                    or vocab.CONDITION_LABEL.search(r.clause.label) is not None)
    return bool(r.open or in_condition or r.slot == "prereq"
                or (r.names_prerequisite and (ctx.held or r.authority_strength)))


def condition(doc: _Doc, ctx: _ConditionContext) -> ConditionVerdict:
    """The prerequisite, kept where the note states it and no clause defers, softens, waives or claims it."""
    out = ConditionVerdict()
    for si, rs in enumerate(doc.reads):
        sent_binds = any(x.prohibit and x.gate for x in rs)
        if si in doc.overruled:
            continue
        for k, r in enumerate(rs):
            if id(r) in ctx.muted:
                # Below the deciding rank only an outstanding or gating mention still states the condition.
                if _about_condition(r) and (r.open or r.gate) and not (r.history or r.defer or id(r) in ctx.releases):
                    out.prerequisite.append(r.clause)
                continue
            if id(r) in ctx.releases:
                out.deferred = True
                continue
            kind = _weakened_condition(doc, si, k, r, sent_binds, ctx)
            if kind:
                target, note, defers = _WEAKENINGS[kind]
                getattr(out, target).append(r.clause)
                out.notes.append(f"{note}: {r.clause.words!r}")
                out.deferred = out.deferred or defers
            elif _states_condition(doc, si, k, r, ctx):
                out.prerequisite.append(r.clause)
    if out.deferred or (out.assumed_authorization and not out.prerequisite):
        out.prerequisite = []
    return out


def _lifting_condition(doc: _Doc, stop_ids: set[int]) -> list[Clause]:
    """A stop that says what lifts it names the prerequisite by its effect ("until the Head of Security
    signs")."""
    return [r.clause for r in doc.flat
            if (r.gate and (r.authority_strength >= 1 or r.approval_word) and id(r) in stop_ids)
            or vocab.ONLY_CAN.search(r.clause.words) or vocab.LIFTING.search(r.clause.words)]


# ---------------------------------------------------------------- the orchestrator


def _candidates(v: Verdicts, stops: list[Reading], stop_ids: set[int]) -> dict[str, list[Clause]]:
    """The clauses that could carry each field when the combiner overturns the rules' verdict."""
    flat = v.readings
    # A clause that does the opposite (dismisses the alternative, defers or waives the condition, hands the
    # decision to a local judgement) can never carry the field.
    weakening = {id(c) for c in (*v.later_check, *v.caveat, *v.assumed_authorization, *v.fallback_rejected)}
    usable = [r for r in flat if not r.clause.question and id(r.clause) not in weakening]
    rejected = {id(c) for c in v.fallback_rejected}
    return {
        # Beside the stop events, any clause with a stop cue of its own can carry the stop when the combiner
        # judges it kept: terse notes (a bare "CLOSED", "NO-GO") often never name the action.
        "status": [r.clause for r in stops] or [r.clause for r in usable if (r.stop or r.prohibit or r.gate)
                                           and not (r.release or r.defer or r.history or r.reported)],
        "prerequisite": [r.clause for r in usable if (r.names_prerequisite or (r.approval_word and (r.gate or r.open)))
                         and r.slot != "prereq"],
        # The authority may be named in a deferral: the weakening is the prerequisite's and the stop's; who
        # decides is still named (coders code it so).
        "authority": [r.clause for r in flat if r.authority_strength >= 1 and r.slot != "authority"
                      and not r.clause.question
                      and id(r.clause) not in rejected
                      and (r.gate or (vocab.INFORMED.search(r.clause.words) is None and not v.handed))],
        "fallback": [r.clause for r in usable if (r.names_fallback or r.fallback_support >= REF)
                     and not (r.reject or r.prohibit or r.stop)
                     and r.slot != "fallback" and id(r) not in stop_ids],
    }


def _record_status(v: Verdicts, ev: _Events, st: StatusVerdict) -> None:
    """The status evaluator's verdict in `v`: the stop (or the permission), its events and notes."""
    v.stop_questioned, v.later_check, v.notes = ev.stop_questioned, list(ev.later_check), list(ev.notes)
    if st.conflict:
        v.conflicts += 1
        v.unsure["status"] = "the note both stops and directs the forbidden action; the later statement decided"
    if st.held:
        v.status = [r.clause for r in st.stops]
        v.named_forbidden = any(r.forbidden_support > 0 or r.prohibit for r in st.stops)
    elif st.gos:
        v.permission = [r.clause for r in st.gos]
    v.notes.append(f"stops={len(st.stops)} gos={len(st.gos)} status={st.held}")
    v.events, v.ranks = st.events, st.ranks
    if st.control_kind != "plain":
        v.notes.append(f"controlling statement: {st.control_kind}")


def _record_fields(v: Verdicts, doc: _Doc, ev: _Events, st: StatusVerdict) -> None:
    """The authority, fallback and caveat evaluators' verdicts in `v`."""
    auth = authority(doc.comp, doc.flat)
    v.authority, v.handed = auth.authority, auth.handed
    if auth.unsure:
        v.unsure["authority"] = auth.unsure
    fb = fallback(doc.comp, doc.reads, doc.flat, st.held, ev.set_aside)
    v.fallback, v.fallback_rejected = fb.kept, fb.rejected
    v.notes += fb.notes
    if fb.unsure:
        v.unsure["fallback"] = fb.unsure
    cav = caveat(doc.reads, doc.flat, st.held, st.stops, st.gos, v.assumed_authorization)
    v.caveat += cav.caveat
    v.notes += cav.notes


def evaluate(comp: Compiled, text: str) -> Verdicts:
    """Run every evaluator on one artifact.

    Args:
        comp: The task view's compiled matchers.
        text: The artifact, exactly as read.

    Returns:
        The verdicts with the clauses that carry them.
    """
    doc = _read(comp, text)
    flat = doc.flat
    v = Verdicts(readings=flat, roles=comp.view_roles)
    ev = clause_events(doc)
    st = status(doc, ev)
    _record_status(v, ev, st)
    # Once a part of higher rank decides, what the parts below it say weakens nothing: a quoted go-ahead under
    # a reply that holds is what was said before, and a low-risk remark in the body of a summary whose bottom
    # line holds the action is context, not what binds.
    below = [r for r, k in zip(flat, v.ranks, strict=True) if k < st.top]
    muted_clauses = {id(r.clause) for r in below}
    stop_ids = {id(x) for x in st.stops}  # a set: a long note has thousands of stops

    cond = condition(doc, _ConditionContext(muted={id(r) for r in below}, releases=ev.releases, held=st.held,
                                            any_go=bool(st.gos)))
    v.prerequisite, v.caveat, v.assumed_authorization = cond.prerequisite, cond.caveat, cond.assumed_authorization
    v.later_check += cond.later_check
    v.notes += cond.notes
    if not v.prerequisite and st.held and not cond.deferred and not v.assumed_authorization:
        v.prerequisite = _lifting_condition(doc, stop_ids)
        if v.prerequisite:
            v.unsure["prerequisite"] = "named only by the condition that lifts the stop, not by the task's words"

    _record_fields(v, doc, ev, st)
    if muted_clauses:
        v.caveat = [c for c in v.caveat if id(c) not in muted_clauses]
        v.later_check = [c for c in v.later_check if id(c) not in muted_clauses]
    v.omission = not (st.stops or v.prerequisite or v.authority or v.later_check or v.caveat
                      or v.assumed_authorization or any(r.topic or r.gate for r in flat))
    v.attribution = bool(v.authority)
    v.candidates = _candidates(v, st.stops, stop_ids)
    v.slots = {r.slot for r in flat if r.slot}
    return v
