"""Context-isolation audit: no sentence that only the full record holds may reach the executor."""

from __future__ import annotations

import functools
import re

from mustmaybe.records import Isolation
from mustmaybe.scenarios import Scenario

_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")
_MIN_WORDS = 4  # shorter fragments ("Policy VR-4:") are too generic to call a leak


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w]+", " ", text.lower()).split())


@functools.lru_cache(maxsize=1024)
def _private(full_context: str, public_text: str) -> tuple[tuple[str, str], ...]:
    """(sentence, normalized sentence) for each private sentence; once per task, not per episode."""
    public = _norm(public_text)
    out = []
    for raw in _SPLIT.split(full_context):
        s = raw.strip()
        if len(s.split()) >= _MIN_WORDS and _norm(s) and _norm(s) not in public:
            out.append((s, _norm(s)))
    return tuple(out)


def private_sentences(scenario: Scenario) -> list[str]:
    """Sentences of full_context that appear in neither visible_notes nor the goal."""
    return [s for s, _ in _private(scenario.full_context, scenario.visible_notes + " " + scenario.goal)]


def audit(scenario: Scenario, received: list[str], allowed: list[str]) -> Isolation:
    """Leaks in `received` outside the `allowed` texts (the artifact, and upstream agents' outputs)."""
    private = _private(scenario.full_context, scenario.visible_notes + " " + scenario.goal)
    leaks: list[str] = []
    allowed_norm = [_norm(a) for a in allowed if a.strip()]
    for text in received:
        t = _norm(text)
        for a in allowed_norm:
            t = t.replace(a, " ")
        for raw, n in private:
            if n in t and raw not in leaks:
                leaks.append(raw)
    return Isolation(ok=not leaks, leaks=leaks)
