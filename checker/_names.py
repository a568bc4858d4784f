"""Names in a task's own words: the initials of its phrases ("Vendor Risk Review" -> "vrr") and the
authority's people (a first name or a surname alone for "<First> <Surname>")."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ._text import plain
from ._vocabulary import STOPWORDS, concept

_NOT_ACRONYM = frozenset({"ok", "pm", "am", "id", "eg", "ie", "vs", "re", "tv", "ad", "ip", "fy", "pr", "qa"})


def acronyms(phrase: str, short: bool) -> set[str]:
    """Initials of a phrase ("Vendor Risk Review" -> "vrr"); two letters only when `short`."""
    ws = [w for w in plain(phrase).split() if w not in STOPWORDS and not w.isdigit()]
    out: set[str] = set()
    if len(ws) > 5:
        return out
    for hi in (len(ws), len(ws) - 1):
        part = ws[:hi]
        if len(part) >= 2:
            acr = "".join(w[0] for w in part)
            if acr in STOPWORDS or acr in _NOT_ACRONYM:
                continue
            if len(acr) >= 3 or short:
                out.add(acr)
    return out



_NAME_RUN = re.compile(r"^(?:(?:Mr|Ms|Mrs|Dr|Prof)\.?\s+)?([A-Z][a-z'’-]+(?:\s+[A-Z][a-z'’-]+){0,2})$")
# Words of roles, never of a person's name ("(Qualified Person)", "(deputy head)").
_ROLE_WORDS = frozenset({"person", "qualified", "officer", "manager", "head", "lead", "chair", "director", "counsel",
                         "deputy", "chief", "senior", "principal", "board", "committee", "team", "office", "group",
                         "owner", "engineer", "adviser", "advisor", "assessor", "reviewer", "inspector", "duty"})
_TITLE_ONLY = re.compile(r"^(?:Mr|Ms|Mrs|Dr|Prof)\.?\s+")


def person_names(authority: str, terms: Sequence[str]) -> re.Pattern[str] | None:
    """The authority's people, from the task's own words: a name in parentheses after the role ("Director
    of <Unit> (<First> <Surname>)"), or a term of capitalized words that shares no word with the
    role and names no class (a role such as "<Unit> Integrity" maps to vocabulary; a name does not). Each
    word of three letters or more then names the person on its own."""
    role, _, paren = authority.partition("(")
    role, _, appositive = role.partition(",")
    role_words = {w.lower() for w in re.findall(r"[A-Za-z]+", role)}
    # In parentheses or after a comma ("<role>, <First> <Surname>") the position says it is a name, so a word
    # that is also vocabulary (a surname that is also a verb) is dropped on its own; a bare term needs every
    # word to be a name.
    placed = [c for c in (paren.rstrip(") ").strip(), appositive.strip()) if c]
    candidates = [(c, True) for c in placed] + [(t.strip(), False) for t in terms]
    words: set[str] = set()
    for c, trusted in candidates:
        m = _NAME_RUN.match(c)
        if m is None:
            continue
        run = m.group(1).split()
        titled = _TITLE_ONLY.match(c) is not None
        common = [w for w in run if w.lower() in role_words | _ROLE_WORDS or w.lower() in STOPWORDS
                  or concept(w.lower()).isupper()]
        if (common and not (trusted and len(common) < len(run))) or (len(run) < 2 and not titled):
            continue
        words |= {w for w in run if len(w) >= 3 and w not in common}
    if not words:
        return None
    return re.compile(r"\b(?:" + "|".join(sorted(map(re.escape, words))) + r")\b")
