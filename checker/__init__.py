"""The sidecar checker: field profile R, completeness C, P/D/U state, flags, retention, action scoring.

Imports only the stdlib, pydantic and the scenario models: never AutoGen, never polars.
"""

from ._actions import score_action
from ._model import ActionRule, ActionScore, ArtifactScore, CheckResult, FieldProfile, Flags, State
from ._score import check_artifact, score_artifact
from ._version import CHECKER_VERSION

__all__ = [
    "CHECKER_VERSION",
    "ActionRule",
    "ActionScore",
    "ArtifactScore",
    "CheckResult",
    "FieldProfile",
    "Flags",
    "State",
    "check_artifact",
    "score_action",
    "score_artifact",
]
