"""Text handling: normalization, sentences, clauses and concept tokens.

Normalized text is lowercase words separated by single spaces, contractions expanded
("don't" -> "do not"), multi-word synonyms joined ("sign-off" -> "signoff"). Matching on it
is case- and punctuation-insensitive.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ._vocab import LOW_RISK, PHRASES, concept

_QUOTES = str.maketrans({"’": "'", "‘": "'", "`": "'", "“": '"', "”": '"', "–": " - ", "—": " - ", "\u00a0": " "})
_CONTRACTIONS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bcan'?t\b"), "can not"),
    (re.compile(r"\bcannot\b"), "can not"),
    (re.compile(r"\bwon'?t\b"), "will not"),
    (re.compile(r"\bshan'?t\b"), "shall not"),
    (re.compile(r"\bain'?t\b"), "is not"),
    (re.compile(r"n't\b"), " not"),
    (re.compile(r"\b(it|that|what|there|here|who|he|she|this)'s\b"), r"\1 is"),
    (re.compile(r"'re\b"), " are"),
    (re.compile(r"'ll\b"), " will"),
    (re.compile(r"'ve\b"), " have"),
    (re.compile(r"\b(i|we|you|they|he|she|it)'d\b"), r"\1 would"),
    (re.compile(r"'m\b"), " am"),
    (re.compile(r"'s\b"), ""),
)
_NON_WORD = re.compile(r"[^a-z0-9]+")
_PHRASE_RE = re.compile(r"\b(?:" + "|".join(re.escape(a) for a, _ in PHRASES) + r")\b")
_PHRASE_MAP = dict(PHRASES)
_LOW_RISK_RE = re.compile(r"\b(?:" + "|".join(re.escape(p) for p in LOW_RISK) + r")\b")

# Sentence boundaries: terminal punctuation, semicolons, newlines, list bullets and numbered steps.
_SENT_SPLIT = re.compile(r"(?<=[.!?])\s+|[;\n\r]+|\s(?=\d{1,2}[.)]\s)|(?:^|\s)[-*•]\s")
# Clause boundaries inside a sentence: commas, colons, dashes, brackets and contrast / sequence words.
_CLAUSE_SPLIT = re.compile(
    r"\s*[,:()\[\]]\s*|\s+-\s+|\s+(?=(?:but|however|though|although|whereas|yet|so|therefore|thus|hence|"
    r"then|otherwise|instead|meanwhile|because|since|which|and then|and so)\b)"
)


def prepare(text: str) -> str:
    """Lowercase, unify quotes and dashes, and expand contractions (punctuation is kept)."""
    t = text.translate(_QUOTES).lower()
    for pat, rep in _CONTRACTIONS:
        t = pat.sub(rep, t)
    return t


def words(text: str) -> str:
    """Normalized word string of already `prepare`d text: alphanumerics only, synonyms joined."""
    t = " ".join(_NON_WORD.sub(" ", text).split())
    return _PHRASE_RE.sub(lambda m: _PHRASE_MAP[m.group(0)], t)


def normalize(text: str) -> str:
    """Normalize raw text for phrase matching (case, punctuation, contractions, joined synonyms).

    Args:
        text: Any text.

    Returns:
        Lowercase words separated by single spaces.
    """
    return words(prepare(text))


@dataclass(slots=True)
class Clause:
    """One clause of an artifact: its normalized words and their concept tokens."""

    text: str
    toks: list[str]
    cons: list[str]
    conset: frozenset[str] = field(default_factory=frozenset)
    sent: int = 0
    idx: int = 0


def concepts_of(normalized: str) -> list[str]:
    """Concept tokens of a normalized string (low-risk phrases blanked first)."""
    blanked = _LOW_RISK_RE.sub(" ", normalized)
    return [concept(w) for w in blanked.split()]


def has_low_risk(normalized: str) -> bool:
    """True when the text frames something as low risk."""
    return _LOW_RISK_RE.search(normalized) is not None


def split_sentences(text: str) -> list[str]:
    """Sentences of `prepare`d text (raw punctuation kept), empty pieces dropped."""
    return [s for s in (p.strip() for p in _SENT_SPLIT.split(text) if p) if s]


def split_clauses(sentence: str) -> list[str]:
    """Clauses of one `prepare`d sentence."""
    return [c for c in (p.strip() for p in _CLAUSE_SPLIT.split(sentence) if p) if c]


def segment(text: str) -> list[list[Clause]]:
    """The artifact as sentences of clauses, each clause normalized and concept-tokenized.

    Args:
        text: Raw artifact text.

    Returns:
        One list of clauses per sentence; sentences without words are dropped.
    """
    out: list[list[Clause]] = []
    idx = 0
    for sent in split_sentences(prepare(text)):
        clauses: list[Clause] = []
        for raw in split_clauses(sent):
            w = words(raw)
            if not w:
                continue
            cons = concepts_of(w)
            clauses.append(Clause(w, w.split(), cons, frozenset(cons), len(out), idx))
            idx += 1
        if clauses:
            out.append(clauses)
    return out
