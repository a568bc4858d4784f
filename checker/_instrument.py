"""Instrument specs (`--checker SPEC`): which instrument scores the artifacts.

Only `rules` (the deterministic checker) exists in this version; `judge:`, `panel:` and `routed:`
specs are recognised so that their error says what is missing rather than "unknown".
"""

from __future__ import annotations

from ._calibrate import Scorer
from ._score import score_artifact
from ._version import CHECKER_NAME


class CheckerSpecError(ValueError):
    """A `--checker` value that names no available instrument."""


def resolve_checker(spec: str) -> tuple[str, Scorer]:
    """The instrument's name and scoring function for a `--checker` spec.

    Args:
        spec: `rules` (default), or a judge spec.

    Returns:
        (name as recorded in outputs, scorer).

    Raises:
        CheckerSpecError: The spec names no instrument available here.
    """
    s = spec.strip()
    if s in ("", "rules"):
        return CHECKER_NAME, score_artifact
    kind = s.split(":", 1)[0]
    if kind in ("judge", "panel", "routed"):
        raise CheckerSpecError(f"--checker {s}: model judges ({kind}:) are not available in this version; "
                               "use --checker rules")
    raise CheckerSpecError(f"--checker {s}: unknown instrument (known: rules)")
