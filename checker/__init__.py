"""The sidecar checker: field profile R, completeness C, P/D/U state, flags, retention, action scoring.

The score types it returns live in `mustmaybe.records` (one public path each).

Imports only the stdlib, pydantic, the scenario models and the records: never AutoGen, never polars.
Its tooling (labeled sets, calibration, the combiner's trainer) is `mustmaybe.checker_tools`, which the
runtime never loads; the trainer reads the engine through `mustmaybe.checker.training`.
"""

from ._actions import score_action
from ._combiner import WEIGHTS_FILE, Combiner
from ._decide import decide
from ._instrument import CheckerSpecError
from ._judging import RUBRIC, RUBRIC_VERSION, JudgeAnswer, JudgeEvidence, judge_prompt, read_judge_prompt, score_answer
from ._model import CheckResult
from ._score import MAX_ARTIFACT_CHARS, check_artifact, score_artifact, score_view
from ._version import CHECKER_NAME, CHECKER_VERSION
from ._view import CheckerView, checker_view

__all__ = [
    "CHECKER_NAME",
    "CHECKER_VERSION",
    "MAX_ARTIFACT_CHARS",
    "RUBRIC",
    "RUBRIC_VERSION",
    "WEIGHTS_FILE",
    "CheckResult",
    "CheckerSpecError",
    "CheckerView",
    "Combiner",
    "JudgeAnswer",
    "JudgeEvidence",
    "check_artifact",
    "checker_view",
    "decide",
    "judge_prompt",
    "read_judge_prompt",
    "score_action",
    "score_answer",
    "score_artifact",
    "score_view",
]
