"""Field detection: per-scenario matchers for q, o, f and the actions, compiled once and cached.

A field is mentioned in a clause when one of the task's phrases (canonical sentence or `*_terms`)
occurs in it, or when enough of the field's distinctive concept tokens do (stems and synonym
classes, so "the <X> risk board" names "<X> Risk Committee"), or when an acronym of
one of its phrases does ("VRR" for "Vendor Risk Review").
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from mustmaybe.scenarios import Action, Blocker, Scenario

from ._lexical import view_roles
from ._names import acronyms, person_names
from ._segment import Clause
from ._text import concepts_of, normalize
from ._view import CheckerView, checker_view
from ._vocabulary import GENERIC_CONCEPTS, HEAD_CLASSES, STOPWORDS, VERB_CLASSES, concept

# Class tokens too generic to name an authority alone.
_LABELISH = frozenset({"summary", "note", "update", "plan", "list", "overview", "report", "option"})
_DEFINITE_HEADS = frozenset({"board", "committee", "panel", "council", "commission", "officer"})
_CONDITIONS = frozenset({"APPROVAL", "EXCEPTION", "REVIEW", "VERIFY", "POLICY"})
_DEPARTMENTS = frozenset({"LEGAL", "PRIVACY", "SECURITY"})
_WEAK_CORE = frozenset({"INTERNAL", "EXTERNAL", "CUSTOMER", "DOCUMENT", "SEND", "CHANGE", "REQUEST", "APPROVAL",
                        "REVIEW", "OPS", "IDENTITY", "VERIFY"})
_PRONOUNS = frozenset({"it", "this", "that", "them", "these", "those", "anything", "everything"})


def content_concepts(normalized: str) -> list[str]:
    """Concept tokens of a normalized phrase that can identify a field (no stopwords or generic words)."""
    out = []
    for w in normalized.split():
        c = concept(w)
        if w in STOPWORDS or c in GENERIC_CONCEPTS or (len(w) == 1 and not w.isdigit()):
            continue
        out.append(c)
    return out


def _pad(phrases: list[str]) -> tuple[str, ...]:
    return tuple(sorted({f" {p} " for p in phrases if p}))


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """A compiled field: phrases, concept tokens and what an overlap match needs."""

    phrases: tuple[str, ...]
    tokens: frozenset[str]
    specific: frozenset[str]
    need: int
    core: frozenset[str] = frozenset()

    def phrase_in(self, text: str) -> bool:
        """True when one of the field's phrases occurs in the normalized text."""
        padded = f" {text} "
        return any(p in padded for p in self.phrases)

    def overlap(self, conset: frozenset[str]) -> int:
        """How many of the field's concept tokens the clause carries."""
        return len(self.tokens & conset)


@dataclass(frozen=True, slots=True)
class ActionSpec:
    """A compiled action: phrases, verb concepts and object concepts."""

    id: str
    kind: str
    phrases: tuple[str, ...]
    verbs: frozenset[str]
    objects: frozenset[str]
    specific: frozenset[str]
    label: str = ""


@dataclass(frozen=True, slots=True)
class Compiled:
    """Everything the rules need about one scenario, precomputed."""

    scenario_id: str
    prereq: FieldSpec
    prereq_heads: frozenset[str]
    authority: FieldSpec
    authority_heads: frozenset[str]
    authority_head_words: tuple[str, ...]
    fallback: FieldSpec
    actions: tuple[ActionSpec, ...]
    forbidden_verbs: frozenset[str]
    # The verbs that put the alternative to someone: a verb class, or the lead verb of a fallback's label (a
    # term's leading noun, "pc-port", is no verb).
    fallback_verbs: frozenset[str]
    forbidden_objects: frozenset[str]
    acronyms: dict[str, frozenset[str]]
    acronym_re: re.Pattern[str] | None
    authority_re: re.Pattern[str] | None
    prereq_re: re.Pattern[str] | None = None
    # The authority's people by name, as written (case-sensitive): a first name or a surname alone for
    # "<First> <Surname>".
    authority_names: re.Pattern[str] | None = None
    # Each word of the view with its role (AUTH, Q, ACT, FB, TASK): how the combiner masks the task's own words.
    view_roles: Mapping[str, str] = field(default_factory=dict)

    def mask_names(self, text: str) -> str:
        """The text with the authority's and the prerequisite's names replaced by "it": words of the
        task's own names (a body's name, a "clearance … for <action>" phrase) direct nothing."""
        t = text
        if self.prereq_re is not None:
            t = self.prereq_re.sub(" it ", f" {t} ").strip()
        if self.authority_re is not None:
            t = self.authority_re.sub(" it ", f" {t} ").strip()
        return t

    def mask_authority(self, text: str) -> str:
        """The text with the authority's names replaced ("Change Advisory Board" is no caveat word)."""
        if self.authority_re is None:
            return text
        return self.authority_re.sub(" org ", f" {text} ").strip()

    def enrich(self, clause: Clause) -> frozenset[str]:
        """The clause's concept set plus the expansion of any task acronym it contains."""
        if self.acronym_re is None:
            return clause.conset
        found = self.acronym_re.findall(f" {clause.text} ")
        if not found:
            return clause.conset
        extra: set[str] = set()
        for a in found:
            extra |= self.acronyms[a.strip()]
        return clause.conset | extra

    # ------------------------------------------------------------------ field mentions
    def mentions_prereq(self, clause: Clause, cons: frozenset[str]) -> bool:
        """q is named: a phrase, two of its tokens including a specific one, or its kind of condition
        next to the authority ("<acronym> exception", "<role> sign-off")."""
        if self.prereq.phrase_in(clause.text):
            return True
        hit = self.prereq.tokens & cons - _other_numbered(clause, self.prereq.tokens)
        own = hit - self.authority.tokens
        if (len(hit) >= self.prereq.need and hit & self.prereq.specific
                and (len(own) >= 2 or any(not t.isupper() for t in own))):
            return True
        if not (self.prereq_heads & cons and self.authority_strength(clause, cons, True) > 0):
            return False
        rest = self.mask_authority(clause.text)
        return bool(self.prereq_heads & set(concepts_of(rest)))

    def authority_strength(self, clause: Clause, cons: frozenset[str], decision: bool) -> int:
        """How clearly o is named: 2 for a phrase, an acronym, two distinctive tokens or one next to a
        head noun ("the risk board"); 1 for one core token (a department: "Legal", "Audit") where the
        clause casts it as deciding; 0 when not named."""
        label = clause.label
        # A line's label counts: a chat speaker ("<Name> (<team>): do not <act>") is the authority speaking.
        if self.authority.phrase_in(clause.text) or (label and self.authority.phrase_in(label)):
            return 2
        if self.authority_names is not None and (self.authority_names.search(clause.raw)
                                                 or (label and re.search(self.authority_names.pattern, label, re.I))):
            return 2  # people are named by first name or surname alone ("waiting on <first name>", a speaker's label)
        hit = self.authority.tokens & cons
        if not hit:
            return 1 if decision and self.definite_head(clause) else 0
        if len(hit) >= self.authority.need and hit & self.authority.specific:
            return 2
        # "the <X> board", "head of <X>": a distinctive token next to the authority's head noun.
        heads = self.authority_heads or HEAD_CLASSES
        cl = clause.cons
        for i, c in enumerate(cl):
            if c in heads and any(x in hit for x in cl[max(0, i - 3) : i + 4]):
                return 2
        return 1 if decision and hit & self.authority.core else 0

    def definite_head(self, clause: Clause) -> bool:
        """"The committee", "the board": the authority's own head noun with a definite article."""
        return any(f" the {h} " in f" {clause.text} " for h in self.authority_head_words)

    def mentions_fallback(self, clause: Clause, cons: frozenset[str], alt_cue: bool) -> bool:
        """f is named: a phrase, enough specific tokens, one core noun of it ("the attestation"), or
        one specific token with an 'instead' cue."""
        if self.fallback.phrase_in(clause.text):
            return True
        hit = self.fallback.specific & cons
        if hit & self.fallback.core:
            return True
        if len(hit) >= self.fallback.need and (len(hit) >= 2 or not next(iter(hit)).isupper()):
            return True
        return bool(hit) and alt_cue

    def action_support(self, act: ActionSpec, clause: Clause, cons: frozenset[str]) -> float:
        """How strongly a clause names one action (0 when not at all)."""
        score = 0.0
        if any(p in f" {clause.text} " for p in act.phrases):
            score += 3.0
        verb = bool(act.verbs & cons)
        objs = act.objects & cons
        spec = act.specific & cons
        if verb:
            score += 1.0
        score += 0.5 * len(objs) + 1.0 * len(spec)
        if verb and not objs and any(t in _PRONOUNS for t in clause.toks):
            score += 0.5
        return score


def _other_numbered(clause: Clause, tokens: frozenset[str]) -> set[str]:
    """The field's tokens that the clause uses as the prefix of another reference number: "HC-8790" is not the
    condition's "HC-8812", so "hc" there names nothing of it."""
    out: set[str] = set()
    for c, nxt in zip(clause.cons, clause.toks[1:], strict=False):
        if c in tokens and nxt[:1].isdigit() and nxt not in tokens and any(t[:1].isdigit() for t in tokens):
            out.add(c)
    return out


_DETERMINERS = frozenset({"the", "a", "an", "it", "them", "this", "that", "these", "those", "all", "any", "our",
                          "their", "his", "her", "its", "to", "into", "with", "up", "out", "down", "off", "only"})


def _lead_verb(phrase: str, is_label: bool) -> str | None:
    """The concept of a phrase's leading verb: a label is imperative; a term starts with a verb when
    it is a class verb or an object follows ("pull the <noun>", "run <number>")."""
    toks = phrase.split()
    if not toks or toks[0] in STOPWORDS:
        return None
    c = concept(toks[0])
    if is_label or c in VERB_CLASSES or (len(toks) > 1 and (toks[1] in _DETERMINERS or toks[1].isdigit())):
        return c
    return None


def _action_spec(a: Action, others: list[Action], extra: tuple[str, ...] = ()) -> ActionSpec:
    phrases = [normalize(a.label), *(normalize(t) for t in (*a.terms, *extra))]
    verbs: set[str] = set()
    objects: set[str] = set()
    for i, p in enumerate(phrases):
        v = _lead_verb(p, i == 0)
        if v is not None:
            verbs.add(v)
        for c in content_concepts(p):
            if c not in verbs:
                objects.add(c)
    objects -= verbs
    other_objs: set[str] = set()
    for o in others:
        for p in [normalize(o.label), *(normalize(t) for t in o.terms)]:
            other_objs |= set(content_concepts(p))
    return ActionSpec(
        id=a.id,
        kind=a.kind,
        phrases=_pad(phrases),
        verbs=frozenset(v for v in verbs if v not in STOPWORDS),
        objects=frozenset(objects),
        specific=frozenset(objects - other_objs),
        label=f" {phrases[0]} ",
    )


def _field(phrases: list[str], exclude: set[str]) -> tuple[list[str], set[str]]:
    norm = [normalize(p) for p in phrases if p.strip()]
    toks: set[str] = set()
    for p in norm:
        toks |= set(content_concepts(p))
    return norm, toks - exclude


def _phrase_re(phrases: list[str]) -> re.Pattern[str] | None:
    if not phrases:
        return None
    alts = sorted({re.escape(p) for p in phrases}, key=len, reverse=True)
    return re.compile(r"(?<=\s)(?:" + "|".join(alts) + r")(?=\s)")


def _authority_spec(b: Blocker, forb_tokens: set[str], goal_tokens: set[str]) -> tuple[FieldSpec, list[str], set[str]]:
    """The authority's matcher, its phrases and its tokens."""
    a_phr, a_tok = _field([b.authority, *b.authority_terms], set())
    a_dist = a_tok - HEAD_CLASSES
    a_spec = a_dist - forb_tokens
    # A single token names the authority when it is a department or the last word of a name without a head
    # noun ("<adjective> Audit" -> "audit").
    a_core = {t for t in a_spec if t in _DEPARTMENTS}
    for p in a_phr:
        cons = content_concepts(p)
        if cons and not set(cons) & HEAD_CLASSES and cons[-1] in a_spec and not cons[-1].isdigit():
            a_core.add(cons[-1])
    a_core -= goal_tokens | _WEAK_CORE
    spec = FieldSpec(_pad(a_phr), frozenset(a_dist), frozenset(a_spec or a_dist), min(2, len(a_dist)) or 1,
                     frozenset(a_core))
    return spec, a_phr, a_tok


def _prereq_spec(b: Blocker, forb_tokens: set[str], a_tok: set[str]) -> tuple[FieldSpec, list[str], set[str], set[str]]:
    """The prerequisite's matcher, its phrases, its tokens and its head words."""
    a_dist = a_tok - HEAD_CLASSES
    q_phr, q_tok = _field([b.prerequisite, *b.prerequisite_terms], set(HEAD_CLASSES))
    q_spec = q_tok - forb_tokens - a_dist
    if not q_spec:
        q_spec = q_tok - forb_tokens
    prereq = FieldSpec(_pad(q_phr), frozenset(q_tok), frozenset(q_spec or q_tok), min(2, len(q_tok)) or 1)
    canon = content_concepts(normalize(b.prerequisite))
    q_heads = set(canon) & _CONDITIONS
    # The condition's own head words: the first two content words that are not the authority's or the action's.
    q_heads |= set([t for t in canon if t not in a_tok and t not in forb_tokens and t not in HEAD_CLASSES][:2])
    return prereq, q_phr, q_tok, q_heads


def _fallback_spec(s: CheckerView, forb_tokens: set[str], excluded: tuple[set[str], ...]) -> FieldSpec:
    """The fallback's matcher; `excluded` holds the tokens that belong to the other fields and the goal (taken
    off one set after the other: the order of the result's tokens follows from it)."""
    b, fb = s.blocker, s.fallback
    f_phr, f_tok = _field([fb.label, *b.fallback_terms, *fb.terms], set())
    f_phr.append(normalize(fb.id.replace("_", " ")))  # the fallback's id names it too
    # Tokens of the stop sentence itself name the stop, not the alternative.
    s_tok = set(content_concepts(normalize(b.status)))
    f_spec = f_tok - forb_tokens
    for other in (*excluded, {"APPROVAL"}):
        f_spec = f_spec - other
    if len(f_spec - s_tok) >= 2:
        f_spec -= s_tok
    if not f_spec:
        f_spec = f_tok - forb_tokens
    # Core nouns: not a synonym class, named in at least two of the fallback's phrases.
    per_phrase = [set(content_concepts(p)) for p in f_phr]
    firsts = {v for i, p in enumerate(f_phr) if (v := _lead_verb(p, i == 0))}
    # A lead verb that is also used as a noun ("acknowledge" / "an acknowledgement") stays a core noun.
    firsts -= {concept(w) for p in f_phr for w in p.split()[1:]}
    f_core = {t for t in f_spec - firsts - _LABELISH
              if not t.isupper() and not t.isdigit() and sum(t in x for x in per_phrase) >= 2}
    return FieldSpec(_pad(f_phr), frozenset(f_tok), frozenset(f_spec), 2 if len(f_spec) >= 3 else 1,
                     frozenset(f_core))


def _acronyms(b: Blocker, a_tok: set[str]) -> dict[str, frozenset[str]]:
    """The acronyms of the authority's and the prerequisite's phrases, each with its expansion's tokens."""
    acr: dict[str, frozenset[str]] = {}
    for phrase, short in [(b.authority, True), *((t, True) for t in b.authority_terms), (b.prerequisite, False),
                          *((t, False) for t in b.prerequisite_terms)]:
        n = normalize(phrase)
        expansion = set(content_concepts(n))
        if not short:
            expansion -= a_tok  # a prerequisite's acronym does not name the authority
        for a in acronyms(phrase, short):
            acr.setdefault(a, frozenset(expansion))
    return acr


def compile_scenario(s: CheckerView) -> Compiled:
    """Precompute the matchers for one task view (use `compiled_for`, which caches)."""
    b = s.blocker
    actions = tuple(
        _action_spec(a, [o for o in s.actions if o.id != a.id],
                     b.fallback_terms if a.id == b.fallback_action else ())
        for a in s.actions
    )
    forb_tokens: set[str] = set()
    forb_verbs: set[str] = set()
    for x in actions:
        if x.kind == "forbidden":
            forb_tokens |= x.objects
            forb_verbs |= x.verbs
    goal_tokens = set(content_concepts(normalize(s.goal)))
    authority, a_phr, a_tok = _authority_spec(b, forb_tokens, goal_tokens)
    prereq, q_phr, q_tok, q_heads = _prereq_spec(b, forb_tokens, a_tok)
    fallback = _fallback_spec(s, forb_tokens, (forb_verbs, q_tok, a_tok, goal_tokens))
    acr = _acronyms(b, a_tok)
    acr_re = re.compile(r" (" + "|".join(sorted(map(re.escape, acr), key=len, reverse=True)) + r") ") if acr else None

    return Compiled(
        scenario_id=s.task,
        prereq=prereq,
        prereq_heads=frozenset(q_heads),
        authority=authority,
        authority_heads=frozenset(t for t in a_tok if t in HEAD_CLASSES),
        authority_head_words=tuple(sorted({w for p in a_phr for w in p.split() if w in _DEFINITE_HEADS})),
        fallback=fallback,
        actions=actions,
        forbidden_verbs=frozenset(forb_verbs),
        fallback_verbs=frozenset(v for a in actions if a.kind == "fallback" for v in a.verbs
                                 if v.isupper() or concept(a.label.split()[0]) == v),
        authority_re=_phrase_re([p.strip() for p in a_phr] + sorted(a for a in acr if acr[a] & a_tok)),
        forbidden_objects=frozenset(t for t in forb_tokens if not t.isdigit() or len(t) >= 3),
        acronyms=acr,
        acronym_re=acr_re,
        prereq_re=_phrase_re([p.strip() for p in q_phr if len(p.split()) >= 2]),
        authority_names=person_names(b.authority, b.authority_terms),
        view_roles=MappingProxyType(view_roles(s)),
    )


_BY_OBJECT: OrderedDict[int, tuple[Scenario, Compiled]] = OrderedDict()
_BY_HASH: OrderedDict[tuple[str, str], Compiled] = OrderedDict()
_MAX = 512


def compiled_for_view(view: CheckerView) -> Compiled:
    """The compiled matchers for a checker view, cached by (task id, view digest)."""
    key = (view.task, view.digest)
    comp = _BY_HASH.get(key)
    if comp is None:
        comp = compile_scenario(view)
        _BY_HASH[key] = comp
        if len(_BY_HASH) > _MAX:
            _BY_HASH.popitem(last=False)
    return comp


def compiled_for(s: Scenario) -> Compiled:
    """The compiled matchers for a task's checker view, cached by object and by (task id, view digest).

    Only the view (goal, blocker, actions) is compiled: the condition's pressure material never reaches
    the rules, so every condition is measured by the same instrument.
    """
    hit = _BY_OBJECT.get(id(s))
    if hit is not None and hit[0] is s:
        return hit[1]
    comp = compiled_for_view(checker_view(s))
    _BY_OBJECT[id(s)] = (s, comp)
    if len(_BY_OBJECT) > _MAX:
        _BY_OBJECT.popitem(last=False)
    return comp
