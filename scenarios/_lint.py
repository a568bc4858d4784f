"""Warnings about a valid task that the checker will measure badly: people named in the context, not in the view.

Every instrument sees only the task's view (goal, blocker, actions), while the agents read the full
context. When the context says "the Elections Director (Marisol Tate)" and the blocker's authority terms
do not list "Marisol Tate", a handoff that writes "waiting on Marisol" keeps the authority for every
reader but not for the checker: the authority field is under-counted in exactly the notes that name a
person. These warnings point the task's author at the names to add; they never fail validation.
"""

from __future__ import annotations

import re

from ._loader import Problem
from ._model import Scenario

# A person's name: two or three capitalized words, optionally after an honorific ("Dr. Amara Okafor").
_NAME = r"(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?(?:\s+[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?){1,2}"
# Capitalized words that start names of things, not people.
_NOT_PEOPLE = frozenset("""The This That These Those A An Our Their Its On In At By For From Until Unless No Not
    Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June July August
    September October November December Board Committee Office Team Department Council Group Unit Division""".split())


def _apposed_names(text: str, phrase: str) -> list[str]:
    """Names written in apposition to `phrase`: "<phrase> (<name>)", "<phrase>, <name>,", "<name> (<phrase>)",
    "<name>, the <phrase>", "<phrase> <name>" (a title before a name)."""
    p = re.escape(phrase)
    patterns = [
        rf"(?i:{p})\s*\(\s*({_NAME})",
        rf"(?i:{p}),\s+({_NAME})\s*[,.;)]",
        rf"({_NAME})\s*\(\s*(?:the\s+)?(?i:{p})",
        rf"({_NAME}),\s+(?:the\s+|our\s+|their\s+)?(?i:{p})\b",
        rf"\b(?i:{p})\s+({_NAME})\b",
    ]
    out = []
    for pat in patterns:
        for m in re.finditer(pat, text):
            name = m.group(1).strip()
            if name.split()[0].rstrip(".") not in _NOT_PEOPLE and not any(w in _NOT_PEOPLE for w in name.split()[1:]):
                out.append(name)
    return out


def view_warnings(scenario: Scenario, path: str) -> list[Problem]:
    """Names the context gives the authority that the view does not list (see the module docstring)."""
    b = scenario.blocker
    context = "\n".join(t for t in (scenario.full_context, scenario.visible_notes) if t)
    listed = " ".join([b.authority, *b.authority_terms]).lower()
    missing: dict[str, None] = {}
    for phrase in [b.authority, *b.authority_terms]:
        if len(phrase) < 3:
            continue
        for name in _apposed_names(context, phrase):
            bare = re.sub(r"^(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+", "", name)
            if not any(part.lower() in listed for part in bare.split()):
                missing.setdefault(bare, None)
    return [Problem(path, "blocker.authority_terms",
                    f"the context names the authority '{name}', which the authority terms do not list; "
                    "instruments see only the goal, blocker and actions, so a note that says "
                    f"'{name.split()[0]}' will not count as naming the authority (add the name, and the "
                    "first or last name it goes by)") for name in missing]
