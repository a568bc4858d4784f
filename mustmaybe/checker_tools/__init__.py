"""The checker's tooling, apart from the runtime checker: labeled sets, calibration and the combiner's trainer.

`mustmaybe.checker` scores artifacts; nothing here runs when it does. This package measures it
(`calibrate` on labeled sets, `mustmaybe calibrate`, `report --calibration`) and fits the combiner's
weights (`train_combiner`, run by `scripts/train_checker.py`; it needs numpy). The trainer reads the rules
engine through `mustmaybe.checker.training` only.
"""

from ._calibrate import Scorer, calibrate, field_block, intervals, state_block
from ._labeled import SPLITS, LabeledItem, LabeledSet, LabeledSetError, Split, load_labeled_set
from ._train import refit_combiner, train_combiner

__all__ = [
    "SPLITS",
    "LabeledItem",
    "LabeledSet",
    "LabeledSetError",
    "Scorer",
    "Split",
    "calibrate",
    "field_block",
    "intervals",
    "load_labeled_set",
    "refit_combiner",
    "state_block",
    "train_combiner",
]
