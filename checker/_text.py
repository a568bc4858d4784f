"""Text normalization and concept tokens (segmentation into sentences and clauses is `_segment`).

Normalized text is lowercase words separated by single spaces, contractions expanded
("don't" -> "do not"), multi-word synonyms joined ("sign-off" -> "signoff"). Matching on it
is case- and punctuation-insensitive.
"""

from __future__ import annotations

import re
from itertools import pairwise

from ._vocabulary import LOW_RISK_PHRASES, PHRASES, concept

_QUOTES = str.maketrans({"’": "'", "‘": "'", "`": "'", "“": '"', "”": '"', "–": " - ", "—": " - ", "\u00a0": " "})
_CONTRACTION = re.compile(
    r"\b(?:can'?t|cannot|won'?t|shan'?t|ain'?t)\b|"
    r"\b(do|does|did|is|are|was|were|has|have|had|should|must|could|would|need)n'?t\b|"
    r"\b(it|that|what|there|here|who|he|she|this)'s\b|"
    r"\b(i|we|you|they|he|she|it)'d\b|"
    r"'(re|ll|ve|m|s)\b"
)
_WHOLE = {"cant": "can not", "can't": "can not", "cannot": "can not", "wont": "will not", "won't": "will not",
          "shant": "shall not", "shan't": "shall not", "aint": "is not", "ain't": "is not"}
_SUFFIX = {"re": " are", "ll": " will", "ve": " have", "m": " am", "s": ""}


def _expand(m: re.Match[str]) -> str:
    if m.group(1):
        return f"{m.group(1)} not"
    if m.group(2):
        return f"{m.group(2)} is"
    if m.group(3):
        return f"{m.group(3)} would"
    if m.group(4):
        return _SUFFIX[m.group(4)]
    return _WHOLE[m.group(0)]
_NON_WORD = re.compile(r"[^a-z0-9]+")
_PHRASE_RE = re.compile(r"\b(?:" + "|".join(re.escape(a) for a, _ in PHRASES) + r")\b")
_PHRASE_MAP = dict(PHRASES)
_LOW_RISK_RE = re.compile(r"\b(?:" + "|".join(re.escape(p) for p in LOW_RISK_PHRASES) + r")\b")

# A line break inside wrapped prose is a space; it ends a sentence only before a bullet, a numbered
# step, a "Label:" line or a blank line.
_LIST_LINE = re.compile(r"^\s*(?:[-*•]\s|\d{1,2}[.)]\s|\[)")
_LABEL_LINE = re.compile(
    r"^\s*(?:[A-Z][A-Za-z0-9 _/&'-]{0,30}|[a-z][a-z0-9_/&'-]{0,24}(?: [a-z][a-z0-9_/&'-]{0,24}){0,4})\s*[:=]"
)


def _join_wrapped(text: str) -> str:
    """Join lines of wrapped prose; keep a break before a bullet, a numbered step, a blank line or a
    "Label:" line (a lowercase one-word label only inside a record of such lines)."""
    lines = text.split("\n")
    out = [lines[0]]
    for prev, line in pairwise(lines):
        keep = (not line.strip() or not prev.strip() or _LIST_LINE.match(line) is not None
                or prev.rstrip().endswith((".", ":", ";", "!", "?")))
        m = _LABEL_LINE.match(line)
        if m and not keep:
            label = m.group(0).strip()
            keep = label[:1].isupper() or "_" in label or _LABEL_LINE.match(prev) is not None
        out.append(("\n" if keep else " ") + line.strip())
    return "".join(out)
_CLOCK = re.compile(r"(\d):(\d\d)\b")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")


def prepare(text: str) -> str:
    """Lowercase, unify quotes and dashes, expand contractions and join wrapped lines (punctuation is kept)."""
    t = _join_wrapped(text.translate(_QUOTES)).lower()
    if "," in t:
        t = _THOUSANDS.sub("", t)  # a thousands separator ("4,000") is one number, not two clauses
    if ":" in t:
        t = _CLOCK.sub(r"\1\2", t)  # "14:00" is a time, not a label
    if "need-to-know" in t:
        t = t.replace("need-to-know", "needtoknow")  # a compound noun, not "need"
    return _CONTRACTION.sub(_expand, t)


_DIGIT_DOT = re.compile(r"(?<=\d)[.](?=\d)")
_SPLIT_OFF = re.compile(
    r"\b(turn|turned|turning|switch|switched|switching|shut|shutting)\s+"
    r"((?:\w+\s+){0,3}?\w+)\s+off\b(?!\s+(?:the|a|an|for|to|on|at|with|by)\s+\w+\s+(?:list|hook))"
)
_OFF_VERB = {"turn": "turnoff", "turned": "turnoff", "turning": "turnoff", "switch": "switchoff",
             "switched": "switchoff", "switching": "switchoff", "shut": "shutoff", "shutting": "shutoff"}


def words(text: str) -> str:
    """Normalized word string of already `prepare`d text: alphanumerics only, synonyms joined."""
    if "." in text:
        text = _DIGIT_DOT.sub("", text)
    t = " ".join(_NON_WORD.sub(" ", text).split())
    if " off" in t:
        t = _SPLIT_OFF.sub(lambda m: f"{_OFF_VERB[m.group(1)]} {m.group(2)}", t)
    return _PHRASE_RE.sub(lambda m: _PHRASE_MAP[m.group(0)], t)


def plain(text: str) -> str:
    """Normalized words without joining multi-word synonyms (for acronyms)."""
    return " ".join(_NON_WORD.sub(" ", prepare(text)).split())


def normalize(text: str) -> str:
    """Normalize raw text for phrase matching (case, punctuation, contractions, joined synonyms).

    Args:
        text: Any text.

    Returns:
        Lowercase words separated by single spaces.
    """
    return words(prepare(text))


_OK_NOT_NOUN_BEFORE = frozenset({"is", "it", "all", "looks", "seems", "fine", "be", "are", "was", "that", "sounds"})


def concepts_of(normalized: str) -> list[str]:
    """Concept tokens of a normalized string (low-risk phrases blanked, aligned with its words)."""
    blanked = _LOW_RISK_RE.sub(lambda m: " ".join("_" * len(m.group(0).split())), normalized)
    toks = blanked.split()
    out = [concept(w) for w in toks]
    for i, w in enumerate(toks):
        # "needs <role> ok", "get an okay": ok as a noun is an approval; "ok to send" is not.
        if w in ("ok", "okay") and 0 < i and toks[i - 1] not in _OK_NOT_NOUN_BEFORE and (
            i + 1 == len(toks) or toks[i + 1] not in ("to", "for", "with")
        ):
            out[i] = "APPROVAL"
    return out


def has_low_risk(normalized: str) -> bool:
    """True when the text frames something as low risk."""
    return _LOW_RISK_RE.search(normalized) is not None
