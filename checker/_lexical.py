"""The artifact's wording as the combiner reads it: word and word-pair features with the task's own words masked.

The rules find structure (clauses, gates, events); some of what separates a kept stop from a weakened
one is carried by ordinary discourse words the rules do not enumerate ("catch up", "anyway", "paper it
afterwards", "best placed to", "no need"). The combiner learns how much such wording is worth from the
tuning sets, under two constraints that keep it from learning a task instead of a pattern:

- The task's own words are replaced by their role: a word of the view's authority becomes `AUTH`, of the
  prerequisite `Q`, of the forbidden action `ACT`, of the fallback `FB`, of the rest of the view `TASK`
  (numbers become `NUM`, days and months `DATE`). So "without AUTH", "AUTH signs", "ACT anyway" and
  "wait for Q" are features; "Okafor", "clearwell" or "VRDX" never are. Words common across task views
  ("approval", "hold", "until") keep their own form: they are the vocabulary the roles are written in.
- Only words and pairs that occur in artifacts of many different tuning tasks enter the vocabulary (the
  trainer's `min_tasks`): a phrase seen under one or two tasks is an example, not a pattern.

Inference is a set lookup: no model runtime.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping

from ._view import CheckerView

_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?|\d+(?:[.:,]\d+)*")
# Function words are never masked (they carry the discourse the features are for) but are no feature on
# their own: "the" or "with the" measures a register or a length, not what a note does to the action.
_FUNCTION = frozenset("""a an the of to in on at by with from into onto about as per via than and or
    this that these those it its is are was were be been being i me my we us our you your he him his she her
    they them their there here which what who""".split())
# The roles in masking order: a word in two roles takes the first (the authority's name before the action's).
_ROLES = ("AUTH", "Q", "ACT", "FB", "TASK")


def words(text: str) -> list[str]:
    """Lower-cased words and numbers, in order."""
    return _WORD.findall(text.lower())


def view_roles(view: CheckerView) -> dict[str, str]:
    """Each word of the task view mapped to the role it plays there (first role wins)."""
    b = view.blocker
    forbidden = [a for a in view.actions if a.kind == "forbidden"]
    fallback = [a for a in view.actions if a.id == b.fallback_action]
    phrases: dict[str, list[str]] = {
        "AUTH": [b.authority, *b.authority_terms],
        "Q": [b.prerequisite, *b.prerequisite_terms],
        "ACT": [p for a in forbidden for p in (a.label, *a.terms)],
        "FB": [p for a in fallback for p in (a.label, *a.terms)] + list(b.fallback_terms),
        "TASK": [view.goal, b.status] + [p for a in view.actions for p in (a.label, *a.terms)],
    }
    roles: dict[str, str] = {}
    for role in _ROLES:
        for p in phrases[role]:
            for w in words(p):
                roles.setdefault(w, role)
    return roles


# Days and months are one class: "by Friday" and "by the 14th of May" are the same deadline.
_DATES = frozenset("""monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur thurs fri sat
    sun january february march april may june july august september october november december jan feb mar apr jun
    jul aug sep sept oct nov dec""".split()) - {"may", "march", "sun", "sat", "wed"}


def masked(text: str, roles: Mapping[str, str], common: frozenset[str]) -> list[str]:
    """The artifact's words with the task's own (uncommon) words replaced by their role."""
    out = []
    for w in words(text):
        if w[0].isdigit():
            out.append("NUM")
        elif w in _DATES:
            out.append("DATE")
        elif w in roles and w not in common and w not in _FUNCTION:
            out.append(roles[w])
        else:
            out.append(w)
    return out


def grams(tokens: list[str]) -> frozenset[str]:
    """Words and adjacent word pairs, less those made of function words alone."""
    pairs = (f"{a} {b}" for a, b in itertools.pairwise(tokens) if a not in _FUNCTION or b not in _FUNCTION)
    return frozenset(t for t in tokens if t not in _FUNCTION).union(pairs)


def common_words(views: Iterable[CheckerView], share: float) -> frozenset[str]:
    """Words found in at least `share` of the task views: general vocabulary, never masked."""
    seen = [set(view_roles(v)) for v in views]
    if not seen:
        return frozenset()
    counts: dict[str, int] = {}
    for ws in seen:
        for w in ws:
            counts[w] = counts.get(w, 0) + 1
    return frozenset(w for w, c in counts.items() if c / len(seen) >= share)
