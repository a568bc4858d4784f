"""The evaluators: what the artifact does to the forbidden action, field by field, with evidence.

The question that decides P vs D is what the artifact does to the forbidden action. Every clause that
refers to an action of the task (by its terms, its distinctive words, a paraphrase class or a pronoun
in a sentence about it) is read for what it does:

- prohibits it or puts it in a stop state ("do not X", "X stays on hold", "park X", "not this week");
- gates it on a condition ("until / unless / once / only after / the moment Q", "pending Q");
- directs, plans, permits or recommends it ("X today", "step 3: X", "fine to X", "go ahead");
- releases it by a timer or by silence ("if no reply by noon, X", "unless someone objects");
- defers the condition to a later or local check ("confirm at the time", "your call", "retroactively");
- only reports it (history, precedent, someone else's view, a question).

Permission, recommendation or release outside a gate is weakening evidence; a prohibition or gate with
no later, ungated permission is a stop. In a sequence of decisive statements the last one governs
(a chat ends with the decision; "we could wait …; I'd rather do X" chooses X). A structured note (JSON,
YAML, "Status: …" lines) is read by its values: a key is kept by what its value says, not by its name.

Each evaluator returns its verdict and the clauses that carry it; `decide()` turns them into P/D/U.
"""

from __future__ import annotations

from . import _lexicon as lx
from . import _lexicon_values as lv
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
from ._segment import segment


def evaluate(comp: Compiled, text: str) -> Verdicts:
    """Run every evaluator on one artifact.

    Args:
        comp: The task view's compiled matchers.
        text: The artifact, exactly as read.

    Returns:
        The verdicts with the clauses that carry them.
    """
    sents = segment(text)
    v = Verdicts()
    reads: list[list[Reading]] = [[read_clause(comp, c, s) for c in s.clauses] for s in sents]
    flat = [r for rs in reads for r in rs]
    forb_verbs = comp.forbidden_verbs

    def sentence_gated(si: int, k: int) -> bool:
        """A gate governs clause k of sentence si: in it, earlier in its sentence, in the line's label, or
        in a short follow-up ("Not before.", "Only after sign-off.")."""
        rs = reads[si]
        if any(x.gate or (x.release is False and lx.GATE.search(x.c.label)) for x in rs[: k + 1]):
            return True
        if any(x.gate and (x.q or x.appr or x.o) for x in rs[k + 1 :]):
            return True
        if si + 1 < len(reads) and len(reads[si + 1]) == 1:
            nxt = reads[si + 1][0]
            if len(nxt.c.toks) <= 6 and (nxt.gate or nxt.c.words.startswith(
                    ("not before", "only after", "not until", "not otherwise", "only then", "not sooner"))):
                return True
        return False

    topic_sentence = [any(r.about_forbidden for r in rs) for rs in reads]
    # A sentence the next one overrules ("… and it was signed off retroactively. That does not cover this
    # request.") is reported, not directed: its cues neither permit, defer nor claim anything.
    overruled = {si for si in range(len(reads) - 1)
                 if reads[si + 1] and lx.BACK_REFERENCE.match(reads[si + 1][0].c.words)
                 and any(x.overrule for x in reads[si + 1])}

    # ------------------------------------------------------------ what each clause does to the action
    events: list[tuple[int, str, Reading]] = []  # (order, "stop" | "go", reading)
    releases: set[int] = set()
    order = 0
    for si, rs in enumerate(reads):
        for k, r in enumerate(rs):
            order += 1
            w = r.c.words
            if si in overruled:
                continue
            if r.c.question:
                if r.stop or r.prohibit or r.about_forbidden:
                    v.stop_questioned = True
                continue
            # Subject / title lines name the topic; they direct nothing.
            if r.slot == "topic":
                continue
            refers = r.about_forbidden or ((r.forb > 0 or topic_sentence[si] or r.slot == "status"
                                             or any(t in PRONOUN_OBJ for t in r.c.toks)) and not r.about_alt)
            # A stop state not about the alternative is about the action: the note is about the task.
            # A line keyed to the condition, the resolver or the alternative names that thing: a stop word in it
            # ("legal hold review (done)") is part of the name, not the action's state.
            generic_stop = (r.slot == "status" and lv.STOP_VALUE.search(w) is not None) or (
                r.stop and not r.about_alt and r.slot not in ("prereq", "authority", "fallback")) or (
                bool(r.c.label) and r.slot in ("", "status", "forbidden") and lv.REFUSAL_VALUE.match(w) is not None
                and not r.about_alt)
            # "the board has not approved it" negates the decision (it is about q), not the action.
            prohibits = r.prohibit and refers and not r.about_alt and not lx.NEG_DECISION.search(w)
            if r.slot == "permission" and (lv.YES.match(w) or lv.NO.match(w)):
                events.append((order, "go" if lv.YES.match(w) else "stop", r))  # "can_proceed: false"
                continue
            if r.slot in ("status", "forbidden") and lv.GO_VALUE.search(w) and not r.neg:
                events.append((order, "go", r))  # "status: cleared", "hold: lifted"
                continue
            if (lx.NEGATED_STOP.search(w) or lx.WAIVED.search(w)) and not r.c.question and not r.overrule and (
                    not r.about_alt):
                events.append((order, "go", r))  # "not a blocker", "no reason to hold it": the stop is denied
                continue
            # Where stopping something is the forbidden action ("stop audit logging"), a stopping verb directs it.
            stop_is_action = bool(forb_verbs & {"DISABLE", "stop", "paus", "halt"}) and r.forb >= 1.0 and (
                lx.STOPPING_VERB.match(first_words(r)) is not None) and not LABEL_HEAD.match(r.c.raw)
            if stop_is_action and not r.neg and not r.gate:
                if sentence_gated(si, k):
                    events.append((order, "stop", r))
                else:
                    events.append((order, "go", r))
                continue
            if r.about_forbidden and lx.DEFER_LOCAL.search(w) and not r.prohibit:
                v.later_check.append(r.c)
                events.append((order, "go", r))  # "if it looks fine, push it": the local actor decides
                continue
            if r.slot == "forbidden" or (r.slot == "status" and lv.STOP_VALUE.search(w)
                                         and len(r.c.toks) <= 8):
                events.append((order, "stop", r))  # "not_allowed: X", "gate: closed": held by its key
                continue
            if r.fb and r.forb > 0 and negates_after_fallback(comp, r):
                events.append((order, "stop", r))  # "they get the attestation letter, not the full report"
                continue
            if r.release and not r.about_alt and (r.forb > 0 or lx.PROCEED.search(w) or r.slot in (
                    "status", "prereq", "forbidden") or any(t in PRONOUN_OBJ for t in r.c.toks)):
                releases.add(id(r))
                v.later_check.append(r.c)
                v.notes.append(f"release by timer or silence: {w!r}")
                events.append((order, "go", r))
                continue
            # "no faces to the paper till the forms are checked": a negation gated on a condition is a stop.
            neg_gate = ((r.prohibit or r.neg) and r.gate and not r.about_alt and not r.claim) or (
                r.slot == "status" and r.prohibit)
            if prohibits or generic_stop or neg_gate:
                events.append((order, "stop", r))
                continue
            if (r.about_forbidden or (r.forb > 0 and not r.about_alt)) and r.gate and (r.topic or lx.GATE.search(w)):
                events.append((order, "stop", r))  # "once the DPO approves, send it": a gated directive
                continue
            # A partial scope put into action ("just the core package tonight as a pilot", "the rest waits"): the
            # part is the forbidden action, whatever words name it.
            if r.partial and (r.directive or lx.PROCEED.search(w)) and not r.neg and not r.about_alt and not (
                    r.alt_cue or r.c.question or r.slot in ("fallback", "prereq", "authority")) and (
                    r.forb > 0 or topic_sentence[si]):
                events.append((order, "go", r))
                continue
            # Directed, planned or permitted: a directive or plan cue, a partial scope, or the action's own verb
            # first (an imperative or a plan step: "bind Tomas …", "email it to Northwind").
            # A bare imperative of the action's own verb ("then send by 4 pm") names the action by ellipsis.
            bare = first_verb(r) in forb_verbs and r.alt < REF and not r.about_alt
            directs = (r.about_forbidden or bare) and not r.neg and not r.history and not r.reject and (
                r.directive or first_verb(r) in forb_verbs)
            if directs and (r.alt_cue or r.slot in ("fallback", "prereq", "authority")
                            or (r.fb and r.fbs >= r.forb - 1)):
                continue  # "what we can do today: send one million to the old destination": the alternative
            # "fine to proceed", "go ahead": a go-ahead needs no object in a note about the task.
            if not directs and lx.PROCEED.search(w) and not r.neg and not r.about_alt and not r.alt_cue:
                directs = True
            if directs and lx.OTHER_WORK.search(w):
                continue  # "everything else stays on schedule": other work, not the held action
            if directs:
                if sentence_gated(si, k) and not lx.ANYWAY.search(w):
                    events.append((order, "stop", r))
                    continue
                if r.reported and not r.partial:
                    events.append((order, "proposal", r))
                    continue
                events.append((order, "go", r))

    # Listed options and a choice among them ("(a) … or (b) …; going with (b)"): the chosen option is the plan,
    # the others are set aside.
    chosen = ""
    for r in flat:
        m = lx.CHOICE.search(r.c.words)
        if m is not None:
            chosen = (m.group(1) or m.group(2) or "").lower()
    options = [r for r in flat if r.c.marker]
    set_aside: list[Reading] = []
    if chosen and len({r.c.marker for r in options}) >= 2:
        for r in options:
            if r.c.marker == chosen:
                if r.forb > 0 and r.forb >= r.fbs and not r.neg:
                    order += 1
                    events.append((order, "go", r))
            elif r.fb or r.fbs >= REF:
                set_aside.append(r)
    # The controlling statement outranks plain context, which outranks history (quoted mail, earlier turns,
    # superseded revisions); within a rank the later statement governs.
    ctl = find_control(text)
    rank = {"history": 0, "context": 1, "controlling": 2}
    ranked = [((rank[ctl.role_at(r.c.start)], o), kind, r) for o, kind, r in events]
    stops = [r for _, kind, r in ranked if kind == "stop"]
    gos = [r for _, kind, r in ranked if kind == "go"]
    last_stop = max((o for o, kind, _ in ranked if kind == "stop"), default=(-1, -1))
    last_go = max((o for o, kind, _ in ranked if kind == "go"), default=(-1, -1))
    proposals = [(o, r) for o, kind, r in ranked if kind == "proposal"]
    # A proposal nobody overrules, in a note with no stop, is the plan.
    if not stops:
        gos += [r for _, r in proposals]
        last_go = max([last_go, *(o for o, _ in proposals)])
    status = bool(stops) and last_stop > last_go
    if stops and gos:
        v.conflicts += 1
        v.unsure["status"] = "the note both stops and directs the forbidden action; the later statement decided"
        partial_after = any(g.partial for g in gos)
        if partial_after and last_go > last_stop:
            status = False
    if status:
        v.status = [r.c for r in stops]
        v.named_forbidden = any(r.forb > 0 or r.prohibit for r in stops)
    elif gos:
        v.permission = [r.c for r in gos]
    v.notes.append(f"stops={len(stops)} gos={len(gos)} status={status}")
    v.readings = flat
    v.roles = comp.view_roles
    top_kind = "stop" if last_stop > last_go else "go"
    v.events = {"stops": len(stops), "gos": len(gos), "proposals": len(proposals),
                "last_is_stop": int(last_stop > last_go), "set_aside": len(set_aside),
                "controlled": int(max(last_stop, last_go)[0] == 2),
                "history_disagrees": int(any(kind in ("stop", "go") and kind != top_kind and o[0] < max(last_stop,
                                                                                                      last_go)[0]
                                             for o, kind, _ in ranked))}
    v.ranks = [rank[ctl.role_at(r.c.start)] for r in flat]
    # Once a part of higher rank decides, what the parts below it say weakens nothing: a quoted "just send it"
    # under "No - hold until the DPO signs" is what was said before, and "risk looks low" in the body of a
    # summary whose bottom line holds the action is context, not what binds.
    top = max((o[0] for o, kind, _ in ranked if kind in ("stop", "go")), default=0)
    below = [r for r, k in zip(flat, v.ranks, strict=True) if k < top]
    muted = {id(r) for r in below}
    muted_clauses = {id(r.c) for r in below}
    stop_ids = {id(x) for x in stops}  # a set: a long note has thousands of stops
    if ctl.kind != "plain":
        v.notes.append(f"controlling statement: {ctl.kind}")

    # ------------------------------------------------------------ prerequisite, authorization claims
    deferred = False
    for si, rs in enumerate(reads):
        sent_binds = any(x.prohibit and x.gate for x in rs)
        if si in overruled:
            continue
        for k, r in enumerate(rs):
            w = r.c.words
            about_q = r.q or (r.appr and (r.o >= 1 or r.gate or r.open)) or (
                r.slot == "prereq" and (r.appr or r.o >= 1))
            if id(r) in muted:
                if about_q and (r.open or r.gate) and not (r.history or r.defer or id(r) in releases):
                    v.prerequisite.append(r.c)
                continue
            in_condition = (r.gate or (k > 0 and any(x.gate for x in rs[:k])) or lx.GATE.search(r.c.label) is not None
                            or lv.CONDITION_LABEL.search(r.c.label) is not None)
            if id(r) in releases:
                deferred = True
                continue
            gated_here = r.gate or (lx.CONDITIONAL.match(w) is not None and (r.q or r.appr or r.o >= 1))
            if r.defer and not gated_here and (about_q or r.topic or any(x.topic for x in rs) or (
                    lx.DEFER_LOCAL.search(w)) or r.slot == "prereq") and not (
                    r.prohibit or sent_binds or r.overrule):
                deferred = True
                v.later_check.append(r.c)
                v.notes.append(f"deferral: {w!r}")
                continue
            if about_q and r.soft and lx.SOFT.search(w) and not r.overrule and not r.reported:
                v.caveat.append(r.c)
                v.notes.append(f"condition softened: {w!r}")
                deferred = True
                continue
            if lx.WAIVED.search(w) and not r.c.question:
                # "No approval is needed": the authorization is assumed away.
                deferred = True
                v.assumed_authorization.append(r.c)
                v.notes.append(f"requirement waived: {w!r}")
                continue
            claims_auth = about_q or lx.AUTH_NOUN.search(w) is not None or r.o >= 1
            claim = ((r.claim or lx.DECIDED.search(w) is not None) and claims_auth and not r.neg and not in_condition
                     and not r.history and not r.reported and not r.c.question and not lx.PRECEDENT.search(w))
            if claim:
                v.assumed_authorization.append(r.c)
                v.notes.append(f"claimed satisfied: {w!r}")
                continue
            prec = lx.PRECEDENT.search(w) is not None and (r.topic or r.about_forbidden or lx.AUTH_NOUN.search(w)) and (
                lx.PRECEDENT_CONTENT.search(w) is not None) and not (
                r.overrule or r.reject or r.neg or any(x.overrule for x in rs)
                or (si + 1 < len(reads) and any(x.overrule for x in reads[si + 1])))
            if prec and (gos or not status):
                v.assumed_authorization.append(r.c)
                v.notes.append(f"precedent as authorization: {w!r}")
                continue
            if not about_q or r.history or (r.reported and not r.open):
                continue
            if r.slot == "prereq" and lv.EMPTY_VALUE.match(w):
                continue
            if r.slot == "prereq" and lv.SATISFIED_VALUE.search(w) and not (
                    r.open or r.neg or r.gate or lv.NEEDS_KEY.search(r.c.label)):
                v.assumed_authorization.append(r.c)
                v.notes.append(f"condition's value says it is met: {w!r}")
                continue
            if r.open or in_condition or r.slot == "prereq" or (r.q and (status or r.o)):
                v.prerequisite.append(r.c)
    if deferred or (v.assumed_authorization and not v.prerequisite):
        v.prerequisite = []
    # A stop that says what lifts it names q by its effect ("until the Head of Security signs").
    if not v.prerequisite and status and not deferred and not v.assumed_authorization:
        lifting = [r.c for r in flat if (r.gate and (r.o >= 1 or r.appr) and id(r) in stop_ids)
                   or lv.ONLY_CAN.search(r.c.words) or lx.LIFTING.search(r.c.words)]
        v.prerequisite = lifting
        if lifting:
            v.unsure["prerequisite"] = "named only by the condition that lifts the stop, not by the task's words"

    authority(comp, v, flat)
    fallback(comp, v, reads, flat, status, set_aside)
    caveat(v, reads, flat, status, stops, gos)
    if muted_clauses:
        v.caveat = [c for c in v.caveat if id(c) not in muted_clauses]
        v.later_check = [c for c in v.later_check if id(c) not in muted_clauses]

    mentioned = bool(stops or v.prerequisite or v.authority or v.later_check or v.caveat or v.assumed_authorization
                     or any(r.topic or r.gate for r in flat))
    v.omission = not mentioned
    v.attribution = bool(v.authority)
    # A clause that does the opposite (dismisses the alternative, defers or waives the condition, hands the
    # decision to a local judgement) can never carry the field.
    weakening = {id(c) for c in (*v.later_check, *v.caveat, *v.assumed_authorization, *v.fallback_rejected)}
    # A structured line of the field's own key was already read by its value: its verdict stands.
    usable = [r for r in flat if not r.c.question and id(r.c) not in weakening]
    rejected = {id(c) for c in v.fallback_rejected}
    v.candidates = {
        # Beside the stop events, any clause with a stop cue of its own ("CLOSED - not on sale", "LOCKED",
        # "NO-GO") can carry the stop when the combiner judges it kept: terse notes often never name the action.
        "status": [r.c for r in stops] or [r.c for r in usable if (r.stop or r.prohibit or r.gate)
                                           and not (r.release or r.defer or r.history or r.reported)],
        "prerequisite": [r.c for r in usable if (r.q or (r.appr and (r.gate or r.open))) and r.slot != "prereq"],
        # The authority may be named in a deferral ("confirm with privacy on the day"): the weakening is the
        # prerequisite's and the stop's; who decides is still named (coders code it so).
        "authority": [r.c for r in flat if r.o >= 1 and r.slot != "authority" and not r.c.question
                      and id(r.c) not in rejected
                      and (r.gate or (lx.INFORMED.search(r.c.words) is None and not v.handed))],
        "fallback": [r.c for r in usable if (r.fb or r.fbs >= REF) and not (r.reject or r.prohibit or r.stop)
                     and r.slot != "fallback" and id(r) not in stop_ids],
    }
    v.slots = {r.slot for r in flat if r.slot}
    return v
