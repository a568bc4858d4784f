"""The rules engine as the combiner's trainer reads it (`mustmaybe.checker_tools`); not a scoring API.

The trainer fits the combiner's weights on what the rule evaluators find, so it needs the engine's
inner steps: a text evaluated into verdicts, their feature vector, the wording reader, and verdicts
scored under a candidate combiner. They are named here, in one list, so the trainer lives apart from
the runtime checker and imports no private module of it, and a refactor of the engine changes this
list and nothing in the tooling. Scoring code uses the package's own API (`score_artifact`, …).
"""

from ._combiner import EVALUATORS, SCHEMA, SURE_TARGET, UNSURE_MARGIN, Combiner
from ._evaluate import evaluate
from ._features import feature_names, features
from ._fields import compiled_for
from ._lexical import common_words, grams, masked
from ._reading import Verdicts
from ._rules import FIELDS, score_verdicts

__all__ = [
    "EVALUATORS",
    "FIELDS",
    "SCHEMA",
    "SURE_TARGET",
    "UNSURE_MARGIN",
    "Combiner",
    "Verdicts",
    "common_words",
    "compiled_for",
    "evaluate",
    "feature_names",
    "features",
    "grams",
    "masked",
    "score_verdicts",
]
