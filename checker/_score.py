"""Scoring entry points: `score_artifact` (every transmitted message) and `check_artifact` (the CLI)."""

from __future__ import annotations

from mustmaybe.scenarios import Scenario

from ._fields import compiled_for, compiled_for_view
from ._model import ArtifactScore, CheckResult
from ._rules import score
from ._version import CHECKER_NAME, CHECKER_VERSION
from ._view import CheckerView

# The longest artifact `check` scores (about 50,000 words): scoring is linear in length, and a text longer than
# this is no single handoff; `check` refuses it with a one-line message naming the limit.
MAX_ARTIFACT_CHARS = 300_000


def score_artifact(scenario: Scenario, text: str) -> ArtifactScore:
    """Score one handoff artifact against the task's canonical blocker.

    Deterministic and fast: the scenario's matchers are compiled once and cached by task id and
    content hash.

    Args:
        scenario: The task whose blocker z = (s, q, o, f) is the reference.
        text: The artifact text (any message transmitted in the episode).

    Returns:
        The field profile R, completeness C, the P/D/U state, weakening flags and the retention score.
    """
    return score(compiled_for(scenario), text)


def score_view(view: CheckerView, text: str) -> ArtifactScore:
    """Score an artifact from a checker view alone (what a simulated judge has)."""
    return score(compiled_for_view(view), text)


def check_artifact(scenario: Scenario, text: str) -> CheckResult:
    """`mustmaybe check --json`: the artifact score plus the task id and the checker version.

    Args:
        scenario: The task.
        text: The artifact text.

    Returns:
        The contract record (contracts/SCENARIO_FORMAT.md, "Checker output").
    """
    s = score_artifact(scenario, text)
    return CheckResult(task=scenario.id, checker_version=CHECKER_VERSION, **{**dict(s), "checker": CHECKER_NAME})
