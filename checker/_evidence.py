"""Evidence spans: the artifact's own text behind each verdict.

The rules reason on normalized clauses (lowercase, contractions expanded, synonyms joined), which
have no offsets into the artifact. A verdict's evidence is mapped back to the raw unit (a sentence,
a line, a list item, a `key: value` line) that carries the most of the clause's words, so every span
is `artifact[start:end]` exactly as read and a reader can see why a note was scored as it was.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ._model import Span
from ._text import normalize

# Unit boundaries in the raw text: sentence ends (not inside "v2.1" or "Mr. X": a boundary needs white
# space after the mark), semicolons, line breaks.
_BOUNDARY = re.compile(r"(?<=[.!?])\s+|;\s*|\n+")
_TRIM = " \t\r\n-*•>#|"


def raw_units(text: str) -> list[tuple[int, int]]:
    """Offsets of the raw text's units, trimmed of blanks and list markers; empty units dropped."""
    out: list[tuple[int, int]] = []
    pos = 0
    for m in [*_BOUNDARY.finditer(text), None]:
        end = m.start() if m is not None else len(text)
        a, b = pos, end
        while a < b and text[a] in _TRIM:
            a += 1
        while b > a and text[b - 1] in " \t\r\n":
            b -= 1
        if b > a:
            out.append((a, b))
        if m is not None:
            pos = m.end()
    return out


class EvidenceMapper:
    """Maps normalized clause words back to spans of one artifact (units normalized once)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.units = raw_units(text)
        self._words = [set(normalize(text[a:b]).split()) for a, b in self.units]

    def locate(self, toks: Iterable[str]) -> tuple[int, int] | None:
        """The unit carrying most of `toks` (ties: the shorter unit), or None when none shares a word."""
        want = {t for t in toks if t}
        if not want:
            return None
        best: tuple[float, int, int] | None = None
        for i, ws in enumerate(self._words):
            hit = len(want & ws)
            if not hit:
                continue
            a, b = self.units[i]
            key = (hit / len(want), -(b - a), i)
            if best is None or key > best:
                best = key
        if best is None:
            return None
        return self.units[best[2]]

    def spans(self, items: Iterable[tuple[list[str], str | None]]) -> list[Span]:
        """Distinct spans, in text order, for (clause words, note) items."""
        seen: dict[tuple[int, int], str | None] = {}
        for toks, note in items:
            at = self.locate(toks)
            if at is not None and at not in seen:
                seen[at] = note
        return [Span(start=a, end=b, text=self.text[a:b], note=seen[(a, b)]) for a, b in sorted(seen)]
