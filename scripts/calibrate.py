"""Print the checker's per-field / state F1 table and confusion matrix on tests/calibration/."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_calibration import evaluate, report

if __name__ == "__main__":
    print(report(evaluate()))
