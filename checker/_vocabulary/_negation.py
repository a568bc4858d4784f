"""The vocabulary's negative-modal constructions: which verbs a clause puts under "do not", and double negation.

Task-independent vocabulary over normalized text (lowercase words, contractions expanded: "don't" is
"do not"). Action naming (`_actions`, the executor's action) reads these; the evaluators read `_constructions`.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ._classes import STOPWORDS, concept

# Negative modal + verb: "do not send", "must not be shared", "can not go out", "never export",
# "nothing may be erased".
_NEG_VERB = re.compile(
    r"\b(?:(?:do|does|did|must|should|shall|can|could|may|will|would|is|are|was|were)\s+not|never|not to|"
    r"not allowed to|not permitted to|not authorized to|not cleared to|not approved to|no|not (?:the|any|a|an)|"
    r"(?:nothing|none|no \w+)\s+(?:\w+\s+){0,8}?(?:may|can|should|must|shall|will|is to|are to)(?:\s+not)?|"
    r"(?:nobody|no one|none of us)\s+(?:is |are |was |gets? )?(?:\w+\s+)?(?:cleared|allowed|permitted|authorized|"
    r"approved|able|free) to)\s+"
    r"(?:(?:be|been|yet|ever|even|further|any|anything|more|get|gets)\s+)*(\w+)"
)

# Go-ahead words after a negative modal: the negation holds the action itself (PROCEED).
_GO_WORDS = frozenset({"ahead", "forward", "goout", "moveforward", "proceed", "out", "go", "through"})

# Double negation: a negator over a verb of omitting or delaying, which keeps what it governs.
_DOUBLE_NEG = re.compile(
    r"\b(?:not|never|no)\s+(?:need to\s+|reason to\s+)?(?:skip|skipping|forget|omit|drop|neglect|miss|bypass|delay|"
    r"postpone|hold back|hold up)\b"
)

# A verb coordinated after a negated one ("do not X or Y"): the negation covers it too.
_COORD_VERB = re.compile(r"\b(?:or|nor)\s+(?:any\s+)?([a-z]+)")


@lru_cache(maxsize=8192)
def prohibited_verbs(text: str) -> tuple[str, ...]:
    """Concept tokens of the verbs under a negative modal ("do not send" -> SEND)."""
    out: list[str] = []
    for m in _NEG_VERB.finditer(text):
        w = m.group(1)
        out.append("PROCEED" if w in _GO_WORDS else concept(w))
        # "do not create the account or share anything": the negation covers the coordinated verb.
        for c in _COORD_VERB.finditer(text, m.end(), min(len(text), m.end() + 60)):
            v = c.group(1)
            if v not in STOPWORDS:
                out.append("PROCEED" if v in _GO_WORDS else concept(v))
    return tuple(out)


@lru_cache(maxsize=8192)
def double_negation(text: str) -> bool:
    """'Do not skip X' and the like: a negation that keeps X."""
    return _DOUBLE_NEG.search(text) is not None
