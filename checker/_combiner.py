"""The learned combiner: logistic weights over the rule evaluators' features, one model per evaluator.

The rules find things (clauses, cues, events, spans); the combiner decides how much each finding is
worth. One logistic model per field (status, prerequisite, authority, fallback) predicts the field, and
one (`weakened`) predicts whether the note carries real weakening evidence; it gates the rules' flags
and their permission / fallback-dismissed findings before the one `decide()` rule reads them. Beside the
rules' findings each model reads the artifact's wording with the task's own words masked (`_lexical`):
a vocabulary of words and word pairs seen under many tuning tasks, each with a learned weight. The
weights are trained by `scripts/train_checker.py` on the labeled sets whose split is `tuning` only,
with cross-validation grouped by task; a field keeps the rules' own verdict when the learned model did
not beat it there. Inference is a dot product and a set lookup in plain Python: no model runtime.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from ._lexical import grams, masked

WEIGHTS_FILE = Path(__file__).resolve().parent / "combiner.json"
SCHEMA = "mustmaybe/checker-combiner@1"
EVALUATORS = ("status", "prerequisite", "authority", "fallback", "weakened")
# A probability within this distance of 0.5 is reported as unsure: where a judge should look.
UNSURE_MARGIN = 0.2
SURE_TARGET = 0.97


class Combiner:
    """Per-evaluator logistic models; an evaluator without a learned model keeps the rules' verdict."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.features: list[str] = list(spec["features"])
        self.models: dict[str, dict[str, Any]] = dict(spec["models"])
        # How sure the `weakened` model must be before the rules' weakening flags count (chosen in training).
        self.weakened_threshold: float = float(spec.get("weakened_threshold", 0.5))
        # How far from its decision point every learned probability must be for the score to call itself sure:
        # chosen in training so that sure items are right at least `SURE_TARGET` of the time when a whole
        # family of text is held out.
        self.sure_margin: float = float(spec.get("sure_margin", UNSURE_MARGIN))
        # The evaluators whose rules' verdict stands where the combiner is unsure (within UNSURE_MARGIN of 0.5):
        # chosen in training on the same held-out figures.
        self.rules_stand: tuple[str, ...] = tuple(spec.get("rules_stand", ("status", "fallback")))
        lexicon = spec.get("lexicon") or {}
        self.common: frozenset[str] = frozenset(lexicon.get("common", ()))
        self.vocabulary: dict[str, int] = {g: i for i, g in enumerate(lexicon.get("vocabulary", ()))}

    def wording(self, text: str, roles: Mapping[str, str]) -> frozenset[int]:
        """The vocabulary entries the artifact contains (empty when the combiner reads no wording)."""
        if not self.vocabulary:
            return frozenset()
        found = grams(masked(text, roles, self.common))
        return frozenset(i for g in found if (i := self.vocabulary.get(g)) is not None)

    def learned(self, evaluator: str) -> bool:
        """Whether this evaluator's verdict comes from the learned model (else the rules decide)."""
        m = self.models.get(evaluator)
        return m is not None and m.get("use") == "learned"

    def probability(self, evaluator: str, x: list[float], wording: frozenset[int] = frozenset()) -> float:
        """P(evaluator true | the rules' features and the artifact's wording)."""
        m = self.models[evaluator]
        z = float(m["bias"]) + math.fsum(w * v for w, v in zip(m["weights"], x, strict=True))
        if wording:
            lw = m["wording_weights"]
            z += math.fsum(lw[i] for i in wording)
        return 1.0 / (1.0 + math.exp(-max(min(z, 50.0), -50.0)))


@lru_cache(maxsize=1)
def shipped_combiner() -> Combiner:
    """The combiner whose weights ship with the checker (checked against the feature list on load)."""
    from ._features import feature_names

    spec = json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))
    if spec.get("schema") != SCHEMA or spec.get("features") != feature_names():
        raise RuntimeError(f"{WEIGHTS_FILE}: stale combiner weights (features changed); "
                           "run `python scripts/train_checker.py` to retrain them")
    return Combiner(spec)
