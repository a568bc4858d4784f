"""Print the checker's per-field / state F1 table and confusion matrix.

Usage: python scripts/calibrate.py [calibration|heldout]   (default: both)
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_calibration import CAL, HELDOUT, evaluate, report

if __name__ == "__main__":
    which = sys.argv[1:] or ["calibration", "heldout"]
    for name in which:
        print(report(evaluate({"calibration": CAL, "heldout": HELDOUT}[name])))
        print()
